// codesim advise --map (advice_map.hpp).
#include "app/advise/advice_map.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ostream>

#include "analysis/results_json.hpp"
#include "app/config/scenario_error.hpp"
#include "models/coding/coding_scheme.hpp"

namespace codesim::app {
namespace {

using analysis::finite_or_null;

/// `text` as a finite number, or nullopt.
std::optional<double> finite_number(const std::string& text) {
  if (text.empty()) return std::nullopt;
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size() || !std::isfinite(value)) return std::nullopt;
  return value;
}

/// `count` values from `low` to `high`, geometric or linear.
std::vector<double> spaced(double low, double high, int count, bool logarithmic) {
  if (count == 1) return {low};
  std::vector<double> values;
  for (int i = 0; i < count; ++i) {
    const double t = double(i) / double(count - 1);
    values.push_back(i == count - 1 ? high
                     : logarithmic  ? low * std::pow(high / low, t)
                                    : low + (high - low) * t);
  }
  return values;
}

/// `value` of `axis` as the scenario holds it: an integer axis's values are written as integers.
Json axis_value(const MapAxis& axis, double value) {
  return axis.integer ? Json(static_cast<std::int64_t>(value)) : Json(value);
}

/// The values of a cell (one per axis), or every value of one axis, as JSON.
Json axis_values(const std::vector<MapAxis>& axes, const std::vector<double>& values) {
  Json out = Json::array();
  for (std::size_t a = 0; a < axes.size(); ++a) out.push_back(axis_value(axes[a], values[a]));
  return out;
}

/// The scenario document of one cell: `document` with each axis at its value.
Json cell_document(Json document, const std::vector<MapAxis>& axes,
                   const std::vector<double>& values) {
  for (std::size_t a = 0; a < axes.size(); ++a)
    document[Json::json_pointer(axes[a].pointer)] = axis_value(axes[a], values[a]);
  return document;
}

/// Every cell's values, the first axis outermost.
std::vector<std::vector<double>> cell_values(const std::vector<MapAxis>& axes) {
  std::vector<std::vector<double>> cells = {{}};
  for (const MapAxis& axis : axes) {
    std::vector<std::vector<double>> longer;
    for (const std::vector<double>& cell : cells) {
      for (double value : axis.values) {
        longer.push_back(cell);
        longer.back().push_back(value);
      }
    }
    cells = std::move(longer);
  }
  return cells;
}

/// A cell's row, in map_columns' order.
Json cell_row(const Advice& advice, const Json& values, const sim::CheckpointSpec& own) {
  const AdvisedConfiguration& best = advice.configurations[advice.recommended];
  const AdvisedConfiguration& baseline = advice.configurations.front();
  const ConfigurationBound& bound = *best.bound;
  std::size_t simulated = 0;
  for (const AdvisedConfiguration& c : advice.configurations) simulated += c.simulated ? 1 : 0;
  // Both ran: the recommendation is ranked, and the baseline is always in the first group.
  const SimulatedCost& s = *best.simulated;
  const SimulatedCost& b = *baseline.simulated;
  const VersusBaseline versus = versus_baseline(advice);
  return Json::array(
      {values, best.label,
       kStrategyFamilyNames[static_cast<std::size_t>(strategy_family(best.configuration, own))],
       models::scheme_name(best.configuration.scheme),
       checkpoint_label(best.configuration.checkpoint), best.configuration.decentralized,
       bound.nodes, bound.nodes * bound.storage_fraction_per_node, finite_or_null(s.mean),
       finite_or_null(s.ci95), finite_or_null(b.mean), finite_or_null(versus.difference),
       finite_or_null(versus.ci95), advice.configurations.size(), simulated, advice.rounds,
       advice.budget_exhausted});
}

constexpr int kMaxMapPoints = 1000;  // per axis: each cell runs a whole advice

// The axis's values from LO to HI (N of them, distinct, ascending): an integer axis spaces them
// over the integers in [ceil LO, floor HI], so that rounding keeps them inside the range.
void fill_axis_values(MapAxis& axis, double low, double high, int points, const std::string& range,
                      const std::string& file) {
  if (axis.integer) {
    low = std::ceil(low);
    high = std::floor(high);
    if (high < low)
      throw ScenarioError(file, axis.pointer,
                          "--map range " + in_quotes(range) +
                              " holds no integer (expected an integer value between LO and HI)");
  }
  axis.logarithmic = low > 0.0 && high >= 10.0 * low;
  axis.values = spaced(low, high, points, axis.logarithmic);
  if (axis.integer)
    for (double& v : axis.values) v = std::round(v);
  for (std::size_t i = 1; i < axis.values.size(); ++i) {
    if (axis.values[i] > axis.values[i - 1]) continue;
    throw ScenarioError(file, axis.pointer,
                        "--map range " + in_quotes(range) + " gives fewer than " +
                            std::to_string(points) + " distinct " +
                            (axis.integer ? "integers (expected N no more than the integers in "
                                            "LO..HI)"
                                          : "values (expected LO < HI when N > 1)"));
  }
}

}  // namespace

MapAxis parse_map_axis(const std::string& text, const Json& resolved, const std::string& file) {
  const std::string usage =
      "(expected --map /json/pointer=LO..HI[:N], e.g. "
      "/cluster/crashes/mtbf_s=100..10000:6)";
  const auto equals = text.rfind('=');
  const auto dots = text.find("..", equals == std::string::npos ? 0 : equals);
  if (!text.starts_with('/') || equals == std::string::npos || dots == std::string::npos)
    throw ScenarioError(file, "", "--map " + in_quotes(text) + " is malformed " + usage);
  MapAxis axis;
  axis.pointer = text.substr(0, equals);
  const std::string range = text.substr(equals + 1);
  const auto colon = range.find(':');
  const std::string bounds = range.substr(0, colon);
  const auto low = finite_number(bounds.substr(0, bounds.find("..")));
  const auto high = finite_number(bounds.substr(bounds.find("..") + 2));
  std::optional<double> count = kDefaultMapPoints;
  if (colon != std::string::npos) count = finite_number(range.substr(colon + 1));
  if (!low || !high || !count || *count != std::floor(*count))
    throw ScenarioError(file, axis.pointer,
                        "--map range " + in_quotes(range) + " is malformed " + usage);
  if (*count > kMaxMapPoints)
    throw ScenarioError(file, axis.pointer,
                        "--map range " + in_quotes(range) + " asks for " + range.substr(colon + 1) +
                            " points (expected N in 1.." + std::to_string(kMaxMapPoints) +
                            " per axis: each cell runs a whole advice)");
  Json::json_pointer at;
  try {
    at = Json::json_pointer(axis.pointer);
  } catch (const Json::exception&) {
    throw ScenarioError(file, "", "--map " + in_quotes(text) + " is malformed " + usage);
  }
  if (!resolved.contains(at))
    throw ScenarioError(file, axis.pointer,
                        "--map: not a value of the scenario (expected a pointer to a number of "
                        "the resolved scenario, as codesim validate --resolved prints it)");
  const Json& value = resolved.at(at);
  if (!value.is_number() && !value.is_null())
    throw ScenarioError(
        file, axis.pointer,
        "--map: the scenario holds " + describe_json(value) + " there (expected a number to vary)");
  const int points = static_cast<int>(*count);
  if (points < 1 || *high < *low || (points == 1 && *high != *low))
    throw ScenarioError(file, axis.pointer,
                        "--map range " + in_quotes(range) +
                            " is empty (expected LO <= HI and N >= 1 points; N = 1 needs LO = HI)");
  axis.integer = value.is_number_integer();
  fill_axis_values(axis, *low, *high, points, range, file);
  return axis;
}

StrategyFamily strategy_family(const Configuration& configuration, const sim::CheckpointSpec& own) {
  // A code without a redundant symbol (a CodeNet grid of m x n nodes) protects nothing: it
  // counts as the repetition scheme it then is.
  const models::SchemeSummary summary = models::summarize_scheme(configuration.scheme);
  const auto redundant = [](const models::DirectionCapability& d) {
    return d.erasures_tolerated > 0 || d.detectable > 0;
  };
  const bool code = models::repetition_copies(configuration.scheme) == 0 &&
                    (redundant(summary.forward) || redundant(summary.backward));
  if (models::checks_at_nodes(configuration.scheme))
    return code ? StrategyFamily::coding_abft : StrategyFamily::abft;
  if (code) return StrategyFamily::coding;
  const int copies = std::max(1, models::repetition_copies(configuration.scheme));
  if (copies > 1) return StrategyFamily::replication;
  const CheckpointChoiceKind kind = configuration.checkpoint.kind;
  const bool checkpoints = kind == CheckpointChoiceKind::scenario
                               ? own.policy != sim::CheckpointKind::none
                               : kind != CheckpointChoiceKind::none;
  return checkpoints ? StrategyFamily::checkpointing : StrategyFamily::uncoded;
}

const std::vector<std::string>& map_columns() {
  static const std::vector<std::string> columns = {"values",
                                                   "label",
                                                   "family",
                                                   "scheme",
                                                   "checkpoint",
                                                   "decentralized",
                                                   "nodes",
                                                   "storage_overhead",
                                                   "mean",
                                                   "ci95",
                                                   "baseline_mean",
                                                   "versus_baseline",
                                                   "versus_baseline_ci95",
                                                   "configurations",
                                                   "simulated",
                                                   "rounds",
                                                   "budget_exhausted"};
  return columns;
}

AdviceMap advise_map(const Json& document, const std::string& file,
                     const std::vector<MapAxis>& axes, AdviseOptions options,
                     UnitExecutor& executor, int jobs, const UnitProgress& on_progress) {
  Json base = document;
  base.erase("sweep");
  const std::vector<std::vector<double>> values = cell_values(axes);
  std::vector<Experiment> cells;
  for (const std::vector<double>& cell : values)
    cells.push_back(make_experiment(cell_document(base, axes, cell), file));
  options.probes = make_probe_cache();
  options.ranking.jobs = 1;  // the cells share the threads
  options.ranking.on_progress = {};
  const std::vector<std::string> rows = executor.run(
      cells.size(), jobs,
      [&](std::size_t i) {
        // A cell a stop request cut short is one that did not run: its row is left out.
        try {
          const Advice advice = advise(cells[i], options);
          if (advice.interrupted) return std::string();
          return cell_row(advice, axis_values(axes, values[i]),
                          cells[i].points.front().scenario.checkpoint)
              .dump();
        } catch (const AdviseInterrupted&) {
          return std::string();
        }
      },
      on_progress);
  AdviceMap map;
  if (!executor.is_root()) return map;
  const Scenario& first = cells.front().points.front().scenario;
  map.scenario = first.resolved;
  map.seed = first.seed;
  map.objective = options.objective;
  map.budget_s = options.ranking.budget_s;
  map.axes = axes;
  for (const std::string& row : rows) {
    if (row.empty()) {
      map.complete = false;
    } else {
      map.cells.push_back(Json::parse(row));
    }
  }
  if (map.cells.empty()) throw AdviseInterrupted();
  return map;
}

Json to_json(const AdviceMap& map) {
  Json j = advice_header("advice_map", map.scenario, map.seed, map.objective, map.budget_s);
  j["complete"] = map.complete;
  Json axes = Json::array();
  for (const MapAxis& axis : map.axes) {
    Json values = Json::array();
    for (double v : axis.values) values.push_back(axis_value(axis, v));
    axes.push_back({{"pointer", axis.pointer},
                    {"values", values},
                    {"scale", axis.logarithmic ? "log" : "linear"}});
  }
  j["axes"] = axes;
  j["families"] = kStrategyFamilyNames;
  j["cells"] = {{"columns", map_columns()}, {"rows", map.cells}};
  return j;
}

void print_map(const AdviceMap& map, std::ostream& out) {
  const char* unit = map.objective != AdviseObjective::energy ? "s/it" : "J/it";
  for (const MapAxis& axis : map.axes) out << axis.pointer << "  ";
  out << "| family        | recommended (cost " << unit << ", vs baseline)\n";
  for (const Json& row : map.cells) {
    for (const Json& v : row[0]) {
      char cell[64];
      std::snprintf(cell, sizeof cell, "%-*s  ", 10, number_text(v.get<double>()).c_str());
      out << cell;
    }
    const auto text = [](const Json& v) {
      return v.is_null() ? "-" : number_text(v.get<double>());
    };
    char family[32];
    std::snprintf(family, sizeof family, "| %-13s | ", row[2].get<std::string>().c_str());
    out << family << row[1].get<std::string>() << " (" << text(row[8]) << ", " << text(row[11])
        << ")\n";
  }
}

}  // namespace codesim::app
