// NumericBackend's recovery: regeneration of blamed and stale blocks, the verification pass's
// decodes and repairs, checkpoints, rollbacks and waiting for repairs.
#include <algorithm>
#include <cstddef>
#include <optional>
#include <utility>
#include <vector>

#include "models/training/numeric/numeric_backend.hpp"
#include "models/training/numeric/slab_weights.hpp"
#include "sim/check.hpp"

namespace codesim::models::detail {

bool NumericBackend::decodable() {
  return iteration_decodable(net_.geometry, net_.codewords, [this](int p) { return usable(p); });
}

// Every layer's blocks of the stale nodes that are back up, from sources neither stale nor down.
bool NumericBackend::regenerate_stale_nodes(double& seconds) {
  std::vector<std::pair<int, int>> repairs;  // (layer, node)
  for (int p = 0; p < nodes_; ++p) {
    if (stale_[static_cast<std::size_t>(p)] && up(p)) {
      for (int l = 0; l < net_.count; ++l) repairs.emplace_back(l, p);
    }
  }
  if (repairs.empty()) return true;
  std::vector<int> exclude;
  for (int p = 0; p < nodes_; ++p)
    if (stale_[static_cast<std::size_t>(p)] || !up(p)) exclude.push_back(p);
  const std::optional<double> t = regenerate(repairs, exclude);
  if (!t) return false;
  for (const auto& [layer, node] : repairs) stale_[static_cast<std::size_t>(node)] = false;
  seconds = *t;
  return true;
}

// After a corrected decode of `layer`: regenerates the blamed nodes that are up from healthy
// sources (not blamed, stale or down) and marks the down ones stale (regenerated once back).
std::optional<double> NumericBackend::regenerate_nodes(int layer, const std::vector<int>& blamed) {
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
std::optional<double> NumericBackend::regenerate(const std::vector<std::pair<int, int>>& jobs,
                                                 const std::vector<int>& exclude) {
  std::vector<RegenerationJob> transfers;
  for (const auto& [layer, node] : jobs) {
    CodingScheme& scheme = *net_.schemes[static_cast<std::size_t>(layer)];
    std::vector<int> sources = scheme.regeneration_sources(node, exclude);
    if (sources.empty() || !regenerate_block(layer, node, sources)) return std::nullopt;
    ++progress().counts.regenerations;
    transfers.push_back({node, std::move(sources),
                         net_.geometry[static_cast<std::size_t>(layer)].stored_values_per_node,
                         cluster_.node(node).speed_flops_per_s()});
  }
  const sim::CommunicationCost cost = parallel_regeneration_cost(cluster_.topology(), transfers);
  if (!reading_out_) {
    progress().energy.network(regeneration_bytes(transfers));
    progress().time.link_wait_s += cost.link_wait_s;
  }
  if (trace().on() && !reading_out_) {  // the read-out's repairs are untimed: not drawn
    // Per-transfer times are not kept: every transfer is drawn over the whole regeneration.
    const double start_s = engine_.now() + trace_offset_s_;
    for (const RegenerationJob& job : transfers) {
      trace().phase({job.node}, "regeneration", start_s, cost.time_s,
                    {{"sources", static_cast<int>(job.sources.size())}});
      for (int source : job.sources)
        trace().transfer("regeneration block", source, job.node, start_s, cost.time_s);
    }
  }
  return cost.time_s;
}

bool NumericBackend::regenerate_block(int layer, int node, const std::vector<int>& sources) {
  CodingScheme& scheme = *net_.schemes[static_cast<std::size_t>(layer)];
  if (!ranks_.distributed()) return scheme.regenerate(node, sources);
  std::vector<int> lent;
  for (int source : sources)
    if (ranks_.lend_blocks(scheme, source, node)) lent.push_back(source);
  bool done = ranks_.mine(node) && scheme.regenerate(node, sources);
  for (int source : lent) NodeRanks::give_back(scheme, source);
  ranks_.value_from_owner(node, done);
  return done;
}

DecodeStatus NumericBackend::repair_block_at_node(CodingScheme& scheme, int node) {
  DecodeStatus status = DecodeStatus::clean;
  if (ranks_.mine(node)) status = scheme.repair_block(node, spec_.decode);
  if (checks_at_nodes(spec_.scheme)) ranks_.value_from_owner(node, status);
  return status;
}

// Checkpoint 0 is not written: the initial state is rebuilt from the seed. Each rank writes the
// blocks it holds; the audit's shadow lives on the root.
detail::CheckpointContents NumericBackend::checkpoint_contents() {
  return {&net_.schemes, nodes_, &net_.biases,
          spec_.audit && ranks_.root() ? &net_.shadow : nullptr, &stale_};
}

void NumericBackend::save_checkpoint() {
  injector_.checkpoint_written();
  checkpoints_.write(checkpoint_contents());
  trace().instant(sim::kJobTrack, "checkpoint", engine_.now(), {{"iteration", progress().done()}});
  if (observer_.on_checkpoint) observer_.on_checkpoint(progress().done(), decoded_parameters());
}

void NumericBackend::restore_checkpoint(RollbackTarget target) {
  if (target != RollbackTarget::last_checkpoint) checkpoints_.drop_last();
  restore_snapshot();
  if (observer_.on_rollback) observer_.on_rollback(progress().done(), decoded_parameters());
}

void NumericBackend::restore_snapshot() {
  if (checkpoints_.empty()) {
    // Checkpoint 0, the initial state, is rebuilt from the seed rather than stored.
    for (int l = 0; l < net_.count; ++l) {
      const WeightShape& shape = net_.shapes[static_cast<std::size_t>(l)];
      encode_initial_weights(spec_.scheme, *net_.schemes[static_cast<std::size_t>(l)], seed_, l,
                             shape.rows, shape.cols, shape.init_sd);
      net_.biases[static_cast<std::size_t>(l)].setZero();
    }
    if (spec_.audit && ranks_.root()) net_.shadow = initial_parameters(spec_, seed_);
    std::fill(stale_.begin(), stale_.end(), false);
  } else {
    // The checkpoint's stale flags come back with its blocks: a node that had missed updates when
    // it was written holds outdated blocks again, regenerated before use as they would have been.
    checkpoints_.restore(checkpoint_contents());
  }
}

// Nominal (straggler-free) time of one batch-1 round of the verification pass.
double NumericBackend::nominal_round_s(int layer, Direction dir) const {
  const RoundShape& g = round_shape(layer, dir);
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

// One decode of the verification pass: the all-ones input through (layer, dir); what it blamed
// is kept for verification_regenerate.
VerificationDecode NumericBackend::verification_decode(int layer, Direction dir) {
  const LayerShape& g = geometry(layer);
  const Matrix ones = Matrix::Ones(dir == Direction::forward ? g.cols : g.rows, 1);
  const ProductDecode d = decode_on_ranks(*net_.schemes[static_cast<std::size_t>(layer)], dir, ones,
                                          [this](int p, Matrix&) { return usable(p); });
  verification_blamed_ = d.blamed_nodes;
  return {d.status, nominal_round_s(layer, dir)};
}

// Corrected at the nodes (ABFT): each node of the decode not blamed repairs its own block, and
// the blamed ones (withheld, or wrong for the decoder) are regenerated.
std::optional<double> NumericBackend::verification_regenerate(int layer, Direction dir,
                                                              double elapsed_s) {
  if (!repair_blocks(layer, dir, verification_blamed_)) return std::nullopt;
  if (verification_blamed_.empty()) return 0.0;
  trace_offset_s_ = elapsed_s;
  const std::optional<double> r = regenerate_nodes(layer, verification_blamed_);
  trace_offset_s_ = 0.0;
  return r;
}

// Every live participant of layer l's product in `dir` but `blamed` (ascending) checks and
// repairs its own block; false when one cannot. (The others' blocks wait for their own reads.)
bool NumericBackend::repair_blocks(int layer, Direction dir, const std::vector<int>& blamed) {
  CodingScheme& scheme = *net_.schemes[static_cast<std::size_t>(layer)];
  for (int p : scheme.participants(dir)) {
    if (!up(p) || std::binary_search(blamed.begin(), blamed.end(), p)) continue;
    if (repair_block_at_node(scheme, p) == DecodeStatus::detected) return false;
  }
  return true;
}

// Every node writes (or reads) its own blocks in parallel: node 0's values, the largest.
double NumericBackend::stored_values_per_node() const {
  double values = 0.0;
  for (const LayerShape& g : net_.geometry) values += g.stored_values_per_node;
  return values;
}

// Cancelled first, so that the part of the tasks that ran is lost with the attempt.
void NumericBackend::abandon_work() {
  for (int p = 0; p < nodes_; ++p) {
    cancel_task(p);
    trace().task_ended(p, engine_.now(), "rolled back");
  }
  ++attempt_;
}

std::vector<int> NumericBackend::needed_nodes_gone() {
  return models::needed_nodes_gone(net_.geometry, net_.codewords, nodes_,
                                   [this](int p) { return cluster_.crashes().down_for_good(p); });
}

void NumericBackend::wait_for_repair() {
  bool any_down = false;
  for (int p = 0; p < nodes_; ++p) any_down = any_down || !up(p);
  CODESIM_CHECK(any_down, "an iteration can always start when every node is up and fresh");
  ++attempt_;
}

}  // namespace codesim::models::detail
