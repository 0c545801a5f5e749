// The stochastic backend of the coded training protocol (run_stochastic_training): the protocol
// (protocol_run.hpp) on a stepped clock, with per-block strike counts drawn instead of the
// arithmetic. Its methods live in three files by job:
//   stochastic_backend.cpp          set-up, the clock and its trampoline, the update,
//                                   checkpoints, metrics
//   stochastic_backend_rounds.cpp   rounds, their decodes, regenerations and the verification
//   stochastic_backend_crashes.cpp  crashes, repairs and what they change (used only when a node
//                                   ever fails, so that runs without take the paths they took)
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <vector>

#include "models/nn/layer_steps.hpp"
#include "models/training/protocol/protocol_run.hpp"
#include "models/training/protocol/round_costs.hpp"
#include "models/training/protocol/training_backend.hpp"
#include "models/training/protocol/training_protocol.hpp"
#include "models/training/stochastic/stochastic_crashes.hpp"
#include "models/training/stochastic/stochastic_local_checks.hpp"
#include "models/training/stochastic/stochastic_round.hpp"
#include "models/training/stochastic/stochastic_validation.hpp"
#include "models/training/stochastic/strike_streams.hpp"
#include "models/training/stochastic/vector_strikes.hpp"
#include "sim/node.hpp"
#include "sim/topology.hpp"

namespace codesim::models::detail {

// Thrown when the clock passes the time limit: the run stops there, in the middle of its step.
struct OutOfTime {};
/// Thrown by on_event when a failure storm ends the run (TrainingProgress::failure_event).
struct FailureStorm {};

/// The layers and where their stored blocks are: layer l, node p, block b at
/// l * per_layer + first_block[p] + b.
struct BlockLayout {
  std::vector<WeightShape> weights;  ///< per weighted layer: its W and product columns
  std::vector<LayerShape> shapes;    ///< per layer, scaled from `structure`
  /// The scheme's structure on the smallest W with the same blocks.
  std::unique_ptr<CodingScheme> structure;
  std::vector<int> first_block;  ///< per node + 1
  int per_layer = 0;
  int layers = 0;
  int batch = 0;

  /// Columns of layer l's products: positions x batch (an MLP's or a dense layer's: the batch).
  int columns(int l) const { return weights[static_cast<std::size_t>(l)].positions * batch; }
};

/// The cluster's nodes as the run sees them.
struct NodeStates {
  std::vector<double> speeds;        ///< per cluster node
  std::vector<char> usable;          ///< per cluster node: a scheme node
  std::vector<int> live;             ///< the scheme nodes up, ascending
  std::vector<sim::Node> tasks;      ///< per scheme node: draws its task times
  double decoder_speed = 0.0;        ///< flops/s
  bool stragglers = false;           ///< task times are drawn, not fixed
  std::vector<char> down;            ///< per scheme node
  std::vector<double> down_since_s;  ///< per scheme node: when it went down (energy)
};

/// The update: one task per node; (weights, update) on every stored block of every layer.
struct UpdatePlan {
  double flops = 0.0;    ///< one node's task
  double fixed_s = 0.0;  ///< the slowest node's task without stragglers
  UpdateOpportunities strikes;
};

/// What a checkpoint holds: per block, the strikes not yet repaired (a node that checks its block:
/// since the block's last read; other schemes read only whether it is 0), per block whether a
/// node that checks its block holds it wrong in a way its checksums follow (an update from a wrong
/// copy: only a decode across nodes sees it), and per scheme node whether it missed an update
/// while down.
struct BlockState {
  std::vector<int> wrong;
  std::vector<char> hidden;
  std::vector<char> by_update;  ///< checked blocks: an update strike is among `wrong`
  std::vector<char> stale;

  /// A node's own check put block b right (a hidden fault stays: the checksums follow it).
  void corrected_at_node(std::size_t b) {
    wrong[b] = 0;
    by_update[b] = 0;
  }
  /// Block b rebuilt from other nodes, wrong by `strikes` when its sources were.
  void rebuilt(std::size_t b, int strikes) {
    wrong[b] = strikes;
    hidden[b] = 0;
    by_update[b] = 0;
  }
  /// The initial state: every block right and current.
  void reset();
};

/// Costs that last many rounds, cached by what they depend on.
struct CostCaches {
  // By regenerated nodes (then -1 and the other nodes excluded as sources, if any; then -2 and
  // the links down, if any).
  std::map<std::vector<int>, Regeneration> regenerations;
  // A round's communication by (round, present symbols, -1, live nodes[, -2, links down]): a down
  // set lasts many rounds, and the flow model's cost is the stochastic run's most expensive step.
  std::map<std::vector<int>, sim::CommunicationCost> communication;
  std::vector<int> links_down;  ///< sorted: the links down now (the topology routes around them)
};

/// The round in progress, kept between rounds so that nothing is allocated per decode.
struct RoundScratch {
  RoundResolver resolver;
  SymbolErrors errors;
  Outcome outcome;                   ///< the last training decode's
  std::vector<int> withheld_blocks;  ///< the round's nodes whose block is beyond their repair
  std::vector<int> regenerated;      ///< the nodes the next regeneration rebuilds
  std::vector<double> durations;     ///< per participant: its product's seconds
  std::vector<double> check_s;       ///< per participant: its check task's seconds (0: none)
  std::vector<char> started;         ///< per participant: its task ran (crashes)
  RoundTiming timing;
  RoundTiming verification_timing;
};

class StochasticBackend final : public TrainingBackend {
 public:
  StochasticBackend(const sim::ClusterSpec& cluster, const sim::CheckpointSpec& checkpoint,
                    const ValidTraining& training, const FaultConfig& faults, std::uint64_t seed,
                    std::uint64_t replica, const std::function<bool()>& should_stop);
  sim::MetricSet run();

  // --- TrainingBackend ----------------------------------------------------------------------
  double now_s() const override { return now_s_; }
  void after(double seconds, ProtocolStep next) override;
  void stop() override;
  void end_at(double time_s) override;
  bool regenerate_stale_nodes(double& seconds) override;
  bool decodable() override;
  void wait_for_repair() override;
  std::vector<int> needed_nodes_gone() override;
  void begin_iteration(int) override {
    if (vectors_.active()) vectors_.begin_iteration();
  }
  void start_round(int layer, Direction dir) override;
  DecodeStatus round_status() override;
  std::optional<double> regenerate_blamed(int layer, Direction dir) override;
  void apply_round(int layer, Direction dir) override {
    if (vectors_.active())
      silent_corruptions_ += vectors_.after_round(layer, dir, strikes_, cluster_.down, now_s_);
  }
  void start_update() override;
  void iteration_done() override {}
  double evaluate() override { return 0.0; }  // no evaluation
  bool read_out_passes() override;
  VerificationDecode verification_decode(int layer, Direction dir) override;
  std::optional<double> verification_regenerate(int layer, Direction dir, double) override;
  void save_checkpoint() override;
  void restore_checkpoint(RollbackTarget target) override;
  void abandon_work() override {}  // nothing runs between the protocol's steps
  std::uint64_t random_events() const override { return strikes_.count() + crashes_; }
  void trace_sync(int, const char*) override {}
  std::vector<int> live_nodes() const override { return cluster_.live; }

 private:
  TrainingProgress& progress() { return protocol_.progress(); }
  const TrainingProgress& progress() const { return protocol_.progress(); }
  Round& round(int layer, int dir) {
    return rounds_[static_cast<std::size_t>(layer) * 2 + static_cast<std::size_t>(dir)];
  }
  Round& round(int layer, Direction dir) { return round(layer, dir == Direction::forward ? 0 : 1); }

  // --- set-up, the clock, the update, checkpoints (stochastic_backend.cpp) ------------------
  void init_structure();
  void init_nodes(const sim::ClusterSpec& cluster, std::uint64_t seed, std::uint64_t replica);
  void init_rounds(const StrikeRates& strikes);
  void init_update(const StrikeRates& strikes);
  InputRows input_rows() const;
  void build_round(int l, int d, const StrikeRates& strikes);
  void check_time() const {
    if (!(now_s_ <= spec_.time_limit_s)) throw OutOfTime{};
  }
  void run_update();
  void update_faults(int p);
  sim::MetricSet metrics() const;

  // --- rounds (stochastic_rounds.cpp) -------------------------------------------------------
  bool strike_weights(int p, const Round& r, std::size_t i);
  bool strike_product(int p, const Round& r, std::size_t i) {
    return strikes_.product(p, r.product_hazard[i], now_s_);
  }
  /// Participant i of a checked round (ABFT) reads its block: strikes, its node's check and its
  /// outcome; a block beyond repair joins the round's withheld blocks.
  CheckedProduct check_participant(const Round& r, std::size_t i);
  void draw_durations(const Round& r);
  /// Strikes each participant that finished its task (weights, then its product) and marks the
  /// symbols of the struck ones wrong for the round's decode (nodes without checks).
  void strike_finished(const Round& r, const RoundTiming& t);
  /// Participant i of `r` delivers a partial its own check cannot see is wrong: its input copy
  /// is wrong, or its block is (hidden).
  bool reads_unchecked_error(const Round& r, std::size_t i) const;
  /// Marks the symbols of delivered partials that are wrong past their nodes' checks.
  void mark_unchecked_errors(const Round& r, const RoundTiming& t);
  /// The members of the corrected codewords' erroneous symbols, into scratch_.regenerated.
  void add_corrected_members(const Round& r);
  void run_checked_round(const Round& r);
  void finish_round(const Round& r, const RoundTiming& t, double end_s, const Outcome& outcome);
  void charge_round_tasks(const Round& r, const RoundTiming& t, double end_s, bool clean,
                          const std::vector<double>* extra_s);
  std::optional<sim::CommunicationCost> regenerate(const Round& r);
  std::optional<sim::CommunicationCost> regenerate_nodes(int layer);

  // --- crashes (stochastic_crashes.cpp) -----------------------------------------------------
  // Up and not stale: its blocks are current (the numeric mode's usable()).
  bool node_usable(int p) const {
    const auto index = static_cast<std::size_t>(p);
    return !cluster_.down[index] && !state_.stale[index];
  }
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
  int wrong_sources(int layer, const std::vector<int>& sources) const;
  void run_crashing_round(const Round& r);
  void charge_crashing_round(const Round& r, const RoundTiming& t, bool clean);
  void run_crashing_update();
  double current_nominal_s(const Round& r) const;
  sim::CommunicationCost crashing_communication(const Round& r, const RoundTiming& t);
  void read_out_regeneration();
  void end_crashes(double end_s);

  // --- state --------------------------------------------------------------------------------
  const TrainingSpec& spec_;
  sim::Topology topology_;
  int nodes_ = 0;
  BlockLayout layout_;
  NodeStates cluster_;
  std::vector<Round> rounds_;                             // layer * 2 + dir
  std::vector<std::array<RoundCodewords, 2>> codewords_;  // per layer, for iteration_decodable
  UpdatePlan update_;
  StrikeStreams strikes_;
  VectorStrikes vectors_;  // activation, decode and update strikes
  LocalChecks local_;      // active for schemes whose nodes check their own blocks
  BlockState state_;
  BlockState checkpoint_;  // at the last checkpoint
  BlockState previous_;    // at the checkpoint before it
  CrashTimeline timeline_;
  std::uint64_t crashes_ = 0;  // of every cluster node, as the numeric mode counts them
  CostCaches caches_;
  RoundScratch scratch_;
  std::uint64_t silent_corruptions_ = 0;
  std::uint64_t node_operations_ = 0;
  double now_s_ = 0.0;
  bool stopped_ = false;                   // the run ended before the time limit
  bool read_out_ = false;                  // the read-out's verification passed (read_out_passes)
  std::optional<ProtocolStep> next_step_;  // the trampoline's next step
  ProtocolRun protocol_;
};

}  // namespace codesim::models::detail
