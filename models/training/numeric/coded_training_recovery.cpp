// CodedTrainingRun's recovery: regeneration of blamed and stale blocks, the verification pass,
// checkpoint writes, rollbacks and waiting for repairs.
#include <algorithm>
#include <cstddef>
#include <optional>
#include <utility>
#include <vector>

#include "models/training/numeric/coded_training_run.hpp"
#include "models/training/numeric/slab_weights.hpp"
#include "sim/check.hpp"

namespace codesim::models::detail {

// Whether every round of an iteration could decode from the usable nodes.
bool CodedTrainingRun::decodable_with_usable_nodes() const {
  return iteration_decodable(geometry_, codewords_, [this](int p) { return usable(p); });
}

// After a corrected decode of `layer`: regenerates the blamed nodes that are up from healthy
// sources (not blamed, stale or down) and marks the down ones stale (regenerated once back).
std::optional<double> CodedTrainingRun::regenerate_blamed(int layer,
                                                          const std::vector<int>& blamed) {
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
// time (parallel_regeneration_cost: nodes at once, each node's blocks in turn), or nullopt when
// one cannot be done.
std::optional<double> CodedTrainingRun::regenerate(const std::vector<std::pair<int, int>>& jobs,
                                                   const std::vector<int>& exclude) {
  std::vector<RegenerationJob> transfers;
  for (const auto& [layer, node] : jobs) {
    CodingScheme& scheme = *schemes_[static_cast<std::size_t>(layer)];
    std::vector<int> sources = scheme.regeneration_sources(node, exclude);
    if (sources.empty() || !regenerate_block(layer, node, sources)) return std::nullopt;
    ++progress_.counts.regenerations;
    transfers.push_back({node, std::move(sources),
                         geometry_[static_cast<std::size_t>(layer)].stored_values_per_node,
                         cluster_.node(node).speed_flops_per_s()});
  }
  const sim::CommunicationCost cost = parallel_regeneration_cost(cluster_.topology(), transfers);
  if (!reading_out_) {
    progress_.energy.network(regeneration_bytes(transfers));
    progress_.time.link_wait_s += cost.link_wait_s;
  }
  if (trace_.on()) {
    // Per-transfer times are not kept: every transfer is drawn over the whole regeneration.
    const double start_s = engine_.now() + trace_offset_s_;
    for (const RegenerationJob& job : transfers) {
      trace_.phase({job.node}, "regeneration", start_s, cost.time_s,
                   {{"sources", static_cast<int>(job.sources.size())}});
      for (int source : job.sources)
        trace_.transfer("regeneration block", source, job.node, start_s, cost.time_s);
    }
  }
  return cost.time_s;
}

bool CodedTrainingRun::regenerate_block(int layer, int node, const std::vector<int>& sources) {
  CodingScheme& scheme = *schemes_[static_cast<std::size_t>(layer)];
  if (!ranks_.distributed()) return scheme.regenerate(node, sources);
  std::vector<int> lent;
  for (int source : sources)
    if (ranks_.lend_blocks(scheme, source, node)) lent.push_back(source);
  bool done = ranks_.mine(node) && scheme.regenerate(node, sources);
  for (int source : lent) NodeRanks::give_back(scheme, source);
  ranks_.value_from_owner(node, done);
  return done;
}

DecodeStatus CodedTrainingRun::repair_block_at_node(CodingScheme& scheme, int node) {
  DecodeStatus status = DecodeStatus::clean;
  if (ranks_.mine(node)) status = scheme.repair_block(node, spec_.decode);
  if (checks_at_nodes(spec_.scheme)) ranks_.value_from_owner(node, status);
  return status;
}

// Checkpoint 0 is not written: the initial state is rebuilt from the seed. Each rank writes the
// blocks it holds; the audit's shadow lives on the root.
detail::CheckpointContents CodedTrainingRun::checkpoint_contents() {
  return {&schemes_, nodes_, &biases_, spec_.audit && ranks_.root() ? &shadow_ : nullptr, &stale_};
}

void CodedTrainingRun::take_snapshot() { checkpoints_.write(checkpoint_contents()); }

void CodedTrainingRun::restore_snapshot() {
  if (checkpoints_.empty()) {
    // Checkpoint 0, the initial state, is rebuilt from the seed rather than stored.
    for (int l = 0; l < layers_; ++l) {
      const WeightShape& shape = shapes_[static_cast<std::size_t>(l)];
      encode_initial_weights(spec_.scheme, *schemes_[static_cast<std::size_t>(l)], seed_, l,
                             shape.rows, shape.cols, shape.init_sd);
      biases_[static_cast<std::size_t>(l)].setZero();
    }
    if (spec_.audit && ranks_.root()) shadow_ = initial_parameters(spec_, seed_);
    std::fill(stale_.begin(), stale_.end(), false);
  } else {
    // The checkpoint's stale flags come back with its blocks: a node that had missed updates when
    // it was written holds outdated blocks again, regenerated before use as they would have been.
    checkpoints_.restore(checkpoint_contents());
  }
}

// Nominal (straggler-free) time of one batch-1 round of the verification pass.
double CodedTrainingRun::nominal_round_s(int layer, Direction dir) const {
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
                              decoder_speed, columns(layer), spec_.decentralized);
}

// One decode of the verification pass: the all-ones input through (layer, dir), counted, its
// nominal time added to t_s.
ProductDecode CodedTrainingRun::verification_decode(int layer, Direction dir, double& t_s) {
  const LayerGeometry& g = geometry_[static_cast<std::size_t>(layer)];
  const Matrix ones = Matrix::Ones(dir == Direction::forward ? g.cols : g.rows, 1);
  const ProductDecode d = decode_on_ranks(*schemes_[static_cast<std::size_t>(layer)], dir, ones,
                                          [this](int p, Matrix&) { return usable(p); });
  ++progress_.counts.decodes;
  t_s += nominal_round_s(layer, dir);
  return d;
}

// The all-ones verification pass (no faults), by verification_passes' rule; regenerations add
// their time.
CodedTrainingRun::Verification CodedTrainingRun::verify() {
  double t = 0.0;
  std::vector<int> blamed;
  const bool passed = verification_passes(
      layers_,
      [&](int l, int d) {
        const ProductDecode decoded =
            verification_decode(l, d == 0 ? Direction::forward : Direction::backward, t);
        blamed = decoded.blamed_nodes;
        return decoded.status;
      },
      [&](int l, int d) {
        // Corrected at the nodes (ABFT): each node of the decode not blamed repairs its own
        // block, and the blamed ones (withheld, or wrong for the decoder) are regenerated.
        if (!repair_blocks(l, d == 0 ? Direction::forward : Direction::backward, blamed))
          return false;
        if (blamed.empty()) return true;
        trace_offset_s_ = t;
        const std::optional<double> r = regenerate_blamed(l, blamed);
        trace_offset_s_ = 0.0;
        if (r) t += *r;
        return r.has_value();
      },
      progress_.counts);
  return {passed, t};
}

// Every live participant of layer l's product in `dir` but `blamed` (ascending) checks and
// repairs its own block; false when one cannot. (The others' blocks wait for their own reads.)
bool CodedTrainingRun::repair_blocks(int layer, Direction dir, const std::vector<int>& blamed) {
  CodingScheme& scheme = *schemes_[static_cast<std::size_t>(layer)];
  for (int p : scheme.participants(dir)) {
    if (!up(p) || std::binary_search(blamed.begin(), blamed.end(), p)) continue;
    if (repair_block_at_node(scheme, p) == DecodeStatus::detected) return false;
  }
  return true;
}

// Every node writes (or reads) its own blocks in parallel: node 0's values, the largest.
double CodedTrainingRun::stored_values_per_node() const {
  double values = 0.0;
  for (const LayerGeometry& g : geometry_) values += g.stored_values_per_node;
  return values;
}

void CodedTrainingRun::start_checkpoint() {
  phase_ = Phase::checkpoint;
  double t = 0.0;
  if (spec_.verify_before_checkpoint) {
    const Verification verified = verify();
    trace_sync(sim::kJobTrack, "verification");
    trace_.phase(live_nodes(), "verification", engine_.now(), verified.time_s);
    if (!verified.passed) {
      // The verification time is spent, then the rollback counts it as lost.
      progress_.energy.verification(verified.time_s);
      spend(TimeKind::checkpoint, verified.time_s, [this] { rollback(); });
      return;
    }
    progress_.energy.verification(verified.time_s);
    t += verified.time_s;
  }
  trace_.phase(live_nodes(), "checkpoint write", engine_.now() + t, policy_.write_cost_s());
  t += policy_.write_cost_s();
  progress_.time.charge_later(engine_.now(), TimeKind::checkpoint);
  after(t, [this, t] {
    progress_.energy.checkpoint_written(stored_values_per_node() * nodes_ * kBytesPerValue);
    progress_.checkpoint_written(t);
    events_at_attempt_start_ = random_events();
    take_snapshot();
    trace_.instant(sim::kJobTrack, "checkpoint", engine_.now(), {{"iteration", progress_.done()}});
    if (observer_.on_checkpoint) observer_.on_checkpoint(progress_.done(), decoded_parameters());
    start_iteration();
  });
}

void CodedTrainingRun::rollback() {
  const int from_iteration = progress_.done();
  // Cancelled first, so that the part of the tasks that ran is lost with the attempt.
  for (int p = 0; p < nodes_; ++p) {
    cancel_task(p);
    trace_.task_ended(p, engine_.now(), "rolled back");
  }
  const RollbackTarget target = progress_.roll_back(random_events() != events_at_attempt_start_);
  events_at_attempt_start_ = random_events();
  ++attempt_;
  trace_.instant(sim::kJobTrack, "rollback", engine_.now(),
                 {{"from_iteration", from_iteration}, {"to_iteration", progress_.done()}});
  trace_.progress(progress_.done());
  if (target == RollbackTarget::stop) {
    // Every checkpoint, then the initial state, stalled: stop rather than loop (completed = 0).
    phase_ = Phase::done;
    engine_.stop();
    return;
  }
  if (target != RollbackTarget::last_checkpoint) checkpoints_.drop_last();
  restore_snapshot();
  if (observer_.on_rollback) observer_.on_rollback(progress_.done(), decoded_parameters());
  phase_ = Phase::restart;
  const double restart_s = policy_.restart_s();
  trace_.phase(live_nodes(), "restart", engine_.now(), restart_s);
  progress_.time.charge_later(engine_.now(), TimeKind::restart);
  after(restart_s, [this, restart_s] {
    progress_.restart(restart_s);
    start_iteration();
  });
}

void CodedTrainingRun::wait_for_repairs() {
  bool any_down = false;
  for (int p = 0; p < nodes_; ++p) any_down = any_down || !up(p);
  CODESIM_CHECK(any_down, "an iteration can always start when every node is up and fresh");
  phase_ = Phase::waiting;
  wait_start_s_ = engine_.now();
  progress_.time.charge_later(wait_start_s_, TimeKind::restart);
  ++attempt_;
}

}  // namespace codesim::models::detail
