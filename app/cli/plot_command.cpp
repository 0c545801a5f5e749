// codesim plot: finds the plot scripts and a Python with matplotlib, then runs plot.py as a child
// process (its stdout and stderr go straight to ours).
#include "app/cli/plot_command.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <optional>

#include <boost/program_options.hpp>

#include "app/cli/command_line.hpp"
#include "app/config/json_input.hpp"
#include "app/config/scenario_error.hpp"

namespace po = boost::program_options;

#ifndef CODESIM_PLOTS_DIR
#define CODESIM_PLOTS_DIR "analysis/plots"
#endif

namespace codesim::app {

namespace {

/// Debian's python3 (the one python3-matplotlib is installed for) when present, else PATH's.
std::string python_interpreter() {
  if (const char* chosen = std::getenv("CODESIM_PYTHON3"); chosen != nullptr && *chosen != '\0')
    return chosen;
  return std::filesystem::exists("/usr/bin/python3") ? "/usr/bin/python3" : "python3";
}

/// Runs `argv` and waits; returns its exit code, or nullopt when it could not be started.
std::optional<int> run_child(const std::vector<std::string>& argv) {
  std::vector<char*> pointers;
  for (const std::string& arg : argv) pointers.push_back(const_cast<char*>(arg.c_str()));
  pointers.push_back(nullptr);
  const pid_t pid = fork();
  if (pid < 0) return std::nullopt;
  if (pid == 0) {
    execvp(pointers[0], pointers.data());
    _exit(127);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return std::nullopt;
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) == 127) return std::nullopt;
  return WEXITSTATUS(status);
}

/// Runs `argv`, reporting a Python that cannot be started; returns the exit code.
int run_script(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err) {
  out << std::flush;
  err << std::flush;
  const std::optional<int> code = run_child(argv);
  if (!code) {
    err << "error: codesim plot: cannot run " << argv[0] << " " << argv[1]
        << " (expected python3 with python3-matplotlib; set CODESIM_PYTHON3 to choose one)\n";
    return 1;
  }
  return *code;
}

// The largest trace plot reads: the trace writer's default cap gives about 100 MB.
constexpr std::uintmax_t kMaxTraceBytes = std::uintmax_t{1} << 30;

/// Checks `path` before the script reads it (a FIFO would block it, a device or a huge file
/// exhaust its memory); prints the error and returns false when it cannot be read.
bool readable(const std::string& path, const std::string& expected, std::uintmax_t max_bytes,
              std::ostream& err) {
  try {
    check_input_path(path, expected, max_bytes);
    return true;
  } catch (const ScenarioError& e) {
    err << "error: " << e.what() << "\n";
    return false;
  }
}

/// Checks that the figures' directory `directory` is one, or can be made: an existing file there
/// would make every figure fail to be written.
bool usable_directory(const std::filesystem::path& directory, std::ostream& err) {
  std::error_code error;
  const auto status = std::filesystem::status(directory, error);
  if (std::filesystem::exists(status) && !std::filesystem::is_directory(status)) {
    err << "error: " << printable(directory.string())
        << ": is a file, not a directory (expected -o DIR: the directory for the figures)\n";
    return false;
  }
  return true;
}

/// codesim plot --timeline TRACE.json [--window T0,T1] [-o DIR]: timeline.py.
int run_timeline(const po::variables_map& values, std::ostream& out, std::ostream& err) {
  if (values.count("results")) {
    err << "error: codesim plot: --timeline takes no results file (expected either "
           "RESULTS.json or --timeline TRACE.json)\n";
    return 2;
  }
  const std::filesystem::path trace = values["timeline"].as<std::string>();
  const std::filesystem::path directory =
      values.count("output") ? values["output"].as<std::string>() : std::string("figures");
  if (!readable(trace.string(), "a trace JSON of codesim run --trace", kMaxTraceBytes, err) ||
      !usable_directory(directory, err))
    return 2;
  std::string stem = trace.filename().string();
  if (stem.ends_with(".json")) stem.resize(stem.size() - 5);
  std::vector<std::string> argv = {python_interpreter(),
                                   std::string(CODESIM_PLOTS_DIR) + "/timeline.py", trace.string(),
                                   "-o", (directory / (stem + ".timeline.png")).string()};
  if (values.count("window")) {
    argv.push_back("--window");
    argv.push_back(values["window"].as<std::string>());
  }
  return run_script(argv, out, err);
}

}  // namespace

int run_plot_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  po::options_description visible(
      "codesim plot RESULTS.json|ADVICE.json|MAP.json [options]\n"
      "       codesim plot --timeline TRACE.json [options]");
  visible.add_options()("output,o", po::value<std::string>()->value_name("DIR"),
                        "directory for the PNG figures (default figures/)")(
      "timeline", po::value<std::string>()->value_name("TRACE.json"),
      "draw the Gantt figure of a trace of codesim run --trace (DIR/<trace name>.timeline.png)")(
      "window", po::value<std::string>()->value_name("T0,T1"),
      "with --timeline: show simulated seconds T0 to T1")("help,h", po::bool_switch(),
                                                          "show this help");
  po::options_description hidden;
  hidden.add_options()("results", po::value<std::vector<std::string>>());
  po::options_description all;
  all.add(visible).add(hidden);
  po::positional_options_description positional;
  positional.add("results", -1);
  po::variables_map values;
  try {
    parse_options(args, all, positional, values);
  } catch (const po::error& e) {
    err << "error: codesim plot: " << e.what()
        << " (expected the options of codesim plot --help)\n";
    return 2;
  }
  if (values["help"].as<bool>()) {
    out << visible
        << "\nDraws every figure that fits RESULTS.json (accuracy versus simulated time, loss "
           "versus iteration, time breakdown, metrics versus swept parameters) as "
           "DIR/<results name>.<figure>.png, with matplotlib (python3-matplotlib). Given the "
           "ADVICE.json of codesim advise instead, draws its Pareto figure, time against energy "
           "per useful iteration coloured by storage overhead with the recommendation starred "
           "(DIR/<name>.pareto.png); given the MAP.json of codesim advise --map, the map of the "
           "family that pays in each cell: coding, replication, checkpointing or ABFT "
           "(DIR/<name>.map.png). With --timeline: nodes as rows, one colour per activity, "
           "markers for faults, crashes, rollbacks and checkpoints.\n";
    return 0;
  }
  if (values.count("timeline")) return run_timeline(values, out, err);
  if (values.count("window")) {
    err << "error: codesim plot: --window needs --timeline (expected --timeline TRACE.json)\n";
    return 2;
  }
  const auto results = values.count("results") ? values["results"].as<std::vector<std::string>>()
                                               : std::vector<std::string>{};
  if (results.size() != 1) {
    err << "error: codesim plot: "
        << (results.empty() ? "no results file given" : "several results files given")
        << " (expected exactly one RESULTS.json)\n";
    return 2;
  }
  if (!readable(results.front(), "a results, advice or map JSON of codesim run or codesim advise",
                kMaxJsonFileBytes, err) ||
      (values.count("output") && !usable_directory(values["output"].as<std::string>(), err)))
    return 2;
  std::vector<std::string> argv = {python_interpreter(),
                                   std::string(CODESIM_PLOTS_DIR) + "/plot.py", results.front()};
  if (values.count("output")) {
    argv.push_back("-o");
    argv.push_back(values["output"].as<std::string>());
  }
  return run_script(argv, out, err);
}

}  // namespace codesim::app
