// The numeric backend of the coded training protocol (train_coded's run): the protocol
// (protocol_run.hpp) over engine events that do the real arithmetic: the nodes' products with
// their faults and checks, the decodes, the nodes' steps between products, the update,
// regeneration, the verification pass and checkpoints of the blocks. Its methods live in three
// files by job:
//   numeric_backend.cpp   set-up, the run, evaluation, fault offers, read-out and metrics
//   numeric_rounds.cpp    an iteration's product rounds, decodes and update
//   numeric_recovery.cpp  regeneration, verification decodes, checkpoints and waiting
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "models/coding/coding_scheme.hpp"
#include "models/linalg/thread_team.hpp"
#include "models/nn/layer_steps.hpp"
#include "models/training/numeric/batch_order.hpp"
#include "models/training/numeric/checkpoint_store.hpp"
#include "models/training/numeric/node_ranks.hpp"
#include "models/training/protocol/protocol_run.hpp"
#include "models/training/protocol/round_costs.hpp"
#include "models/training/protocol/training_backend.hpp"
#include "models/training/train.hpp"
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

/// The network as the cluster holds it: per weighted layer its scheme (the encoded weights),
/// shapes, codewords and bias; the nodes' steps between the products.
struct CodedLayers {
  int count = 0;
  std::vector<WeightShape> shapes;  ///< W's shape, product columns, initial sd
  std::vector<std::unique_ptr<CodingScheme>> schemes;
  std::vector<LayerShape> geometry;
  std::vector<std::array<RoundCodewords, 2>> codewords;  ///< forward, backward
  std::vector<Vector> biases;                            ///< one shared copy each
  std::unique_ptr<LayerSteps> steps;
  /// Threads that share the large node products and updates (spec.threads > 1), else null.
  std::unique_ptr<ThreadTeam> team;
  MlpParameters shadow;  ///< the audit's error-free copy (on the root rank)
};

/// The values of the iteration in progress.
struct IterationValues {
  Matrix x0;  ///< the batch
  std::vector<int> labels;
  std::vector<NodeCopies> z;      ///< z_l = W_l x_l + b_l
  std::vector<NodeCopies> x;      ///< x_l, the input of layer l
  std::vector<NodeCopies> delta;  ///< delta_l, N_{l+1} x B
  double loss = 0.0;              ///< of the decoded logits
};

enum class TaskState { none, pending, done, lost };

/// The tasks of the round (or update) in progress.
struct RoundTasks {
  int layer = 0;
  Direction dir = Direction::forward;
  double start_s = 0.0;
  std::vector<TaskState> state;      ///< per node
  std::vector<double> task_start_s;  ///< per node: when its running task started (energy)
  std::vector<std::optional<Matrix>> partials;  ///< per node
  std::vector<int> withheld_blocks;             ///< nodes whose block is beyond their repair
  std::vector<int> member_done;                 ///< per symbol: members delivered
  std::vector<char> symbol_complete;
  CodewordTally tally;  ///< the complete symbols against the wait rule
  int pending = 0;      ///< tasks running
  ProductDecode decode;
};

/// The evaluation samples and what the accuracy series keeps between rows.
struct EvaluationRecord {
  Matrix inputs;
  std::vector<int> labels;
  double loss_sum = 0.0;  ///< of the iterations since the last row
  int loss_count = 0;
  double final_accuracy = 0.0;
  double final_loss = 0.0;
};

/// One replica of train_coded (its documentation in models/training/train.hpp). The constructor
/// takes train_coded's arguments (same preconditions), which must outlive the run; run() once.
class NumericBackend final : public TrainingBackend {
 public:
  NumericBackend(const sim::ClusterSpec& cluster_spec, const sim::CheckpointSpec& checkpoint,
                 const ValidTraining& training, FaultInjector& injector, const Dataset& train,
                 const Dataset& test, std::uint64_t seed, std::uint64_t replica,
                 const TrainingObserver& observer);

  /// Runs the protocol to the end (or the time limit) and reads the model out.
  TrainingResult run();

  // --- TrainingBackend ----------------------------------------------------------------------
  double now_s() const override { return engine_.now(); }
  void after(double seconds, ProtocolStep next) override;
  void stop() override;
  void end_at(double time_s) override;
  bool regenerate_stale_nodes(double& seconds) override;
  bool decodable() override;
  void wait_for_repair() override;
  std::vector<int> needed_nodes_gone() override;
  void begin_iteration(int iteration) override;
  void start_round(int layer, Direction dir) override;
  DecodeStatus round_status() override;
  std::optional<double> regenerate_blamed(int layer, Direction dir) override;
  void apply_round(int layer, Direction dir) override;
  void start_update() override;
  void iteration_done() override;
  double evaluate() override;
  bool read_out_passes() override;
  VerificationDecode verification_decode(int layer, Direction dir) override;
  std::optional<double> verification_regenerate(int layer, Direction dir,
                                                double elapsed_s) override;
  void save_checkpoint() override;
  void restore_checkpoint(RollbackTarget target) override;
  void abandon_work() override;
  /// Faults injected and crashes so far.
  std::uint64_t random_events() const override { return injector_.log().records.size() + crashes_; }
  // The timeline: faults, corrections and detections so far (on `track`, from `where`).
  void trace_sync(int track, const char* where) override {
    trace().sync(injector_.log(), progress().counts, track, engine_.now(), where);
  }
  std::vector<int> live_nodes() const override;

 private:
  TrainingProgress& progress() { return protocol_.progress(); }
  const TrainingProgress& progress() const { return protocol_.progress(); }
  TrainingTrace& trace() { return protocol_.trace(); }
  const LayerShape& geometry(int layer) const {
    return net_.geometry[static_cast<std::size_t>(layer)];
  }
  const RoundShape& round_shape(int layer, Direction dir) const {
    return geometry(layer).dir[static_cast<std::size_t>(dir_index(dir))];
  }

  // --- set-up, evaluation, fault offers and read-out (numeric_backend.cpp) ------------------
  void init_layers();
  void init_evaluation(const Dataset& test);
  bool repair_before_read_out();
  bool up(int node) const { return cluster_.node(node).is_up(); }
  /// Columns of layer l's products: the batch times its positions per sample (conv: H_out W_out).
  int columns(int l) const {
    return net_.shapes[static_cast<std::size_t>(l)].positions * batches_.batch();
  }
  bool usable(int node) const { return up(node) && !stale_[static_cast<std::size_t>(node)]; }
  double slowest_live_speed() const;
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
  MlpParameters decoded_parameters() const;
  MlpParameters read_out_parameters();
  /// A layer's pre-activation for an input: the coded forward pass's or the decoded weights'.
  using LayerProduct = Matrix (NumericBackend::*)(int l, const Matrix& x);
  Matrix logits(const Matrix& inputs, LayerProduct product);
  Matrix coded_product(int l, const Matrix& x);
  Matrix decoded_product(int l, const Matrix& x);
  double evaluate_accuracy();
  /// compute_and_decode over the ranks: each partial computed and checked where its node lives.
  ProductDecode decode_on_ranks(const CodingScheme& scheme, Direction dir, const Matrix& input,
                                const PartialResultHook& faulty = {}) const;
  /// decode_weights() of layer l, on every rank (the other ranks' blocks lent for it).
  Matrix layer_weights(int l);
  Matrix read_every_block(int l, const std::function<Matrix(CodingScheme&)>& read);
  void on_crash(int node);
  void on_repair(int node);
  void fill_metrics(const MlpParameters& final_parameters);
  double audit_weight_deviation(const MlpParameters& final_parameters) const;

  // --- rounds and the update (numeric_rounds.cpp) --------------------------------------------
  void on_partial(int p);
  /// Runs `flops` on idle node p; `done(p)` follows unless the phase or the attempt moved on.
  void start_task(int p, double flops, void (NumericBackend::*done)(int));
  // Cancels node p's running task, if any, charging the part that ran as busy time.
  void cancel_task(int p);
  // Delivers node p's checked partial (round_.partials[p]; empty: withheld) to its symbols.
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
  void check_round_done();
  void finish_round();
  std::vector<std::optional<Matrix>> gather_symbols(const RoundShape& g, int& present);
  /// Seconds of the round's communication of `symbols`, starting now; charges its bytes' energy
  /// and its link wait, and traces its transfers.
  double communicate(const RoundShape& g, const std::vector<std::optional<Matrix>>& symbols,
                     double symbol_bytes);
  void trace_round(int present, double communication_s, double decode_s);
  void offer_decode_faults(NodeCopies& value, const char* operation, int layer, double flops);
  void apply_forward(int l);
  void apply_backward(int l);
  double update_flops() const;
  void on_update_done(int p);
  void finish_update();

  // --- recovery (numeric_recovery.cpp) -------------------------------------------------------
  /// Regenerates `blamed` nodes' blocks of `layer` (the down ones become stale).
  std::optional<double> regenerate_nodes(int layer, const std::vector<int>& blamed);
  std::optional<double> regenerate(const std::vector<std::pair<int, int>>& jobs,
                                   const std::vector<int>& exclude);
  /// scheme.regenerate(node, sources) of layer `layer` where node's blocks live (the sources'
  /// blocks lent there), its answer on every rank.
  bool regenerate_block(int layer, int node, const std::vector<int>& sources);
  /// scheme.repair_block(node) of layer `layer` where node's blocks live, its answer everywhere.
  DecodeStatus repair_block_at_node(CodingScheme& scheme, int node);
  bool repair_blocks(int layer, Direction dir, const std::vector<int>& blamed);
  CheckpointContents checkpoint_contents();
  void restore_snapshot();
  double nominal_round_s(int layer, Direction dir) const;
  double stored_values_per_node() const;

  // --- state --------------------------------------------------------------------------------
  const TrainingSpec& spec_;
  std::uint64_t seed_;
  const TrainingObserver& observer_;
  sim::Engine engine_;
  sim::Cluster cluster_;
  FaultInjector& injector_;
  NodeRanks ranks_;  // who holds each node's blocks (one process: this one)
  int nodes_ = 0;
  CodedLayers net_;
  CheckpointStore checkpoints_;  // the last checkpoints; empty: the initial state
  BatchOrder batches_;
  IterationValues values_;
  RoundTasks round_;
  EvaluationRecord eval_;
  sim::MetricSet metrics_;
  std::vector<bool> stale_;           // missed an update while down: block must be regenerated
  std::vector<double> down_since_s_;  // per node: when it went down, or -1 when up (energy)
  std::uint32_t attempt_ = 0;         // bumps invalidate the events of abandoned work
  std::uint64_t crashes_ = 0;
  std::uint64_t silent_corruptions_ = 0;
  std::vector<int> verification_blamed_;  // what the last verification decode blamed
  double trace_offset_s_ = 0.0;  // where regenerations start after now (within a verification)
  // The untimed read-out after the run: its repairs charge no link wait and no energy (they are
  // outside the simulated time the breakdowns add up to).
  bool reading_out_ = false;
  ProtocolRun protocol_;
};

}  // namespace codesim::models::detail
