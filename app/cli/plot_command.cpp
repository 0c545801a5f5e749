// codesim plot: finds the plot scripts and a Python with matplotlib, then runs plot.py as a child
// process (its stdout and stderr go straight to ours).
#include "app/cli/plot_command.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <optional>

#include <boost/program_options.hpp>

#include "app/cli/command_line.hpp"

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

}  // namespace

int run_plot_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  po::options_description visible("codesim plot RESULTS.json [options]");
  visible.add_options()("output,o", po::value<std::string>()->value_name("DIR"),
                        "directory for the PNG figures (default figures/)")(
      "help,h", po::bool_switch(), "show this help");
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
           "DIR/<results name>.<figure>.png, with matplotlib (python3-matplotlib).\n";
    return 0;
  }
  const auto results = values.count("results") ? values["results"].as<std::vector<std::string>>()
                                               : std::vector<std::string>{};
  if (results.size() != 1) {
    err << "error: codesim plot: "
        << (results.empty() ? "no results file given" : "several results files given")
        << " (expected exactly one RESULTS.json)\n";
    return 2;
  }
  std::vector<std::string> argv = {python_interpreter(),
                                   std::string(CODESIM_PLOTS_DIR) + "/plot.py", results.front()};
  if (values.count("output")) {
    argv.push_back("-o");
    argv.push_back(values["output"].as<std::string>());
  }
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

}  // namespace codesim::app
