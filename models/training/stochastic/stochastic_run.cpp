// Stochastic coded training: per-block strike state, strikes by geometric skipping, decode
// outcomes from the schemes' symbol structure (stochastic_round.hpp), train_coded's time model
// from round_costs and the protocol rules both modes share (training_protocol.hpp). This file:
// the run's setup, its iteration loop, the update, checkpoints and rollbacks.
#include "models/training/stochastic/stochastic_run.hpp"

#include <algorithm>
#include <cmath>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "models/training/train.hpp"
#include "sim/check.hpp"
#include "sim/straggler_model.hpp"

namespace codesim::models {
namespace detail {
namespace {

// The hazard -log(1 - p) an opportunity of strike probability p spends.
double hazard(double p) { return p >= 1.0 ? kInf : -std::log1p(-p); }

// The cluster's mean time between crashes (Young's and Daly's intervals), as sim::Cluster's.
double system_mtbf_s(const std::vector<sim::CrashSpec>& crashes) {
  double rate_per_s = 0.0;
  for (const sim::CrashSpec& c : crashes)
    if (c.ever_fails()) rate_per_s += 1.0 / c.mtbf_s();
  return rate_per_s > 0.0 ? 1.0 / rate_per_s : kInf;
}

}  // namespace

StochasticRun::StochasticRun(const sim::ClusterSpec& cluster, const sim::CheckpointSpec& checkpoint,
                             const TrainingSpec& spec, const FaultConfig& faults,
                             std::uint64_t seed, std::uint64_t replica,
                             const std::function<bool()>& should_stop)
    : spec_(spec),
      policy_(checkpoint, kInf),
      topology_(cluster.network),
      should_stop_(should_stop),
      weight_shapes_(weight_shapes(spec)),
      layers_(static_cast<int>(weight_shapes_.size())),
      batch_(spec.sgd.batch_size),
      progress_(spec.iterations, checkpoint.max_stalled_rollbacks) {
  progress_.time.report_link_wait = topology_.network_cost_model().reports_link_wait();
  CODESIM_CHECK(validate_stochastic_training(cluster, spec, faults).empty(),
                "the stochastic mode needs a spec it models");
  wait_ = wait_policy(spec);
  nodes_ = summarize_scheme(spec.scheme).nodes;
  init_structure();
  init_nodes(cluster, seed, replica);
  // Strike streams and per-opportunity hazards from the fault injector's rates.
  const StrikeRates strikes(faults, cluster.node_count(), seed, replica);
  rate_traces_ = faults.rate_traces;
  open_streams(strikes, FaultTarget::weights, seed, replica, weight_budget_, weight_streams_);
  open_streams(strikes, FaultTarget::product, seed, replica, product_budget_, product_streams_);
  init_rounds(strikes);
  init_update(strikes);
  local_ = LocalChecks(spec, faults, nodes_, seed, replica);
  progress_.energy = sim::EnergyMeter(cluster, nodes_);
  double values = 0.0;
  for (const LayerShape& g : shapes_) values += g.stored_values_per_node;
  checkpoint_values_ = values;
  policy_ = sim::CheckpointPolicy(checkpoint, system_mtbf_s(cluster.crashes),
                                  checkpoint_costs(checkpoint, values, topology_, nodes_));
  errors_.size(max_symbols_, max_codewords_);
  timeline_ = CrashTimeline(cluster, seed, replica, spec_.time_limit_s);
  down_.assign(static_cast<std::size_t>(nodes_), 0);
  stale_.assign(static_cast<std::size_t>(nodes_), 0);
  checkpoint_stale_ = stale_;
  down_since_s_.assign(static_cast<std::size_t>(nodes_), -1.0);
}

// The scheme's structure on the smallest W with the same blocks (layer shapes scale its block
// sizes), the layer shapes and the block numbering.
void StochasticRun::init_structure() {
  const auto [small_rows, small_cols] = block_grid(spec_.scheme);
  structure_ = make_scheme(spec_.scheme, small_rows, small_cols);
  structure_->encode(Matrix::Zero(small_rows, small_cols));
  CODESIM_CHECK(structure_->node_count() == nodes_, "the structure has the scheme's nodes");
  for (const WeightShape& w : weight_shapes_) {
    shapes_.push_back(
        layer_shape(spec_.scheme, *structure_, small_rows, small_cols, w.rows, w.cols));
  }
  // Blocks: layer l, node p, block b at l * blocks_per_layer_ + first_block_[p] + b.
  for (int p = 0; p < nodes_; ++p) {
    first_block_.push_back(blocks_per_layer_);
    blocks_per_layer_ += static_cast<int>(structure_->stored_blocks(p).size());
  }
  first_block_.push_back(blocks_per_layer_);
  wrong_.assign(static_cast<std::size_t>(blocks_per_layer_ * layers_), 0);
  checkpoint_wrong_ = wrong_;
}

// Node speeds, straggler laws and the decoder.
void StochasticRun::init_nodes(const sim::ClusterSpec& cluster, std::uint64_t seed,
                               std::uint64_t replica) {
  speeds_ = cluster.speeds_flops_per_s;
  usable_.assign(speeds_.size(), 0);
  for (int p = 0; p < nodes_; ++p) {
    usable_[static_cast<std::size_t>(p)] = 1;
    live_.push_back(p);
    const sim::StragglerSpec& law = cluster.stragglers[static_cast<std::size_t>(p)];
    const bool traced =
        !cluster.speed_traces.empty() && !cluster.speed_traces[static_cast<std::size_t>(p)].empty();
    // Task times vary with a straggler law or a speed trace: drawn per task, not fixed.
    stragglers_ = stragglers_ || !sim::is_none(law) || traced;
    nodes_state_.emplace_back(
        p, speeds_[static_cast<std::size_t>(p)],
        std::shared_ptr<const sim::StragglerModel>(sim::make_straggler_model(law)),
        sim::RandomStream({seed, replica, "straggler", static_cast<std::uint64_t>(p)}),
        traced ? std::make_shared<const sim::StepTrace>(
                     cluster.speed_traces[static_cast<std::size_t>(p)])
               : nullptr);
  }
  double slowest = kInf;
  for (int p = 0; p < nodes_; ++p)
    slowest = std::min(slowest, speeds_[static_cast<std::size_t>(p)]);
  decoder_speed_ = spec_.decentralized ? slowest : speeds_.front();
}

// One strike stream per node with `target` enabled, keyed (seed, replica,
// "stochastic_strike.<target>", node), and its first Exp(1) budget (infinite when disabled).
void StochasticRun::open_streams(const StrikeRates& strikes, FaultTarget target, std::uint64_t seed,
                                 std::uint64_t replica, std::vector<double>& budget,
                                 std::vector<std::optional<sim::RandomStream>>& streams) const {
  budget.assign(static_cast<std::size_t>(nodes_), kInf);
  streams.resize(static_cast<std::size_t>(nodes_));
  const std::string component = "stochastic_strike." + std::string(to_string(target));
  for (int p = 0; p < nodes_; ++p) {
    if (!strikes.enabled(p, target)) continue;
    auto& stream = streams[static_cast<std::size_t>(p)];
    stream.emplace(sim::StreamKey{seed, replica, component, static_cast<std::uint64_t>(p)});
    budget[static_cast<std::size_t>(p)] = stream->exponential(1.0);
  }
}

// The rounds, and the order of an iteration's: forward 0 .. L-1, backward L-1 .. 1.
void StochasticRun::init_rounds(const StrikeRates& strikes) {
  rounds_.resize(static_cast<std::size_t>(layers_) * 2);
  for (int l = 0; l < layers_; ++l) {
    for (int d : {kForward, kBackward}) build_round(l, d, strikes);
  }
  for (int l = 0; l < layers_; ++l) iteration_.push_back(&round(l, kForward));
  for (int l = layers_ - 1; l >= 1; --l) iteration_.push_back(&round(l, kBackward));
}

// The update: one task per node; (weights, update) on every stored block of every layer.
void StochasticRun::init_update(const StrikeRates& strikes) {
  for (int l = 0; l < layers_; ++l)
    update_flops_ += shapes_[static_cast<std::size_t>(l)].update_flops_per_column * columns(l);
  update_begin_.push_back(0);
  for (int p = 0; p < nodes_; ++p) {
    update_fixed_s_ =
        std::max(update_fixed_s_, update_flops_ / speeds_[static_cast<std::size_t>(p)]);
    for (int l = 0; l < layers_; ++l) {
      const double h = hazard(strikes.probability(
          p, FaultTarget::weights,
          shapes_[static_cast<std::size_t>(l)].update_flops_per_column * columns(l)));
      for (int b = first_block_[static_cast<std::size_t>(p)];
           b < first_block_[static_cast<std::size_t>(p) + 1]; ++b) {
        update_block_.push_back(l * blocks_per_layer_ + b);
        update_hazard_.push_back(h);
      }
    }
    update_begin_.push_back(static_cast<int>(update_block_.size()));
  }
}

void StochasticRun::build_round(int l, int d, const StrikeRates& strikes) {
  Round& r = round(l, d);
  const RoundShape& shape = shapes_[static_cast<std::size_t>(l)].dir[static_cast<std::size_t>(d)];
  r.layer = l;
  r.dir = d;
  r.shape = &shape;
  r.participants = shape.participants;
  r.flops = shape.task_flops_per_column * columns(l);
  r.symbol_begin.push_back(0);
  for (int p : r.participants) {
    const auto index = static_cast<std::size_t>(p);
    r.block.push_back(l * blocks_per_layer_ +
                      (d == kForward ? first_block_[index] : first_block_[index + 1] - 1));
    r.weight_hazard.push_back(hazard(strikes.probability(p, FaultTarget::weights, r.flops)));
    r.product_hazard.push_back(hazard(strikes.probability(p, FaultTarget::product, r.flops)));
    for (int s : shape.node_symbols[index]) r.symbol_list.push_back(s);
    r.symbol_begin.push_back(static_cast<int>(r.symbol_list.size()));
  }
  const int symbols = static_cast<int>(shape.members.size());
  for (int s = 0; s < symbols; ++s)
    r.member_count.push_back(static_cast<int>(shape.members[static_cast<std::size_t>(s)].size()));
  r.codewords = round_codewords(spec_.scheme, shape);
  max_symbols_ = std::max(max_symbols_, static_cast<std::size_t>(symbols));
  max_codewords_ = std::max(max_codewords_, static_cast<std::size_t>(r.codewords.codewords));
  r.symbol_bytes = static_cast<double>(shape.partial_rows) * columns(l) * kBytesPerValue;
  r.product_bytes = static_cast<double>(shape.product_rows) * columns(l) * kBytesPerValue;
  const std::vector<char> all(static_cast<std::size_t>(symbols), 1);
  r.all_present_communication = round_communication_cost(
      topology_, shape, all, live_, r.symbol_bytes, r.product_bytes, spec_.decentralized);
  r.nominal_s = nominal_round_time_s(topology_, shape, usable_, speeds_, live_, decoder_speed_,
                                     columns(l), spec_.decentralized);
  if (!stragglers_) {
    std::vector<double> durations;
    for (int p : r.participants)
      durations.push_back(r.flops / speeds_[static_cast<std::size_t>(p)]);
    resolver_.resolve(r, 0.0, durations, wait_, r.timing);
    r.fixed = true;
  }
}

sim::MetricSet StochasticRun::run() {
  try {
    run_iterations();
  } catch (const OutOfTime&) {
    // The step in progress is cut at the limit below, as train_coded's engine stops there.
  } catch (const FailureStorm&) {
    stopped_ = true;  // completed = 0, progress_.stop_reason() says why
  }
  const double end_s = progress_.completed() || stopped_ ? now_s_ : spec_.time_limit_s;
  if (!progress_.completed()) progress_.stop_at(end_s);
  if (timeline_.active()) {
    end_crashes(end_s);
    read_out_regeneration();
  }
  verify();  // untimed, as train_coded's read-out
  return metrics();
}

void StochasticRun::run_iterations() {
  while (true) {
    if (should_stop_ && should_stop_()) throw TrainingStopped("training stopped on request");
    if (progress_.all_done()) {
      finish();
      break;
    }
    if (now_s_ > spec_.time_limit_s || stopped_) break;
    const double iteration_start_s = now_s_;
    if (timeline_.active() && !start_iteration()) continue;
    bool rolled_back = false;
    for (Round* r : iteration_) {
      if (!run_round(*r)) {
        rolled_back = true;
        break;
      }
    }
    if (rolled_back) continue;
    run_update();
    progress_.iteration_done(now_s_ - iteration_start_s);
    if (progress_.all_done()) {
      finish();
      break;
    }
    if (progress_.checkpoint_due(policy_)) checkpoint();
  }
}

void StochasticRun::run_update() {
  if (timeline_.active()) {
    run_crashing_update();
    return;
  }
  node_operations_ += static_cast<std::uint64_t>(nodes_);
  double end_s = now_s_ + update_fixed_s_;
  if (stragglers_) {
    end_s = now_s_;
    for (int p = 0; p < nodes_; ++p) {
      const double duration_s =
          nodes_state_[static_cast<std::size_t>(p)].draw_task_duration_s(update_flops_, now_s_);
      end_s = std::max(end_s, now_s_ + duration_s);
      progress_.energy.busy(p, duration_s);
    }
  } else {
    for (int p = 0; p < nodes_; ++p)
      progress_.energy.busy(p, update_flops_ / speeds_[static_cast<std::size_t>(p)]);
  }
  for (int p = 0; p < nodes_; ++p) strike_update(p);
  progress_.time.charge_ahead(now_s_, {{TimeKind::compute, end_s - now_s_}});
  now_s_ = end_s;
  check_time();
}

// The (weights, update) strikes on node p's blocks after its update.
void StochasticRun::strike_update(int p) {
  const auto index = static_cast<std::size_t>(p);
  double budget = weight_budget_[index];
  const double factor = rate_factor(p);
  for (int j = update_begin_[index]; j < update_begin_[index + 1]; ++j) {
    budget -= scaled(update_hazard_[static_cast<std::size_t>(j)], factor);
    if (budget < 0.0) {
      budget = redraw(weight_streams_[index]);
      wrong_[static_cast<std::size_t>(update_block_[static_cast<std::size_t>(j)])]++;
      ++faults_;
    }
  }
  weight_budget_[index] = budget;
}

void StochasticRun::checkpoint() {
  double t = 0.0;
  if (spec_.verify_before_checkpoint) {
    const Verification verified = verify();
    progress_.energy.verification(verified.time_s);
    if (!verified.passed) {
      progress_.time.charge_ahead(now_s_, {{TimeKind::checkpoint, verified.time_s}});
      advance(verified.time_s);
      check_time();
      rollback();
      return;
    }
    t += verified.time_s;
  }
  t += policy_.write_cost_s();
  progress_.time.charge_later(now_s_, TimeKind::checkpoint);
  advance(t);
  check_time();
  progress_.energy.checkpoint_written(checkpoint_values_ * nodes_ * kBytesPerValue);
  progress_.checkpoint_written(t);
  faults_at_attempt_start_ = random_events();
  previous_wrong_ = std::move(checkpoint_wrong_);
  checkpoint_wrong_ = wrong_;
  // As the numeric mode's checkpoint, it keeps which nodes missed updates: a rollback to it
  // regenerates their outdated blocks again before they are used.
  previous_stale_ = std::move(checkpoint_stale_);
  checkpoint_stale_ = stale_;
}

void StochasticRun::rollback() {
  const bool blamed = random_events() != faults_at_attempt_start_;
  faults_at_attempt_start_ = random_events();
  const RollbackTarget target = progress_.roll_back(blamed);
  if (target == RollbackTarget::stop) {
    stopped_ = true;  // every checkpoint, then the initial state, stalled (completed = 0)
    return;
  }
  if (target == RollbackTarget::previous_checkpoint) {
    checkpoint_wrong_ = previous_wrong_;
    checkpoint_stale_ = previous_stale_;
  }
  if (target == RollbackTarget::initial_state) {
    std::fill(checkpoint_wrong_.begin(), checkpoint_wrong_.end(), 0);
    std::fill(checkpoint_stale_.begin(), checkpoint_stale_.end(), 0);
  }
  wrong_ = checkpoint_wrong_;
  // The nodes that had missed updates at the checkpoint hold its outdated blocks: stale again.
  stale_ = checkpoint_stale_;
  progress_.time.charge_later(now_s_, TimeKind::restart);
  advance(policy_.restart_s());
  check_time();
  progress_.restart(policy_.restart_s());
}

sim::MetricSet StochasticRun::metrics() const {
  sim::MetricSet m;
  progress_.add_to(m, stopped_ ? now_s_ : spec_.time_limit_s);
  m.set("faults_injected", static_cast<double>(faults_));
  progress_.counts.add_to(m);
  // Only with crashes, so that the results of runs without are what they were.
  if (timeline_.active()) m.set("crashes", static_cast<double>(crashes_));
  m.set("silent_corruptions", static_cast<double>(silent_corruptions_));
  m.set("node_operations", static_cast<double>(node_operations_));
  progress_.time.add_to(m);
  progress_.energy.add_to(m, energy_times(progress_.time));
  return m;
}

}  // namespace detail

}  // namespace codesim::models
