// `codesim advise` (advise_command.hpp).
#include "app/cli/advise_command.hpp"

#include <unistd.h>

#include <atomic>
#include <cmath>
#include <optional>
#include <ostream>
#include <variant>

#include <boost/program_options.hpp>

#include "analysis/results_json.hpp"
#include "app/advise/advice.hpp"
#include "app/advise/advice_map.hpp"
#include "app/cli/command_line.hpp"
#include "app/cli/interrupt_guard.hpp"
#include "app/cli/progress_bar.hpp"
#include "app/config/scenario_error.hpp"
#include "app/config/scenario_loader.hpp"
#include "app/exec/output_check.hpp"
#include "app/exec/unit_executor.hpp"

namespace po = boost::program_options;

namespace codesim::app {
namespace {

/// A map cell's budget when --budget-s is not given (simulated seconds of one thread).
constexpr double kMapCellBudget_s = 10.0;

po::options_description advise_options() {
  po::options_description visible("codesim advise SCENARIO [options]");
  visible.add_options()(
      "objective", po::value<std::string>()->value_name("KIND")->default_value("time"),
      "what to minimize: time (simulated seconds) or energy (joules) per useful iteration, or "
      "time_to_accuracy (simulated seconds until the test accuracy reaches the target; needs "
      "--confirm)")(
      "confirm", po::value<int>()->value_name("K")->default_value(0),
      "train the K best in numeric mode beside an error-free reference: accuracy, silent "
      "corruptions, decode failures; one that loses accuracy or corrupts silently is demoted")(
      "target-accuracy", po::value<double>()->value_name("A"),
      "the test accuracy (0..1) time_to_accuracy waits for (default: the lowest of the "
      "error-free reference's replicas less 0.01)")(
      "budget-s", po::value<double>()->value_name("S")->default_value(60.0),
      "simulated work stage 2 may spend, in seconds of one thread at 33 ns per simulated node "
      "operation (counted, not timed: the same budget gives the same advice on any machine)")(
      "output,o", po::value<std::string>()->value_name("FILE"),
      "where to write ADVICE.json (default results/<name>.advice.json)")(
      "jobs,j", po::value<int>()->value_name("N")->default_value(1),
      "threads running replicas (the advice does not depend on it)")(
      "set", po::value<std::vector<std::string>>()->value_name("PTR=VALUE"),
      "override one scenario value, as codesim run --set (repeatable)")(
      "map", po::value<std::vector<std::string>>()->value_name("PTR=LO..HI[:N]"),
      "advise on every cell of a grid over one or two scenario numbers (N points, default 6, "
      "geometric when LO > 0 and HI >= 10 LO) and write the winner per cell to MAP.json "
      "(default results/<name>.advice_map.json); --budget-s is then per cell (default 10)")(
      "exhaustive", po::bool_switch(),
      "simulate every configuration, pruning none by its bounds (slow: for checking the pruning)")(
      "quiet,q", po::bool_switch(), "print only errors")("help,h", po::bool_switch(),
                                                         "show this help");
  return visible;
}

const char* const kAdviseHelp =
    "\nLists every configuration the coding schemes allow on the scenario's cluster and layers\n"
    "(scheme and its fields, checkpoint policy none, young or daly times each search factor,\n"
    "decentralized or centralized decoding), bounds each by the closed forms, prunes those whose\n"
    "optimistic bound is above the best pessimistic bound, then ranks the rest in stochastic\n"
    "mode on common random numbers, doubling their replicas until the paired 95% interval of\n"
    "each one's difference to the best lies above zero or the budget runs out. The scenario's\n"
    "own strategy is the baseline. Configurations the closed forms expect to corrupt silently\n"
    "are ranked after every safe one.\n";

/// The advise options, or an error line's text.
std::variant<AdviseOptions, std::string> read_options(const po::variables_map& values) {
  AdviseOptions options;
  const std::string objective = values["objective"].as<std::string>();
  if (objective == "time") {
    options.objective = AdviseObjective::time;
  } else if (objective == "energy") {
    options.objective = AdviseObjective::energy;
  } else if (objective == "time_to_accuracy") {
    options.objective = AdviseObjective::time_to_accuracy;
  } else {
    return "--objective " + printable(objective) +
           " is not an objective (expected time, energy or time_to_accuracy)";
  }
  options.confirm = values["confirm"].as<int>();
  if (options.confirm < 0) return "--confirm must be >= 0";
  if (options.objective == AdviseObjective::time_to_accuracy && options.confirm == 0)
    return "--objective time_to_accuracy needs --confirm K (expected the numeric training that "
           "measures accuracy)";
  if (values.count("target-accuracy")) {
    options.target_accuracy = values["target-accuracy"].as<double>();
    if (!(*options.target_accuracy > 0.0 && *options.target_accuracy <= 1.0))
      return "--target-accuracy must be in (0, 1]";
  }
  options.ranking.budget_s = values["budget-s"].as<double>();
  if (!(options.ranking.budget_s >= 0.0) || !std::isfinite(options.ranking.budget_s))
    return "--budget-s must be a number >= 0";
  options.prune = !values["exhaustive"].as<bool>();
  options.ranking.jobs = values["jobs"].as<int>();
  if (options.ranking.jobs < 1) return "--jobs must be >= 1";
  return options;
}

constexpr const char* kAdviseInterruptMessage =
    "\ninterrupted: finishing the running simulations, then writing what is done (interrupt "
    "again to abort without results)\n";

/// codesim advise --map: every cell's advice, on the threads and MPI ranks `run` uses, written
/// by the root to MAP.json. Errors are thrown (every rank meets the same) or reported here.
int run_map(const Json& document, const std::string& file, const po::variables_map& values,
            AdviseOptions options, std::ostream& out, std::ostream& err) {
  const std::vector<std::string> texts = values["map"].as<std::vector<std::string>>();
  if (texts.size() > 2)
    throw ScenarioError(
        file, "",
        "--map given " + std::to_string(texts.size()) + " times (expected one or two axes)");
  const Experiment experiment = make_experiment(document, file);
  const Json& resolved = experiment.points.front().scenario.resolved;
  std::vector<MapAxis> axes;
  for (const std::string& text : texts) {
    axes.push_back(parse_map_axis(text, resolved, file));
    if (axes.size() == 2 && axes[0].pointer == axes[1].pointer)
      throw ScenarioError(file, axes[1].pointer, "--map names it twice (expected two parameters)");
  }
  if (values["budget-s"].defaulted()) options.ranking.budget_s = kMapCellBudget_s;
  const std::string path =
      values.count("output")
          ? values["output"].as<std::string>()
          : "results/" + experiment.points.front().scenario.name + ".advice_map.json";
  const std::unique_ptr<UnitExecutor> executor = make_default_executor();
  const bool quiet = values["quiet"].as<bool>();
  AdviceMap map;
  try {
    std::exception_ptr failure;
    try {
      if (executor->is_root()) check_output_file(experiment, path, "the map file");
    } catch (...) {
      failure = std::current_exception();
    }
    executor->agree(failure);
    const std::atomic<std::uint64_t> no_iterations{0};
    ProgressBar bar(err, !quiet && executor->is_root() && isatty(STDERR_FILENO) != 0, no_iterations,
                    kProgressDelay_s, "cells");
    const InterruptGuard interrupts(kAdviseInterruptMessage);
    map = advise_map(document, file, axes, options, *executor, options.ranking.jobs,
                     [&bar](std::size_t done, std::size_t total) {
                       bar.update({done, total, 0, 0});
                     });
    if (!executor->is_root()) return kOk;
    analysis::write_json_atomically(to_json(map), path);
  } catch (const RankFailure&) {
    return kOk;  // the root reports what went wrong
  } catch (const AdviseInterrupted&) {
    if (executor->is_root())
      err << "interrupted before any cell finished: " << printable(path)
          << " not written (a file already there is kept)\n";
    return kInterrupted;
  }
  if (!quiet) {
    print_map(map, out);
    out << "map: " << path << "\n";
  }
  if (!map.complete) {
    err << "interrupted: " << printable(path) << " holds the " << map.cells.size()
        << " cells that finished (\"complete\": false)\n";
    return kInterrupted;
  }
  return kOk;
}

/// codesim advise without --map: the advice of `experiment`, written to ADVICE.json (what
/// finished, marked incomplete, when a signal interrupts it; nothing when nothing had finished).
int run_advice(const Experiment& experiment, const po::variables_map& values,
               const AdviseOptions& options, bool had_sweep, std::ostream& out, std::ostream& err) {
  const std::string path =
      values.count("output")
          ? values["output"].as<std::string>()
          : "results/" + experiment.points.front().scenario.name + ".advice.json";
  check_output_file(experiment, path, "the advice file");
  std::optional<Advice> advice;
  {
    const InterruptGuard interrupts(kAdviseInterruptMessage);
    try {
      advice = advise(experiment, options);
    } catch (const AdviseInterrupted&) {
      err << "interrupted before any configuration was simulated: " << printable(path)
          << " not written (a file already there is kept)\n";
      return kInterrupted;
    }
  }
  analysis::write_json_atomically(to_json(*advice), path);
  if (!values["quiet"].as<bool>()) {
    if (had_sweep) out << "the scenario's sweep is left out: advise varies the strategy itself\n";
    print_table(*advice, out);
    out << "advice: " << path << "\n";
  }
  if (advice->interrupted) {
    err << "interrupted: " << printable(path)
        << " holds the configurations ranked before the interruption (\"complete\": false)\n";
    return kInterrupted;
  }
  return kOk;
}

}  // namespace

int run_advise_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  const po::options_description visible = advise_options();
  po::options_description all;
  all.add(visible).add_options()("scenario", po::value<std::vector<std::string>>());
  po::positional_options_description positional;
  positional.add("scenario", -1);
  po::variables_map values;
  try {
    parse_options(args, all, positional, values);
  } catch (const po::error& e) {
    err << "error: codesim advise: " << printable(e.what())
        << " (expected the options of codesim advise --help)\n";
    return kBadInput;
  }
  if (values["help"].as<bool>()) {
    out << visible << kAdviseHelp;
    return kOk;
  }
  const std::vector<std::string> scenarios = values.count("scenario")
                                                 ? values["scenario"].as<std::vector<std::string>>()
                                                 : std::vector<std::string>{};
  if (scenarios.size() != 1) {
    err << "error: codesim advise: "
        << (scenarios.empty() ? std::string("no scenario file given")
                              : std::to_string(scenarios.size()) + " scenario files given")
        << " (expected exactly one SCENARIO)\n";
    return kBadInput;
  }
  const auto options = read_options(values);
  if (const std::string* problem = std::get_if<std::string>(&options)) {
    err << "error: codesim advise: " << *problem << "\n";
    return kBadInput;
  }
  const std::vector<std::string> sets = values.count("set")
                                            ? values["set"].as<std::vector<std::string>>()
                                            : std::vector<std::string>{};
  try {
    // The sweep is left out: advise varies the strategy itself (the sweep's other axes would be
    // several clusters, which --map compares).
    Json document = read_scenario_file(scenarios.front());
    for (const std::string& assignment : sets) apply_set(document, assignment, scenarios.front());
    const bool had_sweep = document.is_object() && document.contains("sweep");
    if (had_sweep) document.erase("sweep");
    if (values.count("map"))
      return run_map(document, scenarios.front(), values, std::get<AdviseOptions>(options), out,
                     err);
    const Experiment experiment = make_experiment(document, scenarios.front());
    // Without --map the search runs in one process: the root's (MPI spreads a map's cells).
    if (mpi_rank() != 0) return kOk;
    return run_advice(experiment, values, std::get<AdviseOptions>(options), had_sweep, out, err);
  } catch (const ScenarioError& e) {
    if (mpi_rank() == 0) err << "error: " << e.what() << "\n";  // every rank meets it
    return kBadInput;
  } catch (const std::exception& e) {
    if (mpi_rank() == 0)
      err << "error: " << printable(scenarios.front()) << ": " << printable(e.what()) << "\n";
    return kRuntimeFailure;
  }
  return kOk;
}

}  // namespace codesim::app
