// What `codesim run` and `codesim validate` do around the units of a run, shared with the Python
// module so that both refuse the same inputs and write the same fault logs: the checks before the
// units start (memory, data, replay logs, outputs) and the fault logs after.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "app/cli/run_request.hpp"
#include "app/exec/runner.hpp"
#include "app/exec/unit_executor.hpp"

namespace codesim::app {

/// Every check a run makes before its units start: memory (against --memory-limit-gb or the
/// available memory), the expected time and failure events (unless --force), the data and replay
/// logs (loaded into the returned PreparedRun) and the outputs (the results at `results_path`, ""
/// for none, and the fault logs). Bad input is a ScenarioError; the estimated wall time of a long
/// run goes to `notes` unless request.quiet. Under MPI, every rank calls it and stops together.
PreparedRun check_before_run(const Experiment& experiment, const RunRequest& request,
                             const std::string& results_path, UnitExecutor& executor,
                             std::ostream& notes);

/// Every check `codesim validate` makes: check_before_run for one thread of this process and no
/// results file; returns the warnings of the decoding guard (ill-conditioned decoding systems).
std::vector<std::string> validate_experiment(const Experiment& experiment,
                                             const RunRequest& request);

/// Writes the fault logs the replicas of `run` asked for; returns one "error: " line per log
/// that could not be written (the results stand without it).
std::vector<std::string> write_fault_logs(const RunOutput& run);

}  // namespace codesim::app
