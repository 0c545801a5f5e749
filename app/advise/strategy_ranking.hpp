// Stage 2 of codesim advise: the configurations that stage 1 kept, run in stochastic mode on
// common random numbers (every configuration's replica r meets the same seeded streams), in
// rounds that double the replicas of the configurations not yet settled against the best: one
// is settled when the paired 95% interval of its difference to the best lies above zero, when it
// ties the best exactly on every replica, or when it corrupts silently.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "app/advise/strategy_bounds.hpp"
#include "app/exec/runner.hpp"

namespace codesim::app {

/// Seconds of one thread per simulated node operation (the stochastic mode's tasks; measured
/// 33 ns on the development machine over a whole advise run): what the budget counts, so that a
/// budget gives the same advice on any machine and any --jobs.
inline constexpr double kSecondsPerNodeOperation = 3.3e-8;

struct RankingOptions {
  AdviseObjective objective = AdviseObjective::time;
  double budget_s = 60.0;  ///< simulated work, in kSecondsPerNodeOperation units; >= 0
  int first_replicas = 4;  ///< the first round's replicas, >= 2
  int max_replicas = 64;   ///< no configuration runs more
  int jobs = 1;
  std::function<void(const RunProgress&)> on_progress;  ///< per round's units; may be empty
};

/// One configuration's simulated cost per useful iteration (seconds or joules).
struct SimulatedCost {
  int replicas = 0;
  double mean = 0.0;   ///< infinite when a replica did not complete
  double ci95 = 0.0;   ///< Student-t half-width over the replicas
  IterationCost both;  ///< mean time and energy per useful iteration (infinite as `mean`)
  /// Paired difference to the recommendation over their common replicas (0 for itself).
  double difference = 0.0;
  double difference_ci95 = 0.0;
  double silent_corruptions = 0.0;  ///< summed over the replicas
  int incomplete = 0;               ///< replicas that hit the time limit
  std::string stopped;              ///< why no more replicas ran
};

struct Ranking {
  std::vector<SimulatedCost> costs;  ///< per configuration given
  std::vector<std::size_t> order;    ///< best first: safe ones, then by mean, then as given
  int rounds = 0;
  double budget_used_s = 0.0;
  bool budget_exhausted = false;
  /// A stop was requested (a signal): the ranking holds the rounds that finished before it.
  bool interrupted = false;
};

/// Runs `documents` (scenario documents in stochastic mode, one per configuration, each with its
/// own time limit) and ranks them by `options.objective` per useful iteration. `file` labels
/// errors. On a stop request it ranks what the finished rounds measured (interrupted), or throws
/// AdviseInterrupted when the first chunk's first round did not finish. Precondition: at least
/// one document.
Ranking rank_by_simulation(const std::vector<Json>& documents,
                           const std::vector<std::string>& labels, const std::string& file,
                           const RankingOptions& options);

}  // namespace codesim::app
