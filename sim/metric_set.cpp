// MetricSet: small ordered name -> value and name -> table lists (metric counts are tiny, so
// linear search).
#include "sim/metric_set.hpp"

#include <algorithm>

#include "sim/check.hpp"

namespace codesim::sim {

double MetricSeries::at(std::size_t row, std::size_t column) const {
  CODESIM_CHECK(row < rows() && column < columns.size(), "series cell out of range");
  return values[row * columns.size() + column];
}

std::size_t MetricSeries::column_index(std::string_view column_name) const {
  const auto it = std::find(columns.begin(), columns.end(), column_name);
  CODESIM_CHECK(it != columns.end(), "unknown series column");
  return static_cast<std::size_t>(it - columns.begin());
}

std::vector<double> MetricSeries::column(std::string_view column_name) const {
  const std::size_t index = column_index(column_name);
  std::vector<double> out;
  out.reserve(rows());
  for (std::size_t row = 0; row < rows(); ++row) out.push_back(at(row, index));
  return out;
}

void MetricSet::set_note(std::string_view name, std::string text) {
  for (auto& [key, value] : notes_) {
    if (key == name) {
      value = std::move(text);
      return;
    }
  }
  notes_.emplace_back(std::string(name), std::move(text));
}

double* MetricSet::find(std::string_view name) {
  for (auto& [key, value] : scalars_)
    if (key == name) return &value;
  return nullptr;
}

void MetricSet::set(std::string_view name, double value) {
  if (double* slot = find(name)) {
    *slot = value;
  } else {
    scalars_.emplace_back(std::string(name), value);
  }
}

void MetricSet::add(std::string_view name, double value) {
  if (double* slot = find(name)) {
    *slot += value;
  } else {
    scalars_.emplace_back(std::string(name), value);
  }
}

bool MetricSet::contains(std::string_view name) const {
  for (const auto& entry : scalars_)
    if (entry.first == name) return true;
  return false;
}

double MetricSet::get(std::string_view name) const {
  for (const auto& [key, value] : scalars_)
    if (key == name) return value;
  CODESIM_CHECK(false, "unknown metric");
}

MetricSeries* MetricSet::find_series(std::string_view name) {
  for (auto& s : series_)
    if (s.name == name) return &s;
  return nullptr;
}

void MetricSet::add_series(std::string_view name, std::vector<std::string> columns) {
  CODESIM_CHECK(find_series(name) == nullptr, "series already exists");
  CODESIM_CHECK(!columns.empty(), "a series needs at least one column");
  for (std::size_t i = 0; i < columns.size(); ++i)
    for (std::size_t j = i + 1; j < columns.size(); ++j)
      CODESIM_CHECK(columns[i] != columns[j], "series column names must be distinct");
  series_.push_back(MetricSeries{std::string(name), std::move(columns), {}});
}

void MetricSet::append_row(std::string_view name, std::span<const double> row) {
  MetricSeries* s = find_series(name);
  CODESIM_CHECK(s != nullptr, "unknown series");
  CODESIM_CHECK(row.size() == s->columns.size(), "one value per series column");
  s->values.insert(s->values.end(), row.begin(), row.end());
}

bool MetricSet::contains_series(std::string_view name) const {
  for (const auto& s : series_)
    if (s.name == name) return true;
  return false;
}

const MetricSeries& MetricSet::series(std::string_view name) const {
  for (const auto& s : series_)
    if (s.name == name) return s;
  CODESIM_CHECK(false, "unknown series");
}

}  // namespace codesim::sim
