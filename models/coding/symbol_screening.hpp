// Screening of received symbols: their peaks, and which peaks are too absurd to be data.
// Shared by the decoder and by callers that measure peaks once for several decodes.
#pragma once

#include <Eigen/Core>
#include <span>
#include <vector>

namespace codesim::models {

/// Largest |entry| of data[0, length) (0 when empty); +Inf when an entry is NaN or Inf.
double symbol_peak(const double* data, Eigen::Index length);
/// Marks the peaks that are infinite or above absurd_ratio times the needed-th smallest nonzero
/// peak (negative peaks are absent symbols, never marked).
std::vector<bool> absurd_peaks(std::span<const double> peaks, int needed, double absurd_ratio);

}  // namespace codesim::models
