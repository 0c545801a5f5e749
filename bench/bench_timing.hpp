// What the benchmarks share to time runs and summarize them.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <vector>

namespace codesim::bench {

/// Wall seconds since `start` on the steady clock.
inline double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

/// The median (the mean of the two middle values for an even count); `values` non-empty.
inline double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t middle = values.size() / 2;
  return values.size() % 2 ? values[middle] : 0.5 * (values[middle - 1] + values[middle]);
}

}  // namespace codesim::bench
