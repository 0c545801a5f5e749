// Experiment runner: expands a scenario into its sweep points, runs every (point, replica) work
// unit on a pool of threads and builds the one results document.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "app/config/object_reader.hpp"
#include "app/config/scenario.hpp"
#include "app/config/sweep.hpp"
#include "app/exec/checkpoint_search.hpp"
#include "models/faults/fault_log.hpp"
#include "models/linalg/dense_kernels.hpp"
#include "sim/metric_set.hpp"

namespace codesim::app {

/// The version written in results and printed by --version, e.g. "0.1.0".
std::string codesim_version();

/// One validated sweep point.
struct ExperimentPoint {
  Json params;        ///< {pointer: value} of the sweep; {} without a sweep
  std::string label;  ///< the scenario's `label`, else the sweep's label, else ""
  Scenario scenario;
  std::vector<SweepSource> sources = {};  ///< where its swept values are in the file (messages)
};

/// A scenario file with its overrides applied, expanded and every point validated.
struct Experiment {
  std::string file;  ///< as the user named it (labels errors)
  Json scenario;     ///< point 0's resolved scenario, plus the `sweep` block as given
  std::vector<ExperimentPoint> points;
  /// Checkpoint-interval searches (optimal_simulated): their candidates are among `points`.
  std::vector<CheckpointSearch> searches;
  /// The kernels every training point runs on (set with use_arithmetic; recorded in results).
  models::Arithmetic arithmetic = models::Arithmetic::portable;
  /// True when the trace came from codesim run --trace (use_trace), not the scenario: messages
  /// then name the option rather than /trace/file.
  bool trace_from_command_line = false;
};

/// Runs every point of `experiment` on `arithmetic`'s kernels. Precondition: available.
void use_arithmetic(Experiment& experiment, models::Arithmetic arithmetic);
/// Distributes every point's numeric training run over the ranks of `ranks` (not recorded: the
/// results are the same); a ScenarioError for a point that is not numeric training or has fewer
/// simulated nodes than ranks.
void use_ranks(Experiment& experiment, models::RankChannel& ranks);
/// Shares every numeric training point's large products between `threads` threads (not recorded:
/// the results do not depend on it).
void use_threads(Experiment& experiment, int threads);

/// codesim run --trace and its options: the file, and each setting given on the command line.
struct TraceRequest {
  std::string file;                                   ///< a pattern, as trace.file
  std::optional<std::pair<double, double>> window_s;  ///< --trace-window: from_s, to_s
  std::optional<std::pair<int, int>> iterations;      ///< --trace-iterations: from, to
  std::optional<std::int64_t> max_events;             ///< --trace-max-events
  bool no_flows = false;                              ///< --trace-no-flows
};

/// Writes a timeline trace of every training point's replicas (codesim run --trace) to
/// `trace.file`; the settings it gives replace the `trace` section's, the others keep it (or the
/// defaults). Not recorded in the results, which do not depend on it. A ScenarioError when a
/// point cannot be traced (not numeric training) or the pattern would make two replicas write
/// one file.
void use_trace(Experiment& experiment, const TraceRequest& trace);

/// Reads `path`, applies each "/pointer=VALUE" of `sets`, expands the sweep and validates every
/// point. Every problem is a ScenarioError.
Experiment load_experiment(const std::string& path, const std::vector<std::string>& sets = {});
/// The same for a document already in memory; `file` labels errors.
Experiment make_experiment(const Json& document, const std::string& file);

/// Progress of a run, reported after every finished work unit.
struct RunProgress {
  std::size_t units_done = 0;  ///< replicas finished, over all points
  std::size_t units_total = 0;
  std::size_t points_done = 0;   ///< points whose every replica finished
  std::size_t points_total = 0;  ///< 0 when not known (an MPI run counts replicas only)
};

class UnitExecutor;
struct DecodingGuard;

struct RunOptions {
  int jobs = 1;  ///< threads per process; the results do not depend on it
  std::function<void(const RunProgress&)> on_progress;  ///< called under a lock; may be empty
  /// When set, incremented (relaxed) as this process's training replicas start simulated
  /// iterations (rolled-back ones included), for progress displays; never read by the run.
  std::atomic<std::uint64_t>* simulated_iterations = nullptr;
  /// The experiment's decoding guard when the caller already computed it (to warn before the
  /// run); null = run_experiment computes it for the results' `decoding` records.
  const DecodingGuard* decoding_guard = nullptr;
  /// Where work units run (e.g. every rank of an MPI job); null = threads of this process.
  UnitExecutor* executor = nullptr;
  /// Set by the caller to stop this run: no more units start and running replicas are abandoned
  /// (the results keep the finished ones). Null = the process-wide flag (request_stop, signals).
  const std::atomic<bool>* stop = nullptr;
};

/// A fault log a replica asked to be written (faults.log_file).
struct FaultLogOutput {
  std::string path;
  models::FaultLog log;
};

struct RunOutput {
  /// False on the ranks of an MPI job other than the root: they hold no results.
  bool root = true;
  /// schema_version, codesim_version, scenario, seed, points (each with params, label, replicas
  /// and aggregate). No wall-clock time and no path, so the same experiment gives the same bytes.
  Json results;
  std::vector<FaultLogOutput> fault_logs;  ///< in (point, replica) order
  std::vector<std::string> traces;         ///< trace files written, in (point, replica) order
  std::vector<std::string> warnings;       ///< e.g. a trace cut at its cap, one line each
  /// Outputs of the replicas that could not be written (a trace on a full disk), one "error: "
  /// line each: the results are still written, and the run exits with code 1.
  std::vector<std::string> errors;
};

/// What the replicas of one point share: its data and the fault log it replays.
struct PointInputs {
  std::shared_ptr<const models::DatasetSplit> data;
  /// A training point's spec, checked once for the point (its cluster and data); every replica
  /// runs on it.
  std::optional<models::ValidTraining> training;
  std::optional<models::FaultLog> replay;
  std::vector<std::uint64_t> replicas;  ///< replica numbers to run
};

/// One work unit: a replica of a point.
struct Unit {
  std::size_t point;
  std::uint64_t replica;
};

/// Every point's inputs and the work units they make, in (point, replica) order.
struct PreparedRun {
  std::vector<PointInputs> inputs;
  std::vector<Unit> units;
};

/// Loads every point's data and replay log and checks them against the point: everything a run
/// checks before its units start but the outputs. A problem is a ScenarioError naming its sweep
/// point; `executor` makes every rank agree (a rank that cannot read its data stops them all).
PreparedRun prepare_run(const Experiment& experiment, UnitExecutor& executor);

/// The fault logs the units of `prepared` write (faults.log_file), in (point, replica) order.
std::vector<std::string> fault_log_paths(const Experiment& experiment, const PreparedRun& prepared);

/// The timeline traces the units of `prepared` write, in (point, replica) order.
std::vector<std::string> trace_paths(const Experiment& experiment, const PreparedRun& prepared);

/// Runs the units of `prepared` (from prepare_run on the same executor) and collects the results.
/// A fault log that does not match the run is a ScenarioError; other failures are
/// std::exceptions. Nothing is written here.
RunOutput run_prepared(const Experiment& experiment, const PreparedRun& prepared,
                       const RunOptions& options = {});

/// prepare_run, then run_prepared: runs every replica of every point.
RunOutput run_experiment(const Experiment& experiment, const RunOptions& options = {});

/// Runs replica `replica` of a single scenario (loading its data), for tests and tools.
sim::MetricSet run_replica(const Scenario& scenario, std::uint64_t replica);

/// run_experiment of a one-point experiment made of `scenario`; returns the results document.
Json run_scenario(const Scenario& scenario);

}  // namespace codesim::app
