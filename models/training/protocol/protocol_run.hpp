// The coded training protocol, written once over a TrainingBackend (training_backend.hpp): an
// iteration's start (regenerate stale nodes, wait for repairs), its rounds forward and backward,
// each round's outcome (go on, regenerate what was blamed, roll back), the update, evaluation,
// the checkpoint cycle (verify, write, restore, fall back), and the progress, counters and time
// breakdown. A state machine: each step that follows simulated time is a ProtocolStep the backend
// resumes when that time has passed.
#pragma once

#include <cstdint>
#include <functional>

#include "models/training/protocol/training_backend.hpp"
#include "models/training/protocol/training_protocol.hpp"
#include "models/training/protocol/training_trace.hpp"
#include "models/training/spec.hpp"
#include "sim/checkpoint_policy.hpp"
#include "sim/cluster.hpp"
#include "sim/topology.hpp"
#include "sim/trace_sink.hpp"

namespace codesim::models::detail {

class ProtocolRun {
 public:
  /// The verification pass before a checkpoint.
  struct Verification {
    bool passed = true;
    double time_s = 0.0;  ///< nominal rounds plus regenerations, up to where it stopped
  };

  /// A run of `spec` on `cluster` over `backend`; `should_stop` (may be empty) is polled before
  /// every iteration, `trace_sink` (may be null) receives the timeline. All must outlive the
  /// run; the backend is not called before start().
  ProtocolRun(TrainingBackend& backend, const sim::ClusterSpec& cluster,
              const sim::CheckpointSpec& checkpoint, const TrainingSpec& spec,
              const std::function<bool()>& should_stop, sim::TraceSink* trace_sink);

  /// Plans the run's `nodes` scheme nodes and `layers` weighted layers: the energy meter, the
  /// link wait's report (when `topology`'s network model has one), and the checkpoint policy from
  /// the cluster's crash MTBF and the write costs of `stored_values_per_node` values per node on
  /// `topology`.
  void plan(const sim::ClusterSpec& cluster, const sim::CheckpointSpec& checkpoint, int nodes,
            int layers, double mtbf_s, double stored_values_per_node,
            const sim::Topology& topology);

  /// Starts the first iteration now.
  void start() { start_iteration(); }
  /// Takes up `step` once its time has passed (TrainingBackend::after).
  void resume(ProtocolStep step);
  /// The backend's round (start_round) ended now; its communication and decode take the
  /// seconds given.
  void round_finished(double communication_s, double decode_s);
  /// The backend's update (start_update) ended now.
  void update_finished();
  /// A scheme node crashed while the run waited for repairs: the run stops if it can never go on.
  void node_lost_while_waiting() { stop_if_needed_nodes_gone(); }
  /// The all-ones verification pass (no faults), by verification_passes' rule; regenerations
  /// add their time. Untimed (the run's read-out) or before a checkpoint.
  Verification verify();

  RunPhase phase() const { return phase_; }
  const WaitPolicy& wait() const { return wait_; }
  TrainingProgress& progress() { return progress_; }
  const TrainingProgress& progress() const { return progress_; }
  TrainingTrace& trace() { return trace_; }

 private:
  void start_iteration();
  void begin_iteration();
  void start_round(int layer, Direction dir);
  void round_decoded();
  void next_round();
  void end_iteration();
  void evaluated();
  void start_checkpoint();
  void checkpoint_written();
  void rollback();
  void wait_for_repairs();
  // Stops the run (completed = 0) when nodes down for good leave some round never decodable;
  // whether it did.
  bool stop_if_needed_nodes_gone();
  void repaired();
  void finish();
  // Charges `seconds` of `kind` now and resumes `next` when they have elapsed.
  void spend(TimeKind kind, double seconds, ProtocolStep next);
  // A trace phase on the live nodes.
  void trace_phase(const char* name, double start_s, double duration_s);
  // The faults, corrections and detections so far, on the job's track.
  void sync_trace(const char* where);

  TrainingBackend& backend_;
  const TrainingSpec& spec_;
  const std::function<bool()>& should_stop_;
  WaitPolicy wait_;
  sim::CheckpointPolicy policy_;
  TrainingProgress progress_;
  TrainingTrace trace_;
  int nodes_ = 0;
  int layers_ = 0;
  double stored_values_per_node_ = 0.0;  // what each node writes per checkpoint
  RunPhase phase_ = RunPhase::idle;
  int round_layer_ = 0;
  Direction round_dir_ = Direction::forward;
  double iteration_start_s_ = 0.0;
  double wait_start_s_ = 0.0;
  double checkpoint_s_ = 0.0;                  // the checkpoint in progress: verification and write
  std::uint64_t events_at_attempt_start_ = 0;  // random_events() at the last checkpoint or restore
};

}  // namespace codesim::models::detail
