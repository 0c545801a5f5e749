// The codesim command line on Boost.Program_options; every failure becomes one "error: " line.
#include "app/cli/cli.hpp"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <memory>
#include <new>
#include <optional>
#include <sstream>
#include <utility>

#include <boost/program_options.hpp>

#include "analysis/results_json.hpp"
#include "app/cli/advise_command.hpp"
#include "app/cli/codes_command.hpp"
#include "app/cli/command_line.hpp"
#include "app/cli/export_platform_command.hpp"
#include "app/cli/interrupt_guard.hpp"
#include "app/cli/plot_command.hpp"
#include "app/cli/progress_bar.hpp"
#include "app/cli/run_checks.hpp"
#include "app/cli/run_request.hpp"
#include "app/cli/run_summary.hpp"
#include "app/cli/theory_command.hpp"
#include "app/cli/trace_options.hpp"
#include "app/config/object_reader.hpp"
#include "app/config/scenario_error.hpp"
#include "app/config/scenario_loader.hpp"
#include "app/exec/decoding_guard.hpp"
#include "app/exec/mpi_rank_channel.hpp"
#include "app/exec/runner.hpp"
#include "app/exec/unit_executor.hpp"
#include "models/linalg/dense_kernels.hpp"
#include "sim/checkpoint_policy.hpp"

namespace po = boost::program_options;

namespace codesim::app {

namespace {

const char* const kUsage =
    "usage: codesim COMMAND [options]\n"
    "\n"
    "Simulates unreliable compute clusters running coded computations.\n"
    "\n"
    "commands:\n"
    "  run SCENARIO       run a scenario and write its results JSON\n"
    "  validate SCENARIO  check a scenario file and report what is wrong\n"
    "  export-platform SCENARIO -o OUT.xml\n"
    "                     write the scenario's network as a SimGrid platform\n"
    "  codes ...          show what a coding-scheme configuration can tolerate\n"
    "  plot RESULTS.json  draw the figures of a results file (matplotlib)\n"
    "  theory ...         closed forms: rollback probability, checkpoint interval, tables\n"
    "  advise SCENARIO    which strategy to run on the scenario's cluster, ranked by simulation\n"
    "\n"
    "options:\n"
    "  -h [ --help ]      show this help (codesim COMMAND --help for a command's options)\n"
    "  --version          print the version\n"
    "\n"
    "exit codes: 0 ok, 1 runtime failure, 2 bad input\n";

/// The parsed command line of run or validate.
struct CommandLine {
  po::variables_map values;
  std::vector<std::string> scenarios;
};

/// Options shared by run and validate.
void add_scenario_options(po::options_description& options) {
  options.add_options()("set", po::value<std::vector<std::string>>()->value_name("PTR=VALUE"),
                        "override one scenario value, e.g. --set /cluster/nodes=32 (repeatable; "
                        "VALUE is JSON, else a string)")(
      "arithmetic", po::value<std::string>()->value_name("KIND")->default_value("auto"),
      "the dense kernels: auto (the fastest this CPU runs: avx512, else avx2_fma, else "
      "portable), portable (default compiler flags), avx2_fma (AVX2 and FMA: about 2x faster "
      "products, other last bits) or avx512 (AVX-512: about 1.7x avx2_fma's products where the "
      "CPU has full-width units, other last bits); each gives the same bits on every machine "
      "that runs it, and the results record the one that ran")("help,h", po::bool_switch(),
                                                               "show this help");
}

/// Parses `args` against `visible` plus a positional SCENARIO; nullopt after reporting an error.
std::optional<CommandLine> parse_command(const std::string& command,
                                         const std::vector<std::string>& args,
                                         const po::options_description& visible,
                                         std::ostream& err) {
  po::options_description hidden;
  hidden.add_options()("scenario", po::value<std::vector<std::string>>());
  po::options_description all;
  all.add(visible).add(hidden);
  po::positional_options_description positional;
  positional.add("scenario", -1);
  CommandLine line;
  try {
    parse_options(args, all, positional, line.values);
  } catch (const po::error& e) {
    err << "error: codesim " << command << ": " << printable(e.what())
        << " (expected the options of codesim " << command << " --help)\n";
    return std::nullopt;
  }
  if (line.values.count("scenario"))
    line.scenarios = line.values["scenario"].as<std::vector<std::string>>();
  return line;
}

std::vector<std::string> sets_of(const po::variables_map& values) {
  if (!values.count("set")) return {};
  return values["set"].as<std::vector<std::string>>();
}

bool check_one_scenario(const std::string& command, const CommandLine& line, std::ostream& err) {
  if (line.scenarios.size() == 1) return true;
  err << "error: codesim " << command << ": "
      << (line.scenarios.empty() ? std::string("no scenario file given")
                                 : std::to_string(line.scenarios.size()) + " scenario files given")
      << " (expected exactly one SCENARIO; see codesim " << command << " --help)\n";
  return false;
}

void list_points(const Experiment& experiment, std::ostream& out) {
  for (std::size_t p = 0; p < experiment.points.size(); ++p) {
    const ExperimentPoint& point = experiment.points[p];
    out << p << "\t" << point.scenario.replicas << " replicas\t"
        << (point.label.empty() ? point.params.dump() : point.label) << "\n";
  }
}

po::options_description run_options() {
  po::options_description visible("codesim run SCENARIO [options]");
  add_run_options(visible);
  add_trace_options(visible);
  add_scenario_options(visible);
  return visible;
}

/// The request of a parsed `codesim run` line (one scenario); nullopt after reporting an error.
std::optional<RunRequest> run_request(const CommandLine& line, std::ostream& err) {
  return read_run_request(line.values, line.scenarios.front(), sets_of(line.values), err);
}

/// Loads the experiment and switches to the requested arithmetic, agreed by every MPI rank.
/// Returns the exit code when the command ends here (bad input, or another rank's failure).
std::optional<int> load_for_run(const RunRequest& request, UnitExecutor& executor,
                                models::RankChannel* ranks, Experiment& experiment,
                                std::ostream& err) {
  try {
    std::exception_ptr failure;
    try {
      experiment = load_experiment(request.file, request.sets);
      apply_arithmetic(request, experiment);
      if (ranks != nullptr) use_ranks(experiment, *ranks);
      if (request.trace) use_trace(experiment, *request.trace);
    } catch (...) {
      failure = std::current_exception();
    }
    executor.agree(failure);  // every MPI rank must have read the same scenario
  } catch (const RankFailure&) {
    return kOk;  // another rank's failure: the root reports it and exits with its code
  } catch (const ScenarioError& e) {
    err << "error: " << e.what() << "\n";
    return kBadInput;
  }
  return std::nullopt;
}

/// check_before_run with its failures reported; returns the exit code when the command ends here.
std::optional<int> checked_before_run(const Experiment& experiment, const RunRequest& request,
                                      const std::string& results_path, UnitExecutor& executor,
                                      PreparedRun& prepared, std::ostream& err) {
  try {
    prepared = check_before_run(experiment, request, results_path, executor, err);
  } catch (const RankFailure&) {
    return kOk;  // another rank's failure: the root reports it and exits with its code
  } catch (const ScenarioError& e) {
    err << "error: " << e.what() << "\n";
    return kBadInput;
  } catch (const std::exception& e) {
    err << "error: " << printable(request.file) << ": " << printable(e.what()) << "\n";
    return kRuntimeFailure;
  }
  return std::nullopt;
}

/// Runs the prepared units with a progress bar, SIGINT/SIGTERM asking them to stop (only while
/// units run: before and after, a signal ends the process as usual). Returns the exit code when
/// the command ends here (a failure, or another rank's).
std::optional<int> run_with_interrupts(const Experiment& experiment, const PreparedRun& prepared,
                                       const RunRequest& request, RunOptions options,
                                       UnitExecutor& executor, RunOutput& run, std::ostream& err) {
  try {
    const InterruptGuard interrupts(
        "\ninterrupted: finishing the running replicas, then writing what is done "
        "(interrupt again to abort without results)\n");
    options.executor = &executor;
    std::atomic<std::uint64_t> iterations{0};
    options.simulated_iterations = &iterations;
    ProgressBar bar(err, !request.quiet && executor.is_root() && isatty(STDERR_FILENO) != 0,
                    iterations, kProgressDelay_s);
    options.on_progress = [&bar](const RunProgress& progress) { bar.update(progress); };
    run = run_prepared(experiment, prepared, options);
  } catch (const RankFailure&) {
    // The root reports what went wrong and exits with its code; exiting 0 here lets it do so
    // before the launcher tears the job down.
    return kOk;
  } catch (const ScenarioError& e) {
    err << "error: " << e.what() << "\n";
    return kBadInput;
  } catch (const std::exception& e) {
    err << "error: " << printable(request.file) << ": the run failed: " << printable(e.what())
        << "\n";
    return kRuntimeFailure;
  }
  return std::nullopt;
}

/// True when the run was interrupted before any replica of any point finished.
bool nothing_finished(const Json& results) {
  if (results["complete"].get<bool>()) return false;
  for (const Json& point : results["points"])
    if (!point["replicas"].empty()) return false;
  return true;
}

/// Writes the fault logs and the results to `path` ("-": standard output) and the summary.
int write_outputs(const Experiment& experiment, const RunOutput& run, const std::string& path,
                  bool quiet, std::ostream& out, std::ostream& err) {
  if (path != "-" && nothing_finished(run.results) && std::filesystem::exists(path)) {
    // An empty incomplete file would replace results that may have cost hours.
    err << "interrupted before any replica finished: " << path
        << " is kept as it was (nothing written)\n";
    return kInterrupted;
  }
  // The results first: a fault log that cannot be written then loses only itself.
  try {
    if (path != "-") analysis::write_json_atomically(run.results, path);
  } catch (const std::exception& e) {
    err << "error: " << e.what() << "\n";
    return kRuntimeFailure;
  }
  if (path == "-") out << analysis::json_text(run.results) << std::flush;
  std::vector<std::string> errors = run.errors;
  for (std::string& error : write_fault_logs(run)) errors.push_back(std::move(error));
  for (const std::string& warning : run.warnings) err << warning << "\n";
  for (const std::string& error : errors) err << error << "\n";
  if (!errors.empty()) return kRuntimeFailure;
  const bool complete = run.results["complete"].get<bool>();
  if (!complete) {
    err << "interrupted: " << path << " holds the replicas that finished (\"complete\": false)\n";
  }
  if (!quiet) {
    std::ostream& human = path == "-" ? err : out;
    print_run_summary(experiment, run.results, human);
    for (const FaultLogOutput& log : run.fault_logs) human << "fault log: " << log.path << "\n";
    for (const std::string& trace : run.traces) human << "trace: " << trace << "\n";
    human << "results: " << (path == "-" ? std::string("standard output") : path) << "\n";
  }
  return complete ? kOk : kInterrupted;
}

int run_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  const po::options_description visible = run_options();
  const auto line = parse_command("run", args, visible, err);
  if (!line) return kBadInput;
  if (line->values["help"].as<bool>()) {
    out << visible
        << "\nRuns replicas 0..N-1 of every sweep point of SCENARIO and writes one "
           "results JSON.\n";
    return kOk;
  }
  if (!check_one_scenario("run", *line, err)) return kBadInput;
  const std::optional<RunRequest> request = run_request(*line, err);
  if (!request) return kBadInput;

  std::unique_ptr<UnitExecutor> executor =
      request->distribute ? make_lockstep_executor() : make_default_executor();
  if (!executor) {
    err << "error: codesim run: --distribute nodes needs the ranks of an MPI job (expected mpirun "
           "-np R codesim run SCENARIO --distribute nodes"
        << (mpi_built() ? "" : ", with a codesim built with MPI: cmake -DCODESIM_MPI=ON") << ")\n";
    return kBadInput;
  }
  const std::unique_ptr<models::RankChannel> ranks =
      request->distribute ? make_rank_channel() : nullptr;
  Experiment experiment;
  if (const auto code = load_for_run(*request, *executor, ranks.get(), experiment, err))
    return *code;
  if (request->list_points) {
    list_points(experiment, out);
    return kOk;
  }
  const std::string path = request->output.empty()
                               ? default_output_path(experiment.points.front().scenario.name)
                               : request->output;
  PreparedRun prepared;
  if (const auto code = checked_before_run(experiment, *request, path, *executor, prepared, err))
    return *code;

  // Ill-conditioned decoding systems: warned before the run, recorded in the results.
  const DecodingGuard guard = guard_experiment(experiment);
  if (!request->quiet && executor->is_root()) {
    for (const std::string& warning : guard.warnings) err << warning << "\n";
  }
  RunOptions options;
  options.jobs = request->jobs;
  options.decoding_guard = &guard;
  RunOutput run;
  if (const auto code =
          run_with_interrupts(experiment, prepared, *request, options, *executor, run, err))
    return *code;
  if (!run.root) return kOk;  // another MPI rank: the root writes the results
  if (ranks && !request->quiet) {
    const RankTraffic traffic = rank_traffic(*ranks);
    err << "distributed over " << ranks->size() << " ranks: rank 0 moved " << traffic.bytes
        << " bytes in " << traffic.messages << " messages, " << traffic.seconds
        << " s in MPI calls\n";
  }
  return write_outputs(experiment, run, path, request->quiet, out, err);
}

int validate_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  po::options_description visible("codesim validate SCENARIO [options]");
  visible.add_options()("resolved", po::bool_switch(),
                        "print the scenario with every default filled in (JSON)");
  add_scenario_options(visible);
  const auto line = parse_command("validate", args, visible, err);
  if (!line) return kBadInput;
  if (line->values["help"].as<bool>()) {
    out << visible
        << "\nChecks SCENARIO as `codesim run` does before it starts (the values, the data, fault "
           "logs to replay, memory, where fault logs go); prints what is wrong and exits with 2 "
           "if it is bad.\n";
    return kOk;
  }
  if (!check_one_scenario("validate", *line, err)) return kBadInput;
  const std::string& file = line->scenarios.front();
  // Every check `run` makes before its units start, as a run on one thread without -o.
  RunRequest request;
  request.file = file;
  request.quiet = true;
  if (!read_arithmetic("validate", line->values, request, err)) return kBadInput;
  Experiment experiment;
  try {
    experiment = load_experiment(file, sets_of(line->values));
    apply_arithmetic(request, experiment);
  } catch (const ScenarioError& e) {
    err << "error: " << e.what() << "\n";
    return kBadInput;
  }
  std::vector<std::string> warnings;
  try {
    warnings = validate_experiment(experiment, request);
  } catch (const ScenarioError& e) {
    err << "error: " << e.what() << "\n";
    return kBadInput;
  } catch (const std::exception& e) {
    err << "error: " << printable(file) << ": " << printable(e.what()) << "\n";
    return kRuntimeFailure;
  }
  for (const std::string& warning : warnings) err << warning << "\n";
  const Scenario& scenario = experiment.points.front().scenario;
  if (line->values["resolved"].as<bool>()) {
    out << analysis::json_text(experiment.scenario);
  } else {
    out << printable(file) << ": ok: scenario " << scenario.name << ", "
        << scenario.cluster.node_count() << " nodes, " << scenario.replicas
        << " replicas, workload " << kWorkloadKindNames[scenario.workload.index()];
    if (experiment.points.size() > 1) out << ", " << experiment.points.size() << " sweep points";
    out << "\n";
  }
  return kOk;
}

constexpr std::array<std::string_view, 7> kCommands = {
    "run", "validate", "export-platform", "codes", "plot", "theory", "advise"};

}  // namespace

std::string default_output_path(const std::string& scenario_name) {
  return "results/" + scenario_name + ".json";
}

int run_cli(const std::vector<std::string>& args, std::ostream& out_stream,
            std::ostream& err_stream) {
  // Under MPI only rank 0 speaks; the other ranks run the same command silently.
  std::ostream silent(nullptr);
  std::ostream& out = mpi_rank() == 0 ? out_stream : silent;
  std::ostream& err = mpi_rank() == 0 ? err_stream : silent;
  try {
    if (args.empty()) {
      err << "error: no command given (expected run, validate, export-platform, codes, plot or "
             "theory; see codesim --help)\n";
      return kBadInput;
    }
    const std::string& command = args.front();
    const std::vector<std::string> rest(args.begin() + 1, args.end());
    if (command == "--version") {
      out << "codesim " << codesim_version() << "\n";
      return kOk;
    }
    if (command == "--help" || command == "-h" || command == "help") {
      out << kUsage;
      return kOk;
    }
    if (command == "run") return run_command(rest, out, err);
    if (command == "validate") return validate_command(rest, out, err);
    if (command == "export-platform") return run_export_platform_command(rest, out, err);
    if (command == "codes") return run_codes_command(rest, out, err);
    if (command == "plot") return run_plot_command(rest, out, err);
    if (command == "theory") return run_theory_command(rest, out, err);
    if (command == "advise") return run_advise_command(rest, out, err);
    const std::vector<std::string> names(kCommands.begin(), kCommands.end());
    const std::string suggestion = closest_match(command, names);
    err << "error: unknown command \"" << printable(command) << "\""
        << (suggestion.empty() ? "" : ", did you mean \"" + suggestion + "\"?")
        << " (expected run, validate, export-platform, codes, plot, theory, --help or "
           "--version)\n";
    return kBadInput;
  } catch (const ScenarioError& e) {
    err << "error: " << e.what() << "\n";
    return kBadInput;
  } catch (const std::bad_alloc&) {
    err << "error: out of memory: codesim " << (args.empty() ? "" : printable(args.front()))
        << " needed more memory than this machine could give (std::bad_alloc; expected a "
           "smaller scheme, scenario or fewer trials)\n";
    return kRuntimeFailure;
  } catch (const std::exception& e) {
    err << "error: " << printable(e.what()) << "\n";
    return kRuntimeFailure;
  }
}

}  // namespace codesim::app
