// SummaryStatistics: two-pass mean and variance, Student-t quantile from Boost.Math.
#include "analysis/summary_statistics.hpp"

#include <boost/math/distributions/students_t.hpp>
#include <cmath>

namespace codesim::analysis {

double student_t95(int dof) {
  boost::math::students_t dist(static_cast<double>(dof));
  return boost::math::quantile(dist, 0.975);
}

SummaryStatistics summarize(std::span<const double> values) {
  SummaryStatistics s;
  s.n = static_cast<int>(values.size());
  if (s.n == 0) return s;
  double sum = 0.0;
  for (double v : values) sum += v;
  s.mean = sum / s.n;
  if (s.n < 2) return s;
  double squares = 0.0;
  for (double v : values) squares += (v - s.mean) * (v - s.mean);
  const double sd = std::sqrt(squares / (s.n - 1));
  s.stderr_mean = sd / std::sqrt(static_cast<double>(s.n));
  s.ci95 = student_t95(s.n - 1) * s.stderr_mean;
  return s;
}

}  // namespace codesim::analysis
