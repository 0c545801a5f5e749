// codesim advise: which strategy (coding scheme, checkpoint policy, decoding mode) to run on a
// scenario's cluster, workload and faults. Stage 1 lists every configuration the scheme
// descriptors allow and bounds each by the closed forms (strategy_bounds.hpp); stage 2 ranks
// the ones that can still win by simulation (strategy_ranking.hpp). The scenario's own strategy
// is the baseline and always reaches stage 2.
#pragma once

#include <cstddef>
#include <functional>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "app/advise/strategy_bounds.hpp"
#include "app/advise/strategy_confirmation.hpp"
#include "app/advise/strategy_ranking.hpp"
#include "app/exec/runner.hpp"

namespace codesim::app {

/// Where a configuration stopped.
enum class AdviseStage { excluded, bound, simulation, confirmation };
inline constexpr std::array<std::string_view, 4> kAdviseStageNames = {"excluded", "bound",
                                                                      "simulation", "confirmation"};

struct AdvisedConfiguration {
  Configuration configuration;
  std::string label;
  std::optional<ConfigurationBound> bound;  ///< nullopt when excluded
  std::optional<SimulatedCost> simulated;   ///< stage 2 only
  std::optional<Confirmation> confirmed;    ///< stage 3 (--confirm) only
  AdviseStage stage = AdviseStage::bound;
  std::string reason;  ///< why it stopped where it did
  int rank = 0;        ///< 1 = recommended; 0 = not ranked by simulation
};

struct AdviseOptions {
  AdviseObjective objective = AdviseObjective::time;
  RankingOptions ranking;  ///< its objective is set from `objective`
  /// false: every configuration the stochastic mode runs goes to stage 2 (an exhaustive ranking,
  /// against which the pruning is tested).
  bool prune = true;
  /// Stage 3: train this many of the best in numeric mode (0: none).
  int confirm = 0;
  /// Time to accuracy waits for this test accuracy (default: the lowest of the error-free
  /// reference's replicas less kAccuracyTolerance).
  std::optional<double> target_accuracy;
  /// Probes kept between advise runs (a map's cells); null: each run probes afresh.
  std::shared_ptr<ProbeCache> probes;
};

struct Advice {
  Json scenario;  ///< the resolved scenario advised
  std::uint64_t seed = 1;
  AdviseObjective objective = AdviseObjective::time;
  double budget_s = 0.0;
  std::vector<AdvisedConfiguration> configurations;  ///< the baseline first
  std::size_t recommended = 0;
  std::size_t simulated_best =
      0;  ///< stage 2's best (the recommendation unless stage 3 demoted it)
  /// Stage 1's pruning threshold: the least pessimistic bound of a safe configuration, and its
  /// label (infinite and "" when none is bounded).
  double best_pessimistic = 0.0;
  std::string best_pessimistic_label;
  double best_pessimistic_time_s = 0.0;  ///< its time, s per useful iteration
  int rounds = 0;
  double budget_used_s = 0.0;
  bool budget_exhausted = false;
  /// A stop request (a signal) ended stage 2 or 3 early: the advice ranks what finished before
  /// it, and its file says "complete": false.
  bool interrupted = false;
  std::optional<ConfirmationRun> confirmation;  ///< stage 3's reference (its list is moved out)
};

/// Advises on the one point of `experiment` (a training scenario without a sweep, else a
/// ScenarioError at /sweep or /workload/kind; a setting the stochastic mode does not model is a
/// ScenarioError at its key; --confirm or time_to_accuracy on a stochastic-mode scenario, one
/// at /workload/mode). A stop request ends it early: AdviseInterrupted when nothing was ranked
/// yet, else the advice of what finished (interrupted).
Advice advise(const Experiment& experiment, const AdviseOptions& options);

/// The recommendation's simulated cost less the baseline's (negative: it saves): paired over
/// their common replicas when it is stage 2's best, else the difference of their means (no CI).
struct VersusBaseline {
  double difference = 0.0;
  double ci95 = 0.0;  ///< NaN when not paired
  bool paired = true;
};
VersusBaseline versus_baseline(const Advice& advice);

/// The first keys of ADVICE.json and of a map's file: schema_version, kind, codesim_version,
/// scenario, seed, objective, unit and budget_s.
Json advice_header(std::string_view kind, const Json& scenario, std::uint64_t seed,
                   AdviseObjective objective, double budget_s);

/// ADVICE.json: every configuration with its bound, its simulated cost and where it stopped, and
/// the recommendation with the scenario sections that run it (strategy, checkpoint, decoding).
/// Infinite numbers are null. The same advice gives the same bytes.
Json to_json(const Advice& advice);

/// The ranked table: the `rows` best and the baseline.
void print_table(const Advice& advice, std::ostream& out, std::size_t rows = 10);

}  // namespace codesim::app
