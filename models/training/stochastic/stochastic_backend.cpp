// The stochastic backend: per-block strike state, strikes by geometric skipping
// (strike_streams.hpp), decode outcomes from the schemes' symbol structure (stochastic_round.hpp),
// train_coded's time model from round_costs, and the protocol written once (protocol_run.hpp).
// This file: the set-up, the clock and its trampoline, the update, checkpoints and the metrics.
#include "models/training/stochastic/stochastic_backend.hpp"

#include <algorithm>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "sim/check.hpp"
#include "sim/network_cost_model.hpp"
#include "sim/straggler_model.hpp"

namespace codesim::models::detail {
namespace {

// The cluster's mean time between crashes (Young's and Daly's intervals), as sim::Cluster's.
double system_mtbf_s(const std::vector<sim::CrashSpec>& crashes) {
  double rate_per_s = 0.0;
  for (const sim::CrashSpec& c : crashes)
    if (c.ever_fails()) rate_per_s += 1.0 / c.mtbf_s();
  return rate_per_s > 0.0 ? 1.0 / rate_per_s : kInf;
}

}  // namespace

StochasticBackend::StochasticBackend(const sim::ClusterSpec& cluster,
                                     const sim::CheckpointSpec& checkpoint,
                                     const ValidTraining& training, const FaultConfig& faults,
                                     std::uint64_t seed, std::uint64_t replica,
                                     const std::function<bool()>& should_stop)
    : spec_(training.spec()),
      topology_(cluster.network),
      protocol_(*this, cluster, checkpoint, spec_, should_stop, nullptr) {
  CODESIM_CHECK(
      training.stochastic_checked() && training.fit().cluster_nodes == cluster.node_count(),
      "the spec was checked for the stochastic mode on this cluster");
  const TrainingSpec& spec = spec_;
  nodes_ = summarize_scheme(spec.scheme).nodes;
  layout_.weights = weight_shapes(spec);
  layout_.layers = static_cast<int>(layout_.weights.size());
  layout_.batch = spec.sgd.batch_size;
  init_structure();
  init_nodes(cluster, seed, replica);
  // Strike streams and per-opportunity hazards from the fault injector's rates.
  const StrikeRates strikes(faults, cluster.node_count(), seed, replica);
  strikes_ = StrikeStreams(strikes, faults, nodes_, seed, replica);
  init_rounds(strikes);
  init_update(strikes);
  std::vector<int> columns;
  for (int l = 0; l < layout_.layers; ++l) columns.push_back(layout_.columns(l));
  vectors_ = VectorStrikes(strikes, faults, layout_.shapes, columns, input_rows(), nodes_,
                           spec.decentralized, spec.first_layer_backward, seed, replica);
  local_ = LocalChecks(spec, faults, nodes_, seed, replica);
  double values = 0.0;
  for (const LayerShape& g : layout_.shapes) values += g.stored_values_per_node;
  protocol_.plan(cluster, checkpoint, nodes_, layout_.layers, system_mtbf_s(cluster.crashes),
                 values, topology_);
  std::size_t max_symbols = 0;
  std::size_t max_codewords = 0;
  for (const Round& r : rounds_) {
    max_symbols = std::max(max_symbols, r.member_count.size());
    max_codewords = std::max(max_codewords, static_cast<std::size_t>(r.codewords.codewords));
  }
  scratch_.errors.size(max_symbols, max_codewords);
  timeline_ = CrashTimeline(cluster, seed, replica, spec_.time_limit_s);
  cluster_.down.assign(static_cast<std::size_t>(nodes_), 0);
  state_.stale.assign(static_cast<std::size_t>(nodes_), 0);
  checkpoint_.stale = state_.stale;
  cluster_.down_since_s.assign(static_cast<std::size_t>(nodes_), -1.0);
}

// The scheme's structure on the smallest W with the same blocks (layer shapes scale its block
// sizes), the layer shapes and the block numbering.
void StochasticBackend::init_structure() {
  const auto [small_rows, small_cols] = block_grid(spec_.scheme);
  layout_.structure = make_scheme(spec_.scheme, small_rows, small_cols);
  layout_.structure->encode(Matrix::Zero(small_rows, small_cols));
  CODESIM_CHECK(layout_.structure->node_count() == nodes_, "the structure has the scheme's nodes");
  for (const WeightShape& w : layout_.weights) {
    layout_.shapes.push_back(
        layer_shape(spec_.scheme, *layout_.structure, small_rows, small_cols, w.rows, w.cols));
  }
  // Blocks: layer l, node p, block b at l * layout_.per_layer + layout_.first_block[p] + b.
  for (int p = 0; p < nodes_; ++p) {
    layout_.first_block.push_back(layout_.per_layer);
    layout_.per_layer += static_cast<int>(layout_.structure->stored_blocks(p).size());
  }
  layout_.first_block.push_back(layout_.per_layer);
  state_.wrong.assign(static_cast<std::size_t>(layout_.per_layer * layout_.layers), 0);
  state_.hidden.assign(state_.wrong.size(), 0);
  state_.by_update.assign(state_.wrong.size(), 0);
  checkpoint_.wrong = state_.wrong;
  checkpoint_.hidden = state_.hidden;
  checkpoint_.by_update = state_.by_update;
}

// The rows of each layer's input vectors that each node reads: its slice where its encoding of
// the input is one (uncoded, replication, abft, the CodeNet grid's nodes that take part in the
// direction), scaled from the small structure to the layer; else every row. A network's steps
// between products reshape the vectors: every row.
InputRows StochasticBackend::input_rows() const {
  if (spec_.network) return {};
  const auto [small_rows, small_cols] = block_grid(spec_.scheme);
  InputRows rows(layout_.shapes.size());
  for (std::size_t l = 0; l < layout_.shapes.size(); ++l) {
    for (Direction dir : {Direction::forward, Direction::backward}) {
      const bool forward = dir == Direction::forward;
      const std::int64_t length = forward ? layout_.shapes[l].cols : layout_.shapes[l].rows;
      const std::int64_t small = forward ? small_cols : small_rows;
      const std::vector<int>& takes_part = layout_.structure->participants(dir);
      std::vector<RowRange>& ranges = rows[l][forward ? 0 : 1];
      for (int p = 0; p < nodes_; ++p) {
        std::optional<RowSlice> slice;
        if (std::find(takes_part.begin(), takes_part.end(), p) != takes_part.end())
          slice = layout_.structure->input_slice(p, dir);
        ranges.push_back(
            slice ? RowRange{slice->first * length / small, slice->count * length / small}
                  : RowRange{0, length});
      }
    }
  }
  return rows;
}

// Node speeds, straggler laws and the decoder.
void StochasticBackend::init_nodes(const sim::ClusterSpec& cluster, std::uint64_t seed,
                                   std::uint64_t replica) {
  cluster_.speeds = cluster.speeds_flops_per_s;
  cluster_.usable.assign(cluster_.speeds.size(), 0);
  for (int p = 0; p < nodes_; ++p) {
    cluster_.usable[static_cast<std::size_t>(p)] = 1;
    cluster_.live.push_back(p);
    const sim::StragglerSpec& law = cluster.stragglers[static_cast<std::size_t>(p)];
    const bool traced =
        !cluster.speed_traces.empty() && !cluster.speed_traces[static_cast<std::size_t>(p)].empty();
    // Task times vary with a straggler law or a speed trace: drawn per task, not fixed.
    cluster_.stragglers = cluster_.stragglers || !sim::is_none(law) || traced;
    cluster_.tasks.emplace_back(
        p, cluster_.speeds[static_cast<std::size_t>(p)],
        std::shared_ptr<const sim::StragglerModel>(sim::make_straggler_model(law)),
        sim::RandomStream({seed, replica, "straggler", static_cast<std::uint64_t>(p)}),
        traced ? std::make_shared<const sim::StepTrace>(
                     cluster.speed_traces[static_cast<std::size_t>(p)])
               : nullptr);
  }
  double slowest = kInf;
  for (int p = 0; p < nodes_; ++p)
    slowest = std::min(slowest, cluster_.speeds[static_cast<std::size_t>(p)]);
  cluster_.decoder_speed = spec_.decentralized ? slowest : cluster_.speeds.front();
}

// Every layer's rounds, and their codewords for iteration_decodable.
void StochasticBackend::init_rounds(const StrikeRates& strikes) {
  rounds_.resize(static_cast<std::size_t>(layout_.layers) * 2);
  codewords_.resize(static_cast<std::size_t>(layout_.layers));
  for (int l = 0; l < layout_.layers; ++l) {
    for (int d : {kForward, kBackward}) {
      build_round(l, d, strikes);
      codewords_[static_cast<std::size_t>(l)][static_cast<std::size_t>(d)] = round(l, d).codewords;
    }
  }
}

// The update: one task per node; (weights, update) on every stored block of every layer.
void StochasticBackend::init_update(const StrikeRates& strikes) {
  for (int l = 0; l < layout_.layers; ++l)
    update_.flops +=
        layout_.shapes[static_cast<std::size_t>(l)].update_flops_per_column * layout_.columns(l);
  update_.strikes.begin.push_back(0);
  for (int p = 0; p < nodes_; ++p) {
    update_.fixed_s =
        std::max(update_.fixed_s, update_.flops / cluster_.speeds[static_cast<std::size_t>(p)]);
    for (int l = 0; l < layout_.layers; ++l) {
      const double h = strike_hazard(
          strikes.probability(p, FaultTarget::weights,
                              layout_.shapes[static_cast<std::size_t>(l)].update_flops_per_column *
                                  layout_.columns(l)));
      for (int b = layout_.first_block[static_cast<std::size_t>(p)];
           b < layout_.first_block[static_cast<std::size_t>(p) + 1]; ++b) {
        update_.strikes.block.push_back(l * layout_.per_layer + b);
        update_.strikes.hazard.push_back(h);
      }
    }
    update_.strikes.begin.push_back(static_cast<int>(update_.strikes.block.size()));
  }
}

void StochasticBackend::build_round(int l, int d, const StrikeRates& strikes) {
  Round& r = round(l, d);
  const RoundShape& shape =
      layout_.shapes[static_cast<std::size_t>(l)].dir[static_cast<std::size_t>(d)];
  r.layer = l;
  r.dir = d;
  r.shape = &shape;
  r.participants = shape.participants;
  r.flops = shape.task_flops_per_column * layout_.columns(l);
  r.symbol_begin.push_back(0);
  for (int p : r.participants) {
    const auto index = static_cast<std::size_t>(p);
    r.block.push_back(l * layout_.per_layer + (d == kForward ? layout_.first_block[index]
                                                             : layout_.first_block[index + 1] - 1));
    r.weight_hazard.push_back(strike_hazard(strikes.probability(p, FaultTarget::weights, r.flops)));
    r.product_hazard.push_back(
        strike_hazard(strikes.probability(p, FaultTarget::product, r.flops)));
    for (int s : shape.node_symbols[index]) r.symbol_list.push_back(s);
    r.symbol_begin.push_back(static_cast<int>(r.symbol_list.size()));
  }
  const int symbols = static_cast<int>(shape.members.size());
  for (int s = 0; s < symbols; ++s)
    r.member_count.push_back(static_cast<int>(shape.members[static_cast<std::size_t>(s)].size()));
  r.codewords = round_codewords(spec_.scheme, shape);
  r.symbol_bytes = static_cast<double>(shape.partial_rows) * layout_.columns(l) * kBytesPerValue;
  r.product_bytes = static_cast<double>(shape.product_rows) * layout_.columns(l) * kBytesPerValue;
  const std::vector<char> all(static_cast<std::size_t>(symbols), 1);
  r.all_present_communication = round_communication_cost(
      topology_, shape, all, cluster_.live, r.symbol_bytes, r.product_bytes, spec_.decentralized);
  r.nominal_s =
      nominal_round_time_s(topology_, shape, cluster_.usable, cluster_.speeds, cluster_.live,
                           cluster_.decoder_speed, layout_.columns(l), spec_.decentralized);
  if (!cluster_.stragglers) {
    std::vector<double> durations;
    for (int p : r.participants)
      durations.push_back(r.flops / cluster_.speeds[static_cast<std::size_t>(p)]);
    scratch_.resolver.resolve(r, 0.0, durations, protocol_.wait(), r.timing);
    r.fixed = true;
  }
}

sim::MetricSet StochasticBackend::run() {
  try {
    // The trampoline: each step that follows simulated time runs from here, so that the stack
    // does not grow with the iterations.
    protocol_.start();
    while (next_step_) {
      const ProtocolStep step = *next_step_;
      next_step_.reset();
      protocol_.resume(step);
    }
  } catch (const OutOfTime&) {
    // The step in progress is cut at the limit below, as train_coded's engine stops there.
  } catch (const FailureStorm&) {
    stopped_ = true;  // completed = 0, progress().stop_reason() says why
  }
  const double end_s = progress().completed() || stopped_ ? now_s_ : spec_.time_limit_s;
  if (!progress().completed()) progress().stop_at(end_s);
  if (timeline_.active()) {
    end_crashes(end_s);
    read_out_regeneration();
  }
  if (!read_out_) protocol_.verify();  // untimed, as train_coded's read-out
  return metrics();
}

// As the numeric mode's read-out: the stale nodes' blocks regenerated, then the verification
// pass, untimed; a failed pass makes the protocol roll back.
bool StochasticBackend::read_out_passes() {
  if (timeline_.active()) read_out_regeneration();
  read_out_ = protocol_.verify().passed;
  return read_out_;
}

void StochasticBackend::after(double seconds, ProtocolStep next) {
  advance(seconds);
  check_time();
  next_step_ = next;
}

void StochasticBackend::stop() {
  stopped_ = true;
  next_step_.reset();
}

// As stop, at `time_s`: the crashes before it are left unprocessed (end_crashes skips them).
void StochasticBackend::end_at(double time_s) {
  now_s_ = time_s;
  stop();
}

void StochasticBackend::start_update() {
  if (timeline_.active()) {
    run_crashing_update();
  } else {
    run_update();
  }
  protocol_.update_finished();
}

void StochasticBackend::run_update() {
  node_operations_ += static_cast<std::uint64_t>(nodes_);
  double end_s = now_s_ + update_.fixed_s;
  if (cluster_.stragglers) {
    end_s = now_s_;
    for (int p = 0; p < nodes_; ++p) {
      const double duration_s =
          cluster_.tasks[static_cast<std::size_t>(p)].draw_task_duration_s(update_.flops, now_s_);
      end_s = std::max(end_s, now_s_ + duration_s);
      progress().energy.busy(p, duration_s);
    }
  } else {
    for (int p = 0; p < nodes_; ++p)
      progress().energy.busy(p, update_.flops / cluster_.speeds[static_cast<std::size_t>(p)]);
  }
  for (int p = 0; p < nodes_; ++p) update_faults(p);
  progress().time.charge_ahead(now_s_, {{TimeKind::compute, end_s - now_s_}});
  now_s_ = end_s;
  check_time();
}

// Node p's update: its increments from wrong copies (strike_reach.hpp) and struck ones, then the
// weight strikes after it. An increment from wrong copies is an outer product, which a node that
// checks its block keeps its checksums consistent with (hidden); a struck increment is not.
void StochasticBackend::update_faults(int p) {
  if (vectors_.active()) {
    const auto index = static_cast<std::size_t>(p);
    for (int l = 0; l < layout_.layers; ++l) {
      const int base = l * layout_.per_layer;
      if (vectors_.update_wrong(p, l)) {
        for (int b = layout_.first_block[index]; b < layout_.first_block[index + 1]; ++b) {
          const auto block = static_cast<std::size_t>(base + b);
          if (local_.active()) {
            state_.hidden[block] = 1;
          } else {
            ++state_.wrong[block];
          }
        }
      }
      if (vectors_.strike_update(p, l, strikes_, now_s_)) {
        const auto block = static_cast<std::size_t>(base + layout_.first_block[index]);
        ++state_.wrong[block];
        state_.by_update[block] = 1;
      }
    }
  }
  strikes_.update(p, update_.strikes, now_s_, state_.wrong);
}

void BlockState::reset() {
  std::fill(wrong.begin(), wrong.end(), 0);
  std::fill(hidden.begin(), hidden.end(), 0);
  std::fill(by_update.begin(), by_update.end(), 0);
  std::fill(stale.begin(), stale.end(), 0);
}

// As the numeric mode's checkpoint, it keeps which nodes missed updates: a rollback to it
// regenerates their outdated blocks again before they are used.
void StochasticBackend::save_checkpoint() {
  strikes_.checkpoint_written();
  previous_ = std::move(checkpoint_);
  checkpoint_ = state_;
}

void StochasticBackend::restore_checkpoint(RollbackTarget target) {
  if (target == RollbackTarget::previous_checkpoint) checkpoint_ = previous_;
  if (target == RollbackTarget::initial_state) checkpoint_.reset();
  // The nodes that had missed updates at the checkpoint hold its outdated blocks: stale again.
  state_ = checkpoint_;
}

sim::MetricSet StochasticBackend::metrics() const {
  sim::MetricSet m;
  progress().add_to(m, stopped_ ? now_s_ : spec_.time_limit_s);
  m.set("faults_injected", static_cast<double>(strikes_.count()));
  progress().counts.add_to(m);
  // Only with crashes, so that the results of runs without are what they were.
  if (timeline_.active()) m.set("crashes", static_cast<double>(crashes_));
  m.set("silent_corruptions", static_cast<double>(silent_corruptions_));
  m.set("node_operations", static_cast<double>(node_operations_));
  progress().time.add_to(m);
  progress().energy.add_to(m, energy_times(progress().time));
  sim::add_network_notes(m, topology_);
  return m;
}

}  // namespace codesim::models::detail
