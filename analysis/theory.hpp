// Closed-form expected time of training with checkpoints and rollbacks, its optimal interval and
// the Young/Daly intervals. The truncated-geometric model is this project's way to test CodeNet's
// claim of a lower expected time than replication once checkpointing counts (arXiv 1903.01042,
// abstract), not a formula quoted from the paper; derived in docs/reproduction.md ("Checkpoint
// model").
#pragma once

#include <functional>

namespace codesim::analysis {

/// Costs of the checkpoint model, seconds.
struct CheckpointCosts {
  double iteration_s = 1.0;   ///< one iteration, T_it > 0
  double checkpoint_s = 0.0;  ///< one checkpoint including its verification pass, T_ck >= 0
  double rollback_s = 0.0;    ///< one rollback (reload of the last checkpoint), T_rb >= 0
};

/// Largest checkpoint interval the optimal-interval searches consider, iterations.
inline constexpr int kMaxInterval = 1'000'000;

/// Expected iteration executions to complete tau iterations when each iteration fails
/// independently with probability p and a failure restarts the interval:
/// E_exec(tau) = (1 - (1-p)^tau) / (p (1-p)^tau) = ((1-p)^-tau - 1) / p. Equals tau at p = 0;
/// +inf at p = 1 and when (1-p)^-tau overflows. Preconditions: p in [0, 1], tau >= 1.
double expected_executions(double p, int tau);

/// Expected rollbacks while completing one interval: (1-p)^-tau - 1 (+inf on overflow).
double expected_rollbacks(double p, int tau);

/// E[T](tau) = [E_exec(tau) T_it + ((1-p)^-tau - 1) T_rb + T_ck] / tau, seconds per useful
/// iteration (+inf when E_exec is).
double expected_time_per_iteration_s(double p, int tau, const CheckpointCosts& costs);

/// Failure probabilities of one checkpoint interval when iterations differ: the first iteration
/// after a checkpoint or rollback, each later one, and the verification pass that runs before the
/// checkpoint write (its failure rolls the whole interval back). All in [0, 1].
struct IntervalRisk {
  double first = 0.0;
  double steady = 0.0;
  double verification = 0.0;
};

/// Expectations while completing one interval of tau useful iterations.
struct IntervalExpectation {
  double executions = 0.0;            ///< iteration executions
  double rollbacks = 0.0;             ///< failed attempts
  double verifications = 0.0;         ///< verification passes run (each charged T_ck)
  double success_probability = 0.0;   ///< one attempt completes the interval
  double time_per_iteration_s = 0.0;  ///< E[T] per useful iteration, seconds
};

/// The interval model with IntervalRisk. An attempt runs iteration 1 (fails w.p. first), then up
/// to tau - 1 more (each fails w.p. steady), then the verification (fails w.p. verification);
/// a failure restarts the interval. With S = (1-first)(1-steady)^(tau-1)(1-verification) and
/// A = 1 + (1-first)(1 - (1-steady)^(tau-1)) / steady iterations per attempt: executions = A / S,
/// rollbacks = 1/S - 1, verifications = 1 / (1 - verification) and
/// E[T] = [executions T_it + rollbacks T_rb + verifications T_ck] / tau. With first = steady = p
/// and verification = 0 this is exactly expected_executions / expected_time_per_iteration_s.
/// Infinite (not NaN) when S = 0 or on overflow. Precondition: tau >= 1.
IntervalExpectation expect_interval(const IntervalRisk& risk, int tau,
                                    const CheckpointCosts& costs);

/// Energy of the checkpoint model, joules: one iteration, one checkpoint with its verification
/// pass, one rollback (the restart).
struct EnergyCosts {
  double iteration_J = 1.0;  ///< > 0
  double checkpoint_J = 0.0;
  double rollback_J = 0.0;
};

/// Expected joules per useful iteration: E[T]'s expectation is linear in the costs (executions
/// T_it + rollbacks T_rb + verifications T_ck, over tau), so the same closed form with joules in
/// place of seconds, [executions J_it + rollbacks J_rb + verifications J_ck] / tau.
double expected_energy_per_iteration_J(const IntervalRisk& risk, int tau, const EnergyCosts& costs);

/// The best integer interval and its expected time per useful iteration.
struct OptimalInterval {
  int tau = 1;
  double time_per_iteration_s = 0.0;
  /// The search reached kMaxInterval while E[T] was still falling (no failures: checkpointing
  /// only costs), so tau is the bound, not an optimum.
  bool at_bound = false;
};

/// Minimizes expected_time_per_iteration_s(p, tau) over integers tau in [1, kMaxInterval].
/// E[T] is quasi-convex in tau here (tau E[T] is convex with a non-negative value at 0), so the
/// scan stops once tau exceeds 2 tau_best + 64 without improvement.
OptimalInterval optimal_interval(double p, const CheckpointCosts& costs);

/// The same search for expect_interval(risk(tau), tau, costs). `risk` must be nondecreasing in
/// tau; when risk(kMaxInterval) is all zero the answer is at_bound without a scan. The same
/// stopping rule as above (documented, not proven, for a tau-dependent risk).
OptimalInterval optimal_interval(const std::function<IntervalRisk(int tau)>& risk,
                                 const CheckpointCosts& costs);

/// Young's and Daly's intervals (sim/checkpoint_policy) for rollbacks striking at probability p
/// per iteration, i.e. an MTBF of T_it / p seconds, with write cost delta = T_ck.
struct ClassicIntervals {
  double mtbf_s = 0.0;            ///< T_it / p; +inf at p = 0
  double young_iterations = 0.0;  ///< sqrt(2 delta M) / T_it
  double daly_iterations = 0.0;   ///< Daly's higher-order interval / T_it
  /// Daly's expected wall time per useful iteration at his interval (with restart R = T_rb);
  /// NaN when that interval is 0 (T_ck = 0).
  double daly_time_per_iteration_s = 0.0;
};

/// Preconditions: p in [0, 1], costs valid.
ClassicIntervals classic_intervals(double p, const CheckpointCosts& costs);

}  // namespace codesim::analysis
