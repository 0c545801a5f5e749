// Symbol peaks (eight lanes, NaN/Inf poisoning) and the absurd-peak screen.
#include "models/coding/symbol_screening.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace codesim::models {

using Eigen::Index;

std::vector<bool> absurd_peaks(std::span<const double> peaks, int needed, double absurd_ratio) {
  std::vector<bool> absurd(peaks.size(), false);
  std::vector<double> nonzero;
  for (std::size_t s = 0; s < peaks.size(); ++s) {
    if (std::isinf(peaks[s])) absurd[s] = true;
    if (peaks[s] > 0.0 && !absurd[s]) nonzero.push_back(peaks[s]);
  }
  if (needed < 1 || static_cast<int>(nonzero.size()) < needed) return absurd;
  const auto reference = nonzero.begin() + (needed - 1);
  std::nth_element(nonzero.begin(), reference, nonzero.end());
  for (std::size_t s = 0; s < peaks.size(); ++s) {
    if (peaks[s] > absurd_ratio * *reference) absurd[s] = true;
  }
  return absurd;
}

double symbol_peak(const double* data, Index length) {
  // Eight lanes at a time in independent accumulators (a single one would wait on its own latency
  // every step): the peak of |x|, and the sum of x - x, which is 0 for finite entries and NaN when
  // an entry is NaN or infinite. Maxima are exact, so the order does not change the result.
  using Lanes = Eigen::Array<double, 8, 1>;
  Lanes peaks = Lanes::Zero();
  Lanes poison = Lanes::Zero();
  Index i = 0;
  for (; i + 8 <= length; i += 8) {
    const Eigen::Map<const Lanes> x(data + i);
    peaks = peaks.max(x.abs());
    poison += x - x;
  }
  double peak = peaks.maxCoeff();
  double tail_poison = poison.sum();
  for (; i < length; ++i) {
    peak = std::max(peak, std::abs(data[i]));
    tail_poison += data[i] - data[i];
  }
  return tail_poison == 0.0 ? peak : std::numeric_limits<double>::infinity();
}

}  // namespace codesim::models
