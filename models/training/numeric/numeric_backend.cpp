// NumericBackend's set-up, its run from the first event to the read-out, the clock, the
// cluster's own evaluation, fault offers, crashes and the metrics.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "models/training/numeric/numeric_backend.hpp"
#include "models/training/numeric/slab_weights.hpp"
#include "sim/check.hpp"
#include "sim/network_cost_model.hpp"

namespace codesim::models::detail {

NumericBackend::NumericBackend(const sim::ClusterSpec& cluster_spec,
                               const sim::CheckpointSpec& checkpoint, const ValidTraining& training,
                               FaultInjector& injector, const Dataset& train, const Dataset& test,
                               std::uint64_t seed, std::uint64_t replica,
                               const TrainingObserver& observer)
    : spec_(training.spec()),
      seed_(seed),
      observer_(observer),
      cluster_(engine_, cluster_spec, seed, replica),
      injector_(injector),
      batches_(train, spec_.sgd.batch_size, seed, replica),
      protocol_(*this, cluster_spec, checkpoint, spec_, observer.should_stop, observer.trace) {
  const TrainingSpec& spec = spec_;
  CODESIM_CHECK((training.fit() == TrainingFit{cluster_.size(), train.features(), train.classes}),
                "the spec was checked for this cluster and data");
  CODESIM_CHECK(test.samples() >= 1 && test.features() == train.features(),
                "the test set needs samples of the training set's features");
  nodes_ = summarize_scheme(spec.scheme).nodes;
  if (spec.ranks != nullptr) {
    ranks_ = NodeRanks(*spec.ranks, nodes_);
    CODESIM_CHECK(!observer.on_checkpoint && !observer.on_rollback,
                  "a run distributed over ranks decodes its parameters only at the end");
  }
  net_.steps = make_layer_steps(spec, spec.sgd.learning_rate);
  init_layers();
  protocol_.plan(cluster_spec, checkpoint, nodes_, net_.count, cluster_.system_mtbf_s(),
                 stored_values_per_node(), cluster_.topology());
  if (spec.audit && ranks_.root()) net_.shadow = initial_parameters(spec, seed);
  stale_.assign(static_cast<std::size_t>(nodes_), false);
  round_.state.assign(static_cast<std::size_t>(nodes_), TaskState::none);
  round_.task_start_s.assign(static_cast<std::size_t>(nodes_), 0.0);
  down_since_s_.assign(static_cast<std::size_t>(nodes_), -1.0);
  round_.partials.resize(static_cast<std::size_t>(nodes_));
  init_evaluation(test);
  cluster_.crashes().on_crash([this](int node, bool) { on_crash(node); });
  cluster_.crashes().on_repair([this](int node) { on_repair(node); });
}

// Every layer's scheme, holding glorot_init's weights encoded, its zero bias, shape and
// codewords.
void NumericBackend::init_layers() {
  const TrainingSpec& spec = spec_;
  if (spec.threads > 1) net_.team = std::make_unique<ThreadTeam>(spec.threads);
  net_.shapes = weight_shapes(spec);
  net_.count = static_cast<int>(net_.shapes.size());
  for (int l = 0; l < net_.count; ++l) {
    const WeightShape& shape = net_.shapes[static_cast<std::size_t>(l)];
    const int rows = shape.rows;
    const int cols = shape.cols;
    net_.schemes.push_back(
        make_scheme(spec.scheme, rows, cols, SchemeContext(spec.arithmetic, ranks_.residency())));
    CodingScheme& scheme = *net_.schemes.back();
    CODESIM_CHECK(scheme.node_count() == nodes_, "every layer's scheme has P nodes");
    scheme.use_team(net_.team.get());
    // glorot_init's weights, a slab at a time for a large layer.
    encode_initial_weights(spec.scheme, scheme, seed_, l, rows, cols, shape.init_sd);
    net_.biases.push_back(Vector::Zero(rows));
    net_.geometry.push_back(layer_shape(spec.scheme, scheme, rows, cols, rows, cols));
    const LayerShape& g = net_.geometry.back();
    net_.codewords.push_back(
        {round_codewords(spec.scheme, g.dir[0]), round_codewords(spec.scheme, g.dir[1])});
  }
}

// The evaluation samples and the series.
void NumericBackend::init_evaluation(const Dataset& test) {
  const TrainingSpec& spec = spec_;
  const int eval_count =
      spec.eval_samples > 0 ? std::min(spec.eval_samples, test.samples()) : test.samples();
  eval_.inputs = test.images.leftCols(eval_count);
  eval_.labels.assign(test.labels.begin(), test.labels.begin() + eval_count);
  metrics_.add_series("accuracy_vs_time",
                      {"time_s", "iteration", "test_accuracy", "train_loss", "energy_J"});
  if (spec.record_loss) metrics_.add_series("loss_vs_iteration", {"iteration", "time_s", "loss"});
}

TrainingResult NumericBackend::run() {
  // Row 0: the initial model, its loss from the cluster's decoded logits of batch 0 (like every
  // later row's), so that W is never decoded whole beside its blocks.
  batches_.load(0, values_.x0, values_.labels);
  const double accuracy = evaluate_accuracy();
  const double loss =
      cross_entropy(logits(values_.x0, &NumericBackend::coded_product), values_.labels);
  metrics_.append_row("accuracy_vs_time", {0.0, 0.0, accuracy, loss, 0.0});
  trace().accuracy_and_loss(0.0, accuracy, loss);
  trace().energy(0.0, 0.0);
  cluster_.crashes().start();
  engine_.schedule_at(0.0, [this] { protocol_.start(); });
  engine_.run_until(spec_.time_limit_s);
  if (!progress().completed()) {
    progress().stop_at(engine_.now());
    repair_before_read_out();
    eval_.final_accuracy = evaluate_accuracy();
  }
  trace_sync(sim::kJobTrack, "run");
  trace().close(engine_.now());
  // A completed run passed its read-out (read_out_passes); one that stopped ran it above.
  trace_sync(sim::kJobTrack, "read-out");  // the untimed read-out's corrections, at the end
  injector_.finish();
  TrainingResult result;
  result.parameters = read_out_parameters();
  fill_metrics(result.parameters);
  result.metrics = std::move(metrics_);
  result.faults = injector_.log();
  return result;
}

// The model is read out after untimed repairs: stale blocks (of nodes that missed updates) are
// regenerated and a verification pass corrects a corruption struck at the last update that no
// decode has seen yet. False: the pass detected what it cannot correct (the protocol then rolls
// back and repeats the read-out after the iterations again).
bool NumericBackend::repair_before_read_out() {
  reading_out_ = true;
  std::vector<std::pair<int, int>> stale_blocks;
  std::vector<int> stale_nodes;
  for (int p = 0; p < nodes_; ++p) {
    if (!stale_[static_cast<std::size_t>(p)]) continue;
    stale_nodes.push_back(p);
    for (int l = 0; l < net_.count; ++l) stale_blocks.emplace_back(l, p);
  }
  if (regenerate(stale_blocks, stale_nodes)) std::fill(stale_.begin(), stale_.end(), false);
  const bool passed = protocol_.verify().passed;
  reading_out_ = passed;
  return passed;
}

bool NumericBackend::read_out_passes() { return reading_out_ || repair_before_read_out(); }

std::vector<int> NumericBackend::live_nodes() const {
  std::vector<int> live;
  for (int p = 0; p < nodes_; ++p)
    if (up(p)) live.push_back(p);
  return live;
}

double NumericBackend::slowest_live_speed() const {
  double slowest = std::numeric_limits<double>::infinity();
  for (int p = 0; p < nodes_; ++p)
    if (up(p)) slowest = std::min(slowest, cluster_.node(p).speed_flops_per_s());
  return std::isfinite(slowest) ? slowest : cluster_.node(0).speed_flops_per_s();
}

FaultOpportunity NumericBackend::opportunity(int node, const char* operation, int layer,
                                             FaultTarget target, double flops) const {
  return {.time_s = engine_.now(),
          .node = node,
          .operation = operation,
          .layer = layer,
          .target = target,
          .flops = flops};
}

const FaultRecord* NumericBackend::offer(int node, const char* operation, int layer,
                                         FaultTarget target, double flops,
                                         Eigen::Ref<Eigen::MatrixXd> data) {
  return injector_.inject(opportunity(node, operation, layer, target, flops), data);
}

const FaultRecord* NumericBackend::offer_at_node(int node, const char* operation, int layer,
                                                 FaultTarget target, double flops, BlockRef* data) {
  if (!injector_.offer(opportunity(node, operation, layer, target, flops))) return nullptr;
  return &strike_at_node(node, data);
}

const FaultRecord& NumericBackend::strike_at_node(int node, BlockRef* data) {
  if (!ranks_.distributed()) return injector_.apply(*data);
  if (data != nullptr) {
    const FaultRecord& record = injector_.apply(*data);
    ranks_.fault_from_owner(node, &record);
    return record;
  }
  return injector_.adopt(ranks_.fault_from_owner(node, nullptr));
}

// Offers `target` on node p's copy of `copies` (copied out only when struck).
void NumericBackend::offer_copy(NodeCopies& copies, int node, const char* operation, int layer,
                                FaultTarget target, double flops) {
  if (!injector_.offer(opportunity(node, operation, layer, target, flops))) return;
  Matrix copy = copies.of(node);
  injector_.apply(copy);
  copies.set_own(node, std::move(copy), nodes_);
}

// (Only for the observer's hooks, which a run distributed over ranks does not take.)
MlpParameters NumericBackend::decoded_parameters() const {
  MlpParameters p;
  for (const auto& scheme : net_.schemes) p.weights.push_back(scheme->decode_weights());
  p.biases = net_.biases;
  return p;
}

// The decoded parameters at the end of the run; releases every stored block.
MlpParameters NumericBackend::read_out_parameters() {
  MlpParameters p;
  for (int l = 0; l < net_.count; ++l) {
    const LayerShape& g = net_.geometry[static_cast<std::size_t>(l)];
    p.weights.push_back(read_out_weights(spec_.scheme, *net_.schemes[static_cast<std::size_t>(l)],
                                         g.rows, g.cols, ranks_));
  }
  p.biases = net_.biases;
  return p;
}

// Logits of `inputs`, evaluation_chunk() samples at a time, each layer's pre-activation given by
// `product` (the layer and its input).
Matrix NumericBackend::logits(const Matrix& inputs, LayerProduct product) {
  const int chunk = net_.steps->evaluation_chunk();
  const auto all_layers = [&](const Matrix& part) {
    Matrix x = net_.steps->first_input(part);
    for (int l = 0; l < net_.count; ++l) {
      Matrix s = (this->*product)(l, x);
      s.colwise() += net_.biases[static_cast<std::size_t>(l)];
      x = l + 1 < net_.count ? net_.steps->next_input(l, s) : std::move(s);
    }
    return x;
  };
  if (chunk == 0 || inputs.cols() <= chunk) return all_layers(inputs);
  Matrix out;
  for (Eigen::Index first = 0; first < inputs.cols(); first += chunk) {
    const Eigen::Index count = std::min<Eigen::Index>(chunk, inputs.cols() - first);
    const Matrix part = all_layers(inputs.middleCols(first, count));
    if (first == 0) out.resize(part.rows(), inputs.cols());
    out.middleCols(first, count) = part;
  }
  return out;
}

// Layer l's product in the cluster's own coded forward pass (no faults; error-correcting decode,
// decode_weights() when the decode is detected).
Matrix NumericBackend::coded_product(int l, const Matrix& x) {
  const CodingScheme& scheme = *net_.schemes[static_cast<std::size_t>(l)];
  ProductDecode decoded = decode_on_ranks(scheme, Direction::forward, x);
  return decoded.status != DecodeStatus::detected ? std::move(decoded.product)
                                                  : Matrix(layer_weights(l) * x);
}

// Layer l's product with the weights decoded from its blocks (decode_weights()), on every rank.
Matrix NumericBackend::decoded_product(int l, const Matrix& x) {
  const WeightShape& shape = net_.shapes[static_cast<std::size_t>(l)];
  return read_every_block(l, [&](CodingScheme& scheme) {
    return detail::decoded_product(spec_.scheme, scheme, shape.rows, shape.cols, x);
  });
}

// Accuracy on the evaluation samples of the weights decoded from the blocks as they stand (what
// a user would deploy), with the run's kernels and threads: a forward pass, not the cluster's
// coded one (which would cost every node's product and a decode per layer).
double NumericBackend::evaluate_accuracy() {
  const Matrix x = logits(eval_.inputs, &NumericBackend::decoded_product);
  int correct = 0;
  for (Eigen::Index c = 0; c < x.cols(); ++c) {
    Eigen::Index best = 0;
    x.col(c).maxCoeff(&best);
    correct += best == eval_.labels[static_cast<std::size_t>(c)];
  }
  return x.cols() == 0 ? 0.0 : static_cast<double>(correct) / static_cast<double>(x.cols());
}

void NumericBackend::on_crash(int node) {
  // A failure storm stops the run as at the time limit (completed = 0), stop_reason saying why.
  if (progress().failure_event()) return engine_.stop();
  ++crashes_;
  trace().task_ended(node, engine_.now(), "lost");
  trace().crashed(node, engine_.now());
  if (node >= nodes_) return;
  const auto index = static_cast<std::size_t>(node);
  down_since_s_[index] = engine_.now();
  if (protocol_.phase() == RunPhase::waiting) return protocol_.node_lost_while_waiting();
  if (round_.state[index] != TaskState::pending) return;
  // The crash cancelled the task: the part that ran was spent.
  progress().energy.busy(node, engine_.now() - round_.task_start_s[index]);
  round_.state[index] = TaskState::lost;
  if (protocol_.phase() == RunPhase::round) {
    --round_.pending;
    check_round_done();
  } else if (protocol_.phase() == RunPhase::update) {
    stale_[index] = true;  // its update is lost
    if (--round_.pending == 0) finish_update();
  }
}

void NumericBackend::on_repair(int node) {
  if (progress().failure_event()) return engine_.stop();
  trace().repaired(node, engine_.now());
  if (node >= nodes_) return;
  const auto index = static_cast<std::size_t>(node);
  const bool waiting = protocol_.phase() == RunPhase::waiting;
  progress().energy.down(node, engine_.now() - down_since_s_[index], waiting);
  down_since_s_[index] = -1.0;
  if (waiting) protocol_.resume(ProtocolStep::repaired);
}

void NumericBackend::after(double seconds, ProtocolStep next) {
  const std::uint32_t attempt = attempt_;
  engine_.schedule_in(seconds, [this, attempt, next] {
    if (attempt == attempt_) protocol_.resume(next);
  });
}

void NumericBackend::stop() {
  ++attempt_;
  engine_.stop();
}

void NumericBackend::end_at(double time_s) {
  ++attempt_;
  engine_.finish_at(time_s);
}

void NumericBackend::fill_metrics(const MlpParameters& final_parameters) {
  sim::MetricSet& m = metrics_;
  progress().add_to(m, engine_.now());
  m.set("final_test_accuracy", eval_.final_accuracy);
  m.set("final_train_loss", eval_.final_loss);
  m.set("faults_injected", static_cast<double>(injector_.log().records.size()));
  progress().counts.add_to(m);
  m.set("crashes", static_cast<double>(crashes_));
  m.set("silent_corruptions", static_cast<double>(silent_corruptions_));
  m.set("audit_final_weight_deviation", audit_weight_deviation(final_parameters));
  progress().time.add_to(m);
  sim::add_network_notes(m, cluster_.topology());
  for (int p = 0; p < nodes_; ++p) {
    const double since = down_since_s_[static_cast<std::size_t>(p)];
    if (since >= 0.0)
      progress().energy.down(p, engine_.now() - since, protocol_.phase() == RunPhase::waiting);
  }
  progress().energy.commit();  // what is still pending at the end was kept
  progress().energy.add_to(m, energy_times(progress().time));
}

// Audit: max over layers of max|W - W_shadow| / max|W_shadow|; else 0 (and on ranks but the
// root, which hold neither W nor the shadow).
double NumericBackend::audit_weight_deviation(const MlpParameters& final_parameters) const {
  double deviation = 0.0;
  if (spec_.audit && ranks_.root()) {
    for (int l = 0; l < net_.count; ++l) {
      const auto index = static_cast<std::size_t>(l);
      const double scale = std::max(net_.shadow.weights[index].cwiseAbs().maxCoeff(), 1e-300);
      deviation = std::max(
          deviation,
          (final_parameters.weights[index] - net_.shadow.weights[index]).cwiseAbs().maxCoeff() /
              scale);
    }
  }
  return deviation;
}

ProductDecode NumericBackend::decode_on_ranks(const CodingScheme& scheme, Direction dir,
                                              const Matrix& input,
                                              const PartialResultHook& faulty) const {
  if (!ranks_.distributed()) return compute_and_decode(scheme, dir, input, spec_.decode, faulty);
  return decode_partials(scheme, dir, spec_.decode, [&](int node) {
    CheckedPartial checked;
    if (ranks_.mine(node))
      checked = checked_partial(scheme, node, dir, input, spec_.decode, faulty);
    ranks_.share_from_owner(node, checked);
    return checked;
  });
}

Matrix NumericBackend::layer_weights(int l) {
  return read_every_block(l, [](CodingScheme& scheme) { return scheme.decode_weights(); });
}

// read(layer l's scheme) with every node's blocks here: distributed, the other ranks' blocks are
// lent to every rank for it and given back after.
Matrix NumericBackend::read_every_block(int l, const std::function<Matrix(CodingScheme&)>& read) {
  CodingScheme& scheme = *net_.schemes[static_cast<std::size_t>(l)];
  if (!ranks_.distributed()) return read(scheme);
  std::vector<int> lent;
  for (int p = 0; p < nodes_; ++p)
    if (ranks_.lend_blocks_to_all(scheme, p)) lent.push_back(p);
  Matrix result = read(scheme);
  for (int p : lent) NodeRanks::give_back(scheme, p);
  return result;
}

}  // namespace codesim::models::detail
