// The numeric training run's timeline, reported to an optional sim::TraceSink: compute tasks from
// start to however they ended, protocol phases, down time, faults and the protocol's outcomes.
// Every call is a no-op without a sink, and none changes the run.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "models/faults/fault_log.hpp"
#include "models/training/protocol/protocol_counters.hpp"
#include "sim/trace_sink.hpp"

namespace codesim::models::detail {

class TrainingTrace {
 public:
  /// `sink` (may be null) must outlive the trace; the run uses nodes 0 .. nodes-1; slices are cut
  /// at end_limit_s (the run's time limit).
  TrainingTrace(sim::TraceSink* sink, int nodes, double end_limit_s);

  bool on() const { return sink_ != nullptr; }
  bool ended() const { return ended_; }
  sim::TraceSink* sink() const { return sink_; }

  /// A compute task of `flops` started on `node`, lasting duration_s = nominal_s x its
  /// straggler factor; its slice is written when it ends (task_ended).
  void task_started(int node, double now_s, std::string_view name, int layer, double flops,
                    double nominal_s, double duration_s);
  /// The node's open task (if any) ended now: "done", "cancelled" (the round stopped waiting),
  /// "lost" (the node crashed) or "rolled back".
  void task_ended(int node, double now_s, std::string_view outcome);
  /// A protocol phase [start_s, start_s + duration_s] on each of `nodes`.
  void phase(const std::vector<int>& nodes, std::string_view name, double start_s,
             double duration_s, sim::TraceArgs args = {});
  /// An instant on `track` (a node or sim::kJobTrack).
  void instant(int track, std::string_view name, double time_s, sim::TraceArgs args = {});
  /// Test accuracy and training loss at time_s (one counter track each).
  void accuracy_and_loss(double time_s, double accuracy, double loss);
  /// The joules spent so far (counter track energy_J), at the start and every iteration's end.
  void energy(double time_s, double joules);
  /// A block travelled from node `from` to node `to` during [start_s, start_s + duration_s].
  void transfer(std::string_view name, int from, int to, double start_s, double duration_s);
  /// The run has now done `iterations` useful iterations.
  void progress(int iterations);
  /// The node went down now (its down slice ends at repaired or close).
  void crashed(int node, double now_s);
  void repaired(int node, double now_s);
  /// Emits the faults `log` recorded since the last call (at their own times and nodes), then
  /// one instant per correction and detection `counts` gained since, on `track` at now_s.
  void sync(const FaultLog& log, const ProtocolCounters& counts, int track, double now_s,
            std::string_view where);
  /// Ends the timeline at now_s: open tasks and down times end there; later slices, tasks and
  /// crashes are ignored (sync still reports what the untimed read-out corrects).
  void close(double now_s);

 private:
  struct OpenTask {
    bool open = false;
    std::string_view name;
    int layer = -1;
    double start_s = 0.0;
    double flops = 0.0;
    double straggler_factor = 1.0;
  };
  double clip(double start_s, double duration_s) const;

  sim::TraceSink* sink_;
  double end_limit_s_;
  std::vector<OpenTask> tasks_;
  std::vector<double> down_since_s_;  // NaN: up
  std::size_t faults_seen_ = 0;
  std::uint64_t corrected_seen_ = 0;
  std::uint64_t detected_seen_ = 0;
  bool ended_ = false;
};

}  // namespace codesim::models::detail
