// The checkpoint-interval model: expected executions, rollbacks and time per useful iteration,
// the optimal interval by search, and the classic Young/Daly intervals for comparison.
#include "analysis/theory.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "sim/check.hpp"
#include "sim/checkpoint_policy.hpp"

namespace codesim::analysis {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

bool is_probability(double p) { return p >= 0.0 && p <= 1.0; }

void check_costs(const CheckpointCosts& costs) {
  CODESIM_CHECK(costs.iteration_s > 0.0 && std::isfinite(costs.iteration_s), "T_it > 0, finite");
  CODESIM_CHECK(costs.checkpoint_s >= 0.0 && std::isfinite(costs.checkpoint_s),
                "T_ck >= 0, finite");
  CODESIM_CHECK(costs.rollback_s >= 0.0 && std::isfinite(costs.rollback_s), "T_rb >= 0, finite");
}

// log((1-p)^count), exact at count = 0 even when p = 1 (0 * log 0 would be NaN).
double log_survival(double p, int count) {
  if (count == 0 || p == 0.0) return 0.0;
  if (p == 1.0) return -kInf;
  return count * std::log1p(-p);
}

// count * seconds, where a free step costs nothing even when it happens infinitely often.
double charge(double count, double seconds) { return seconds == 0.0 ? 0.0 : count * seconds; }

// Scans tau = 1, 2, ... keeping the strict minimum; stops once tau > 2 tau_best + 64 without
// improvement (E[T] rising past a quasi-convex minimum) or at kMaxInterval (at_bound). Beyond
// kExactScan, while E[T] still falls, it steps by 1% to bracket the minimum and then scans the
// bracket tau by tau, so a risk that costs microseconds per tau (the ABFT schemes') is not
// evaluated a million times; for a quasi-convex E[T] the result is the full scan's.
constexpr int kExactScan = 4096;

int next_coarse(int tau) { return std::min(kMaxInterval, tau + std::max(1, tau / 100)); }

template <typename Time>
OptimalInterval scan(const Time& time) {
  OptimalInterval best{1, time(1), false};
  for (int tau = 2; tau <= std::min(kExactScan, kMaxInterval); ++tau) {
    const double t = time(tau);
    if (t < best.time_per_iteration_s) {
      best.tau = tau;
      best.time_per_iteration_s = t;
    } else if (tau > 2 * best.tau + 64) {
      return best;
    }
  }
  // Still falling at kExactScan: coarse steps until one does not improve.
  int lower = best.tau;  // the coarse point before the best one
  int upper = kMaxInterval + 1;
  for (int tau = next_coarse(kExactScan), last = kExactScan; last < kMaxInterval;
       last = tau, tau = next_coarse(tau)) {
    const double t = time(tau);
    if (!(t < best.time_per_iteration_s)) {
      upper = tau;
      break;
    }
    lower = last;
    best.tau = tau;
    best.time_per_iteration_s = t;
  }
  const int coarse_best = best.tau;
  for (int tau = lower + 1; tau < upper; ++tau) {
    if (tau == coarse_best) continue;
    const double t = time(tau);
    if (t < best.time_per_iteration_s || (t == best.time_per_iteration_s && tau < best.tau)) {
      best.tau = tau;
      best.time_per_iteration_s = t;
    }
  }
  // The full scan stops early once tau passes 2 tau_best + 64 below the bound.
  best.at_bound = kMaxInterval <= 2 * best.tau + 64;
  return best;
}

}  // namespace

double expected_executions(double p, int tau) {
  CODESIM_CHECK(is_probability(p) && tau >= 1, "p in [0, 1] and tau >= 1");
  if (p == 0.0) return tau;
  if (p == 1.0) return kInf;
  // ((1-p)^-tau - 1) / p without cancellation; expm1 overflows to +inf.
  return std::expm1(-log_survival(p, tau)) / p;
}

double expected_rollbacks(double p, int tau) {
  CODESIM_CHECK(is_probability(p) && tau >= 1, "p in [0, 1] and tau >= 1");
  return std::expm1(-log_survival(p, tau));
}

double expected_time_per_iteration_s(double p, int tau, const CheckpointCosts& costs) {
  check_costs(costs);
  const double executions = expected_executions(p, tau);
  if (std::isinf(executions)) return kInf;
  return (charge(executions, costs.iteration_s) +
          charge(expected_rollbacks(p, tau), costs.rollback_s) + costs.checkpoint_s) /
         tau;
}

IntervalExpectation expect_interval(const IntervalRisk& risk, int tau,
                                    const CheckpointCosts& costs) {
  CODESIM_CHECK(is_probability(risk.first) && is_probability(risk.steady) &&
                    is_probability(risk.verification) && tau >= 1,
                "interval risks in [0, 1] and tau >= 1");
  check_costs(costs);
  IntervalExpectation out;
  const double log_success = log_survival(risk.first, 1) + log_survival(risk.steady, tau - 1) +
                             log_survival(risk.verification, 1);
  out.success_probability = std::exp(log_success);
  out.verifications = risk.verification == 1.0 ? kInf : 1.0 / (1.0 - risk.verification);
  if (out.success_probability == 0.0) {
    out.executions = out.rollbacks = out.time_per_iteration_s = kInf;
    return out;
  }
  // Iterations run by one attempt: the first, then each later one while none has failed.
  const double later = risk.steady == 0.0
                           ? tau - 1.0
                           : -std::expm1(log_survival(risk.steady, tau - 1)) / risk.steady;
  const double per_attempt = 1.0 + (1.0 - risk.first) * later;
  out.executions = per_attempt * std::exp(-log_success);
  out.rollbacks = std::expm1(-log_success);
  if (std::isinf(out.executions)) {
    out.time_per_iteration_s = kInf;
    return out;
  }
  out.time_per_iteration_s =
      (charge(out.executions, costs.iteration_s) + charge(out.rollbacks, costs.rollback_s) +
       charge(out.verifications, costs.checkpoint_s)) /
      tau;
  return out;
}

OptimalInterval optimal_interval(double p, const CheckpointCosts& costs) {
  check_costs(costs);
  return scan([&](int tau) { return expected_time_per_iteration_s(p, tau, costs); });
}

OptimalInterval optimal_interval(const std::function<IntervalRisk(int tau)>& risk,
                                 const CheckpointCosts& costs) {
  check_costs(costs);
  const auto time = [&](int tau) {
    return expect_interval(risk(tau), tau, costs).time_per_iteration_s;
  };
  const IntervalRisk largest = risk(kMaxInterval);
  if (largest.first == 0.0 && largest.steady == 0.0 && largest.verification == 0.0) {
    // Nothing ever fails (risk is nondecreasing): E[T] = T_it + T_ck / tau keeps falling.
    return {kMaxInterval, time(kMaxInterval), true};
  }
  return scan(time);
}

ClassicIntervals classic_intervals(double p, const CheckpointCosts& costs) {
  CODESIM_CHECK(is_probability(p), "p in [0, 1]");
  check_costs(costs);
  ClassicIntervals out;
  out.mtbf_s = p > 0.0 ? costs.iteration_s / p : kInf;
  if (costs.checkpoint_s == 0.0) {
    // Free checkpoints: both rules checkpoint continuously.
    out.daly_time_per_iteration_s = std::numeric_limits<double>::quiet_NaN();
    return out;
  }
  out.young_iterations = sim::young_interval_s(costs.checkpoint_s, out.mtbf_s) / costs.iteration_s;
  const double daly_s = sim::daly_interval_s(costs.checkpoint_s, out.mtbf_s);
  out.daly_iterations = daly_s / costs.iteration_s;
  out.daly_time_per_iteration_s =
      daly_s > 0.0 ? sim::daly_expected_completion_s(costs.iteration_s, daly_s, costs.checkpoint_s,
                                                     costs.rollback_s, out.mtbf_s)
                   : std::numeric_limits<double>::quiet_NaN();
  return out;
}

double expected_energy_per_iteration_J(const IntervalRisk& risk, int tau,
                                       const EnergyCosts& costs) {
  return expect_interval(risk, tau, {costs.iteration_J, costs.checkpoint_J, costs.rollback_J})
      .time_per_iteration_s;
}

}  // namespace codesim::analysis
