// The Monte Carlo tests' yardstick: a 99.9% Wilson score interval of a binomial proportion, and
// the check that a predicted probability lies inside the one of an observed count.
#pragma once

#include <doctest/doctest.h>

#include <cmath>

namespace codesim::models::testing {

struct Interval {
  double low = 0.0;
  double high = 1.0;
};

inline Interval wilson(long successes, long trials) {
  const double z = 3.2905;
  const double n = static_cast<double>(trials);
  const double phat = static_cast<double>(successes) / n;
  const double denominator = 1.0 + z * z / n;
  const double center = (phat + z * z / (2 * n)) / denominator;
  const double half = z * std::sqrt(phat * (1 - phat) / n + z * z / (4 * n * n)) / denominator;
  return {center - half, center + half};
}

/// `predicted` lies in the 99.9% interval of `failures` out of `trials`.
inline void check_within(long failures, long trials, double predicted) {
  CAPTURE(failures);
  CAPTURE(trials);
  CAPTURE(predicted);
  REQUIRE(trials > 0);
  const Interval interval = wilson(failures, trials);
  CHECK(predicted >= interval.low);
  CHECK(predicted <= interval.high);
}

}  // namespace codesim::models::testing
