// The coded training protocol as a state machine of engine events: product rounds, decodes,
// regeneration, updates, checkpoints and rollbacks, with the real arithmetic inside the events.
#include "models/dnn/coded_training.hpp"

#include <sys/types.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <boost/random/normal_distribution.hpp>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <limits>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "models/dnn/protocol_counters.hpp"
#include "models/dnn/round_costs.hpp"
#include "models/dnn/scratch_file.hpp"
#include "models/dnn/slab_weights.hpp"
#include "models/dnn/time_breakdown.hpp"
#include "models/dnn/training_protocol.hpp"
#include "sim/check.hpp"
#include "sim/engine.hpp"
#include "sim/random_stream.hpp"

namespace codesim::models {
namespace {

using detail::encode_initial_weights;
using detail::read_out_weights;
using detail::ScratchFile;

enum class Phase { idle, round, after_round, update, checkpoint, restart, waiting, done };

int dir_index(Direction dir) { return dir == Direction::forward ? 0 : 1; }
const char* dir_name(Direction dir) { return dir == Direction::forward ? "forward" : "backward"; }

// A quantity every node holds: one shared value and the copies of the nodes whose value differs
// (after a fault struck that node's decode or nonlinear step).
struct NodeCopies {
  Matrix shared;
  std::vector<std::optional<Matrix>> own;  // empty when no node differs

  const Matrix& of(int node) const {
    return !own.empty() && own[static_cast<std::size_t>(node)]
               ? *own[static_cast<std::size_t>(node)]
               : shared;
  }
  bool differs(int node) const { return !own.empty() && own[static_cast<std::size_t>(node)]; }
  void set_own(int node, Matrix value, int nodes) {
    if (own.empty()) own.resize(static_cast<std::size_t>(nodes));
    own[static_cast<std::size_t>(node)] = std::move(value);
  }
  void reset(Matrix value) {
    shared = std::move(value);
    own.clear();
  }
};

// Per-direction and per-layer facts of the schemes (models/dnn/round_costs.hpp).
using DirectionGeometry = RoundShape;
using LayerGeometry = LayerShape;

class CodedTrainingRun {
 public:
  CodedTrainingRun(const sim::ClusterSpec& cluster_spec, const sim::CheckpointSpec& checkpoint,
                   const TrainingSpec& spec, FaultInjector& injector, const Dataset& train,
                   const Dataset& test, std::uint64_t seed, std::uint64_t replica,
                   const TrainingObserver& observer)
      : spec_(spec),
        cluster_(engine_, cluster_spec, seed, replica),
        policy_(checkpoint, cluster_.system_mtbf_s()),
        checkpoint_spec_(checkpoint),
        injector_(injector),
        train_(train),
        seed_(seed),
        replica_(replica),
        observer_(observer),
        layers_(static_cast<int>(spec.mlp.layer_sizes.size()) - 1),
        batch_(spec.mlp.batch_size),
        progress_(spec.iterations) {
    const std::string problem =
        validate_training(spec, cluster_.size(), train.features(), train.classes);
    CODESIM_CHECK(problem.empty(), problem.c_str());
    wait_ = wait_policy(spec);
    CODESIM_CHECK(test.samples() >= 1 && test.features() == train.features(),
                  "the test set needs samples of the training set's features");
    nodes_ = summarize_scheme(spec.scheme).nodes;
    for (int l = 0; l < layers_; ++l) {
      const int rows = spec.mlp.layer_sizes[static_cast<std::size_t>(l) + 1];
      const int cols = spec.mlp.layer_sizes[static_cast<std::size_t>(l)];
      schemes_.push_back(make_scheme(spec.scheme, rows, cols));
      CodingScheme& scheme = *schemes_.back();
      CODESIM_CHECK(scheme.node_count() == nodes_, "every layer's scheme has P nodes");
      // glorot_init's weights, a slab at a time for a large layer.
      encode_initial_weights(spec.scheme, scheme, seed, l, rows, cols);
      biases_.push_back(Vector::Zero(rows));
      geometry_.push_back(layer_shape(spec.scheme, scheme, rows, cols, rows, cols));
      const LayerGeometry& g = geometry_.back();
      codewords_.push_back(
          {round_codewords(spec.scheme, g.dir[0]), round_codewords(spec.scheme, g.dir[1])});
    }
    if (spec.audit) shadow_ = glorot_init(spec.mlp, seed);
    stale_.assign(static_cast<std::size_t>(nodes_), false);
    task_state_.assign(static_cast<std::size_t>(nodes_), TaskState::none);
    partials_.resize(static_cast<std::size_t>(nodes_));
    const int eval_count =
        spec.eval_samples > 0 ? std::min(spec.eval_samples, test.samples()) : test.samples();
    eval_inputs_ = test.images.leftCols(eval_count);
    eval_labels_.assign(test.labels.begin(), test.labels.begin() + eval_count);
    metrics_.add_series("accuracy_vs_time", {"time_s", "iteration", "test_accuracy", "train_loss"});
    if (spec.record_loss) metrics_.add_series("loss_vs_iteration", {"iteration", "time_s", "loss"});
    checkpoint_bytes_ = checkpoint.bytes;
    cluster_.crashes().on_crash([this](int node, bool) { on_crash(node); });
    cluster_.crashes().on_repair([this](int node) { on_repair(node); });
  }

  TrainingResult run() {
    // Row 0: the initial model, its loss from the cluster's decoded logits of batch 0 (like every
    // later row's), so that W is never decoded whole beside its blocks.
    load_batch(0);
    metrics_.append_row("accuracy_vs_time",
                        {0.0, 0.0, evaluate_accuracy(), cross_entropy(coded_logits(x0_), labels_)});
    cluster_.crashes().start();
    engine_.schedule_at(0.0, [this] { start_iteration(); });
    engine_.run_until(spec_.time_limit_s);
    if (!progress_.completed()) {
      progress_.commit_pending();
      final_accuracy_ = evaluate_accuracy();
    }
    // The model is read out after untimed repairs: stale blocks (of nodes that missed updates)
    // are regenerated and a verification pass corrects a corruption struck at the last update
    // that no decode has seen yet.
    std::vector<std::pair<int, int>> stale_blocks;
    std::vector<int> stale_nodes;
    for (int p = 0; p < nodes_; ++p) {
      if (!stale_[static_cast<std::size_t>(p)]) continue;
      stale_nodes.push_back(p);
      for (int l = 0; l < layers_; ++l) stale_blocks.emplace_back(l, p);
    }
    if (regenerate(stale_blocks, stale_nodes)) std::fill(stale_.begin(), stale_.end(), false);
    verify();
    injector_.finish();
    TrainingResult result;
    result.parameters = read_out_parameters();
    fill_metrics(result.parameters);
    result.metrics = std::move(metrics_);
    result.faults = injector_.log();
    return result;
  }

 private:
  enum class TaskState { none, pending, done, lost };

  // --- helpers ------------------------------------------------------------------------------
  bool up(int node) const { return cluster_.node(node).is_up(); }
  bool usable(int node) const { return up(node) && !stale_[static_cast<std::size_t>(node)]; }

  std::vector<int> live_nodes() const {
    std::vector<int> live;
    for (int p = 0; p < nodes_; ++p)
      if (up(p)) live.push_back(p);
    return live;
  }

  double slowest_live_speed() const {
    double slowest = std::numeric_limits<double>::infinity();
    for (int p = 0; p < nodes_; ++p)
      if (up(p)) slowest = std::min(slowest, cluster_.node(p).speed_flops_per_s());
    return std::isfinite(slowest) ? slowest : cluster_.node(0).speed_flops_per_s();
  }

  // Runs `action` after `delay_s` unless a rollback (or the end) intervenes.
  template <typename Action>
  void after(double delay_s, Action action) {
    const std::uint32_t attempt = attempt_;
    engine_.schedule_in(delay_s, [this, attempt, action = std::move(action)]() mutable {
      if (attempt == attempt_) action();
    });
  }

  const FaultRecord* offer(int node, const char* operation, int layer, FaultTarget target,
                           double flops, Eigen::Ref<Eigen::MatrixXd> data) {
    FaultOpportunity o;
    o.time_s = engine_.now();
    o.node = node;
    o.operation = operation;
    o.layer = layer;
    o.target = target;
    o.flops = flops;
    return injector_.inject(o, data);
  }

  // Offers `target` on node p's copy of `copies` (copied out only when struck).
  void offer_copy(NodeCopies& copies, int node, const char* operation, int layer,
                  FaultTarget target, double flops) {
    FaultOpportunity o;
    o.time_s = engine_.now();
    o.node = node;
    o.operation = operation;
    o.layer = layer;
    o.target = target;
    o.flops = flops;
    if (!injector_.offer(o)) return;
    Matrix copy = copies.of(node);
    injector_.apply(copy);
    copies.set_own(node, std::move(copy), nodes_);
  }

  void load_batch(int iteration) {
    const int n = train_.samples();
    x0_.resize(train_.features(), batch_);
    labels_.resize(static_cast<std::size_t>(batch_));
    for (int b = 0; b < batch_; ++b) {
      const std::int64_t k = static_cast<std::int64_t>(iteration) * batch_ + b;
      const std::int64_t epoch = k / n;
      const int position = static_cast<int>(k % n);
      const std::vector<int>& order = permutation(epoch);
      const int sample = order[static_cast<std::size_t>(position)];
      x0_.col(b) = train_.images.col(sample);
      labels_[static_cast<std::size_t>(b)] = train_.labels[static_cast<std::size_t>(sample)];
    }
  }

  const std::vector<int>& permutation(std::int64_t epoch) {
    for (auto& [cached_epoch, order] : permutations_)
      if (cached_epoch == epoch) return order;
    const std::uint64_t key =
        sim::stream_seed({seed_, replica_, "batch_order", static_cast<std::uint64_t>(epoch)});
    // Two slots: a batch may straddle two epochs.
    permutations_[next_slot_] = {epoch, seeded_permutation(train_.samples(), key)};
    const std::size_t used = next_slot_;
    next_slot_ = 1 - next_slot_;
    return permutations_[used].second;
  }

  MlpParameters decoded_parameters() const {
    MlpParameters p;
    for (const auto& scheme : schemes_) p.weights.push_back(scheme->decode_weights());
    p.biases = biases_;
    return p;
  }

  // The decoded parameters at the end of the run; releases every stored block.
  MlpParameters read_out_parameters() {
    MlpParameters p;
    for (int l = 0; l < layers_; ++l) {
      const LayerGeometry& g = geometry_[static_cast<std::size_t>(l)];
      p.weights.push_back(
          read_out_weights(spec_.scheme, *schemes_[static_cast<std::size_t>(l)], g.rows, g.cols));
    }
    p.biases = biases_;
    return p;
  }

  // Logits of the cluster's own coded forward pass (no faults; error-correcting decode,
  // decode_weights() for a layer whose decode is detected).
  Matrix coded_logits(const Matrix& inputs) const {
    Matrix x = inputs;
    for (int l = 0; l < layers_; ++l) {
      const CodingScheme& scheme = *schemes_[static_cast<std::size_t>(l)];
      ProductDecode decoded = compute_and_decode(scheme, Direction::forward, x, spec_.decode);
      Matrix s = decoded.status != DecodeStatus::detected ? std::move(decoded.product)
                                                          : Matrix(scheme.decode_weights() * x);
      s.colwise() += biases_[static_cast<std::size_t>(l)];
      x = l + 1 < layers_ ? activate(spec_.mlp.hidden_activation, s) : std::move(s);
    }
    return x;
  }

  // Accuracy of the cluster's own coded forward pass on the evaluation samples (no faults).
  double evaluate_accuracy() const {
    const Matrix x = coded_logits(eval_inputs_);
    int correct = 0;
    for (Eigen::Index c = 0; c < x.cols(); ++c) {
      Eigen::Index best = 0;
      x.col(c).maxCoeff(&best);
      correct += best == eval_labels_[static_cast<std::size_t>(c)];
    }
    return x.cols() == 0 ? 0.0 : static_cast<double>(correct) / static_cast<double>(x.cols());
  }

  // Whether every round of an iteration could decode from the usable nodes.
  bool decodable_with_usable_nodes() const {
    return iteration_decodable(geometry_, codewords_, [this](int p) { return usable(p); });
  }

  // --- iteration ----------------------------------------------------------------------------
  void start_iteration() {
    if (observer_.should_stop && observer_.should_stop()) {
      throw TrainingStopped("training stopped on request");
    }
    if (progress_.all_done()) {
      finish();
      return;
    }
    phase_ = Phase::idle;
    iteration_start_s_ = engine_.now();
    // Stale nodes that are back up get their blocks regenerated first.
    std::vector<std::pair<int, int>> repairs;  // (layer, node)
    for (int p = 0; p < nodes_; ++p) {
      if (stale_[static_cast<std::size_t>(p)] && up(p)) {
        for (int l = 0; l < layers_; ++l) repairs.emplace_back(l, p);
      }
    }
    double regeneration_s = 0.0;
    if (!repairs.empty()) {
      std::vector<int> exclude;
      for (int p = 0; p < nodes_; ++p)
        if (stale_[static_cast<std::size_t>(p)] || !up(p)) exclude.push_back(p);
      const std::optional<double> t = regenerate(repairs, exclude);
      if (!t) {
        rollback();
        return;
      }
      for (const auto& [layer, node] : repairs) stale_[static_cast<std::size_t>(node)] = false;
      regeneration_s = *t;
    }
    progress_.time.pending.communication_s += regeneration_s;
    if (!decodable_with_usable_nodes()) {
      wait_for_repairs();
      return;
    }
    after(regeneration_s, [this] {
      load_batch(progress_.done());
      z_.assign(static_cast<std::size_t>(layers_), NodeCopies{});
      x_.assign(static_cast<std::size_t>(layers_), NodeCopies{});
      delta_.assign(static_cast<std::size_t>(layers_), NodeCopies{});
      x_[0].reset(x0_);
      start_round(0, Direction::forward);
    });
  }

  void start_round(int layer, Direction dir) {
    phase_ = Phase::round;
    round_layer_ = layer;
    round_dir_ = dir;
    round_start_s_ = engine_.now();
    const DirectionGeometry& g =
        geometry_[static_cast<std::size_t>(layer)].dir[static_cast<std::size_t>(dir_index(dir))];
    std::fill(task_state_.begin(), task_state_.end(), TaskState::none);
    for (auto& partial : partials_) partial.reset();
    member_done_.assign(g.members.size(), 0);
    symbol_complete_.assign(g.members.size(), 0);
    tally_.reset(
        codewords_[static_cast<std::size_t>(layer)][static_cast<std::size_t>(dir_index(dir))],
        wait_);
    pending_tasks_ = 0;
    const double flops = g.task_flops_per_column * batch_;
    const std::uint32_t attempt = attempt_;
    for (int p : g.participants) {
      if (!usable(p)) {
        task_state_[static_cast<std::size_t>(p)] = TaskState::lost;
        continue;
      }
      sim::Node& node = cluster_.node(p);
      CODESIM_CHECK(!node.is_busy(), "a node starts a round idle");
      task_state_[static_cast<std::size_t>(p)] = TaskState::pending;
      ++pending_tasks_;
      node.run_task(engine_, flops, [this, p, attempt] {
        if (attempt == attempt_ && phase_ == Phase::round) on_partial(p);
      });
    }
    if (pending_tasks_ == 0) finish_round();
  }

  void on_partial(int p) {
    const int l = round_layer_;
    const Direction dir = round_dir_;
    const DirectionGeometry& g =
        geometry_[static_cast<std::size_t>(l)].dir[static_cast<std::size_t>(dir_index(dir))];
    CodingScheme& scheme = *schemes_[static_cast<std::size_t>(l)];
    const NodeCopies& input = dir == Direction::forward ? x_[static_cast<std::size_t>(l)]
                                                        : delta_[static_cast<std::size_t>(l)];
    const std::vector<Matrix*> blocks = scheme.stored_blocks(p);
    Matrix& block = dir == Direction::forward ? *blocks.front() : *blocks.back();
    const double flops = g.task_flops_per_column * batch_;
    offer(p, dir_name(dir), l, FaultTarget::weights, flops, block);
    Matrix partial = multiply_input(scheme, p, dir, input.of(p));
    offer(p, dir_name(dir), l, FaultTarget::product, flops, partial);
    partials_[static_cast<std::size_t>(p)] = std::move(partial);
    task_state_[static_cast<std::size_t>(p)] = TaskState::done;
    --pending_tasks_;
    for (int s : g.node_symbols[static_cast<std::size_t>(p)]) {
      if (++member_done_[static_cast<std::size_t>(s)] ==
          static_cast<int>(g.members[static_cast<std::size_t>(s)].size())) {
        symbol_complete_[static_cast<std::size_t>(s)] = 1;
        tally_.add(s);
      }
    }
    check_round_done();
  }

  void check_round_done() {
    if (pending_tasks_ == 0 || (wait_.stops_early() && tally_.enough())) {
      finish_round();
    }
  }

  void finish_round() {
    progress_.time.pending.compute_s += engine_.now() - round_start_s_;
    phase_ = Phase::after_round;
    for (int p = 0; p < nodes_; ++p) {
      if (task_state_[static_cast<std::size_t>(p)] == TaskState::pending) {
        cluster_.node(p).cancel_task(engine_);
        task_state_[static_cast<std::size_t>(p)] = TaskState::lost;
      }
    }
    const int l = round_layer_;
    const Direction dir = round_dir_;
    const DirectionGeometry& g =
        geometry_[static_cast<std::size_t>(l)].dir[static_cast<std::size_t>(dir_index(dir))];
    std::vector<std::optional<Matrix>> symbols(g.members.size());
    int present = 0;
    for (std::size_t s = 0; s < g.members.size(); ++s) {
      if (!symbol_complete_[s]) continue;
      const int first = g.members[s].front();
      // A partial that feeds only this symbol is moved rather than copied.
      Matrix sum = g.node_symbols[static_cast<std::size_t>(first)].size() == 1
                       ? std::move(*partials_[static_cast<std::size_t>(first)])
                       : *partials_[static_cast<std::size_t>(first)];
      for (std::size_t i = 1; i < g.members[s].size(); ++i)
        sum += *partials_[static_cast<std::size_t>(g.members[s][i])];
      symbols[s] = std::move(sum);
      ++present;
    }
    for (auto& partial : partials_) partial.reset();
    const double symbol_bytes = static_cast<double>(g.partial_rows) * batch_ * kBytesPerValue;
    const double communication_s = communication_time_s(g, symbols, symbol_bytes);
    round_decode_ = schemes_[static_cast<std::size_t>(l)]->decode(dir, symbols, spec_.decode);
    ++progress_.counts.decodes;
    const double decoder_speed =
        spec_.decentralized ? slowest_live_speed() : cluster_.node(0).speed_flops_per_s();
    const double decode_s =
        decode_flops(present, g.partial_rows, batch_, round_decode_.status == DecodeStatus::clean) /
        decoder_speed;
    progress_.time.pending.communication_s += communication_s;
    progress_.time.pending.decode_s += decode_s;
    after(communication_s + decode_s, [this] { after_decode(); });
  }

  double communication_time_s(const DirectionGeometry& g,
                              const std::vector<std::optional<Matrix>>& symbols,
                              double symbol_bytes) const {
    std::vector<char> present(symbols.size());
    for (std::size_t s = 0; s < symbols.size(); ++s) present[s] = symbols[s].has_value();
    const double product_bytes = static_cast<double>(g.product_rows) * batch_ * kBytesPerValue;
    return round_communication_time_s(cluster_.topology(), g, present, live_nodes(), symbol_bytes,
                                      product_bytes, spec_.decentralized);
  }

  void after_decode() {
    const int l = round_layer_;
    const Direction dir = round_dir_;
    double regeneration_s = 0.0;
    if (round_decode_.status == DecodeStatus::detected) {
      ++progress_.counts.detected;
      rollback();
      return;
    }
    if (round_decode_.status == DecodeStatus::corrected) {
      ++progress_.counts.corrected;
      const std::optional<double> t = regenerate_blamed(l, round_decode_.blamed_nodes);
      if (!t) {
        rollback();
        return;
      }
      regeneration_s = *t;
    }
    if (dir == Direction::forward) {
      apply_forward(l);
    } else {
      apply_backward(l);
    }
    progress_.time.pending.communication_s += regeneration_s;
    const auto next = [this, l, dir] {
      if (dir == Direction::forward && l + 1 < layers_) {
        start_round(l + 1, Direction::forward);
      } else if (dir == Direction::forward && l >= 1) {
        start_round(l, Direction::backward);
      } else if (dir == Direction::backward && l >= 2) {
        start_round(l - 1, Direction::backward);
      } else {
        start_update();
      }
    };
    if (regeneration_s > 0.0) {
      after(regeneration_s, next);
    } else {
      next();
    }
  }

  // Offers (decode) on every live node's copy of `value` (centralized: node 0's only, which every
  // node receives).
  void offer_decode_faults(NodeCopies& value, const char* operation, int layer, double flops) {
    if (spec_.decentralized) {
      for (int p = 0; p < nodes_; ++p)
        if (up(p)) offer_copy(value, p, operation, layer, FaultTarget::decode, flops);
    } else if (up(0)) {
      offer(0, operation, layer, FaultTarget::decode, flops, value.shared);
    }
  }

  double decode_fault_flops(int layer, Direction dir) const {
    const DirectionGeometry& g =
        geometry_[static_cast<std::size_t>(layer)].dir[static_cast<std::size_t>(dir_index(dir))];
    const double symbols = static_cast<double>(g.members.size());
    return 2.0 * symbols * symbols * g.partial_rows * batch_;
  }

  void apply_forward(int l) {
    const auto index = static_cast<std::size_t>(l);
    Matrix z = std::move(round_decode_.product);
    z.colwise() += biases_[index];
    NodeCopies& zc = z_[index];
    zc.reset(std::move(z));
    offer_decode_faults(zc, "forward", l, decode_fault_flops(l, Direction::forward));
    const double elementwise = static_cast<double>(zc.shared.size());
    const Activation f = spec_.mlp.hidden_activation;
    if (l + 1 < layers_) {
      NodeCopies& x = x_[index + 1];
      x.reset(activate(f, zc.shared));
      for (int p = 0; p < nodes_; ++p) {
        if (!up(p)) continue;
        if (zc.differs(p)) x.set_own(p, activate(f, zc.of(p)), nodes_);
        offer_copy(x, p, "forward", l, FaultTarget::activation, elementwise);
      }
    } else {
      iteration_loss_ = cross_entropy(zc.shared, labels_);
      NodeCopies& d = delta_[index];
      d.reset(output_delta(zc.shared, labels_));
      for (int p = 0; p < nodes_; ++p) {
        if (!up(p)) continue;
        if (zc.differs(p)) d.set_own(p, output_delta(zc.of(p), labels_), nodes_);
        offer_copy(d, p, "loss", l, FaultTarget::activation, elementwise);
      }
    }
  }

  void apply_backward(int l) {
    // c = W_l^T delta_l; delta_{l-1} = c o f'(z_{l-1}).
    NodeCopies c;
    c.reset(std::move(round_decode_.product));
    offer_decode_faults(c, "backward", l, decode_fault_flops(l, Direction::backward));
    const NodeCopies& z = z_[static_cast<std::size_t>(l) - 1];
    const Activation f = spec_.mlp.hidden_activation;
    NodeCopies& d = delta_[static_cast<std::size_t>(l) - 1];
    d.reset(c.shared.cwiseProduct(activation_derivative(f, z.shared)));
    const double elementwise = static_cast<double>(c.shared.size());
    for (int p = 0; p < nodes_; ++p) {
      if (!up(p)) continue;
      if (c.differs(p) || z.differs(p)) {
        d.set_own(p, c.of(p).cwiseProduct(activation_derivative(f, z.of(p))), nodes_);
      }
      offer_copy(d, p, "backward", l - 1, FaultTarget::activation, elementwise);
    }
  }

  // --- update -------------------------------------------------------------------------------
  double update_flops() const {
    double flops = 0.0;
    for (const LayerGeometry& g : geometry_) flops += g.update_flops_per_column * batch_;
    return flops;
  }

  void start_update() {
    phase_ = Phase::update;
    round_start_s_ = engine_.now();
    pending_tasks_ = 0;
    const std::uint32_t attempt = attempt_;
    const double flops = update_flops();
    for (int p = 0; p < nodes_; ++p) {
      task_state_[static_cast<std::size_t>(p)] = TaskState::none;
      if (!usable(p)) {
        stale_[static_cast<std::size_t>(p)] = true;  // misses this update
        continue;
      }
      sim::Node& node = cluster_.node(p);
      CODESIM_CHECK(!node.is_busy(), "a node starts its update idle");
      task_state_[static_cast<std::size_t>(p)] = TaskState::pending;
      ++pending_tasks_;
      node.run_task(engine_, flops, [this, p, attempt] {
        if (attempt == attempt_ && phase_ == Phase::update) on_update_done(p);
      });
    }
    if (pending_tasks_ == 0) finish_update();
  }

  void on_update_done(int p) {
    const double eta = spec_.mlp.learning_rate;
    for (int l = 0; l < layers_; ++l) {
      const auto index = static_cast<std::size_t>(l);
      CodingScheme& scheme = *schemes_[index];
      const Matrix& delta = delta_[index].of(p);
      const Matrix& input = x_[index].of(p);
      const double flops = geometry_[index].update_flops_per_column * batch_;
      const std::vector<Matrix*> blocks = scheme.stored_blocks(p);
      FaultOpportunity o;
      o.time_s = engine_.now();
      o.node = p;
      o.operation = "update";
      o.layer = l;
      o.target = FaultTarget::update;
      o.flops = flops;
      if (injector_.offer(o)) {
        // The encoded update of the first block is what the fault corrupts before it is added.
        const Matrix before = *blocks.front();
        scheme.update(p, delta, input, eta);
        Matrix increment = *blocks.front() - before;
        injector_.apply(increment);
        *blocks.front() = before + increment;
      } else {
        scheme.update(p, delta, input, eta);
      }
      for (Matrix* block : blocks) offer(p, "update", l, FaultTarget::weights, flops, *block);
    }
    task_state_[static_cast<std::size_t>(p)] = TaskState::done;
    if (--pending_tasks_ == 0) finish_update();
  }

  void finish_update() {
    progress_.time.pending.compute_s += engine_.now() - round_start_s_;
    phase_ = Phase::idle;
    const double eta = spec_.mlp.learning_rate;
    for (int l = 0; l < layers_; ++l) {
      const auto index = static_cast<std::size_t>(l);
      biases_[index] += eta * delta_[index].shared.rowwise().sum();
    }
    if (spec_.audit) {
      const double shadow_loss = sgd_step(shadow_, spec_.mlp, x0_, labels_);
      if (std::abs(iteration_loss_ - shadow_loss) >
          spec_.audit_tolerance * std::max(1.0, std::abs(shadow_loss))) {
        ++silent_corruptions_;
      }
    }
    progress_.iteration_done(engine_.now() - iteration_start_s_);
    loss_sum_ += iteration_loss_;
    ++loss_count_;
    if (spec_.record_loss) {
      metrics_.append_row("loss_vs_iteration",
                          {static_cast<double>(progress_.done()), engine_.now(), iteration_loss_});
    }
    end_iteration();
  }

  void end_iteration() {
    const bool last = progress_.all_done();
    double eval_s = 0.0;
    if (last || (spec_.eval_every > 0 && progress_.done() % spec_.eval_every == 0)) {
      const double accuracy = evaluate_accuracy();
      const double mean_loss = loss_count_ > 0 ? loss_sum_ / loss_count_ : 0.0;
      metrics_.append_row("accuracy_vs_time", {engine_.now(), static_cast<double>(progress_.done()),
                                               accuracy, mean_loss});
      loss_sum_ = 0.0;
      loss_count_ = 0;
      final_accuracy_ = accuracy;
      final_loss_ = mean_loss;
      eval_s = spec_.eval_cost_s;
      progress_.time.eval_s += eval_s;
    }
    const auto next = [this, last] {
      if (last) {
        finish();
      } else if (progress_.checkpoint_due(policy_)) {
        start_checkpoint();
      } else {
        start_iteration();
      }
    };
    if (eval_s > 0.0) {
      after(eval_s, next);
    } else {
      next();
    }
  }

  // --- regeneration -------------------------------------------------------------------------
  // After a corrected decode of `layer`: regenerates the blamed nodes that are up from healthy
  // sources (not blamed, stale or down) and marks the down ones stale (regenerated once back).
  std::optional<double> regenerate_blamed(int layer, const std::vector<int>& blamed) {
    std::vector<std::pair<int, int>> jobs;
    std::vector<int> exclude = blamed;
    for (int p = 0; p < nodes_; ++p)
      if (stale_[static_cast<std::size_t>(p)] || !up(p)) exclude.push_back(p);
    for (int p : blamed) {
      if (up(p)) {
        jobs.emplace_back(layer, p);
      } else {
        stale_[static_cast<std::size_t>(p)] = true;
      }
    }
    return regenerate(jobs, exclude);
  }

  // Regenerates each (layer, node) block from regeneration_sources(node, exclude); returns the
  // time (per node: the sources' blocks arrive one after another, then 2 |sources| values per
  // block entry are combined; nodes work in parallel), or nullopt when one cannot be done.
  std::optional<double> regenerate(const std::vector<std::pair<int, int>>& jobs,
                                   const std::vector<int>& exclude) {
    std::vector<double> node_s(static_cast<std::size_t>(nodes_), 0.0);
    for (const auto& [layer, node] : jobs) {
      CodingScheme& scheme = *schemes_[static_cast<std::size_t>(layer)];
      const std::vector<int> sources = scheme.regeneration_sources(node, exclude);
      if (sources.empty() || !scheme.regenerate(node, sources)) return std::nullopt;
      ++progress_.counts.regenerations;
      const double values = geometry_[static_cast<std::size_t>(layer)].stored_values_per_node;
      node_s[static_cast<std::size_t>(node)] += regeneration_time_s(
          cluster_.topology(), node, sources, values, cluster_.node(node).speed_flops_per_s());
    }
    return *std::max_element(node_s.begin(), node_s.end());
  }

  // --- checkpoints and rollbacks --------------------------------------------------------------
  // A checkpoint is a temporary file: every stored block, the biases and the
  // audit's shadow as raw doubles, so that a rollback restores them bit for bit without a second
  // copy in memory. It is written to a spare file that replaces the current one once complete.
  // Checkpoint 0 is not written: the initial state is rebuilt from the seed.
  void take_snapshot() {
    if (!spare_checkpoint_) spare_checkpoint_ = std::make_unique<ScratchFile>("checkpoint");
    ScratchFile& file = *spare_checkpoint_;
    file.clear();
    for (const auto& scheme : schemes_) {
      for (int p = 0; p < nodes_; ++p)
        for (const Matrix* block : scheme->stored_blocks(p)) file.write_matrix(*block);
    }
    for (const Vector& bias : biases_) file.write_matrix(bias);
    if (spec_.audit) {
      for (const Matrix& w : shadow_.weights) file.write_matrix(w);
      for (const Vector& b : shadow_.biases) file.write_matrix(b);
    }
    file.flush();
    std::swap(checkpoint_, spare_checkpoint_);
  }

  void restore_snapshot() {
    if (!checkpoint_) {
      // Checkpoint 0, the initial state, is rebuilt from the seed rather than stored.
      for (int l = 0; l < layers_; ++l) {
        const LayerGeometry& g = geometry_[static_cast<std::size_t>(l)];
        encode_initial_weights(spec_.scheme, *schemes_[static_cast<std::size_t>(l)], seed_, l,
                               g.rows, g.cols);
        biases_[static_cast<std::size_t>(l)].setZero();
      }
      if (spec_.audit) shadow_ = glorot_init(spec_.mlp, seed_);
      std::fill(stale_.begin(), stale_.end(), false);
      return;
    }
    ScratchFile& file = *checkpoint_;
    file.seek(0);
    for (const auto& scheme : schemes_) {
      for (int p = 0; p < nodes_; ++p)
        for (Matrix* block : scheme->stored_blocks(p)) file.read_matrix(*block);
    }
    for (Vector& bias : biases_) file.read_matrix(bias);
    if (spec_.audit) {
      for (Matrix& w : shadow_.weights) file.read_matrix(w);
      for (Vector& b : shadow_.biases) file.read_matrix(b);
    }
    std::fill(stale_.begin(), stale_.end(), false);
  }

  // Nominal (straggler-free) time of one batch-1 round of the verification pass.
  double nominal_round_s(int layer, Direction dir) const {
    const DirectionGeometry& g =
        geometry_[static_cast<std::size_t>(layer)].dir[static_cast<std::size_t>(dir_index(dir))];
    std::vector<char> usable_nodes(static_cast<std::size_t>(cluster_.size()), 0);
    std::vector<double> speeds(static_cast<std::size_t>(cluster_.size()), 0.0);
    for (int p = 0; p < cluster_.size(); ++p) {
      usable_nodes[static_cast<std::size_t>(p)] = p < nodes_ && usable(p);
      speeds[static_cast<std::size_t>(p)] = cluster_.node(p).speed_flops_per_s();
    }
    const double decoder_speed =
        spec_.decentralized ? slowest_live_speed() : cluster_.node(0).speed_flops_per_s();
    return nominal_round_time_s(cluster_.topology(), g, usable_nodes, speeds, live_nodes(),
                                decoder_speed, batch_, spec_.decentralized);
  }

  struct Verification {
    bool passed = true;
    double time_s = 0.0;  // nominal rounds plus regenerations, up to where it stopped
  };

  // The all-ones verification pass (no faults): corrected errors are regenerated; a detected
  // error or an impossible regeneration fails it.
  Verification verify() {
    double t = 0.0;
    for (int l = 0; l < layers_; ++l) {
      CodingScheme& scheme = *schemes_[static_cast<std::size_t>(l)];
      const LayerGeometry& g = geometry_[static_cast<std::size_t>(l)];
      for (Direction dir : {Direction::forward, Direction::backward}) {
        const Matrix ones = Matrix::Ones(dir == Direction::forward ? g.cols : g.rows, 1);
        const ProductDecode d = compute_and_decode(scheme, dir, ones, spec_.decode,
                                                   [this](int p, Matrix&) { return usable(p); });
        ++progress_.counts.decodes;
        t += nominal_round_s(l, dir);
        if (d.status == DecodeStatus::detected) {
          ++progress_.counts.detected;
          return {false, t};
        }
        if (d.status == DecodeStatus::corrected) {
          ++progress_.counts.corrected;
          const std::optional<double> r = regenerate_blamed(l, d.blamed_nodes);
          if (!r) return {false, t};
          t += *r;
        }
      }
    }
    return {true, t};
  }

  double write_cost_s() const {
    // Every node writes its own blocks in parallel: the largest node's bytes.
    double values = 0.0;
    for (const LayerGeometry& g : geometry_) values += g.stored_values_per_node;
    return checkpoint_write_time_s(policy_, checkpoint_spec_, values);
  }

  void start_checkpoint() {
    phase_ = Phase::checkpoint;
    double t = 0.0;
    if (spec_.verify_before_checkpoint) {
      const Verification verified = verify();
      if (!verified.passed) {
        // The verification time is spent, then the rollback counts it as lost.
        progress_.time.pending.checkpoint_s += verified.time_s;
        after(verified.time_s, [this] { rollback(); });
        return;
      }
      t += verified.time_s;
    }
    t += write_cost_s();
    after(t, [this, t] {
      progress_.checkpoint_written(t);
      take_snapshot();
      if (observer_.on_checkpoint) observer_.on_checkpoint(progress_.done(), decoded_parameters());
      start_iteration();
    });
  }

  void rollback() {
    progress_.roll_back();
    ++attempt_;
    for (int p = 0; p < nodes_; ++p) cluster_.node(p).cancel_task(engine_);
    restore_snapshot();
    if (observer_.on_rollback) observer_.on_rollback(progress_.done(), decoded_parameters());
    phase_ = Phase::restart;
    const double restart_s = policy_.restart_s();
    after(restart_s, [this, restart_s] {
      progress_.restart(restart_s);
      start_iteration();
    });
  }

  void wait_for_repairs() {
    bool any_down = false;
    for (int p = 0; p < nodes_; ++p) any_down = any_down || !up(p);
    CODESIM_CHECK(any_down, "an iteration can always start when every node is up and fresh");
    phase_ = Phase::waiting;
    wait_start_s_ = engine_.now();
    ++attempt_;
  }

  void on_crash(int node) {
    ++crashes_;
    if (node >= nodes_) return;
    const auto index = static_cast<std::size_t>(node);
    if (task_state_[index] != TaskState::pending) return;
    task_state_[index] = TaskState::lost;
    if (phase_ == Phase::round) {
      --pending_tasks_;
      check_round_done();
    } else if (phase_ == Phase::update) {
      stale_[index] = true;  // its update is lost
      if (--pending_tasks_ == 0) finish_update();
    }
  }

  void on_repair(int node) {
    if (node >= nodes_ || phase_ != Phase::waiting) return;
    progress_.restart(engine_.now() - wait_start_s_);
    start_iteration();
  }

  void finish() {
    phase_ = Phase::done;
    progress_.complete(engine_.now());
    ++attempt_;
    engine_.stop();
  }

  void fill_metrics(const MlpParameters& final_parameters) {
    sim::MetricSet& m = metrics_;
    progress_.add_to(m, engine_.now());
    m.set("final_test_accuracy", final_accuracy_);
    m.set("final_train_loss", final_loss_);
    m.set("faults_injected", static_cast<double>(injector_.log().records.size()));
    progress_.counts.add_to(m);
    m.set("crashes", static_cast<double>(crashes_));
    m.set("silent_corruptions", static_cast<double>(silent_corruptions_));
    double deviation = 0.0;
    if (spec_.audit) {
      for (int l = 0; l < layers_; ++l) {
        const auto index = static_cast<std::size_t>(l);
        const double scale = std::max(shadow_.weights[index].cwiseAbs().maxCoeff(), 1e-300);
        deviation = std::max(
            deviation,
            (final_parameters.weights[index] - shadow_.weights[index]).cwiseAbs().maxCoeff() /
                scale);
      }
    }
    m.set("audit_final_weight_deviation", deviation);
    progress_.time.add_to(m);
  }

  // --- state --------------------------------------------------------------------------------
  const TrainingSpec& spec_;
  sim::Engine engine_;
  sim::Cluster cluster_;
  sim::CheckpointPolicy policy_;
  sim::CheckpointSpec checkpoint_spec_;
  FaultInjector& injector_;
  const Dataset& train_;
  std::uint64_t seed_;
  std::uint64_t replica_;
  const TrainingObserver& observer_;
  int layers_;
  int batch_;
  WaitPolicy wait_;
  int nodes_ = 0;
  double checkpoint_bytes_ = 0.0;
  std::unique_ptr<ScratchFile> checkpoint_;  // the last checkpoint; null: the initial state
  std::unique_ptr<ScratchFile> spare_checkpoint_;

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
  std::vector<std::optional<Matrix>> partials_;
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
  TrainingProgress progress_;
};

}  // namespace

std::string validate_training(const TrainingSpec& spec, int cluster_nodes, int features,
                              int classes) {
  const std::vector<int>& sizes = spec.mlp.layer_sizes;
  if (sizes.size() < 2) return "the MLP needs at least an input and an output size";
  for (int size : sizes)
    if (size < 1) return "every layer size must be >= 1";
  if (spec.mlp.batch_size < 1) return "batch_size must be >= 1";
  if (!(spec.mlp.learning_rate > 0.0) || !std::isfinite(spec.mlp.learning_rate))
    return "learning_rate must be a positive number";
  if (spec.iterations < 1) return "iterations must be >= 1";
  if (spec.eval_every < 0) return "eval_every must be >= 0";
  if (spec.eval_samples < 0) return "eval_samples must be >= 0";
  if (!(spec.eval_cost_s >= 0.0)) return "eval_cost_s must be >= 0";
  if (!parse_wait_rule(spec.wait_for))
    return "wait_for must be " + wait_rule_names() + " (got '" + spec.wait_for + "')";
  if (spec.wait_errors < 0) return "wait_errors must be >= 0";
  if (!(spec.time_limit_s > 0.0)) return "time_limit_s must be > 0";
  if (!(spec.audit_tolerance > 0.0)) return "audit_tolerance must be > 0";
  if (features != sizes.front()) {
    return "the input layer has " + std::to_string(sizes.front()) + " units but the data has " +
           std::to_string(features) + " features";
  }
  if (classes > sizes.back()) {
    return "the output layer has " + std::to_string(sizes.back()) + " units but the data has " +
           std::to_string(classes) + " classes";
  }
  for (std::size_t l = 0; l + 1 < sizes.size(); ++l) {
    const std::string problem = validate_scheme(spec.scheme, sizes[l + 1], sizes[l]);
    if (!problem.empty()) return "layer " + std::to_string(l) + ": " + problem;
  }
  const int needed = summarize_scheme(spec.scheme).nodes;
  if (cluster_nodes < needed) {
    return "the scheme needs " + std::to_string(needed) + " nodes but the cluster has " +
           std::to_string(cluster_nodes);
  }
  return {};
}

TrainingResult train_coded(const sim::ClusterSpec& cluster, const sim::CheckpointSpec& checkpoint,
                           const TrainingSpec& spec, FaultInjector& injector, const Dataset& train,
                           const Dataset& test, std::uint64_t seed, std::uint64_t replica,
                           const TrainingObserver& observer) {
  CodedTrainingRun run(cluster, checkpoint, spec, injector, train, test, seed, replica, observer);
  return run.run();
}

sim::MetricSet run_coded_training(const sim::ClusterSpec& cluster,
                                  const sim::CheckpointSpec& checkpoint, const TrainingSpec& spec,
                                  const FaultConfig& faults, const Dataset& train,
                                  const Dataset& test, std::uint64_t seed, std::uint64_t replica) {
  FaultInjector injector(faults, cluster.node_count(), seed, replica);
  return train_coded(cluster, checkpoint, spec, injector, train, test, seed, replica).metrics;
}

}  // namespace codesim::models
