// The checks before a run's units start and the fault logs after, for the command line and the
// Python module alike.
#include "app/cli/run_checks.hpp"

#include <memory>
#include <ostream>
#include <sstream>

#include "app/config/fault_log_json.hpp"
#include "app/config/scenario_error.hpp"
#include "app/exec/decoding_guard.hpp"
#include "app/exec/mpi_rank_channel.hpp"
#include "app/exec/output_check.hpp"
#include "app/exec/preflight.hpp"

namespace codesim::app {

namespace {

/// Refuses a run that cannot fit in memory or would take far too long, and notes a long one.
void preflight(const Experiment& experiment, const RunRequest& request, std::ostream& notes) {
  const PreflightEstimate estimate =
      estimate_run(experiment, request.jobs, request.distribute ? mpi_size() : 1);
  if (request.memory_limit_bytes) {
    check_memory(experiment, estimate, *request.memory_limit_bytes);
  } else if (const auto available = available_memory_bytes()) {
    // The ranks of a distributed run on this machine share its memory.
    check_memory(experiment, estimate,
                 *available / (request.distribute ? ranks_on_this_machine() : 1));
  }
  if (!request.force) {
    check_expected_time(experiment);
    check_failure_events(experiment);
  }
  if (!request.quiet && estimate.flops > 0) {
    const double threads = static_cast<double>(request.jobs) * request.threads * mpi_size();
    const double wall_s = estimate.flops / (measured_flops_per_s() * threads);
    if (wall_s > 60) {
      notes << "estimated wall time: " << describe_duration(wall_s) << " (" << estimate.flops
            << " flops of node products on " << threads << " threads; memory about "
            << estimate.memory_bytes / 1e9 << " GB)\n";
    }
  }
}

}  // namespace

PreparedRun check_before_run(const Experiment& experiment, const RunRequest& request,
                             const std::string& results_path, UnitExecutor& executor,
                             std::ostream& notes) {
  preflight(experiment, request, notes);
  PreparedRun prepared = prepare_run(experiment, executor);
  std::exception_ptr failure;
  try {
    if (executor.is_root()) check_outputs(experiment, prepared, results_path);
  } catch (...) {
    failure = std::current_exception();
  }
  executor.agree(failure);  // only the root writes; every rank stops when it cannot
  return prepared;
}

std::vector<std::string> validate_experiment(const Experiment& experiment,
                                             const RunRequest& request) {
  const std::unique_ptr<UnitExecutor> executor = make_local_executor();
  std::ostringstream notes;  // a validation estimates no wall time
  check_before_run(experiment, request, "", *executor, notes);
  return guard_experiment(experiment).warnings;
}

std::vector<std::string> write_fault_logs(const RunOutput& run) {
  std::vector<std::string> errors;
  for (const FaultLogOutput& log : run.fault_logs) {
    try {
      write_fault_log_file(log.log, log.path);
    } catch (const std::exception& e) {
      errors.push_back(std::string("error: ") + e.what() + " (the results are written)");
    }
  }
  return errors;
}

}  // namespace codesim::app
