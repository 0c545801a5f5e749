// Stochastic coded training: per-block wrong/right state, strikes by geometric skipping, decode
// outcomes from the schemes' symbol structure (stochastic_round.hpp), train_coded's time model
// from round_costs and the protocol rules both modes share (training_protocol.hpp).
#include "models/dnn/stochastic_training.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "models/dnn/round_costs.hpp"
#include "models/dnn/stochastic_round.hpp"
#include "models/dnn/training_protocol.hpp"
#include "models/faults/fault_injector.hpp"
#include "sim/check.hpp"
#include "sim/node.hpp"
#include "sim/random_stream.hpp"
#include "sim/straggler_model.hpp"
#include "sim/topology.hpp"

namespace codesim::models {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
using detail::kBackward;
using detail::kForward;
using detail::Outcome;
using detail::Regeneration;
using detail::Round;
using detail::RoundResolver;
using detail::RoundTiming;
using detail::Status;
using detail::SymbolErrors;

// The hazard -log(1 - p) an opportunity of strike probability p spends.
double hazard(double p) { return p >= 1.0 ? kInf : -std::log1p(-p); }

// The fault injector's strike probability per opportunity; 0 for a disabled (node, target).
class StrikeRates {
 public:
  StrikeRates(const FaultConfig& faults, int cluster_nodes, std::uint64_t seed,
              std::uint64_t replica)
      : rates_(faults, cluster_nodes, seed, replica),
        resolved_(resolve_fault_rates(faults, cluster_nodes)) {}

  bool enabled(int p, FaultTarget target) const {
    return !is_disabled(resolved_[static_cast<std::size_t>(p)][static_cast<std::size_t>(target)]);
  }
  double probability(int p, FaultTarget target, double flops) const {
    return enabled(p, target) ? rates_.strike_probability(p, target, flops) : 0.0;
  }

 private:
  FaultInjector rates_;
  std::vector<NodeFaultRates> resolved_;
};

// Thrown when the clock passes the time limit: the run stops there, in the middle of its step.
struct OutOfTime {};

class StochasticRun {
 public:
  StochasticRun(const sim::ClusterSpec& cluster, const sim::CheckpointSpec& checkpoint,
                const TrainingSpec& spec, const FaultConfig& faults, std::uint64_t seed,
                std::uint64_t replica, const std::function<bool()>& should_stop)
      : spec_(spec),
        policy_(checkpoint, kInf),
        topology_(cluster.network),
        should_stop_(should_stop),
        layers_(static_cast<int>(spec.mlp.layer_sizes.size()) - 1),
        batch_(spec.mlp.batch_size),
        progress_(spec.iterations, checkpoint.max_stalled_rollbacks) {
    progress_.time.report_link_wait = cluster.network.model == sim::NetworkModel::flow;
    CODESIM_CHECK(validate_stochastic_training(cluster, spec, faults).empty(),
                  "the stochastic mode needs a spec it models");
    wait_ = wait_policy(spec);
    nodes_ = summarize_scheme(spec.scheme).nodes;
    init_structure();
    init_nodes(cluster, seed, replica);
    // Strike streams and per-opportunity hazards from the fault injector's rates.
    const StrikeRates strikes(faults, cluster.node_count(), seed, replica);
    open_streams(strikes, FaultTarget::weights, seed, replica, weight_budget_, weight_streams_);
    open_streams(strikes, FaultTarget::product, seed, replica, product_budget_, product_streams_);
    init_rounds(strikes);
    init_update(strikes);
    double values = 0.0;
    for (const LayerShape& g : shapes_) values += g.stored_values_per_node;
    policy_ = sim::CheckpointPolicy(checkpoint, kInf,
                                    checkpoint_costs(checkpoint, values, topology_, nodes_));
    errors_.size(max_symbols_, max_codewords_);
  }

  sim::MetricSet run() {
    try {
      run_iterations();
    } catch (const OutOfTime&) {
      // The step in progress is cut at the limit below, as train_coded's engine stops there.
    }
    if (!progress_.completed()) progress_.stop_at(stopped_ ? now_s_ : spec_.time_limit_s);
    verify();  // untimed, as train_coded's read-out
    return metrics();
  }

 private:
  void run_iterations() {
    while (true) {
      if (should_stop_ && should_stop_()) throw TrainingStopped("training stopped on request");
      if (progress_.all_done()) {
        finish();
        break;
      }
      if (now_s_ > spec_.time_limit_s || stopped_) break;
      const double iteration_start_s = now_s_;
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

  // Every step advances the clock through here: past the time limit the run stops.
  void check_time() const {
    if (!(now_s_ <= spec_.time_limit_s)) throw OutOfTime{};
  }

  // The scheme's structure on the smallest W with the same blocks (layer shapes scale its block
  // sizes), the layer shapes and the block numbering.
  void init_structure() {
    const auto [small_rows, small_cols] = block_grid(spec_.scheme);
    structure_ = make_scheme(spec_.scheme, small_rows, small_cols);
    structure_->encode(Matrix::Zero(small_rows, small_cols));
    CODESIM_CHECK(structure_->node_count() == nodes_, "the structure has the scheme's nodes");
    for (int l = 0; l < layers_; ++l) {
      const int rows = spec_.mlp.layer_sizes[static_cast<std::size_t>(l) + 1];
      const int cols = spec_.mlp.layer_sizes[static_cast<std::size_t>(l)];
      shapes_.push_back(layer_shape(spec_.scheme, *structure_, small_rows, small_cols, rows, cols));
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
  void init_nodes(const sim::ClusterSpec& cluster, std::uint64_t seed, std::uint64_t replica) {
    speeds_ = cluster.speeds_flops_per_s;
    usable_.assign(speeds_.size(), 0);
    for (int p = 0; p < nodes_; ++p) {
      usable_[static_cast<std::size_t>(p)] = 1;
      live_.push_back(p);
      const sim::StragglerSpec& law = cluster.stragglers[static_cast<std::size_t>(p)];
      stragglers_ = stragglers_ || law.kind != sim::StragglerKind::none;
      nodes_state_.emplace_back(
          p, speeds_[static_cast<std::size_t>(p)],
          std::shared_ptr<const sim::StragglerModel>(sim::make_straggler_model(law)),
          sim::RandomStream({seed, replica, "straggler", static_cast<std::uint64_t>(p)}));
    }
    double slowest = kInf;
    for (int p = 0; p < nodes_; ++p)
      slowest = std::min(slowest, speeds_[static_cast<std::size_t>(p)]);
    decoder_speed_ = spec_.decentralized ? slowest : speeds_.front();
  }

  // One strike stream per node with `target` enabled, keyed (seed, replica,
  // "stochastic_strike.<target>", node), and its first Exp(1) budget (infinite when disabled).
  void open_streams(const StrikeRates& strikes, FaultTarget target, std::uint64_t seed,
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
  void init_rounds(const StrikeRates& strikes) {
    rounds_.resize(static_cast<std::size_t>(layers_) * 2);
    for (int l = 0; l < layers_; ++l) {
      for (int d : {kForward, kBackward}) build_round(l, d, strikes);
    }
    for (int l = 0; l < layers_; ++l) iteration_.push_back(&round(l, kForward));
    for (int l = layers_ - 1; l >= 1; --l) iteration_.push_back(&round(l, kBackward));
  }

  // The update: one task per node; (weights, update) on every stored block of every layer.
  void init_update(const StrikeRates& strikes) {
    for (const LayerShape& g : shapes_) update_flops_ += g.update_flops_per_column * batch_;
    update_begin_.push_back(0);
    for (int p = 0; p < nodes_; ++p) {
      update_fixed_s_ =
          std::max(update_fixed_s_, update_flops_ / speeds_[static_cast<std::size_t>(p)]);
      for (int l = 0; l < layers_; ++l) {
        const double h = hazard(strikes.probability(
            p, FaultTarget::weights,
            shapes_[static_cast<std::size_t>(l)].update_flops_per_column * batch_));
        for (int b = first_block_[static_cast<std::size_t>(p)];
             b < first_block_[static_cast<std::size_t>(p) + 1]; ++b) {
          update_block_.push_back(l * blocks_per_layer_ + b);
          update_hazard_.push_back(h);
        }
      }
      update_begin_.push_back(static_cast<int>(update_block_.size()));
    }
  }

  Round& round(int layer, int dir) {
    return rounds_[static_cast<std::size_t>(layer) * 2 + static_cast<std::size_t>(dir)];
  }

  void build_round(int l, int d, const StrikeRates& strikes) {
    Round& r = round(l, d);
    const RoundShape& shape = shapes_[static_cast<std::size_t>(l)].dir[static_cast<std::size_t>(d)];
    r.layer = l;
    r.dir = d;
    r.shape = &shape;
    r.participants = shape.participants;
    r.flops = shape.task_flops_per_column * batch_;
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
    r.symbol_bytes = static_cast<double>(shape.partial_rows) * batch_ * kBytesPerValue;
    r.product_bytes = static_cast<double>(shape.product_rows) * batch_ * kBytesPerValue;
    const std::vector<char> all(static_cast<std::size_t>(symbols), 1);
    r.all_present_communication = round_communication_cost(
        topology_, shape, all, live_, r.symbol_bytes, r.product_bytes, spec_.decentralized);
    r.nominal_s = nominal_round_time_s(topology_, shape, usable_, speeds_, live_, decoder_speed_,
                                       batch_, spec_.decentralized);
    if (!stragglers_) {
      std::vector<double> durations;
      for (int p : r.participants)
        durations.push_back(r.flops / speeds_[static_cast<std::size_t>(p)]);
      resolver_.resolve(r, 0.0, durations, wait_, r.timing);
      r.fixed = true;
    }
  }

  // Draws a fresh Exp(1) budget for a stream that just struck.
  static double redraw(std::optional<sim::RandomStream>& stream) {
    return stream->exponential(1.0);
  }

  // Regenerates the members of the erroneous symbols of corrected codewords; the time, or
  // nullopt when a block has too few sources.
  std::optional<sim::CommunicationCost> regenerate(const Round& r) {
    key_.assign(1, r.dir);
    for (int s : errors_.erroneous()) {
      if (errors_.corrected(r.codewords.codeword_of(s))) key_.push_back(s);
    }
    std::sort(key_.begin() + 1, key_.end());
    auto it = regenerations_cache_.find(key_);
    if (it == regenerations_cache_.end()) {
      Regeneration entry;
      for (std::size_t k = 1; k < key_.size(); ++k) {
        for (int p : r.shape->members[static_cast<std::size_t>(key_[k])]) entry.nodes.push_back(p);
      }
      std::sort(entry.nodes.begin(), entry.nodes.end());
      entry.nodes.erase(std::unique(entry.nodes.begin(), entry.nodes.end()), entry.nodes.end());
      std::vector<RegenerationJob> jobs;
      for (int p : entry.nodes) {
        std::vector<int> sources = structure_->regeneration_sources(p, entry.nodes);
        entry.possible = entry.possible && !sources.empty();
        jobs.push_back({p, std::move(sources), 0.0, speeds_[static_cast<std::size_t>(p)]});
      }
      // Per layer: the nodes regenerate that layer's blocks at once.
      for (int l = 0; entry.possible && l < layers_; ++l) {
        for (RegenerationJob& job : jobs)
          job.stored_values = shapes_[static_cast<std::size_t>(l)].stored_values_per_node;
        entry.cost.push_back(parallel_regeneration_cost(topology_, jobs));
      }
      it = regenerations_cache_.emplace(key_, std::move(entry)).first;
    }
    const Regeneration& entry = it->second;
    if (!entry.possible) return std::nullopt;
    const int base = r.layer * blocks_per_layer_;
    for (int p : entry.nodes) {
      const auto index = static_cast<std::size_t>(p);
      for (int b = first_block_[index]; b < first_block_[index + 1]; ++b)
        wrong_[static_cast<std::size_t>(base + b)] = 0;
    }
    progress_.counts.regenerations += entry.nodes.size();
    return entry.cost[static_cast<std::size_t>(r.layer)];
  }

  // One training round; false when it rolled back.
  bool run_round(const Round& r) {
    const std::size_t n = r.participants.size();
    node_operations_ += n;
    const RoundTiming* timing = &r.timing;
    double end_s = now_s_ + r.timing.end_s;
    if (!r.fixed) {
      durations_.resize(n);
      for (std::size_t i = 0; i < n; ++i) {
        durations_[i] =
            nodes_state_[static_cast<std::size_t>(r.participants[i])].draw_task_duration_s(r.flops);
      }
      resolver_.resolve(r, now_s_, durations_, wait_, scratch_timing_);
      timing = &scratch_timing_;
      end_s = scratch_timing_.end_s;
    }
    const RoundTiming& t = *timing;
    errors_.next_mark();
    for (std::size_t i = 0; i < n; ++i) {
      if (!t.done[i]) continue;
      const auto p = static_cast<std::size_t>(r.participants[i]);
      const auto b = static_cast<std::size_t>(r.block[i]);
      double& weights = weight_budget_[p];
      weights -= r.weight_hazard[i];
      if (weights < 0.0) {
        weights = redraw(weight_streams_[p]);
        wrong_[b] = 1;
        ++faults_;
      }
      bool wrong = wrong_[b] != 0;
      double& product = product_budget_[p];
      product -= r.product_hazard[i];
      if (product < 0.0) {
        product = redraw(product_streams_[p]);
        wrong = true;
        ++faults_;
      }
      if (wrong) errors_.mark_symbols(r, i, t);
    }
    progress_.time.charge_ahead(now_s_, {{TimeKind::compute, end_s - now_s_}});
    now_s_ = end_s;
    check_time();
    const Outcome outcome = errors_.decode(r, t, spec_.decode.error_model);
    ++progress_.counts.decodes;
    const auto [communication_s, link_wait_s] =
        t.all_present
            ? r.all_present_communication
            : round_communication_cost(topology_, *r.shape, t.present, live_, r.symbol_bytes,
                                       r.product_bytes, spec_.decentralized);
    progress_.time.link_wait_s += link_wait_s;
    const double decode_s = decode_flops(t.tally.present_total(), r.shape->partial_rows, batch_,
                                         outcome.status == Status::clean) /
                            decoder_speed_;
    progress_.time.charge_ahead(
        now_s_, {{TimeKind::communication, communication_s}, {TimeKind::decode, decode_s}});
    now_s_ += communication_s + decode_s;
    check_time();
    if (outcome.silent) ++silent_corruptions_;
    if (outcome.status == Status::detected) {
      ++progress_.counts.detected;
      rollback();
      return false;
    }
    if (outcome.status == Status::corrected) {
      ++progress_.counts.corrected;
      const std::optional<sim::CommunicationCost> regeneration = regenerate(r);
      if (!regeneration) {
        rollback();
        return false;
      }
      progress_.time.charge_ahead(now_s_, {{TimeKind::communication, regeneration->time_s}});
      progress_.time.link_wait_s += regeneration->link_wait_s;
      if (regeneration->time_s > 0.0) now_s_ += regeneration->time_s;
      check_time();
    }
    return true;
  }

  void run_update() {
    node_operations_ += static_cast<std::uint64_t>(nodes_);
    double end_s = now_s_ + update_fixed_s_;
    if (stragglers_) {
      end_s = now_s_;
      for (int p = 0; p < nodes_; ++p) {
        end_s = std::max(
            end_s,
            now_s_ + nodes_state_[static_cast<std::size_t>(p)].draw_task_duration_s(update_flops_));
      }
    }
    for (int p = 0; p < nodes_; ++p) {
      const auto index = static_cast<std::size_t>(p);
      double budget = weight_budget_[index];
      for (int j = update_begin_[index]; j < update_begin_[index + 1]; ++j) {
        budget -= update_hazard_[static_cast<std::size_t>(j)];
        if (budget < 0.0) {
          budget = redraw(weight_streams_[index]);
          wrong_[static_cast<std::size_t>(update_block_[static_cast<std::size_t>(j)])] = 1;
          ++faults_;
        }
      }
      weight_budget_[index] = budget;
    }
    progress_.time.charge_ahead(now_s_, {{TimeKind::compute, end_s - now_s_}});
    now_s_ = end_s;
    check_time();
  }

  struct Verification {
    bool passed = true;
    double time_s = 0.0;
  };

  // The all-ones verification pass, by verification_passes' rule (as the numeric mode).
  Verification verify() {
    double t = 0.0;
    const bool passed = verification_passes(
        layers_, [&](int l, int d) { return verification_decode(round(l, d), t).status; },
        [&](int l, int d) {
          const std::optional<sim::CommunicationCost> regeneration = regenerate(round(l, d));
          if (regeneration) t += regeneration->time_s;
          if (regeneration) progress_.time.link_wait_s += regeneration->link_wait_s;
          return regeneration.has_value();
        },
        progress_.counts);
    return {passed, t};
  }

  // One decode of the verification pass: every symbol present, the unrepaired strikes wrong;
  // counted, its nominal time added to t_s.
  Outcome verification_decode(const Round& r, double& t_s) {
    node_operations_ += r.participants.size();
    verification_timing_.done.assign(r.participants.size(), 1);
    verification_timing_.present.assign(r.member_count.size(), 1);
    verification_timing_.tally.reset(r.codewords, wait_);
    for (int s = 0; s < r.codewords.symbols; ++s) verification_timing_.tally.add(s);
    verification_timing_.decodable = verification_timing_.tally.decodable();
    errors_.next_mark();
    for (std::size_t i = 0; i < r.participants.size(); ++i) {
      if (wrong_[static_cast<std::size_t>(r.block[i])])
        errors_.mark_symbols(r, i, verification_timing_);
    }
    const Outcome outcome = errors_.decode(r, verification_timing_, spec_.decode.error_model);
    ++progress_.counts.decodes;
    t_s += r.nominal_s;
    return outcome;
  }

  void checkpoint() {
    double t = 0.0;
    if (spec_.verify_before_checkpoint) {
      const Verification verified = verify();
      if (!verified.passed) {
        progress_.time.charge_ahead(now_s_, {{TimeKind::checkpoint, verified.time_s}});
        now_s_ += verified.time_s;
        check_time();
        rollback();
        return;
      }
      t += verified.time_s;
    }
    t += policy_.write_cost_s();
    progress_.time.charge_later(now_s_, TimeKind::checkpoint);
    now_s_ += t;
    check_time();
    progress_.checkpoint_written(t);
    faults_at_attempt_start_ = faults_;
    previous_wrong_ = std::move(checkpoint_wrong_);
    checkpoint_wrong_ = wrong_;
  }

  void rollback() {
    const bool random_events = faults_ != faults_at_attempt_start_;
    faults_at_attempt_start_ = faults_;
    const RollbackTarget target = progress_.roll_back(random_events);
    if (target == RollbackTarget::stop) {
      stopped_ = true;  // every checkpoint, then the initial state, stalled (completed = 0)
      return;
    }
    if (target == RollbackTarget::previous_checkpoint) checkpoint_wrong_ = previous_wrong_;
    if (target == RollbackTarget::initial_state) {
      std::fill(checkpoint_wrong_.begin(), checkpoint_wrong_.end(), 0);
    }
    wrong_ = checkpoint_wrong_;
    progress_.time.charge_later(now_s_, TimeKind::restart);
    now_s_ += policy_.restart_s();
    check_time();
    progress_.restart(policy_.restart_s());
  }

  void finish() { progress_.complete(now_s_); }

  sim::MetricSet metrics() const {
    sim::MetricSet m;
    progress_.add_to(m, stopped_ ? now_s_ : spec_.time_limit_s);
    m.set("faults_injected", static_cast<double>(faults_));
    progress_.counts.add_to(m);
    m.set("silent_corruptions", static_cast<double>(silent_corruptions_));
    m.set("node_operations", static_cast<double>(node_operations_));
    progress_.time.add_to(m);
    return m;
  }

  // --- configuration ----------------------------------------------------------------------
  const TrainingSpec& spec_;
  sim::CheckpointPolicy policy_;
  sim::Topology topology_;
  const std::function<bool()>& should_stop_;
  int layers_;
  int batch_;
  WaitPolicy wait_;
  int nodes_ = 0;
  bool stragglers_ = false;
  std::unique_ptr<CodingScheme> structure_;
  std::vector<LayerShape> shapes_;
  std::vector<int> first_block_;  // per node + 1
  int blocks_per_layer_ = 0;
  std::vector<double> speeds_;  // per cluster node
  std::vector<char> usable_;    // per cluster node: a scheme node
  std::vector<int> live_;
  std::vector<sim::Node> nodes_state_;
  double decoder_speed_ = 0.0;
  std::vector<Round> rounds_;      // layer * 2 + dir
  std::vector<Round*> iteration_;  // forward 0..L-1, backward L-1..1
  double update_flops_ = 0.0;
  double update_fixed_s_ = 0.0;
  std::vector<int> update_begin_;  // per node + 1, into update_block_
  std::vector<int> update_block_;
  std::vector<double> update_hazard_;
  std::size_t max_symbols_ = 0;
  std::size_t max_codewords_ = 0;

  // --- strikes ------------------------------------------------------------------------------
  std::vector<double> weight_budget_;  // per node: hazard left before the next strike
  std::vector<double> product_budget_;
  std::vector<std::optional<sim::RandomStream>> weight_streams_;
  std::vector<std::optional<sim::RandomStream>> product_streams_;

  // --- state --------------------------------------------------------------------------------
  std::vector<char> wrong_;  // per block: holds a strike not yet repaired
  std::vector<char> checkpoint_wrong_;
  std::vector<char> previous_wrong_;           // at the checkpoint before the last
  bool stopped_ = false;                       // the watchdog stopped the run
  std::uint64_t faults_at_attempt_start_ = 0;  // faults_ at the last checkpoint or rollback
  std::map<std::vector<int>, Regeneration> regenerations_cache_;

  // --- scratch ------------------------------------------------------------------------------
  RoundResolver resolver_;
  SymbolErrors errors_;
  std::vector<int> key_;
  std::vector<double> durations_;
  RoundTiming scratch_timing_;
  RoundTiming verification_timing_;

  // --- progress and accounting --------------------------------------------------------------
  double now_s_ = 0.0;
  std::uint64_t silent_corruptions_ = 0;
  std::uint64_t faults_ = 0, node_operations_ = 0;
  TrainingProgress progress_;
};

}  // namespace

sim::MetricSet run_stochastic_training(const sim::ClusterSpec& cluster,
                                       const sim::CheckpointSpec& checkpoint,
                                       const TrainingSpec& spec, const FaultConfig& faults,
                                       std::uint64_t seed, std::uint64_t replica,
                                       const std::function<bool()>& should_stop) {
  StochasticRun run(cluster, checkpoint, spec, faults, seed, replica, should_stop);
  return run.run();
}

}  // namespace codesim::models
