// The checkpoint-interval model: closed forms, limits, the overhead table of docs/reproduction.md,
// the optimal interval search and the Young/Daly comparison.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "analysis/theory.hpp"

namespace {

using codesim::analysis::CheckpointCosts;
using codesim::analysis::IntervalRisk;

CheckpointCosts costs(double iteration_s, double checkpoint_s, double rollback_s) {
  CheckpointCosts c;
  c.iteration_s = iteration_s;
  c.checkpoint_s = checkpoint_s;
  c.rollback_s = rollback_s;
  return c;
}

}  // namespace

TEST_CASE("expected executions equal tau without failures and are infinite when all fail") {
  using codesim::analysis::expected_executions;
  for (int tau : {1, 7, 1000}) CHECK(expected_executions(0.0, tau) == tau);
  CHECK(std::isinf(expected_executions(1.0, 1)));
  CHECK(std::isinf(expected_executions(1.0, 50)));
  // (1 - 0.5)^-2000 overflows a double: +inf, not NaN.
  CHECK(std::isinf(expected_executions(0.5, 2000)));
  CHECK(std::isinf(codesim::analysis::expected_rollbacks(0.5, 2000)));
  CHECK(std::isinf(codesim::analysis::expected_time_per_iteration_s(0.5, 2000, costs(1, 1, 1))));
  // Tiny p: no cancellation, E_exec ~ tau (1 + (tau + 1) p / 2).
  CHECK(expected_executions(1e-15, 10) == doctest::Approx(10.0 * (1.0 + 11 * 0.5e-15)));
}

TEST_CASE("expected time per iteration is the truncated-geometric formula") {
  // p = 0.1, tau = 3: E_exec = (0.9^-3 - 1) / 0.1 = 3.717421, rollbacks 0.371742;
  // E[T] = (3.717421 * 1 + 0.371742 * 0.5 + 2) / 3.
  CHECK(codesim::analysis::expected_executions(0.1, 3) == doctest::Approx(3.7174211248));
  CHECK(codesim::analysis::expected_rollbacks(0.1, 3) == doctest::Approx(0.3717421125));
  CHECK(codesim::analysis::expected_time_per_iteration_s(0.1, 3, costs(1, 2, 0.5)) ==
        doctest::Approx(1.9677640604));
  // Without failures: T_it + T_ck / tau.
  CHECK(codesim::analysis::expected_time_per_iteration_s(0.0, 4, costs(1, 2, 0.5)) ==
        doctest::Approx(1.5));
}

TEST_CASE("the overhead table matches docs/reproduction.md for replication and CodeNet") {
  using codesim::analysis::expected_executions;
  const std::vector<int> taus = {1, 2, 5, 10, 20, 50, 100, 200};
  // docs/reproduction.md, "Checkpoint model", with the every-layer probabilities (3 significant
  // digits, 2 for the large ones).
  const double replication_p = 1.0 - std::pow(1.0 - 3e-4, 360);  // 0.102
  CHECK(replication_p == doctest::Approx(0.102).epsilon(0.005));
  const std::vector<double> replication = {1.11, 1.18, 1.40, 1.90, 3.75, 43.1, 4.8e3, 1.2e8};
  const std::vector<double> codenet = {1.0005, 1.0008, 1.0016, 1.003, 1.006, 1.014, 1.027, 1.056};
  for (std::size_t i = 0; i < taus.size(); ++i) {
    const int tau = taus[i];
    CAPTURE(tau);
    const double tolerance = replication[i] >= 1e3 ? 0.02 : 0.005;
    CHECK(expected_executions(replication_p, tau) / tau ==
          doctest::Approx(replication[i]).epsilon(tolerance));
    CHECK(expected_executions(5.34e-4, tau) / tau == doctest::Approx(codenet[i]).epsilon(5e-4));
  }
  CHECK(expected_executions(5.34e-4, 500) / 500 == doctest::Approx(1.15).epsilon(0.005));
  CHECK(expected_executions(5.34e-4, 1000) / 1000 == doctest::Approx(1.32).epsilon(0.005));
  // The table's "> 1e20" entries: astronomically many executions.
  CHECK(expected_executions(replication_p, 500) / 500 > 1e20);
}

TEST_CASE(
    "the interval model reduces to the stationary formula and charges first and verification") {
  const CheckpointCosts c = costs(1, 2, 0.5);
  for (double p : {0.0, 1e-6, 0.01, 0.3}) {
    for (int tau : {1, 2, 17, 300}) {
      CAPTURE(p);
      CAPTURE(tau);
      const auto e = codesim::analysis::expect_interval(IntervalRisk{p, p, 0.0}, tau, c);
      CHECK(e.executions == doctest::Approx(codesim::analysis::expected_executions(p, tau)));
      CHECK(e.rollbacks == doctest::Approx(codesim::analysis::expected_rollbacks(p, tau)));
      CHECK(e.verifications == 1.0);
      CHECK(e.time_per_iteration_s ==
            doctest::Approx(codesim::analysis::expected_time_per_iteration_s(p, tau, c)));
    }
  }
  // first 0.2, steady 0.1, verification 0.05, tau 3: S = 0.8 * 0.81 * 0.95 = 0.6156,
  // A = 1 + 0.8 (1 - 0.81) / 0.1 = 2.52 iterations per attempt.
  const auto e = codesim::analysis::expect_interval(IntervalRisk{0.2, 0.1, 0.05}, 3, c);
  CHECK(e.success_probability == doctest::Approx(0.6156));
  CHECK(e.executions == doctest::Approx(2.52 / 0.6156));
  CHECK(e.rollbacks == doctest::Approx(1.0 / 0.6156 - 1.0));
  CHECK(e.verifications == doctest::Approx(1.0 / 0.95));
  CHECK(e.time_per_iteration_s == doctest::Approx(2.1703487113));
  // Certain failure anywhere: infinite, never NaN, even with free rollbacks.
  for (const IntervalRisk& risk :
       {IntervalRisk{1, 0, 0}, IntervalRisk{0, 1, 0}, IntervalRisk{0, 0, 1}}) {
    const auto certain = codesim::analysis::expect_interval(risk, 5, costs(1, 2, 0));
    CHECK(std::isinf(certain.time_per_iteration_s));
  }
  // tau = 1 never uses the steady probability, even when it is 1.
  CHECK(codesim::analysis::expect_interval(IntervalRisk{0, 1, 0}, 1, c).time_per_iteration_s ==
        doctest::Approx(3.0));
}

TEST_CASE("the optimal interval is a minimum: its neighbours are not better") {
  using codesim::analysis::expected_time_per_iteration_s;
  for (double p : {1e-5, 5.34e-4, 0.0915, 0.5}) {
    for (const CheckpointCosts& c : {costs(1, 2, 1), costs(0.1, 5, 0), costs(1, 0.01, 3)}) {
      CAPTURE(p);
      const auto best = codesim::analysis::optimal_interval(p, c);
      CHECK_FALSE(best.at_bound);
      CHECK(best.time_per_iteration_s ==
            doctest::Approx(expected_time_per_iteration_s(p, best.tau, c)));
      if (best.tau > 1) {
        CHECK(expected_time_per_iteration_s(p, best.tau - 1, c) >= best.time_per_iteration_s);
      }
      CHECK(expected_time_per_iteration_s(p, best.tau + 1, c) >= best.time_per_iteration_s);
      // No interval up to 4 tau* + 100 is better (quasi-convexity in practice).
      for (int tau = 1; tau <= 4 * best.tau + 100; ++tau) {
        CHECK(expected_time_per_iteration_s(p, tau, c) >= best.time_per_iteration_s);
      }
    }
  }
  // Small p and free rollbacks: close to Young's sqrt(2 T_ck / (p T_it)) = 200.
  const auto young_like = codesim::analysis::optimal_interval(1e-4, costs(1, 2, 0));
  CHECK(young_like.tau == doctest::Approx(200).epsilon(0.05));
}

TEST_CASE("the optimal interval with a growing verification risk is a minimum too") {
  const CheckpointCosts c = costs(1, 3, 1);
  // A latent risk growing with tau, as CodeNet's unread blocks give.
  const auto risk = [](int tau) {
    const double q = 1.0 - std::pow(1.0 - 3e-4, 5.0 * tau);
    return IntervalRisk{2e-4, 4.8e-4, q * q};
  };
  const auto time = [&](int tau) {
    return codesim::analysis::expect_interval(risk(tau), tau, c).time_per_iteration_s;
  };
  const auto best = codesim::analysis::optimal_interval(risk, c);
  CHECK_FALSE(best.at_bound);
  CHECK(best.time_per_iteration_s == doctest::Approx(time(best.tau)));
  for (int tau = 1; tau <= 4 * best.tau + 100; ++tau) {
    CHECK(time(tau) >= best.time_per_iteration_s);
  }
  // The latent risk makes the best interval shorter than with the steady risk alone.
  CHECK(best.tau < codesim::analysis::optimal_interval(4.8e-4, c).tau);
}

TEST_CASE("without failures the optimal interval is the search bound") {
  const CheckpointCosts c = costs(1, 2, 1);
  const auto stationary = codesim::analysis::optimal_interval(0.0, c);
  CHECK(stationary.at_bound);
  CHECK(stationary.tau == codesim::analysis::kMaxInterval);
  CHECK(stationary.time_per_iteration_s ==
        doctest::Approx(1.0 + 2.0 / codesim::analysis::kMaxInterval));
  const auto with_risk = codesim::analysis::optimal_interval([](int) { return IntervalRisk{}; }, c);
  CHECK(with_risk.at_bound);
  CHECK(with_risk.tau == codesim::analysis::kMaxInterval);
  // Free checkpoints: every iteration.
  CHECK(codesim::analysis::optimal_interval(0.01, costs(1, 0, 1)).tau == 1);
}

TEST_CASE("classic intervals are Young's and Daly's with an MTBF of T_it / p") {
  const auto classic = codesim::analysis::classic_intervals(0.01, costs(1, 2, 0));
  CHECK(classic.mtbf_s == doctest::Approx(100.0));
  CHECK(classic.young_iterations == doctest::Approx(20.0));  // sqrt(2 * 2 * 100)
  // 20 (1 + sqrt(2 / 200) / 3 + 2 / 1800) - 2
  CHECK(classic.daly_iterations == doctest::Approx(18.6888888889));
  // Daly's completion per unit work: M (e^((tau + delta) / M) - 1) / tau.
  CHECK(classic.daly_time_per_iteration_s ==
        doctest::Approx(100.0 * std::expm1((18.6888888889 + 2.0) / 100.0) / 18.6888888889));
  // Slower iterations: the same MTBF in iterations gives intervals in the same iterations.
  const auto slow = codesim::analysis::classic_intervals(0.01, costs(10, 20, 0));
  CHECK(slow.young_iterations == doctest::Approx(20.0));
  const auto never = codesim::analysis::classic_intervals(0.0, costs(1, 2, 0));
  CHECK(std::isinf(never.mtbf_s));
  CHECK(std::isinf(never.young_iterations));
  CHECK(never.daly_time_per_iteration_s == doctest::Approx(1.0));
}
