// Named metrics of one replica, kept in insertion order so outputs are deterministic: scalars, and
// series (small tables of rows of doubles under named columns, such as accuracy versus time).
#pragma once

#include <cstddef>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace codesim::sim {

/// A table of doubles: `columns` name the columns, `values` holds the rows one after another.
struct MetricSeries {
  std::string name;
  std::vector<std::string> columns;
  std::vector<double> values;  ///< row-major: rows() * columns.size() entries

  std::size_t rows() const { return columns.empty() ? 0 : values.size() / columns.size(); }
  /// The value in `row` and `column` (both 0-based); CODESIM_CHECK that they exist.
  double at(std::size_t row, std::size_t column) const;
  /// Index of the column called `column_name`; CODESIM_CHECK that it exists.
  std::size_t column_index(std::string_view column_name) const;
  /// The values of column `column_name`, first row first.
  std::vector<double> column(std::string_view column_name) const;
};

class MetricSet {
 public:
  /// Sets `name` to `value`, appending it when new.
  void set(std::string_view name, double value);
  /// Adds `value` to `name` (starting from 0 when new).
  void add(std::string_view name, double value);
  /// The value of `name`; CODESIM_CHECK that it exists.
  double get(std::string_view name) const;
  bool contains(std::string_view name) const;
  const std::vector<std::pair<std::string, double>>& scalars() const { return scalars_; }

  /// Sets the note `name` (a line of text such as why a run stopped), appending it when new.
  /// Notes are not aggregated over replicas.
  void set_note(std::string_view name, std::string text);
  const std::vector<std::pair<std::string, std::string>>& notes() const { return notes_; }

  /// Starts an empty series `name` with `columns` (non-empty, distinct names); CODESIM_CHECK that
  /// no series of that name exists yet.
  void add_series(std::string_view name, std::vector<std::string> columns);
  /// Appends one row (one value per column) to series `name`; CODESIM_CHECK that it exists and
  /// that the row has the right length.
  void append_row(std::string_view name, std::span<const double> row);
  void append_row(std::string_view name, std::initializer_list<double> row) {
    append_row(name, std::span<const double>(row.begin(), row.size()));
  }
  bool contains_series(std::string_view name) const;
  /// Series `name`; CODESIM_CHECK that it exists.
  const MetricSeries& series(std::string_view name) const;
  /// Every series, in the order added.
  const std::vector<MetricSeries>& all_series() const { return series_; }

 private:
  double* find(std::string_view name);
  MetricSeries* find_series(std::string_view name);
  std::vector<std::pair<std::string, double>> scalars_;
  std::vector<std::pair<std::string, std::string>> notes_;
  std::vector<MetricSeries> series_;
};

}  // namespace codesim::sim
