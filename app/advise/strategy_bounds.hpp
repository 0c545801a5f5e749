// Stage 1 of codesim advise: each configuration's expected cost per useful iteration from the
// closed forms (rollback odds of models/theory, the checkpoint-interval model of analysis/theory)
// and from short fault-free probes of the stochastic mode's time model (one iteration's time
// and energy, one checkpoint's), with an optimistic and a pessimistic bound around the estimate.
// A configuration whose optimistic bound is above the best pessimistic one is pruned.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "app/advise/strategy_space.hpp"
#include "app/config/scenario.hpp"

namespace codesim::app {

/// What advise minimizes: time or energy per useful iteration, or the simulated time to reach
/// a test accuracy (numeric training of the leaders, --confirm; stages 1 and 2 rank by time).
enum class AdviseObjective { time, energy, time_to_accuracy };
inline constexpr std::array<std::string_view, 3> kAdviseObjectiveNames = {"time", "energy",
                                                                          "time_to_accuracy"};

/// Seconds and joules per useful iteration.
struct IterationCost {
  double time_s = 0.0;
  double energy_J = 0.0;
  double of(AdviseObjective objective) const {
    return objective == AdviseObjective::energy ? energy_J : time_s;
  }
};

/// How far the pessimistic bound lies above the closed forms' worst case (twice the most odds,
/// a whole round more per corrected decode): the theory neglects second-order effects
/// (models/theory/training_theory.hpp) and the probes' straggler mean is a sample.
inline constexpr double kPessimisticMargin = 0.1;
/// A configuration is unsafe when the closed forms give it at least this probability of one
/// silent corruption in the run (uncoded under soft errors): it is ranked after every safe one.
inline constexpr double kUnsafeSilentProbability = 0.01;

/// Stage 1's verdict on one configuration.
struct ConfigurationBound {
  int nodes = 0;
  double storage_fraction_per_node = 0.0;  ///< of each W
  /// Half the nominal odds, no straggler or crash: a bound on the expected cost (a lucky run
  /// that rolls back less can come in below it).
  IterationCost optimistic;
  IterationCost estimate;  ///< the closed forms at the nominal rates
  /// Twice the worst odds, a round more per corrected decode, every crash a rollback
  /// waiting for its repair, plus the margin;
  /// nullopt when the closed forms cannot bound the run (then it is never pruned against).
  std::optional<IterationCost> pessimistic;
  std::string unbounded_reason;         ///< why pessimistic is nullopt
  double rollback_probability = 0.0;    ///< a steady iteration's, nominal rates (weights, product)
  double silent_run_probability = 0.0;  ///< at least one silent corruption in the run
  int interval_iterations = 0;          ///< checkpoint interval the estimate assumes; 0 = none
  /// young, daly: the job MTBF handed to the policy (crashes and rollbacks), seconds.
  double mtbf_s = 0.0;
  bool unsafe() const { return silent_run_probability >= kUnsafeSilentProbability; }
};

/// Stage 1 for every configuration of `space` (a problem that rules one out, e.g. a setting the
/// stochastic mode does not model, is its `excluded` text instead).
struct BoundedSpace {
  std::vector<Configuration> configurations;
  std::vector<std::optional<ConfigurationBound>> bounds;  ///< nullopt: excluded
  std::vector<std::string> excluded;                      ///< "" unless excluded
};

/// Probes already run, shared by advise runs on scenarios that differ only in what the fault-free
/// probes do not see (faults, crashes: the cells of a map): safe to share between threads.
class ProbeCache;
std::shared_ptr<ProbeCache> make_probe_cache();

/// The checkpoint policies advise tries: none, young, and daly times each factor of
/// checkpoint.search_factors (the scenario's, or optimal_simulated's defaults).
std::vector<CheckpointChoice> checkpoint_choices(const sim::CheckpointSpec& checkpoint);

/// Advice interrupted (a stop request: SIGINT or SIGTERM) before anything it could report
/// finished (stage 1, or stage 2's first chunk, which holds the baseline): nothing to write.
struct AdviseInterrupted : std::runtime_error {
  AdviseInterrupted() : std::runtime_error("interrupted before any configuration was simulated") {}
};

/// Bounds every configuration of every scheme in `schemes` (each with every choice of
/// `checkpoints` and both decoding modes) and the scenario's own (`baseline`, first). Young and
/// daly are left out where nothing fails (their interval is infinite: none) or a write costs
/// nothing (they need a write cost). `probes` (may be null) keeps the probes for later calls.
/// Precondition: `scenario` is a training scenario.
BoundedSpace bound_space(const Scenario& scenario, const std::vector<models::SchemeSpec>& schemes,
                         const std::vector<CheckpointChoice>& checkpoints,
                         ProbeCache* probes = nullptr);

/// The scenario document of one configuration, run in stochastic mode: `document` (a resolved
/// training scenario) with its strategy, checkpoint (young and daly with the bound's mtbf_s) and
/// decoding replaced.
Json configuration_document(const Json& document, const Configuration& configuration,
                            const ConfigurationBound& bound);

}  // namespace codesim::app
