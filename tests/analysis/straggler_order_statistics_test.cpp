// The K-th fastest of P straggling nodes: closed forms against identities and against the
// simulator's own draws.
#include <doctest/doctest.h>

#include <cmath>
#include <variant>
#include <vector>

#include "analysis/straggler_order_statistics.hpp"

namespace {

using codesim::analysis::expected_order_statistic;

std::vector<codesim::sim::StragglerSpec> laws() {
  return {codesim::sim::NoStraggler{}, codesim::sim::ShiftedExponentialStraggler{1.0, 0.5},
          codesim::sim::ParetoStraggler{1.0, 3.0}, codesim::sim::BimodalStraggler{0.1, 5.0},
          codesim::sim::LognormalStraggler{0.0, 0.5}};
}

double mean_of(const codesim::sim::StragglerSpec& law) {
  return codesim::sim::make_straggler_model(law)->mean_factor();
}

// E[X^2] of each law, written out here (not by the code under test).
double second_moment_of(const codesim::sim::StragglerSpec& law) {
  if (const auto* l = std::get_if<codesim::sim::ShiftedExponentialStraggler>(&law)) {
    return l->shift * l->shift + 2.0 * l->shift / l->rate + 2.0 / (l->rate * l->rate);
  }
  if (const auto* l = std::get_if<codesim::sim::ParetoStraggler>(&law)) {
    return l->shape * l->scale * l->scale / (l->shape - 2.0);
  }
  if (const auto* l = std::get_if<codesim::sim::BimodalStraggler>(&law)) {
    return 1.0 + l->probability_slow * (l->slowdown * l->slowdown - 1.0);
  }
  if (const auto* l = std::get_if<codesim::sim::LognormalStraggler>(&law)) {
    return std::exp(2.0 * l->mu + 2.0 * l->sigma * l->sigma);
  }
  return 1.0;
}

}  // namespace

TEST_CASE("shifted exponential order statistics are harmonic sums") {
  const codesim::sim::ShiftedExponentialStraggler law{1.0, 0.5};
  CHECK(expected_order_statistic(law, 1, 12) == doctest::Approx(1.0 + 2.0 / 12));
  double harmonic = 0.0;
  for (int i = 1; i <= 12; ++i) harmonic += 1.0 / i;
  CHECK(expected_order_statistic(law, 12, 12) == doctest::Approx(1.0 + 2.0 * harmonic));
}

TEST_CASE("the order statistics of every law sum to P times its mean and second moment") {
  // X_(1) + ... + X_(P) = X_1 + ... + X_P, and so for their squares: their moments add up to
  // P E[X] and P E[X^2]; P = 1 is the law itself.
  for (const auto& law : laws()) {
    CAPTURE(codesim::sim::law_name(law));
    CHECK(expected_order_statistic(law, 1, 1) == doctest::Approx(mean_of(law)).epsilon(1e-9));
    for (int p : {2, 7, 12}) {
      double sum = 0.0;
      double squares = 0.0;
      double previous = 0.0;
      for (int k = 1; k <= p; ++k) {
        const auto e = codesim::analysis::exact_order_statistic(law, k, p);
        CHECK(e.mean >= previous);
        CHECK(e.variance >= 0.0);
        previous = e.mean;
        sum += e.mean;
        squares += e.variance + e.mean * e.mean;
      }
      CHECK(sum == doctest::Approx(p * mean_of(law)).epsilon(1e-9));
      CHECK(squares == doctest::Approx(p * second_moment_of(law)).epsilon(1e-9));
    }
  }
}

TEST_CASE("a Pareto K-th fastest has no mean when fewer than 1 / shape nodes are slower") {
  const codesim::sim::ParetoStraggler heavy{1.0, 0.5};
  CHECK(std::isinf(expected_order_statistic(heavy, 12, 12)));  // P - K + 1 = 1 < 2
  CHECK(std::isinf(expected_order_statistic(heavy, 11, 12)));  // 2, not above 2
  CHECK(std::isfinite(expected_order_statistic(heavy, 10, 12)));
}

TEST_CASE("every law's exact K-th fastest agrees with the simulator's draws") {
  for (const auto& law : laws()) {
    CAPTURE(codesim::sim::law_name(law));
    const auto estimates = codesim::analysis::monte_carlo_order_statistics(law, 12, 20'000, 9);
    REQUIRE(estimates.size() == 12);
    for (const auto& e : estimates) {
      CAPTURE(e.k);
      const auto exact = codesim::analysis::exact_order_statistic(law, e.k, 12);
      // The exact standard error of the mean of 20,000 draws (the sample's is 0 where every
      // draw coincided: a rare slow node under the bimodal law).
      CHECK(std::abs(e.mean - exact.mean) <= 5.0 * std::sqrt(exact.variance / 20'000) + 1e-12);
    }
  }
}
