// The codesim command line on Boost.Program_options; every failure becomes one "error: " line.
#include "app/cli.hpp"

#include <array>
#include <cmath>
#include <iomanip>
#include <iostream>
#include <optional>
#include <sstream>

#include <boost/program_options.hpp>

#include "analysis/results_json.hpp"
#include "app/codes_command.hpp"
#include "app/object_reader.hpp"
#include "app/runner.hpp"
#include "app/scenario_error.hpp"
#include "app/scenario_loader.hpp"
#include "sim/checkpoint_policy.hpp"

namespace po = boost::program_options;

namespace codesim::app {

namespace {

constexpr int kOk = 0;
constexpr int kRuntimeFailure = 1;
constexpr int kBadInput = 2;

const char* const kUsage =
    "usage: codesim COMMAND [options]\n"
    "\n"
    "Simulates unreliable compute clusters running coded computations.\n"
    "\n"
    "commands:\n"
    "  run SCENARIO       run a scenario and write its results JSON\n"
    "  validate SCENARIO  check a scenario file and report what is wrong\n"
    "  codes ...          show what a coding-scheme configuration can tolerate\n"
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
                        "VALUE is JSON, else a string)")("help,h", po::bool_switch(),
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
    const auto style = po::command_line_style::unix_style ^ po::command_line_style::allow_guessing;
    po::store(po::command_line_parser(args).options(all).positional(positional).style(style).run(),
              line.values);
    po::notify(line.values);
  } catch (const po::error& e) {
    err << "error: codesim " << command << ": " << e.what() << " (expected the options of codesim "
        << command << " --help)\n";
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

std::string format_value(double value, int precision = 4) {
  if (!std::isfinite(value)) return value > 0 ? "inf" : "nan";
  std::ostringstream text;
  text << std::setprecision(precision) << value;
  return text.str();
}

/// The aggregate mean of `metric`, if the results have it.
std::optional<double> mean_of(const Json& aggregate, const std::string& metric) {
  if (!aggregate.contains(metric) || !aggregate[metric]["mean"].is_number()) return std::nullopt;
  return aggregate[metric]["mean"].get<double>();
}

double system_mtbf_s(const sim::ClusterSpec& cluster) {
  double rate = 0.0;
  for (const auto& crash : cluster.crashes) rate += 1.0 / crash.mtbf_s;
  return rate > 0.0 ? 1.0 / rate : INFINITY;
}

void print_summary(const Scenario& scenario, const Json& results, std::ostream& out) {
  const auto& job = scenario.workload.iterative_job;
  const int nodes = scenario.cluster.node_count();
  const int tasks = job.tasks == 0 ? nodes : job.tasks;
  out << "scenario " << scenario.name << ": " << nodes << " nodes ("
      << scenario.cluster.network.shape << "), " << scenario.replicas << " replicas, seed "
      << scenario.seed << "\n";
  out << "workload: " << job.iterations << " iterations of " << tasks << " tasks, each waiting for "
      << (job.wait_for == 0 ? std::string("all") : "the fastest " + std::to_string(job.wait_for))
      << "\n";
  if (scenario.checkpoint.policy != "none") {
    const double mtbf = scenario.checkpoint.mtbf_s > 0.0 ? scenario.checkpoint.mtbf_s
                                                         : system_mtbf_s(scenario.cluster);
    const sim::CheckpointPolicy policy(scenario.checkpoint, mtbf);
    out << "checkpoint: " << scenario.checkpoint.policy;
    if (scenario.checkpoint.policy == "every_iterations") {
      out << " every " << scenario.checkpoint.every_iterations << " iterations";
    } else if (std::isinf(policy.interval_s())) {
      out << " never due (no failures expected)";
    } else if (policy.interval_s() > 0.0) {
      out << " every " << format_value(policy.interval_s()) << " s of progress";
    }
    out << ", write " << format_value(policy.write_cost_s()) << " s, restart "
        << format_value(policy.restart_s()) << " s (job MTBF " << format_value(mtbf) << " s)\n";
  }
  const Json& aggregate = results["points"][0]["aggregate"];
  if (aggregate.contains("completion_time_s")) {
    const Json& time = aggregate["completion_time_s"];
    out << "completion time: " << (time["mean"].is_number() ? format_value(time["mean"]) : "n/a")
        << " s +- " << (time["ci95"].is_number() ? format_value(time["ci95"]) : "n/a")
        << " s (mean, 95% CI over " << time["n"].get<int>() << " replicas)\n";
  }
  if (const auto completed = mean_of(aggregate, "completed"); completed && *completed < 1.0) {
    out << "unfinished: " << format_value(100.0 * (1.0 - *completed), 3)
        << "% of replicas hit workload.time_limit_s\n";
  }
  std::string events;
  const std::array<std::pair<const char*, const char*>, 5> counters = {
      {{"crashes", "crashes"},
       {"rollbacks", "rollbacks"},
       {"iterations_redone", "iterations redone"},
       {"checkpoints", "checkpoints"},
       {"soft_errors", "soft errors"}}};
  for (const auto& [metric, label] : counters) {
    if (const auto mean = mean_of(aggregate, metric)) {
      events += (events.empty() ? "" : ", ") + format_value(*mean, 3) + " " + label;
    }
  }
  if (const auto silent = mean_of(aggregate, "silent_soft_errors"); silent && !events.empty()) {
    events += " (" + format_value(*silent, 3) + " silent)";
  }
  if (!events.empty()) out << "per replica (mean): " << events << "\n";
  std::string split;
  const auto completion = mean_of(aggregate, "completion_time_s");
  for (const char* part : {"compute", "communication", "checkpoint", "restart", "lost"}) {
    const auto mean = mean_of(aggregate, std::string("time_") + part + "_s");
    if (!mean || !completion || *completion <= 0.0) continue;
    std::ostringstream share;
    share << std::fixed << std::setprecision(1) << 100.0 * *mean / *completion << "%";
    split += (split.empty() ? "" : ", ") + std::string(part) + " " + share.str();
  }
  if (!split.empty()) out << "time share: " << split << "\n";
}

int run_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  po::options_description visible("codesim run SCENARIO [options]");
  visible.add_options()("output,o", po::value<std::string>()->value_name("OUT.json"),
                        "write the results here (- for standard output; default "
                        "results/<scenario name>.json)")(
      "seed", po::value<std::string>()->value_name("N"), "use seed N instead of the scenario's")(
      "replicas", po::value<std::string>()->value_name("N"), "run N replicas")(
      "quiet,q", po::bool_switch(), "print nothing but errors");
  add_scenario_options(visible);
  const auto line = parse_command("run", args, visible, err);
  if (!line) return kBadInput;
  if (line->values["help"].as<bool>()) {
    out << visible << "\nRuns replicas 0..N-1 of SCENARIO and writes one results JSON.\n";
    return kOk;
  }
  if (!check_one_scenario("run", *line, err)) return kBadInput;
  const std::string& file = line->scenarios.front();
  std::vector<std::string> sets = sets_of(line->values);
  if (line->values.count("seed")) sets.push_back("/seed=" + line->values["seed"].as<std::string>());
  if (line->values.count("replicas"))
    sets.push_back("/replicas=" + line->values["replicas"].as<std::string>());
  const bool quiet = line->values["quiet"].as<bool>();
  const std::string output =
      line->values.count("output") ? line->values["output"].as<std::string>() : std::string();

  Scenario scenario;
  try {
    scenario = load_scenario_file(file, sets);
  } catch (const ScenarioError& e) {
    err << "error: " << e.what() << "\n";
    return kBadInput;
  }
  const std::string path = output.empty() ? default_output_path(scenario.name) : output;

  Json results;
  try {
    results = run_scenario(scenario);
  } catch (const std::exception& e) {
    err << "error: " << file << ": the run failed: " << e.what() << "\n";
    return kRuntimeFailure;
  }
  if (path == "-") {
    out << analysis::json_text(results) << std::flush;
  } else {
    try {
      analysis::write_json_atomically(results, path);
    } catch (const std::exception& e) {
      err << "error: " << e.what() << "\n";
      return kRuntimeFailure;
    }
  }
  if (!quiet) {
    std::ostream& human = path == "-" ? err : out;
    print_summary(scenario, results, human);
    human << "results: " << (path == "-" ? std::string("standard output") : path) << "\n";
  }
  return kOk;
}

int validate_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  po::options_description visible("codesim validate SCENARIO [options]");
  visible.add_options()("resolved", po::bool_switch(),
                        "print the scenario with every default filled in (JSON)");
  add_scenario_options(visible);
  const auto line = parse_command("validate", args, visible, err);
  if (!line) return kBadInput;
  if (line->values["help"].as<bool>()) {
    out << visible << "\nChecks SCENARIO; prints what is wrong and exits with 2 if it is bad.\n";
    return kOk;
  }
  if (!check_one_scenario("validate", *line, err)) return kBadInput;
  const std::string& file = line->scenarios.front();
  Scenario scenario;
  try {
    scenario = load_scenario_file(file, sets_of(line->values));
  } catch (const ScenarioError& e) {
    err << "error: " << e.what() << "\n";
    return kBadInput;
  }
  if (line->values["resolved"].as<bool>()) {
    out << analysis::json_text(scenario.resolved);
  } else {
    out << file << ": ok: scenario " << scenario.name << ", " << scenario.cluster.node_count()
        << " nodes, " << scenario.replicas << " replicas, workload " << scenario.workload.kind
        << "\n";
  }
  return kOk;
}

constexpr std::array<std::string_view, 3> kCommands = {"run", "validate", "codes"};

}  // namespace

std::string default_output_path(const std::string& scenario_name) {
  return "results/" + scenario_name + ".json";
}

int run_cli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  try {
    if (args.empty()) {
      err << "error: no command given (expected run, validate or codes; see codesim --help)\n";
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
    if (command == "codes") return run_codes_command(rest, out, err);
    const std::vector<std::string> names(kCommands.begin(), kCommands.end());
    const std::string suggestion = closest_match(command, names);
    err << "error: unknown command \"" << command << "\""
        << (suggestion.empty() ? "" : ", did you mean \"" + suggestion + "\"?")
        << " (expected run, validate, codes, --help or --version)\n";
    return kBadInput;
  } catch (const ScenarioError& e) {
    err << "error: " << e.what() << "\n";
    return kBadInput;
  } catch (const std::exception& e) {
    err << "error: " << e.what() << "\n";
    return kRuntimeFailure;
  }
}

}  // namespace codesim::app
