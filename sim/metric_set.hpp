// Named scalar metrics of one replica, kept in insertion order so outputs are deterministic.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace codesim::sim {

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

 private:
  double* find(std::string_view name);
  std::vector<std::pair<std::string, double>> scalars_;
};

}  // namespace codesim::sim
