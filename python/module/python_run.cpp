// The run on a worker thread and the wait on the interpreter's thread.
#include "python/module/python_run.hpp"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <filesystem>
#include <mutex>
#include <sstream>
#include <thread>
#include <tuple>
#include <utility>

#include "analysis/results_json.hpp"
#include "app/cli/run_checks.hpp"
#include "app/config/json_input.hpp"
#include "app/config/object_reader.hpp"
#include "app/config/scenario_error.hpp"
#include "app/exec/decoding_guard.hpp"
#include "app/exec/output_check.hpp"
#include "app/exec/unit_executor.hpp"

namespace py = pybind11;

namespace codesim::python {

namespace {

/// What the worker shares with the waiting thread: the stop request, the progress and the end.
class RunMonitor {
 public:
  std::atomic<bool> stop{false};
  std::atomic<std::uint64_t> iterations{0};

  void report(const app::RunProgress& progress) {
    const std::lock_guard lock(mutex_);
    progress_ = progress;
  }
  app::RunProgress progress() const {
    const std::lock_guard lock(mutex_);
    return progress_;
  }
  void finish() {
    {
      const std::lock_guard lock(mutex_);
      finished_ = true;
    }
    finished_changed_.notify_all();
  }
  /// True once the worker finished; waits at most `timeout` for it.
  bool wait(std::chrono::milliseconds timeout) {
    std::unique_lock lock(mutex_);
    return finished_changed_.wait_for(lock, timeout, [this] { return finished_; });
  }

 private:
  mutable std::mutex mutex_;
  std::condition_variable finished_changed_;
  app::RunProgress progress_;
  bool finished_ = false;
};

/// The files the points read besides the scenario file (app::run_inputs, which `codesim run`
/// keeps its outputs off), each absolute against the working directory of the run, so that
/// Results.save refuses what `codesim run -o` refuses. Results.save says "inside" a directory
/// itself.
std::vector<RunInput> inputs_of(const app::Experiment& experiment) {
  std::vector<RunInput> inputs;
  const std::vector<app::RunInput> read = app::run_inputs(experiment);
  for (std::size_t i = 1; i < read.size(); ++i) {  // the first is the scenario file
    const app::RunInput& input = read[i];
    std::error_code error;
    const std::filesystem::path absolute = std::filesystem::absolute(input.path, error);
    std::string name = input.name;
    if (input.directory && name.starts_with("inside ")) name.erase(0, 7);
    inputs.push_back({error ? input.path : absolute.string(), name, input.directory});
  }
  return inputs;
}

/// The whole run, on the worker thread: what `codesim run` does between reading its options and
/// writing the results file.
RunOutcome execute(const RunArguments& arguments, RunMonitor& monitor) {
  const app::RunRequest request = run_request(arguments);
  const app::Experiment experiment = load_for_run(arguments, request);
  const std::unique_ptr<app::UnitExecutor> executor = app::make_local_executor();
  std::ostringstream notes;
  const app::PreparedRun prepared =
      app::check_before_run(experiment, request, "", *executor, notes);
  monitor.report({0, prepared.units.size(), 0, experiment.points.size()});
  const app::DecodingGuard guard = app::guard_experiment(experiment);
  app::RunOptions options;
  options.jobs = request.jobs;
  options.decoding_guard = &guard;
  options.executor = executor.get();
  options.simulated_iterations = &monitor.iterations;
  options.on_progress = [&monitor](const app::RunProgress& progress) { monitor.report(progress); };
  options.stop = &monitor.stop;
  const app::RunOutput run = app::run_prepared(experiment, prepared, options);
  RunOutcome outcome;
  outcome.results_json = analysis::json_text(run.results);
  outcome.complete = run.results["complete"].get<bool>();
  outcome.warnings = guard.warnings;
  outcome.warnings.insert(outcome.warnings.end(), run.warnings.begin(), run.warnings.end());
  outcome.errors = run.errors;
  for (std::string& error : app::write_fault_logs(run)) outcome.errors.push_back(std::move(error));
  for (const app::FaultLogOutput& log : run.fault_logs) outcome.fault_logs.push_back(log.path);
  outcome.traces = run.traces;
  outcome.inputs = inputs_of(experiment);
  return outcome;
}

/// (replicas done, replicas total, points done, points total, simulated iterations).
using ProgressState = std::tuple<std::size_t, std::size_t, std::size_t, std::size_t, std::uint64_t>;

ProgressState progress_state(const RunMonitor& monitor) {
  const app::RunProgress progress = monitor.progress();
  return {progress.units_done, progress.units_total, progress.points_done, progress.points_total,
          monitor.iterations.load(std::memory_order_relaxed)};
}

/// The worker thread, joined (the GIL released) whatever ends the wait. It runs on its own copy
/// of the arguments: the Python object holding them may change while the GIL is released.
class Worker {
 public:
  Worker(RunArguments arguments, RunMonitor& monitor)
      : monitor_(monitor), arguments_(std::move(arguments)), thread_([this] {
          try {
            outcome_ = execute(arguments_, monitor_);
          } catch (...) {
            failure_ = std::current_exception();
          }
          monitor_.finish();
        }) {}
  ~Worker() {
    if (!thread_.joinable()) return;
    monitor_.stop = true;  // the wait ended by an exception: nothing will read the results
    const py::gil_scoped_release release;
    thread_.join();
  }
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

  /// Joins the finished worker; its results, or its failure rethrown.
  RunOutcome result() {
    {
      const py::gil_scoped_release release;
      thread_.join();
    }
    if (failure_) std::rethrow_exception(failure_);
    return std::move(outcome_);
  }

 private:
  RunMonitor& monitor_;
  const RunArguments arguments_;
  RunOutcome outcome_;
  std::exception_ptr failure_;
  std::thread thread_;
};

constexpr std::chrono::milliseconds kPollInterval{100};

}  // namespace

app::RunRequest run_request(const RunArguments& arguments) {
  app::RunRequest request;
  request.file = arguments.file;
  request.arithmetic_text = arguments.arithmetic;
  const std::optional<models::Arithmetic> arithmetic =
      models::parse_arithmetic(arguments.arithmetic);
  if (!arithmetic) {
    throw app::ScenarioError(arguments.file, "",
                             "arithmetic=" + app::in_quotes(arguments.arithmetic) +
                                 " is not an arithmetic (expected " +
                                 std::string(models::kArithmeticNames) + ")");
  }
  request.arithmetic = *arithmetic;
  for (const auto& [name, count] :
       {std::pair{"jobs", arguments.jobs}, {"threads", arguments.threads}}) {
    if (count < 1 || count > app::kMaxThreadCount) {
      throw app::ScenarioError(arguments.file, "",
                               std::string(name) + "=" + std::to_string(count) +
                                   " is not a thread count (expected an integer in [1, " +
                                   std::to_string(app::kMaxThreadCount) + "])");
    }
  }
  request.jobs = arguments.jobs;
  request.threads = arguments.threads;
  request.force = arguments.force;
  request.quiet = true;
  if (arguments.memory_limit_gb > 0) request.memory_limit_bytes = arguments.memory_limit_gb * 1e9;
  return request;
}

app::Experiment load_for_run(const RunArguments& arguments, const app::RunRequest& request) {
  app::Experiment experiment =
      app::make_experiment(app::parse_json_text(arguments.text, arguments.file), arguments.file);
  app::apply_arithmetic(request, experiment);
  return experiment;
}

py::tuple run(const RunArguments& arguments, const py::object& progress) {
  RunMonitor monitor;
  Worker worker(arguments, monitor);
  py::object raised = py::none();
  ProgressState reported{};
  const auto report = [&] {
    const ProgressState state = progress_state(monitor);
    if (progress.is_none() || state == reported) return;
    reported = state;
    const auto& [done, total, points_done, points_total, iterations] = state;
    progress(done, total, points_done, points_total, iterations);
  };
  for (bool finished = false; !finished;) {
    {
      const py::gil_scoped_release release;
      finished = monitor.wait(kPollInterval);
    }
    if (!raised.is_none()) continue;  // stopping: wait for the running replicas to give up
    try {
      if (PyErr_CheckSignals() != 0) throw py::error_already_set();
      report();
    } catch (py::error_already_set& e) {
      raised = e.value();
      monitor.stop = true;
    }
  }
  RunOutcome outcome = worker.result();
  if (raised.is_none()) report();
  return py::make_tuple(outcome, raised);
}

}  // namespace codesim::python
