// Where a run reports its timeline (slices, instants, counters, flows) when a trace was asked for.
// Abstract so the protocol does not know the file format; times are simulated seconds.
#pragma once

#include <initializer_list>
#include <string_view>

namespace codesim::sim {

/// The track of events that belong to the whole job rather than a node (iterations, rollbacks,
/// decodes' outcomes, accuracy and loss).
inline constexpr int kJobTrack = -1;

/// Rows within a node's track: tasks, protocol phases (communication, decode, regeneration,
/// checkpoint, restart, ...) and the node's state (down), so that slices of a lane never overlap.
enum class TraceLane { compute = 0, protocol = 1, state = 2 };

/// One argument of an event: a number or a text (viewed, not owned: valid during the call).
struct TraceArg {
  TraceArg(std::string_view k, double v) : key(k), number(v) {}
  TraceArg(std::string_view k, int v) : key(k), number(v) {}
  TraceArg(std::string_view k, std::string_view v) : key(k), text(v), is_text(true) {}
  TraceArg(std::string_view k, const char* v) : key(k), text(v), is_text(true) {}
  std::string_view key;
  double number = 0.0;
  std::string_view text;
  bool is_text = false;
};
using TraceArgs = std::initializer_list<TraceArg>;

/// Receives a run's timeline as it happens. Calls never change the run; a sink may drop events
/// (a window, a cap). `track` is a node id or kJobTrack.
class TraceSink {
 public:
  virtual ~TraceSink() = default;
  /// Something that lasted [start_s, start_s + duration_s].
  virtual void slice(int track, TraceLane lane, std::string_view name, double start_s,
                     double duration_s, TraceArgs args = {}) = 0;
  /// Something that happened at time_s.
  virtual void instant(int track, std::string_view name, double time_s, TraceArgs args = {}) = 0;
  /// A job-wide quantity (e.g. test accuracy) took `value` at time_s.
  virtual void counter(std::string_view name, double time_s, double value) = 0;
  /// Data went from node `from` at from_s to node `to` at to_s.
  virtual void flow(std::string_view name, int from, double from_s, int to, double to_s) = 0;
  /// The run has now completed `iterations` useful iterations (for windows in iterations).
  virtual void progress(int iterations) = 0;
};

}  // namespace codesim::sim
