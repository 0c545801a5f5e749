// The rules of the coded training protocol that its run (protocol_run.hpp) and both backends
// (numeric/, stochastic/) share: when a product round may stop waiting, which symbols form a
// codeword and how many each needs to be decoded, whether an iteration can start, and the
// bookkeeping of progress, checkpoints and rollbacks.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "models/coding/coding_scheme.hpp"
#include "models/training/protocol/protocol_counters.hpp"
#include "models/training/protocol/round_costs.hpp"
#include "models/training/protocol/time_breakdown.hpp"
#include "models/training/spec.hpp"
#include "sim/checkpoint_policy.hpp"
#include "sim/energy_meter.hpp"
#include "sim/metric_set.hpp"
#include "sim/progress_watchdog.hpp"

namespace codesim::models {

/// A round's wait rule with its t.
struct WaitPolicy {
  WaitRule rule = WaitRule::all;
  int errors = 0;  ///< t of k_plus_2t, >= 0

  /// Whether a round may end before every task finished (every rule but `all`).
  bool stops_early() const { return rule != WaitRule::all; }
  /// Symbols each codeword waits for beyond the K it needs: 2 t under k_plus_2t, else 0.
  int extra_symbols() const { return rule == WaitRule::k_plus_2t ? 2 * errors : 0; }
};

/// spec.wait_for with spec.wait_errors.
WaitPolicy wait_policy(const TrainingSpec& spec);

/// How the symbols of one product round group into codewords. Repetition schemes: one codeword
/// per block, symbol s belonging to block s mod K (each needs one of its copies); other schemes:
/// one codeword of every symbol that needs K of them.
struct RoundCodewords {
  int symbols = 0;      ///< symbols of the round, a multiple of `codewords`
  int codewords = 1;    ///< >= 1
  int decode_need = 0;  ///< present symbols a codeword needs to be decoded, 1..symbols_per_codeword

  int codeword_of(int symbol) const { return codewords == 1 ? 0 : symbol % codewords; }
  int symbols_per_codeword() const { return symbols / codewords; }
  /// Present symbols each codeword needs before a round under `wait` may end: every one of them
  /// under `all`; else decode_need plus wait.extra_symbols(), at most every one.
  int wait_need(const WaitPolicy& wait) const;
};

/// The codewords of a round of `shape` (a round of a scheme of `spec`): K = shape.threshold.
RoundCodewords round_codewords(const SchemeSpec& spec, const RoundShape& shape);

/// The present symbols of one round per codeword, counted as they complete, against the wait
/// rule of the round. Inline: the stochastic mode counts in its inner loop.
class CodewordTally {
 public:
  /// Starts a round of `layout` under `wait` with no symbol present.
  void reset(const RoundCodewords& layout, const WaitPolicy& wait) {
    layout_ = layout;
    wait_need_ = layout.wait_need(wait);
    present_.assign(static_cast<std::size_t>(layout.codewords), 0);
    present_total_ = 0;
    satisfied_ = 0;
  }
  /// Counts `symbol` (in [0, layout.symbols), each at most once per round) as present.
  void add(int symbol) {
    ++present_total_;
    if (++present_[static_cast<std::size_t>(layout_.codeword_of(symbol))] == wait_need_) {
      ++satisfied_;
    }
  }
  /// Whether every codeword has the symbols the wait rule needs.
  bool enough() const { return satisfied_ == layout_.codewords; }
  /// Whether every codeword has the decode_need symbols it needs to be decoded.
  bool decodable() const;
  /// Present symbols of codeword `codeword`.
  int present(int codeword) const { return present_[static_cast<std::size_t>(codeword)]; }
  /// Present symbols of the round.
  int present_total() const { return present_total_; }
  const RoundCodewords& layout() const { return layout_; }

 private:
  RoundCodewords layout_;
  int wait_need_ = 0;
  std::vector<int> present_;  // per codeword
  int present_total_ = 0;
  int satisfied_ = 0;  // codewords with wait_need_ present symbols
};

/// Whether the symbols flagged in `complete` (one flag per symbol of `layout`) satisfy `wait`.
bool enough_symbols(const RoundCodewords& layout, std::span<const char> complete,
                    const WaitPolicy& wait);

/// Whether every round of an iteration (forward of every layer, backward of layers >= 1) could
/// decode from the nodes for which `usable(node)` holds: in each, every codeword has K symbols
/// whose members are all usable. `shapes` and `codewords` are per layer.
bool iteration_decodable(std::span<const LayerShape> shapes,
                         std::span<const std::array<RoundCodewords, 2>> codewords,
                         const std::function<bool(int)>& usable);

/// The nodes 0 .. nodes - 1 for which `gone(node)` holds (ascending) when without them some
/// round of an iteration could never decode (iteration_decodable); empty otherwise. Both modes'
/// TrainingBackend::needed_nodes_gone, with their own view of the nodes down for good.
std::vector<int> needed_nodes_gone(std::span<const LayerShape> shapes,
                                   std::span<const std::array<RoundCodewords, 2>> codewords,
                                   int nodes, const std::function<bool(int)>& gone);

/// The all-ones verification pass before a checkpoint, one rule for both modes: the layers in
/// order, each decoded forward then backward. A layer passes when both directions decode clean in
/// one pass. A corrected decode has the blocks it blamed regenerated and the layer is checked
/// again, so that a checkpoint never holds a block the code still disagrees with (or one a wrong
/// blame rebuilt from bad sources); a detected error, an impossible regeneration or a second
/// corrected pass fails it. `decode(layer, direction index)` runs one decode (and counts it and
/// its time); `regenerate(layer, direction index)` repairs what the last decode blamed, false
/// when it cannot. Corrected and detected decodes are counted in `counts`.
bool verification_passes(int layers, const std::function<DecodeStatus(int, int)>& decode,
                         const std::function<bool(int, int)>& regenerate, ProtocolCounters& counts);

/// Where a rollback returns to. A checkpoint from which max_stalled_rollbacks rollbacks in a row
/// make no progress (sim::ProgressWatchdog) is given up: the run falls back to the checkpoint
/// before it, then to the initial state; when that stalls too, the run stops.
enum class RollbackTarget { last_checkpoint, previous_checkpoint, initial_state, stop };

/// A training run's progress in useful iterations and the bookkeeping of its checkpoints and
/// rollbacks: a checkpoint commits the pending time and remembers the iteration; a rollback
/// discards the pending time as lost work and returns to that iteration. The initial state is
/// checkpoint 0; the last two written checkpoints are held.
class TrainingProgress {
 public:
  /// A run of `iterations` useful iterations (>= 1) that gives a checkpoint up after
  /// `max_stalled_rollbacks` (>= 1) rollbacks without progress.
  TrainingProgress(int iterations, int max_stalled_rollbacks)
      : target_(iterations), watchdog_(max_stalled_rollbacks) {}

  int done() const { return done_; }  ///< useful iterations, rolled-back ones not counted
  std::uint64_t executed() const { return executed_; }  ///< every iteration run to its end
  bool all_done() const { return done_ >= target_; }
  bool completed() const { return completed_; }

  /// A useful iteration ended `seconds` (simulated) after it started.
  void iteration_done(double seconds);
  /// Whether `policy` wants a checkpoint after the iterations and seconds since the last one.
  bool checkpoint_due(const sim::CheckpointPolicy& policy) const;
  /// A checkpoint was written at done() iterations; `cost_s` (verification and write) and the
  /// pending time are committed.
  void checkpoint_written(double cost_s);
  /// A rollback: counted, the pending time lost, done() back to the iterations of the checkpoint
  /// it returns to (the last one, or an older one when the last stalled). After `stop` the run
  /// must end: stop_reason() says why. `random_events`: whether any fault or crash happened
  /// since the state was restored (see sim::ProgressWatchdog).
  RollbackTarget roll_back(bool random_events);
  /// Why the run stopped before completing; empty while it may go on.
  const std::string& stop_reason() const { return stop_reason_; }
  /// The run cannot go on, for `reason` (its stop_reason).
  void give_up(std::string reason) { stop_reason_ = std::move(reason); }
  /// Polls `should_stop` (not owned, may be empty) between crashes and repairs too, so that an
  /// interrupt ends a run that makes no progress (sim::FailureStormGuard).
  void poll_interrupts_with(const std::function<bool()>& should_stop) {
    storm_.poll_interrupts_with(should_stop);
  }
  /// A crash or repair; true (once) when a failure storm must end the run (stop_reason says so).
  /// Throws sim::RunStopped when an interrupt was requested.
  bool failure_event() {
    if (!storm_.failure_event()) return false;
    stop_reason_ = sim::FailureStormGuard::why();
    return true;
  }
  /// `seconds` spent restarting after a rollback or waiting for repairs (charged when they
  /// end: settles the step).
  void restart(double seconds) {
    time.restart_s += seconds;
    time.settle();
  }
  /// The run completed every iteration at `now_s`; the pending time is committed.
  void complete(double now_s);
  /// The run gave up at its time limit `end_s`: the step in progress is cut there and the
  /// pending time committed (the run keeps its work), so the breakdown adds up to `end_s`.
  void stop_at(double end_s) {
    time.cut(end_s);
    time.commit();
    energy.commit();
  }
  /// Sets completed, completion_time_s (`end_s` when the run did not complete), iterations and
  /// iterations_executed, in that order.
  void add_to(sim::MetricSet& metrics, double end_s) const;

  ProtocolCounters counts;
  TimeBreakdown time;
  sim::EnergyMeter energy;  ///< committed and lost with `time`

 private:
  int target_;
  int done_ = 0;
  int checkpoint_done_ = 0;   // done_ at the last checkpoint
  int previous_done_ = 0;     // done_ at the checkpoint before it
  int checkpoints_held_ = 0;  // written checkpoints still held: 0, 1 or 2
  sim::ProgressWatchdog watchdog_;
  sim::FailureStormGuard storm_;
  std::string stop_reason_;
  std::uint64_t executed_ = 0;
  int since_checkpoint_ = 0;
  double progress_since_checkpoint_s_ = 0.0;
  bool completed_ = false;
  double completion_time_s_ = 0.0;
};

}  // namespace codesim::models
