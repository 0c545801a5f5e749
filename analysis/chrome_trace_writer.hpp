// A TraceSink that streams the Chrome Trace Event format (Perfetto, chrome://tracing) to a file
// as the run goes: never holds the trace, keeps to a window, stops at a cap and stays valid JSON.
#pragma once

#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

#include "sim/trace_sink.hpp"

namespace codesim::analysis {

/// What to trace. Times are simulated seconds; iterations count useful iterations done.
struct TraceOptions {
  std::string file;                   ///< output path (a scenario may give a pattern); "" = none
  double from_s = 0.0;                ///< window start: events that end before it are dropped
  double to_s = INFINITY;             ///< window end: events that start after it are dropped
  int from_iteration = 0;             ///< events while fewer iterations are done are dropped
  int to_iteration = INT_MAX;         ///< events once this many are done are dropped
  std::int64_t max_events = 1000000;  ///< events written at most (>= 1); then truncated
  /// Each transfer's arrow from sender to receiver (two events each; most of a trace's bytes in
  /// a training run). false leaves them out: the slices and instants stay.
  bool flows = true;
};

/// Writes `path` through a temporary file beside it that close() renames into place (a run that
/// fails leaves no partial trace). Processes are nodes ("pid" = node id) plus a "job" process;
/// "ts" and "dur" are microseconds of simulated time. Not thread-safe: one writer per replica.
class ChromeTraceWriter final : public sim::TraceSink {
 public:
  /// Creates the parent directories, opens the temporary file and names the processes of
  /// `nodes` nodes; throws std::runtime_error when it cannot be created.
  ChromeTraceWriter(std::string path, const TraceOptions& options, int nodes);
  ~ChromeTraceWriter() override;
  ChromeTraceWriter(const ChromeTraceWriter&) = delete;
  ChromeTraceWriter& operator=(const ChromeTraceWriter&) = delete;

  void slice(int track, sim::TraceLane lane, std::string_view name, double start_s,
             double duration_s, sim::TraceArgs args = {}) override;
  void instant(int track, std::string_view name, double time_s, sim::TraceArgs args = {}) override;
  void counter(std::string_view name, double time_s, double value) override;
  void flow(std::string_view name, int from, double from_s, int to, double to_s) override;
  void progress(int iterations) override { iterations_ = iterations; }

  /// Ends the JSON document and moves it to its path; throws std::runtime_error on a write error.
  void close();
  /// Whether the cap dropped events; dropped() counts them.
  bool truncated() const { return dropped_ > 0; }
  std::int64_t dropped() const { return dropped_; }
  std::int64_t written() const { return written_; }
  const std::string& path() const { return path_; }

 private:
  bool in_window(double start_s, double end_s) const;
  // Counts one event against the cap: false (and the event is dropped) once it is reached.
  bool admit();
  void begin_event(std::string_view name, char phase, int track, int lane, double time_s);
  void write_args(sim::TraceArgs args);
  void write_string(std::string_view text);
  void write_number(double value);
  void write_integer(std::int64_t value);
  void write_raw(std::string_view text);

  std::string path_;
  std::string temporary_;
  TraceOptions options_;
  std::FILE* file_ = nullptr;
  int job_pid_ = 0;
  int iterations_ = 0;
  std::int64_t written_ = 0;
  std::int64_t dropped_ = 0;
  std::uint64_t next_flow_id_ = 1;
};

}  // namespace codesim::analysis
