// Mean, standard error and Student-t interval of replica metrics.
#include "analysis/summary_statistics.hpp"

#include <doctest/doctest.h>

#include <vector>

using codesim::analysis::summarize;

TEST_CASE("summary of known values matches hand computation") {
  std::vector<double> v{1, 2, 3, 4};
  auto s = summarize(v);
  CHECK(s.n == 4);
  CHECK(s.mean == doctest::Approx(2.5));
  // sample sd = sqrt(5/3) = 1.29099; stderr = 0.645497; t(3) = 3.182446
  CHECK(s.stderr_mean == doctest::Approx(0.645497).epsilon(1e-5));
  CHECK(s.ci95 == doctest::Approx(3.182446 * 0.645497).epsilon(1e-5));
}

TEST_CASE("a single replica has zero spread and an empty set has n = 0") {
  std::vector<double> one{7.0};
  auto s = summarize(one);
  CHECK(s.mean == 7.0);
  CHECK(s.ci95 == 0.0);
  CHECK(summarize({}).n == 0);
}

TEST_CASE("the Student-t quantile approaches 1.96 for many degrees of freedom") {
  CHECK(codesim::analysis::student_t95(1) == doctest::Approx(12.706).epsilon(1e-4));
  CHECK(codesim::analysis::student_t95(100000) == doctest::Approx(1.95996).epsilon(1e-4));
}
