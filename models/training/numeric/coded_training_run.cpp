// CodedTrainingRun's set-up, its run from the first event to the read-out, the batches, the
// cluster's own evaluation, fault offers and the metrics.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "models/training/numeric/coded_training_run.hpp"
#include "models/training/numeric/slab_weights.hpp"
#include "sim/check.hpp"
#include "sim/random_stream.hpp"

namespace codesim::models::detail {

CodedTrainingRun::CodedTrainingRun(const sim::ClusterSpec& cluster_spec,
                                   const sim::CheckpointSpec& checkpoint, const TrainingSpec& spec,
                                   FaultInjector& injector, const Dataset& train,
                                   const Dataset& test, std::uint64_t seed, std::uint64_t replica,
                                   const TrainingObserver& observer)
    : spec_(spec),
      cluster_(engine_, cluster_spec, seed, replica),
      policy_(checkpoint, cluster_.system_mtbf_s()),
      injector_(injector),
      train_(train),
      seed_(seed),
      replica_(replica),
      observer_(observer),
      batch_(spec.sgd.batch_size),
      progress_(spec.iterations, checkpoint.max_stalled_rollbacks),
      trace_(observer.trace, cluster_.size(), spec.time_limit_s) {
  progress_.time.report_link_wait = cluster_.topology().network_cost_model().reports_link_wait();
  const std::string problem =
      validate_training(spec, cluster_.size(), train.features(), train.classes);
  CODESIM_CHECK(problem.empty(), problem.c_str());
  wait_ = wait_policy(spec);
  CODESIM_CHECK(test.samples() >= 1 && test.features() == train.features(),
                "the test set needs samples of the training set's features");
  nodes_ = summarize_scheme(spec.scheme).nodes;
  if (spec.ranks != nullptr) {
    ranks_ = NodeRanks(*spec.ranks, nodes_);
    CODESIM_CHECK(!observer.on_checkpoint && !observer.on_rollback,
                  "a run distributed over ranks decodes its parameters only at the end");
  }
  steps_ = make_layer_steps(spec, spec.sgd.learning_rate);
  init_layers();
  // Young's and Daly's intervals take the write cost this run pays (its blocks, its storage).
  policy_ = sim::CheckpointPolicy(
      checkpoint, cluster_.system_mtbf_s(),
      checkpoint_costs(checkpoint, stored_values_per_node(), cluster_.topology(), nodes_));
  if (spec.audit && ranks_.root()) shadow_ = initial_parameters(spec, seed);
  stale_.assign(static_cast<std::size_t>(nodes_), false);
  task_state_.assign(static_cast<std::size_t>(nodes_), TaskState::none);
  task_start_s_.assign(static_cast<std::size_t>(nodes_), 0.0);
  down_since_s_.assign(static_cast<std::size_t>(nodes_), -1.0);
  progress_.energy = sim::EnergyMeter(cluster_spec, nodes_);
  partials_.resize(static_cast<std::size_t>(nodes_));
  init_evaluation(test);
  cluster_.crashes().on_crash([this](int node, bool) { on_crash(node); });
  cluster_.crashes().on_repair([this](int node) { on_repair(node); });
}

// Every layer's scheme, holding glorot_init's weights encoded, its zero bias, shape and
// codewords.
void CodedTrainingRun::init_layers() {
  const TrainingSpec& spec = spec_;
  if (spec.threads > 1) team_ = std::make_unique<ThreadTeam>(spec.threads);
  shapes_ = weight_shapes(spec);
  layers_ = static_cast<int>(shapes_.size());
  for (int l = 0; l < layers_; ++l) {
    const WeightShape& shape = shapes_[static_cast<std::size_t>(l)];
    const int rows = shape.rows;
    const int cols = shape.cols;
    schemes_.push_back(
        make_scheme(spec.scheme, rows, cols, SchemeContext(spec.arithmetic, ranks_.residency())));
    CodingScheme& scheme = *schemes_.back();
    CODESIM_CHECK(scheme.node_count() == nodes_, "every layer's scheme has P nodes");
    scheme.use_team(team_.get());
    // glorot_init's weights, a slab at a time for a large layer.
    encode_initial_weights(spec.scheme, scheme, seed_, l, rows, cols, shape.init_sd);
    biases_.push_back(Vector::Zero(rows));
    geometry_.push_back(layer_shape(spec.scheme, scheme, rows, cols, rows, cols));
    const LayerGeometry& g = geometry_.back();
    codewords_.push_back(
        {round_codewords(spec.scheme, g.dir[0]), round_codewords(spec.scheme, g.dir[1])});
  }
}

// The evaluation samples and the series.
void CodedTrainingRun::init_evaluation(const Dataset& test) {
  const TrainingSpec& spec = spec_;
  const int eval_count =
      spec.eval_samples > 0 ? std::min(spec.eval_samples, test.samples()) : test.samples();
  eval_inputs_ = test.images.leftCols(eval_count);
  eval_labels_.assign(test.labels.begin(), test.labels.begin() + eval_count);
  metrics_.add_series("accuracy_vs_time",
                      {"time_s", "iteration", "test_accuracy", "train_loss", "energy_J"});
  if (spec.record_loss) metrics_.add_series("loss_vs_iteration", {"iteration", "time_s", "loss"});
}

TrainingResult CodedTrainingRun::run() {
  // Row 0: the initial model, its loss from the cluster's decoded logits of batch 0 (like every
  // later row's), so that W is never decoded whole beside its blocks.
  load_batch(0);
  const double accuracy = evaluate_accuracy();
  const double loss = cross_entropy(coded_logits(x0_), labels_);
  metrics_.append_row("accuracy_vs_time", {0.0, 0.0, accuracy, loss, 0.0});
  trace_.accuracy_and_loss(0.0, accuracy, loss);
  trace_.energy(0.0, 0.0);
  cluster_.crashes().start();
  engine_.schedule_at(0.0, [this] { start_iteration(); });
  engine_.run_until(spec_.time_limit_s);
  if (!progress_.completed()) {
    progress_.stop_at(engine_.now());
    final_accuracy_ = evaluate_accuracy();
  }
  trace_sync(sim::kJobTrack, "run");
  trace_.close(engine_.now());
  repair_before_read_out();
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
// decode has seen yet.
void CodedTrainingRun::repair_before_read_out() {
  reading_out_ = true;
  std::vector<std::pair<int, int>> stale_blocks;
  std::vector<int> stale_nodes;
  for (int p = 0; p < nodes_; ++p) {
    if (!stale_[static_cast<std::size_t>(p)]) continue;
    stale_nodes.push_back(p);
    for (int l = 0; l < layers_; ++l) stale_blocks.emplace_back(l, p);
  }
  if (regenerate(stale_blocks, stale_nodes)) std::fill(stale_.begin(), stale_.end(), false);
  verify();
}

std::vector<int> CodedTrainingRun::live_nodes() const {
  std::vector<int> live;
  for (int p = 0; p < nodes_; ++p)
    if (up(p)) live.push_back(p);
  return live;
}

double CodedTrainingRun::slowest_live_speed() const {
  double slowest = std::numeric_limits<double>::infinity();
  for (int p = 0; p < nodes_; ++p)
    if (up(p)) slowest = std::min(slowest, cluster_.node(p).speed_flops_per_s());
  return std::isfinite(slowest) ? slowest : cluster_.node(0).speed_flops_per_s();
}

FaultOpportunity CodedTrainingRun::opportunity(int node, const char* operation, int layer,
                                               FaultTarget target, double flops) const {
  return {.time_s = engine_.now(),
          .node = node,
          .operation = operation,
          .layer = layer,
          .target = target,
          .flops = flops};
}

const FaultRecord* CodedTrainingRun::offer(int node, const char* operation, int layer,
                                           FaultTarget target, double flops,
                                           Eigen::Ref<Eigen::MatrixXd> data) {
  return injector_.inject(opportunity(node, operation, layer, target, flops), data);
}

const FaultRecord* CodedTrainingRun::offer_at_node(int node, const char* operation, int layer,
                                                   FaultTarget target, double flops,
                                                   BlockRef* data) {
  if (!injector_.offer(opportunity(node, operation, layer, target, flops))) return nullptr;
  return &strike_at_node(node, data);
}

const FaultRecord& CodedTrainingRun::strike_at_node(int node, BlockRef* data) {
  if (!ranks_.distributed()) return injector_.apply(*data);
  if (data != nullptr) {
    const FaultRecord& record = injector_.apply(*data);
    ranks_.fault_from_owner(node, &record);
    return record;
  }
  return injector_.adopt(ranks_.fault_from_owner(node, nullptr));
}

// Offers `target` on node p's copy of `copies` (copied out only when struck).
void CodedTrainingRun::offer_copy(NodeCopies& copies, int node, const char* operation, int layer,
                                  FaultTarget target, double flops) {
  if (!injector_.offer(opportunity(node, operation, layer, target, flops))) return;
  Matrix copy = copies.of(node);
  injector_.apply(copy);
  copies.set_own(node, std::move(copy), nodes_);
}

void CodedTrainingRun::load_batch(int iteration) {
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

const std::vector<int>& CodedTrainingRun::permutation(std::int64_t epoch) {
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

// (Only for the observer's hooks, which a run distributed over ranks does not take.)
MlpParameters CodedTrainingRun::decoded_parameters() const {
  MlpParameters p;
  for (const auto& scheme : schemes_) p.weights.push_back(scheme->decode_weights());
  p.biases = biases_;
  return p;
}

// The decoded parameters at the end of the run; releases every stored block.
MlpParameters CodedTrainingRun::read_out_parameters() {
  MlpParameters p;
  for (int l = 0; l < layers_; ++l) {
    const LayerGeometry& g = geometry_[static_cast<std::size_t>(l)];
    p.weights.push_back(read_out_weights(spec_.scheme, *schemes_[static_cast<std::size_t>(l)],
                                         g.rows, g.cols, ranks_));
  }
  p.biases = biases_;
  return p;
}

// Logits of the cluster's own coded forward pass (no faults; error-correcting decode,
// decode_weights() for a layer whose decode is detected), evaluation_chunk() samples at a time.
Matrix CodedTrainingRun::coded_logits(const Matrix& inputs) {
  const int chunk = steps_->evaluation_chunk();
  if (chunk == 0 || inputs.cols() <= chunk) return coded_logits_of(inputs);
  Matrix logits;
  for (Eigen::Index first = 0; first < inputs.cols(); first += chunk) {
    const Eigen::Index count = std::min<Eigen::Index>(chunk, inputs.cols() - first);
    const Matrix part = coded_logits_of(inputs.middleCols(first, count));
    if (first == 0) logits.resize(part.rows(), inputs.cols());
    logits.middleCols(first, count) = part;
  }
  return logits;
}

Matrix CodedTrainingRun::coded_logits_of(const Matrix& inputs) {
  Matrix x = steps_->first_input(inputs);
  for (int l = 0; l < layers_; ++l) {
    const CodingScheme& scheme = *schemes_[static_cast<std::size_t>(l)];
    ProductDecode decoded = decode_on_ranks(scheme, Direction::forward, x);
    Matrix s = decoded.status != DecodeStatus::detected ? std::move(decoded.product)
                                                        : Matrix(layer_weights(l) * x);
    s.colwise() += biases_[static_cast<std::size_t>(l)];
    x = l + 1 < layers_ ? steps_->next_input(l, s) : std::move(s);
  }
  return x;
}

// Accuracy of the cluster's own coded forward pass on the evaluation samples (no faults).
double CodedTrainingRun::evaluate_accuracy() {
  const Matrix x = coded_logits(eval_inputs_);
  int correct = 0;
  for (Eigen::Index c = 0; c < x.cols(); ++c) {
    Eigen::Index best = 0;
    x.col(c).maxCoeff(&best);
    correct += best == eval_labels_[static_cast<std::size_t>(c)];
  }
  return x.cols() == 0 ? 0.0 : static_cast<double>(correct) / static_cast<double>(x.cols());
}

void CodedTrainingRun::on_crash(int node) {
  if (progress_.failure_event()) return stop_in_storm();
  ++crashes_;
  trace_.task_ended(node, engine_.now(), "lost");
  trace_.crashed(node, engine_.now());
  if (node >= nodes_) return;
  const auto index = static_cast<std::size_t>(node);
  down_since_s_[index] = engine_.now();
  if (task_state_[index] != TaskState::pending) return;
  // The crash cancelled the task: the part that ran was spent.
  progress_.energy.busy(node, engine_.now() - task_start_s_[index]);
  task_state_[index] = TaskState::lost;
  if (phase_ == Phase::round) {
    --pending_tasks_;
    check_round_done();
  } else if (phase_ == Phase::update) {
    stale_[index] = true;  // its update is lost
    if (--pending_tasks_ == 0) finish_update();
  }
}

void CodedTrainingRun::on_repair(int node) {
  if (progress_.failure_event()) return stop_in_storm();
  trace_.repaired(node, engine_.now());
  if (node >= nodes_) return;
  const auto index = static_cast<std::size_t>(node);
  progress_.energy.down(node, engine_.now() - down_since_s_[index], phase_ == Phase::waiting);
  down_since_s_[index] = -1.0;
  if (phase_ != Phase::waiting) return;
  trace_.phase(live_nodes(), "waiting for repairs", wait_start_s_, engine_.now() - wait_start_s_);
  progress_.restart(engine_.now() - wait_start_s_);
  start_iteration();
}

// Stops as at the time limit (completed = 0), progress_.stop_reason() saying why.
void CodedTrainingRun::stop_in_storm() { engine_.stop(); }

void CodedTrainingRun::finish() {
  phase_ = Phase::done;
  progress_.complete(engine_.now());
  ++attempt_;
  engine_.stop();
}

void CodedTrainingRun::fill_metrics(const MlpParameters& final_parameters) {
  sim::MetricSet& m = metrics_;
  progress_.add_to(m, engine_.now());
  m.set("final_test_accuracy", final_accuracy_);
  m.set("final_train_loss", final_loss_);
  m.set("faults_injected", static_cast<double>(injector_.log().records.size()));
  progress_.counts.add_to(m);
  m.set("crashes", static_cast<double>(crashes_));
  m.set("silent_corruptions", static_cast<double>(silent_corruptions_));
  m.set("audit_final_weight_deviation", audit_weight_deviation(final_parameters));
  progress_.time.add_to(m);
  for (int p = 0; p < nodes_; ++p) {
    const double since = down_since_s_[static_cast<std::size_t>(p)];
    if (since >= 0.0) progress_.energy.down(p, engine_.now() - since, phase_ == Phase::waiting);
  }
  progress_.energy.commit();  // what is still pending at the end was kept
  progress_.energy.add_to(m, energy_times(progress_.time));
}

// Audit: max over layers of max|W - W_shadow| / max|W_shadow|; else 0 (and on ranks but the
// root, which hold neither W nor the shadow).
double CodedTrainingRun::audit_weight_deviation(const MlpParameters& final_parameters) const {
  double deviation = 0.0;
  if (spec_.audit && ranks_.root()) {
    for (int l = 0; l < layers_; ++l) {
      const auto index = static_cast<std::size_t>(l);
      const double scale = std::max(shadow_.weights[index].cwiseAbs().maxCoeff(), 1e-300);
      deviation = std::max(
          deviation,
          (final_parameters.weights[index] - shadow_.weights[index]).cwiseAbs().maxCoeff() / scale);
    }
  }
  return deviation;
}

ProductDecode CodedTrainingRun::decode_on_ranks(const CodingScheme& scheme, Direction dir,
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

Matrix CodedTrainingRun::layer_weights(int l) {
  CodingScheme& scheme = *schemes_[static_cast<std::size_t>(l)];
  if (!ranks_.distributed()) return scheme.decode_weights();
  std::vector<int> lent;
  for (int p = 0; p < nodes_; ++p)
    if (ranks_.lend_blocks_to_all(scheme, p)) lent.push_back(p);
  Matrix weights = scheme.decode_weights();
  for (int p : lent) NodeRanks::give_back(scheme, p);
  return weights;
}

}  // namespace codesim::models::detail
