// What differs between the two ways of running the coded training protocol (protocol_run.hpp):
// the numeric backend does the block arithmetic in events on sim::Engine, the stochastic backend
// draws strikes and costs on a stepped clock. The protocol asks a backend for these steps and
// nothing else, so that the protocol is written once.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "models/coding/coding_scheme.hpp"
#include "models/training/protocol/training_protocol.hpp"

namespace codesim::models::detail {

/// The protocol's steps that follow a wait of simulated time (ProtocolRun::resume).
enum class ProtocolStep {
  begin_iteration,     ///< the stale nodes' regeneration is over: the first round
  next_round,          ///< a corrected round's regeneration is over
  round_decoded,       ///< the round's communication and decode are over
  evaluated,           ///< the evaluation is over
  checkpoint_written,  ///< the verification pass and the write are over
  roll_back,           ///< a failed verification pass was spent
  restarted,           ///< the restart after a rollback is over
  repaired,            ///< a scheme node came back while the run waited for repairs
};

/// What the run is doing, for the events that arrive meanwhile (crashes, repairs, task ends).
enum class RunPhase { idle, round, after_round, update, checkpoint, restart, waiting, done };

/// One decode of the verification pass.
struct VerificationDecode {
  DecodeStatus status = DecodeStatus::clean;
  double nominal_s = 0.0;  ///< its straggler-free round time
};

/// A backend of the training protocol. The protocol calls these; a backend calls back
/// ProtocolRun::resume (for `after` and `wait_for_repair`), round_finished (for start_round) and
/// update_finished (for start_update).
class TrainingBackend {
 public:
  virtual ~TrainingBackend() = default;

  // --- the clock ---------------------------------------------------------------------------
  /// Simulated seconds now.
  virtual double now_s() const = 0;
  /// resume(next) `seconds` from now, unless the attempt is abandoned first (abandon_work,
  /// wait_for_repair) or the run ends (stop, the time limit).
  virtual void after(double seconds, ProtocolStep next) = 0;
  /// The run ends now: it completed, or every checkpoint stalled.
  virtual void stop() = 0;
  /// The run ends as at `time_s` (its time limit), the events before it left unrun: its outcome
  /// up to then is known (a restart that would end later).
  virtual void end_at(double time_s) = 0;

  // --- an iteration ------------------------------------------------------------------------
  /// Regenerates every layer's blocks of the stale nodes that are up; false when one cannot
  /// be, else `seconds` is the time it takes (left alone when none was stale).
  virtual bool regenerate_stale_nodes(double& seconds) = 0;
  /// Whether every round of an iteration can decode from the usable nodes (up, not stale).
  virtual bool decodable() = 0;
  /// Abandons the attempt; resume(ProtocolStep::repaired) follows the next repair of a scheme
  /// node. Precondition: a scheme node is down.
  virtual void wait_for_repair() = 0;
  /// The scheme nodes down for good (an availability trace interval without an end), ascending,
  /// when without them some round could never decode; empty otherwise.
  virtual std::vector<int> needed_nodes_gone() = 0;
  /// The iteration's batch, before its first round.
  virtual void begin_iteration(int iteration) = 0;
  /// Runs the product round of `layer` in `dir`: its tasks, then round_finished with the time
  /// of its communication and decode.
  virtual void start_round(int layer, Direction dir) = 0;
  /// The finished round's decode: clean, corrected (also when it decoded around blocks their
  /// nodes withheld) or detected.
  virtual DecodeStatus round_status() = 0;
  /// Regenerates what the last corrected decode blamed; its seconds, or nullopt when a block has
  /// too few sources.
  virtual std::optional<double> regenerate_blamed(int layer, Direction dir) = 0;
  /// The nodes' steps after a decode that goes on (bias, activation or delta).
  virtual void apply_round(int layer, Direction dir) = 0;
  /// Runs every usable node's update, then update_finished.
  virtual void start_update() = 0;
  /// A useful iteration ended: what the backend records of it.
  virtual void iteration_done() = 0;
  /// Evaluates the model now; the simulated seconds that costs.
  virtual double evaluate() = 0;
  /// After the last iteration, before the final evaluation: the untimed read-out's repairs and
  /// verification pass (ProtocolRun::verify). False: the pass detected an error it cannot
  /// correct, and the run rolls back rather than report a corrupted model.
  virtual bool read_out_passes() = 0;

  // --- checkpoints and rollbacks -----------------------------------------------------------
  /// One all-ones decode of the verification pass through (layer, dir).
  virtual VerificationDecode verification_decode(int layer, Direction dir) = 0;
  /// Repairs what that decode blamed, `elapsed_s` into the pass; the seconds it takes, or
  /// nullopt when it cannot.
  virtual std::optional<double> verification_regenerate(int layer, Direction dir,
                                                        double elapsed_s) = 0;
  /// A checkpoint was written now: keep the state it holds.
  virtual void save_checkpoint() = 0;
  /// Returns to the checkpoint `target` names (not stop).
  virtual void restore_checkpoint(RollbackTarget target) = 0;
  /// Abandons the work in progress for a rollback (cancelling running tasks).
  virtual void abandon_work() = 0;
  /// Faults and crashes so far: the random events a rollback may be blamed on.
  virtual std::uint64_t random_events() const = 0;

  // --- the timeline (ProtocolRun::trace) -------------------------------------------------------
  /// Reports the faults, corrections and detections so far on `track`.
  virtual void trace_sync(int track, const char* where) = 0;
  /// The scheme nodes that are up, ascending.
  virtual std::vector<int> live_nodes() const = 0;
};

}  // namespace codesim::models::detail
