// The stochastic run's state (run_stochastic_training): the scheme's structure, per-block strike
// counts, the strike streams and the rounds. Its setup, iteration loop, update, checkpoints and
// rollbacks are in stochastic_run.cpp; its rounds, regenerations and verification pass in
// stochastic_run_rounds.cpp; crashes, repairs and what they change in stochastic_run_crashes.cpp.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <vector>

#include "models/faults/fault_injector.hpp"
#include "models/nn/layer_steps.hpp"
#include "models/training/protocol/round_costs.hpp"
#include "models/training/protocol/training_protocol.hpp"
#include "models/training/stochastic/stochastic_crashes.hpp"
#include "models/training/stochastic/stochastic_local_checks.hpp"
#include "models/training/stochastic/stochastic_round.hpp"
#include "models/training/stochastic/stochastic_validation.hpp"
#include "sim/node.hpp"
#include "sim/random_stream.hpp"
#include "sim/topology.hpp"

namespace codesim::models::detail {

inline constexpr double kInf = std::numeric_limits<double>::infinity();

// The fault injector's strike probability per opportunity; 0 for a disabled (node, target).
class StrikeRates {
 public:
  StrikeRates(const FaultConfig& faults, int cluster_nodes, std::uint64_t seed,
              std::uint64_t replica)
      : rates_(faults, cluster_nodes, seed, replica),
        resolved_(resolve_fault_rates(faults, cluster_nodes)) {}

  bool enabled(int p, FaultTarget target) const {
    return !is_disabled(resolved_[static_cast<std::size_t>(p)][static_cast<std::size_t>(target)]);
  }
  double probability(int p, FaultTarget target, double flops) const {
    return enabled(p, target) ? rates_.strike_probability(p, target, flops) : 0.0;
  }

 private:
  FaultInjector rates_;
  std::vector<NodeFaultRates> resolved_;
};

// Thrown when the clock passes the time limit: the run stops there, in the middle of its step.
struct OutOfTime {};
/// Thrown by on_event when a failure storm ends the run (TrainingProgress::failure_event).
struct FailureStorm {};

class StochasticRun {
 public:
  StochasticRun(const sim::ClusterSpec& cluster, const sim::CheckpointSpec& checkpoint,
                const TrainingSpec& spec, const FaultConfig& faults, std::uint64_t seed,
                std::uint64_t replica, const std::function<bool()>& should_stop);
  sim::MetricSet run();

 private:
  struct Verification {
    bool passed = true;
    double time_s = 0.0;
  };

  // --- setup (stochastic_run.cpp) -----------------------------------------------------------
  void init_structure();
  void init_nodes(const sim::ClusterSpec& cluster, std::uint64_t seed, std::uint64_t replica);
  void open_streams(const StrikeRates& strikes, FaultTarget target, std::uint64_t seed,
                    std::uint64_t replica, std::vector<double>& budget,
                    std::vector<std::optional<sim::RandomStream>>& streams) const;
  void init_rounds(const StrikeRates& strikes);
  void init_update(const StrikeRates& strikes);
  void build_round(int l, int d, const StrikeRates& strikes);
  Round& round(int layer, int dir) {
    return rounds_[static_cast<std::size_t>(layer) * 2 + static_cast<std::size_t>(dir)];
  }

  // --- the loop (stochastic_run.cpp) --------------------------------------------------------
  void run_iterations();
  void check_time() const {
    if (!(now_s_ <= spec_.time_limit_s)) throw OutOfTime{};
  }
  void run_update();
  void strike_update(int p);
  void checkpoint();
  void rollback();
  void finish() { progress_.complete(now_s_); }
  sim::MetricSet metrics() const;

  // --- rounds (stochastic_run_rounds.cpp) ---------------------------------------------------
  static double redraw(std::optional<sim::RandomStream>& stream) {
    return stream->exponential(1.0);
  }
  bool strike_weights(int p, const Round& r, std::size_t i);
  bool strike_product(int p, const Round& r, std::size_t i);
  /// Participant i of a checked round (ABFT) reads its block: strikes, its node's check and its
  /// outcome; a block beyond repair joins `withheld_blocks`.
  CheckedProduct check_participant(const Round& r, std::size_t i,
                                   std::vector<int>& withheld_blocks);
  void draw_durations(const Round& r);
  /// Strikes each participant that finished its task (weights, then its product) and marks the
  /// symbols of the struck ones wrong for the round's decode (nodes without checks).
  void strike_finished(const Round& r, const RoundTiming& t);
  bool run_round(const Round& r);
  bool run_checked_round(const Round& r);
  bool finish_round(const Round& r, const RoundTiming& t, double end_s, const Outcome& outcome);
  void charge_round_tasks(const Round& r, const RoundTiming& t, double end_s, bool clean,
                          const std::vector<double>* extra_s);
  bool spend_regeneration(const std::optional<sim::CommunicationCost>& regeneration);
  std::optional<sim::CommunicationCost> regenerate(const Round& r);
  std::optional<sim::CommunicationCost> regenerate_nodes(int layer);
  Verification verify();
  Outcome verification_decode(const Round& r, double& t_s);

  // --- crashes (stochastic_run_crashes.cpp) ---------------------------------------------------
  // Up and not stale: its blocks are current (the numeric mode's usable()).
  bool node_usable(int p) const {
    const auto index = static_cast<std::size_t>(p);
    return !down_[index] && !stale_[index];
  }
  // Faults and crashes so far: the random events a rollback may be blamed on.
  std::uint64_t random_events() const { return faults_ + crashes_; }
  // Moves the clock `seconds` on, through the crashes and repairs before the new time.
  void advance(double seconds) {
    if (timeline_.active()) process_events_before(now_s_ + seconds);
    now_s_ += seconds;
  }
  double next_event_s() const;
  void process_events_before(double time_s);
  void on_event(const CrashEvent& e);
  void on_link_event(int link, bool up);
  void append_links_down(std::vector<int>& key) const;
  void update_live();
  bool start_iteration();
  bool regenerate_stale_nodes(double& regeneration_s);
  int wrong_sources(int layer, const std::vector<int>& sources) const;
  void wait_for_repairs();
  bool run_crashing_round(const Round& r);
  void charge_crashing_round(const Round& r, const RoundTiming& t, bool clean);
  void run_crashing_update();
  double current_nominal_s(const Round& r) const;
  sim::CommunicationCost crashing_communication(const Round& r, const RoundTiming& t);
  void read_out_regeneration();
  void end_crashes(double end_s);

  // --- configuration ----------------------------------------------------------------------
  const TrainingSpec& spec_;
  sim::CheckpointPolicy policy_;
  sim::Topology topology_;
  const std::function<bool()>& should_stop_;
  std::vector<WeightShape> weight_shapes_;  // per weighted layer: its W and product columns
  int layers_;
  int batch_;
  // Columns of layer l's products: positions x batch (an MLP's or a dense layer's: the batch).
  int columns(int l) const {
    return weight_shapes_[static_cast<std::size_t>(l)].positions * batch_;
  }
  WaitPolicy wait_;
  int nodes_ = 0;
  bool stragglers_ = false;
  std::unique_ptr<CodingScheme> structure_;
  std::vector<LayerShape> shapes_;
  std::vector<int> first_block_;  // per node + 1
  int blocks_per_layer_ = 0;
  std::vector<double> speeds_;  // per cluster node
  std::vector<char> usable_;    // per cluster node: a scheme node
  std::vector<int> live_;
  std::vector<sim::Node> nodes_state_;
  double decoder_speed_ = 0.0;
  std::vector<Round> rounds_;       // layer * 2 + dir
  std::vector<Round*> iteration_;   // forward 0..L-1, backward L-1..1
  double checkpoint_values_ = 0.0;  // values each node writes per checkpoint
  double update_flops_ = 0.0;
  double update_fixed_s_ = 0.0;
  std::vector<int> update_begin_;  // per node + 1, into update_block_
  std::vector<int> update_block_;
  std::vector<double> update_hazard_;
  std::size_t max_symbols_ = 0;
  std::size_t max_codewords_ = 0;
  LocalChecks local_;  // active for schemes whose nodes check their own blocks

  // --- strikes ------------------------------------------------------------------------------
  std::vector<double> weight_budget_;  // per node: hazard left before the next strike
  // Per node, the multiplier of its strike hazards over time (empty: none; FaultConfig).
  std::vector<sim::StepTrace> rate_traces_;
  // Node p's strike hazards are multiplied by this now: at multiplier m, an opportunity of
  // probability p spends m (-log(1 - p)), the hazard of 1 - (1 - p)^m.
  double rate_factor(int p) const {
    return rate_traces_.empty() ? 1.0 : rate_traces_[static_cast<std::size_t>(p)].value_at(now_s_);
  }
  // The hazard times `factor`; 0 at factor 0 even for a certain strike (an infinite hazard).
  static double scaled(double hazard, double factor) {
    return factor == 0.0 ? 0.0 : hazard * factor;
  }
  std::vector<double> product_budget_;
  std::vector<std::optional<sim::RandomStream>> weight_streams_;
  std::vector<std::optional<sim::RandomStream>> product_streams_;

  // --- state --------------------------------------------------------------------------------
  // Per block: strikes not yet repaired (a node that checks its block: since the block's last
  // read; other schemes read only whether it is 0).
  std::vector<int> wrong_;
  std::vector<int> checkpoint_wrong_;
  std::vector<int> previous_wrong_;            // at the checkpoint before the last
  bool stopped_ = false;                       // the watchdog stopped the run
  std::uint64_t faults_at_attempt_start_ = 0;  // faults_ at the last checkpoint or rollback
  // By regenerated nodes (then -1 and the other nodes excluded as sources, if any; then -2 and
  // the links down, if any).
  std::map<std::vector<int>, Regeneration> regenerations_cache_;

  // --- crashes ------------------------------------------------------------------------------
  CrashTimeline timeline_;
  std::uint64_t crashes_ = 0;           // of every cluster node, as the numeric mode counts them
  std::vector<char> down_;              // per scheme node
  std::vector<char> stale_;             // per scheme node: missed an update while down
  std::vector<char> checkpoint_stale_;  // stale_ at the last checkpoint
  std::vector<char> previous_stale_;    // at the checkpoint before the last
  std::vector<double> down_since_s_;    // per scheme node: when it went down (energy)
  bool waiting_ = false;                // the run waits for repairs
  std::vector<char> started_;           // scratch: per participant, its task ran
  std::vector<std::array<RoundCodewords, 2>> iteration_codewords_;  // per layer, for waiting
  std::vector<int> links_down_;  // sorted: the links down now (topology_ routes around them)
  // A round's communication by (round, present symbols, -1, live nodes[, -2, links down]): a down
  // set lasts many rounds, and the flow model's cost is the stochastic run's most expensive step.
  std::map<std::vector<int>, sim::CommunicationCost> communication_cache_;

  // --- scratch ------------------------------------------------------------------------------
  RoundResolver resolver_;
  SymbolErrors errors_;
  std::vector<int> regenerated_;  // the nodes the next regeneration rebuilds
  std::vector<double> durations_;
  std::vector<double> check_s_;  // per participant: its check task's seconds (0: none)
  RoundTiming scratch_timing_;
  RoundTiming verification_timing_;

  // --- progress and accounting --------------------------------------------------------------
  double now_s_ = 0.0;
  std::uint64_t silent_corruptions_ = 0;
  std::uint64_t faults_ = 0, node_operations_ = 0;
  TrainingProgress progress_;
};

}  // namespace codesim::models::detail
