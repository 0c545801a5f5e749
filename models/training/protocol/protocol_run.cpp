// The coded training protocol's steps: iterations, rounds and their outcomes, the update,
// evaluation, checkpoints, rollbacks and waiting for repairs.
#include "models/training/protocol/protocol_run.hpp"

#include <limits>
#include <optional>
#include <vector>

#include "models/training/protocol/round_costs.hpp"
#include "models/training/train.hpp"
#include "sim/crash_process.hpp"

namespace codesim::models::detail {
namespace {

Direction direction(int d) { return d == 0 ? Direction::forward : Direction::backward; }

}  // namespace

ProtocolRun::ProtocolRun(TrainingBackend& backend, const sim::ClusterSpec& cluster,
                         const sim::CheckpointSpec& checkpoint, const TrainingSpec& spec,
                         const std::function<bool()>& should_stop, sim::TraceSink* trace_sink)
    : backend_(backend),
      spec_(spec),
      should_stop_(should_stop),
      wait_(wait_policy(spec)),
      policy_(checkpoint, std::numeric_limits<double>::infinity()),
      progress_(spec.iterations, checkpoint.max_stalled_rollbacks),
      trace_(trace_sink, cluster.node_count(), spec.time_limit_s) {
  progress_.poll_interrupts_with(should_stop_);
}

void ProtocolRun::plan(const sim::ClusterSpec& cluster, const sim::CheckpointSpec& checkpoint,
                       int nodes, int layers, double mtbf_s, double stored_values_per_node,
                       const sim::Topology& topology) {
  nodes_ = nodes;
  layers_ = layers;
  stored_values_per_node_ = stored_values_per_node;
  progress_.time.report_link_wait = topology.network_cost_model().reports_link_wait();
  progress_.energy = sim::EnergyMeter(cluster, nodes);
  // Young's and Daly's intervals take the write cost this run pays (its blocks, its storage).
  policy_ = sim::CheckpointPolicy(
      checkpoint, mtbf_s, checkpoint_costs(checkpoint, stored_values_per_node, topology, nodes));
}

void ProtocolRun::resume(ProtocolStep step) {
  switch (step) {
    case ProtocolStep::begin_iteration:
      return begin_iteration();
    case ProtocolStep::next_round:
      return next_round();
    case ProtocolStep::round_decoded:
      return round_decoded();
    case ProtocolStep::evaluated:
      return evaluated();
    case ProtocolStep::checkpoint_written:
      return checkpoint_written();
    case ProtocolStep::roll_back:
      return rollback();
    case ProtocolStep::restarted:
      progress_.restart(policy_.restart_s());
      return start_iteration();
    case ProtocolStep::repaired:
      return repaired();
  }
}

void ProtocolRun::spend(TimeKind kind, double seconds, ProtocolStep next) {
  progress_.time.charge_ahead(backend_.now_s(), {{kind, seconds}});
  backend_.after(seconds, next);
}

void ProtocolRun::trace_phase(const char* name, double start_s, double duration_s) {
  if (trace_.on()) trace_.phase(backend_.live_nodes(), name, start_s, duration_s);
}

void ProtocolRun::sync_trace(const char* where) {
  if (trace_.on()) backend_.trace_sync(sim::kJobTrack, where);
}

// Stale nodes that are back up get their blocks regenerated first (a rollback when they cannot
// be); an iteration that could not decode from the usable nodes waits for a repair.
void ProtocolRun::start_iteration() {
  if (should_stop_ && should_stop_()) throw TrainingStopped("training stopped on request");
  if (progress_.all_done()) {
    finish();
    return;
  }
  phase_ = RunPhase::idle;
  iteration_start_s_ = backend_.now_s();
  trace_.progress(progress_.done());
  double regeneration_s = 0.0;
  if (!backend_.regenerate_stale_nodes(regeneration_s)) {
    rollback();
    return;
  }
  if (!backend_.decodable()) {
    wait_for_repairs();
    return;
  }
  spend(TimeKind::communication, regeneration_s, ProtocolStep::begin_iteration);
}

void ProtocolRun::begin_iteration() {
  backend_.begin_iteration(progress_.done());
  start_round(0, Direction::forward);
}

void ProtocolRun::start_round(int layer, Direction dir) {
  phase_ = RunPhase::round;
  round_layer_ = layer;
  round_dir_ = dir;
  backend_.start_round(layer, dir);
}

void ProtocolRun::round_finished(double communication_s, double decode_s) {
  phase_ = RunPhase::after_round;
  ++progress_.counts.decodes;
  progress_.time.charge_ahead(
      backend_.now_s(), {{TimeKind::communication, communication_s}, {TimeKind::decode, decode_s}});
  backend_.after(communication_s + decode_s, ProtocolStep::round_decoded);
}

// Detected: rollback. Corrected: what the decode blamed is regenerated (a rollback when it
// cannot be), in the time before the next round.
void ProtocolRun::round_decoded() {
  const DecodeStatus status = backend_.round_status();
  if (status == DecodeStatus::detected) {
    ++progress_.counts.detected;
    sync_trace("decode");
    rollback();
    return;
  }
  double regeneration_s = 0.0;
  if (status == DecodeStatus::corrected) {
    ++progress_.counts.corrected;
    sync_trace("decode");
    const std::optional<double> t = backend_.regenerate_blamed(round_layer_, round_dir_);
    if (!t) {
      rollback();
      return;
    }
    regeneration_s = *t;
  }
  backend_.apply_round(round_layer_, round_dir_);
  sync_trace("decode");
  if (regeneration_s > 0.0) {
    spend(TimeKind::communication, regeneration_s, ProtocolStep::next_round);
  } else {
    next_round();
  }
}

// After the round of layer l in dir: forward 0 .. L-1, backward L-1 .. 1 (.. 0 with
// first_layer_backward), then the update.
void ProtocolRun::next_round() {
  const int l = round_layer_;
  const Direction dir = round_dir_;
  const int lowest_backward = spec_.first_layer_backward ? 0 : 1;
  if (dir == Direction::forward && l + 1 < layers_) {
    start_round(l + 1, Direction::forward);
  } else if (dir == Direction::forward && l >= lowest_backward) {
    start_round(l, Direction::backward);
  } else if (dir == Direction::backward && l > lowest_backward) {
    start_round(l - 1, Direction::backward);
  } else {
    phase_ = RunPhase::update;
    backend_.start_update();
  }
}

void ProtocolRun::update_finished() {
  phase_ = RunPhase::idle;
  const double now_s = backend_.now_s();
  progress_.iteration_done(now_s - iteration_start_s_);
  trace_.instant(sim::kJobTrack, "iteration done", now_s,
                 {{"iteration", progress_.done()}, {"started_s", iteration_start_s_}});
  backend_.iteration_done();
  end_iteration();
}

// Evaluates every eval_every useful iterations and after the last, once the read-out's check
// passed (as the CodeNet authors' code, which rolls back there too).
void ProtocolRun::end_iteration() {
  if (progress_.all_done() && !backend_.read_out_passes()) {
    sync_trace("read-out");
    rollback();
    return;
  }
  double eval_s = 0.0;
  if (progress_.all_done() || (spec_.eval_every > 0 && progress_.done() % spec_.eval_every == 0)) {
    eval_s = backend_.evaluate();
  }
  if (eval_s > 0.0) {
    spend(TimeKind::eval, eval_s, ProtocolStep::evaluated);
  } else {
    evaluated();
  }
}

void ProtocolRun::evaluated() {
  if (progress_.all_done()) {
    finish();
  } else if (progress_.checkpoint_due(policy_)) {
    start_checkpoint();
  } else {
    start_iteration();
  }
}

// The verification pass (a failed one is spent as checkpoint time, then rolled back), then the
// write.
void ProtocolRun::start_checkpoint() {
  phase_ = RunPhase::checkpoint;
  const double now_s = backend_.now_s();
  double t = 0.0;
  if (spec_.verify_before_checkpoint) {
    const Verification verified = verify();
    sync_trace("verification");
    trace_phase("verification", now_s, verified.time_s);
    progress_.energy.verification(verified.time_s);
    if (!verified.passed) {
      spend(TimeKind::checkpoint, verified.time_s, ProtocolStep::roll_back);
      return;
    }
    t += verified.time_s;
  }
  trace_phase("checkpoint write", now_s + t, policy_.write_cost_s());
  t += policy_.write_cost_s();
  progress_.time.charge_later(now_s, TimeKind::checkpoint);
  checkpoint_s_ = t;
  backend_.after(t, ProtocolStep::checkpoint_written);
}

void ProtocolRun::checkpoint_written() {
  progress_.energy.checkpoint_written(stored_values_per_node_ * nodes_ * kBytesPerValue);
  progress_.checkpoint_written(checkpoint_s_);
  events_at_attempt_start_ = backend_.random_events();
  backend_.save_checkpoint();
  start_iteration();
}

ProtocolRun::Verification ProtocolRun::verify() {
  double t = 0.0;
  const bool passed = verification_passes(
      layers_,
      [&](int l, int d) {
        const VerificationDecode decoded = backend_.verification_decode(l, direction(d));
        ++progress_.counts.decodes;
        t += decoded.nominal_s;
        return decoded.status;
      },
      [&](int l, int d) {
        const std::optional<double> r = backend_.verification_regenerate(l, direction(d), t);
        if (r) t += *r;
        return r.has_value();
      },
      progress_.counts);
  return {passed, t};
}

// Back to the last checkpoint (or an older one, or the initial state, when it stalled), then
// the restart.
void ProtocolRun::rollback() {
  const int from_iteration = progress_.done();
  backend_.abandon_work();  // first, so that the part of the tasks that ran is lost with it
  const RollbackTarget target =
      progress_.roll_back(backend_.random_events() != events_at_attempt_start_);
  events_at_attempt_start_ = backend_.random_events();
  const double now_s = backend_.now_s();
  trace_.instant(sim::kJobTrack, "rollback", now_s,
                 {{"from_iteration", from_iteration}, {"to_iteration", progress_.done()}});
  trace_.progress(progress_.done());
  if (target == RollbackTarget::stop) {
    // Every checkpoint, then the initial state, stalled: stop rather than loop (completed = 0).
    phase_ = RunPhase::done;
    backend_.stop();
    return;
  }
  backend_.restore_checkpoint(target);
  phase_ = RunPhase::restart;
  const double restart_s = policy_.restart_s();
  trace_phase("restart", now_s, restart_s);
  progress_.time.charge_later(now_s, TimeKind::restart);
  // A restart past the time limit: no later rollback's restart ends sooner, so the run ends as
  // at its limit now (the failures in between cannot change that).
  const std::string hopeless = policy_.restart_past_limit(now_s, spec_.time_limit_s);
  if (!hopeless.empty()) {
    progress_.give_up(hopeless);
    backend_.end_at(spec_.time_limit_s);
    return;
  }
  backend_.after(restart_s, ProtocolStep::restarted);
}

// Restart time until a scheme node's repair, then the iteration starts again.
void ProtocolRun::wait_for_repairs() {
  if (stop_if_needed_nodes_gone()) return;
  phase_ = RunPhase::waiting;
  wait_start_s_ = backend_.now_s();
  progress_.time.charge_later(wait_start_s_, TimeKind::restart);
  backend_.wait_for_repair();
}

// No repair will come for the nodes an availability trace holds down for good: rather than wait
// until the time limit, the run stops now, as there (completed = 0), stop_reason saying why.
bool ProtocolRun::stop_if_needed_nodes_gone() {
  const std::vector<int> gone = backend_.needed_nodes_gone();
  if (gone.empty()) return false;
  progress_.give_up(sim::no_node_comes_back(
      gone, "leave too few nodes for every round of an iteration to decode"));
  phase_ = RunPhase::done;
  backend_.stop();
  return true;
}

void ProtocolRun::repaired() {
  const double waited_s = backend_.now_s() - wait_start_s_;
  trace_phase("waiting for repairs", wait_start_s_, waited_s);
  progress_.restart(waited_s);
  start_iteration();
}

void ProtocolRun::finish() {
  phase_ = RunPhase::done;
  progress_.complete(backend_.now_s());
  backend_.stop();
}

}  // namespace codesim::models::detail
