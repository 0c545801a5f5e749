// MetricSet: a small ordered name -> value list (metric counts are tiny, so linear search).
#include "sim/metric_set.hpp"

#include "sim/check.hpp"

namespace codesim::sim {

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

}  // namespace codesim::sim
