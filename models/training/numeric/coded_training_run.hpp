// The numeric coded training protocol as a state machine of engine events (train_coded's run):
// product rounds, decodes, regeneration, updates, checkpoints and rollbacks, with the real
// arithmetic inside the events. Its methods live in three files by job:
//   coded_training_run.cpp       set-up, the run, batches, evaluation, read-out and metrics
//   coded_training_rounds.cpp    an iteration: product rounds, decodes and the update
//   coded_training_recovery.cpp  regeneration, verification, checkpoints and rollbacks
// The rules it shares with the stochastic mode are in training_protocol.hpp.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "models/coding/coding_scheme.hpp"
#include "models/linalg/thread_team.hpp"
#include "models/nn/layer_steps.hpp"
#include "models/training/numeric/checkpoint_store.hpp"
#include "models/training/numeric/node_ranks.hpp"
#include "models/training/protocol/round_costs.hpp"
#include "models/training/protocol/training_protocol.hpp"
#include "models/training/protocol/training_trace.hpp"
#include "models/training/train.hpp"
#include "sim/checkpoint_policy.hpp"
#include "sim/cluster.hpp"
#include "sim/engine.hpp"
#include "sim/metric_set.hpp"

namespace codesim::models::detail {

inline int dir_index(Direction dir) { return dir == Direction::forward ? 0 : 1; }
inline const char* dir_name(Direction dir) {
  return dir == Direction::forward ? "forward" : "backward";
}

/// A quantity every node holds: one shared value and the copies of the nodes whose value differs
/// (after a fault struck that node's decode or nonlinear step).
struct NodeCopies {
  Matrix shared;
  std::vector<std::optional<Matrix>> own;  ///< empty when no node differs

  /// Node `node`'s value, 0 <= node < the node count given to set_own.
  const Matrix& of(int node) const {
    return !own.empty() && own[static_cast<std::size_t>(node)]
               ? *own[static_cast<std::size_t>(node)]
               : shared;
  }
  bool differs(int node) const { return !own.empty() && own[static_cast<std::size_t>(node)]; }
  /// Gives node `node` (< nodes) its own value.
  void set_own(int node, Matrix value, int nodes) {
    if (own.empty()) own.resize(static_cast<std::size_t>(nodes));
    own[static_cast<std::size_t>(node)] = std::move(value);
  }
  /// Every node holds `value`.
  void reset(Matrix value) {
    shared = std::move(value);
    own.clear();
  }
};

// Per-direction and per-layer facts of the schemes (models/training/protocol/round_costs.hpp).
using DirectionGeometry = RoundShape;
using LayerGeometry = LayerShape;

/// One replica of train_coded (its documentation in models/training/train.hpp). The constructor takes
/// train_coded's arguments (same preconditions), which must outlive the run; run() once.
class CodedTrainingRun {
 public:
  CodedTrainingRun(const sim::ClusterSpec& cluster_spec, const sim::CheckpointSpec& checkpoint,
                   const TrainingSpec& spec, FaultInjector& injector, const Dataset& train,
                   const Dataset& test, std::uint64_t seed, std::uint64_t replica,
                   const TrainingObserver& observer);

  /// Runs the protocol to the end (or the time limit) and reads the model out.
  TrainingResult run();

 private:
  enum class Phase { idle, round, after_round, update, checkpoint, restart, waiting, done };
  enum class TaskState { none, pending, done, lost };

  struct Verification {
    bool passed = true;
    double time_s = 0.0;  // nominal rounds plus regenerations, up to where it stopped
  };

  // --- set-up, helpers, evaluation and read-out (coded_training_run.cpp) ----------------------
  void init_layers();
  void init_evaluation(const Dataset& test);
  void repair_before_read_out();
  bool up(int node) const { return cluster_.node(node).is_up(); }
  /// Columns of layer l's products: the batch times its positions per sample (conv: H_out W_out).
  int columns(int l) const { return shapes_[static_cast<std::size_t>(l)].positions * batch_; }
  bool usable(int node) const { return up(node) && !stale_[static_cast<std::size_t>(node)]; }
  std::vector<int> live_nodes() const;
  double slowest_live_speed() const;
  // Runs `action` after `delay_s` unless a rollback (or the end) intervenes.
  template <typename Action>
  void after(double delay_s, Action action) {
    const std::uint32_t attempt = attempt_;
    engine_.schedule_in(delay_s, [this, attempt, action = std::move(action)]() mutable {
      if (attempt == attempt_) action();
    });
  }
  // Charges `seconds` of `kind` now and runs `action` when they have elapsed (a run that hits
  // its time limit first keeps only the part that did).
  template <typename Action>
  void spend(TimeKind kind, double seconds, Action action) {
    progress_.time.charge_ahead(engine_.now(), {{kind, seconds}});
    after(seconds, std::move(action));
  }
  /// A fault opportunity now, at `node`.
  FaultOpportunity opportunity(int node, const char* operation, int layer, FaultTarget target,
                               double flops) const;
  const FaultRecord* offer(int node, const char* operation, int layer, FaultTarget target,
                           double flops, Eigen::Ref<Eigen::MatrixXd> data);
  /// A fault opportunity on node p's own data (a block, a partial, an update), which lives on
  /// p's rank: `data` there, null on the other ranks, which log the owner's fault.
  const FaultRecord* offer_at_node(int node, const char* operation, int layer, FaultTarget target,
                                   double flops, BlockRef* data);
  /// The pending strike of an offer on node p's own data (`data` as for offer_at_node).
  const FaultRecord& strike_at_node(int node, BlockRef* data);
  void offer_copy(NodeCopies& copies, int node, const char* operation, int layer,
                  FaultTarget target, double flops);
  void load_batch(int iteration);
  const std::vector<int>& permutation(std::int64_t epoch);
  MlpParameters decoded_parameters() const;
  /// The logits of the cluster's coded forward pass on `inputs`, all at once.
  Matrix coded_logits_of(const Matrix& inputs);
  MlpParameters read_out_parameters();
  Matrix coded_logits(const Matrix& inputs);
  double evaluate_accuracy();
  /// compute_and_decode over the ranks: each partial computed and checked where its node lives.
  ProductDecode decode_on_ranks(const CodingScheme& scheme, Direction dir, const Matrix& input,
                                const PartialResultHook& faulty = {}) const;
  /// decode_weights() of layer l, on every rank (the other ranks' blocks lent for it).
  Matrix layer_weights(int l);
  void on_crash(int node);
  void on_repair(int node);
  void stop_in_storm();
  void finish();
  void fill_metrics(const MlpParameters& final_parameters);
  double audit_weight_deviation(const MlpParameters& final_parameters) const;

  // --- an iteration (coded_training_rounds.cpp) ------------------------------------------------
  void start_iteration();
  bool regenerate_repaired_nodes(double& regeneration_s);
  void start_round(int layer, Direction dir);
  void on_partial(int p);
  /// Runs `flops` on idle node p; `done(p)` follows unless the phase or the attempt moved on.
  void start_task(int p, double flops, void (CodedTrainingRun::*done)(int));
  // Cancels node p's running task, if any, charging the part that ran as busy time.
  void cancel_task(int p);
  // Delivers node p's checked partial (partials_[p]; empty: withheld) to its symbols.
  void deliver_partial(int p);
  // A block check's flops: 24 per stored entry (by columns, then by rows: three weighted sums
  // and three magnitudes per entry and pass).
  static double block_check_flops(const BlockRef& block) { return 24.0 * block.size(); }
  // kept: the partial goes out; extra_flops: the node's block check and recomputation, which
  // delay it.
  // withheld_block: the node's block is beyond its repair; corrected: its check corrected.
  struct NodeCheck {
    bool kept = true;
    double extra_flops = 0.0;
    bool withheld_block = false;
    bool corrected = false;
  };
  NodeCheck checked_at_node(CodingScheme& scheme, int p, Direction dir, const Matrix& input,
                            Matrix& partial);
  bool repair_blocks(int layer, Direction dir, const std::vector<int>& blamed);
  void check_round_done();
  void finish_round();
  std::vector<std::optional<Matrix>> gather_symbols(const DirectionGeometry& g, int& present);
  /// Seconds of the round's communication of `symbols`, starting now; charges its bytes' energy
  /// and its link wait, and traces its transfers.
  double communicate(const DirectionGeometry& g, const std::vector<std::optional<Matrix>>& symbols,
                     double symbol_bytes);
  void after_decode();
  void start_next_round(int l, Direction dir);
  void offer_decode_faults(NodeCopies& value, const char* operation, int layer, double flops);
  double decode_fault_flops(int layer, Direction dir) const;
  void apply_forward(int l);
  void apply_backward(int l);
  double update_flops() const;
  void start_update();
  void on_update_done(int p);
  void finish_update();
  void end_iteration();

  // --- recovery (coded_training_recovery.cpp) --------------------------------------------------
  bool decodable_with_usable_nodes() const;
  std::optional<double> regenerate_blamed(int layer, const std::vector<int>& blamed);
  std::optional<double> regenerate(const std::vector<std::pair<int, int>>& jobs,
                                   const std::vector<int>& exclude);
  /// scheme.regenerate(node, sources) of layer `layer` where node's blocks live (the sources'
  /// blocks lent there), its answer on every rank.
  bool regenerate_block(int layer, int node, const std::vector<int>& sources);
  /// scheme.repair_block(node) of layer `layer` where node's blocks live, its answer everywhere.
  DecodeStatus repair_block_at_node(CodingScheme& scheme, int node);
  CheckpointContents checkpoint_contents();
  void take_snapshot();
  void restore_snapshot();
  double nominal_round_s(int layer, Direction dir) const;
  Verification verify();
  /// Faults injected and crashes so far: the random events a rollback may be blamed on.
  std::uint64_t random_events() const { return injector_.log().records.size() + crashes_; }
  ProductDecode verification_decode(int layer, Direction dir, double& t_s);
  double stored_values_per_node() const;
  void start_checkpoint();
  void rollback();
  void wait_for_repairs();
  // The timeline: faults, corrections and detections so far (on `track`, from `where`).
  void trace_sync(int track, const char* where) {
    trace_.sync(injector_.log(), progress_.counts, track, engine_.now(), where);
  }

  // --- state --------------------------------------------------------------------------------
  const TrainingSpec& spec_;
  sim::Engine engine_;
  sim::Cluster cluster_;
  sim::CheckpointPolicy policy_;
  FaultInjector& injector_;
  const Dataset& train_;
  std::uint64_t seed_;
  std::uint64_t replica_;
  const TrainingObserver& observer_;
  NodeRanks ranks_;                    // who holds each node's blocks (one process: this one)
  std::unique_ptr<LayerSteps> steps_;  // the nodes' steps between the products
  int layers_ = 0;                     // weighted layers
  int batch_;
  std::vector<WeightShape> shapes_;  // per layer: W's shape, product columns, initial sd
  WaitPolicy wait_;
  int nodes_ = 0;
  CheckpointStore checkpoints_;  // the last checkpoint; empty: the initial state

  // Threads that share the large node products and updates (spec.threads > 1), else null.
  std::unique_ptr<ThreadTeam> team_;
  std::vector<std::unique_ptr<CodingScheme>> schemes_;
  std::vector<LayerGeometry> geometry_;
  std::vector<std::array<RoundCodewords, 2>> codewords_;  // per layer: forward, backward
  std::vector<Vector> biases_;
  MlpParameters shadow_;
  std::vector<bool> stale_;  // missed an update while down: block must be regenerated
  sim::MetricSet metrics_;
  Matrix eval_inputs_;
  std::vector<int> eval_labels_;
  std::array<std::pair<std::int64_t, std::vector<int>>, 2> permutations_{{{-1, {}}, {-1, {}}}};
  std::size_t next_slot_ = 0;

  // Current iteration.
  Matrix x0_;
  std::vector<int> labels_;
  std::vector<NodeCopies> z_;      // z_l = W_l x_l + b_l
  std::vector<NodeCopies> x_;      // x_l, the input of layer l
  std::vector<NodeCopies> delta_;  // delta_l, N_{l+1} x B
  double iteration_loss_ = 0.0;

  // Current round.
  Phase phase_ = Phase::idle;
  std::uint32_t attempt_ = 0;  // bumps invalidate the events of abandoned work
  int round_layer_ = 0;
  Direction round_dir_ = Direction::forward;
  double round_start_s_ = 0.0;
  std::vector<TaskState> task_state_;
  std::vector<double> task_start_s_;  // per node: when its running task started (energy)
  std::vector<double> down_since_s_;  // per node: when it went down, or -1 when up (energy)
  std::vector<std::optional<Matrix>> partials_;
  std::vector<int> withheld_blocks_;  // this round's nodes whose block is beyond their repair
  std::vector<int> member_done_;
  std::vector<char> symbol_complete_;
  CodewordTally tally_;  // the complete symbols against the wait rule
  int pending_tasks_ = 0;
  ProductDecode round_decode_;

  // Progress and accounting.
  double iteration_start_s_ = 0.0;
  double wait_start_s_ = 0.0;
  double loss_sum_ = 0.0;
  int loss_count_ = 0;
  double final_accuracy_ = 0.0;
  double final_loss_ = 0.0;
  std::uint64_t crashes_ = 0, silent_corruptions_ = 0;
  std::uint64_t events_at_attempt_start_ = 0;  // random_events() at the last checkpoint or restore
  TrainingProgress progress_;
  TrainingTrace trace_;
  double trace_offset_s_ = 0.0;  // where regenerations start after now (within a verification)
  // The untimed read-out after the run: its repairs charge no link wait and no energy (they are
  // outside the simulated time the breakdowns add up to).
  bool reading_out_ = false;
};

}  // namespace codesim::models::detail
