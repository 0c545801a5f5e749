// Mean, standard error and 95% confidence half-width of replica metrics.
#pragma once

#include <span>

namespace codesim::analysis {

struct SummaryStatistics {
  double mean = 0.0;
  double stderr_mean = 0.0;  ///< standard error of the mean (sample sd / sqrt(n)); 0 when n < 2
  double ci95 = 0.0;         ///< half-width of the Student-t 95% interval; 0 when n < 2
  int n = 0;
};

/// Summarises `values` (finite or not; a non-finite value makes mean/stderr/ci95 non-finite).
SummaryStatistics summarize(std::span<const double> values);

/// Two-sided 95% Student-t quantile for `dof` >= 1 degrees of freedom.
double student_t95(int dof);

}  // namespace codesim::analysis
