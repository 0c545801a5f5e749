// The sweep tables of `codesim theory --table`, in JSON and text.
#include "app/cli/sweep_tables.hpp"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <variant>

#include "analysis/results_json.hpp"
#include "app/cli/theory_tables.hpp"
#include "app/config/text_format.hpp"
#include "models/coding/conditioning.hpp"

namespace codesim::app {
namespace {

using analysis::finite_or_null;

using Json = nlohmann::ordered_json;

// Nodes per block of the trade-off's comparison: the T3 ratio's P = 3mn.
constexpr int kTradeoffRedundancy = 3;
// The conditioning sweep's largest square split (P = 75 there).
constexpr int kConditioningMaxSplit = 5;
// Monte Carlo of the straggler table: trials and seed.
constexpr int kStragglerTrials = 20'000;
constexpr std::uint64_t kStragglerSeed = 1;

Json direction_json(const models::TradeoffDirection& d) {
  return {{"participants", d.participants},
          {"threshold_nodes", d.threshold_nodes},
          {"threshold_symbols", d.threshold_symbols},
          {"sent_per_node", d.sent_per_node},
          {"received_per_node", d.received_per_node}};
}

Json direction_json(const models::ConditioningDirection& d) {
  return {{"symbols", d.symbols},
          {"dimension", d.dimension},
          {"worst_condition", finite_or_null(d.worst_condition)},
          {"flagged", d.flagged},
          {"subset_relative_error", finite_or_null(d.subset_relative_error)},
          {"subset_detected", d.subset_detected},
          {"all_relative_error", finite_or_null(d.all_relative_error)},
          {"all_detected", d.all_detected},
          {"all_clean", d.all_clean},
          {"accurate", d.accurate}};
}

Json law_parameters(const sim::StragglerSpec& law) {
  return std::visit(
      [](const auto& l) {
        Json parameters = Json::object();
        for (const auto& field : l.fields()) parameters[std::string(field.key)] = l.*field.member;
        return parameters;
      },
      law);
}

// "shifted_exponential(shift 1, rate 0.5)".
std::string law_text(const sim::StragglerSpec& law) {
  std::string text(sim::law_name(law));
  std::string sep = "(";
  const Json parameters = law_parameters(law);
  for (const auto& [key, value] : parameters.items()) {
    text += sep + key + " " + significant(value.get<double>(), 4);
    sep = ", ";
  }
  return text + (sep == "(" ? "" : ")");
}

// Per scheme, the largest P up to which every point was accurate in both directions.
std::vector<AccurateUpTo> accurate_up_to(const std::vector<models::ConditioningPoint>& points) {
  std::vector<AccurateUpTo> out;
  for (const models::ConditioningPoint& p : points) {
    auto it = std::find_if(out.begin(), out.end(),
                           [&p](const AccurateUpTo& a) { return a.scheme == p.scheme; });
    if (it == out.end()) it = out.insert(out.end(), AccurateUpTo{p.scheme, 0, 0});
    if (it->first_inaccurate_nodes != 0) continue;
    if (p.forward.accurate && p.backward.accurate) {
      it->nodes = std::max(it->nodes, p.nodes);
    } else {
      it->first_inaccurate_nodes = p.nodes;
    }
  }
  return out;
}

std::string condition_text(double value) {
  return std::isfinite(value) ? significant(value, 3) : std::string("inf");
}

// One direction of a compared scheme under `law`: its structure's wait (exact when any K nodes
// decode) and the K-th fastest of its nodes at its worst-case threshold.
StructureWaitRow structure_wait(const models::SchemeSpec& spec, models::Direction dir,
                                const sim::StragglerSpec& law) {
  StructureWaitRow row;
  row.structure = models::round_structure(spec, dir);
  const models::RoundStructure& s = row.structure;
  if (s.any_k_nodes) {
    row.exact = analysis::expected_order_statistic(law, s.threshold_symbols, s.participants);
  }
  row.monte_carlo =
      models::monte_carlo_structure_wait(spec, dir, law, kStragglerTrials, kStragglerSeed);
  row.kth_fastest = analysis::expected_order_statistic(law, s.threshold_nodes, s.nodes);
  return row;
}

Json wait_json(const StructureWaitRow& row) {
  const models::RoundStructure& s = row.structure;
  return {{"participants", s.participants},
          {"symbols", s.symbols},
          {"codewords", s.codewords},
          {"threshold_nodes", s.threshold_nodes},
          {"threshold_symbols", s.threshold_symbols},
          {"any_k_nodes", s.any_k_nodes},
          {"expected", row.exact ? finite_or_null(*row.exact) : Json(nullptr)},
          {"monte_carlo", row.monte_carlo.mean_task_times},
          {"standard_error", row.monte_carlo.standard_error_task_times},
          {"kth_fastest", finite_or_null(row.kth_fastest)}};
}

Json schemes_json(const std::vector<SchemeWaits>& schemes) {
  Json out = Json::array();
  for (const SchemeWaits& w : schemes) {
    out.push_back({{"scheme", w.scheme},
                   {"configuration", w.configuration},
                   {"nodes", w.forward.structure.nodes},
                   {"forward", wait_json(w.forward)},
                   {"backward", wait_json(w.backward)}});
  }
  return out;
}

// "2.0203 (exact)" or "2.8941 +- 0.0086".
std::string wait_text(const StructureWaitRow& row) {
  if (row.exact) return significant(*row.exact, 5) + " (exact)";
  return significant(row.monte_carlo.mean_task_times, 5) + " +- " +
         significant(row.monte_carlo.standard_error_task_times, 2);
}

void print_scheme_waits(const std::vector<SchemeWaits>& schemes, std::ostream& out) {
  if (schemes.empty()) return;
  out << "  what each scheme's round waits for (wait_for k), 2 x 2 split, 1/4 of W per node:\n"
      << "  scheme        configuration          P  dir   K  structure wait        K-th fastest\n";
  for (const SchemeWaits& w : schemes) {
    for (const auto& [dir, row] : {std::pair{"ff", &w.forward}, std::pair{"bp", &w.backward}}) {
      out << "  " << std::left << std::setw(14) << w.scheme << std::setw(20) << w.configuration
          << std::right << std::setw(4) << row->structure.nodes << std::setw(5) << dir
          << std::setw(4) << row->structure.threshold_nodes << "  " << std::left << std::setw(22)
          << wait_text(*row) << std::right << significant(row->kth_fastest, 5) << "\n";
    }
  }
}

}  // namespace

TradeoffTable tradeoff_table() {
  return {kTradeoffRedundancy, models::tradeoff_table(4, 4, kTradeoffRedundancy)};
}

ToleranceGrid tolerance_grid() { return {models::tolerance_grid(4, 4)}; }

ConditioningTable conditioning_table() {
  ConditioningTable table;
  table.points = models::conditioning_sweep(models::conditioning_splits(kConditioningMaxSplit), 1);
  table.accurate = accurate_up_to(table.points);
  return table;
}

std::vector<ComparedScheme> straggler_compared_schemes(int nodes) {
  constexpr int kM = 2;
  constexpr int kN = 2;
  constexpr int kBlocks = kM * kN;
  std::vector<ComparedScheme> out;
  const auto add = [&out](std::string configuration, const models::SchemeSpec& spec) {
    if (!models::validate_scheme(spec).empty()) return;
    out.push_back({std::string(models::scheme_name(spec)), std::move(configuration), spec});
  };
  const std::string on = "P = " + std::to_string(nodes);
  add(on, models::gpd_spec(kM, kN, nodes));
  add("k = " + std::to_string(2 * kBlocks) + ", " + on, models::mds_spec(2 * kBlocks, nodes));
  if (nodes % kBlocks == 0 && nodes / kBlocks >= 2) {
    add(std::to_string(nodes / kBlocks) + " copies",
        models::replication_spec(kM, kN, nodes / kBlocks));
  }
  if (nodes >= kBlocks) {
    const int t = (nodes - kBlocks) / (2 * (kM + kN));
    add("grid " + std::to_string(kM + 2 * t) + " x " + std::to_string(kN + 2 * t) +
            " (t = " + std::to_string(t) + ")",
        models::codenet_grid_spec(kM, kN, kM + 2 * t, kN + 2 * t));
  }
  return out;
}

StragglerTable straggler_table(int nodes) {
  StragglerTable table;
  table.nodes = nodes;
  table.trials = kStragglerTrials;
  table.seed = kStragglerSeed;
  const std::vector<std::pair<sim::StragglerSpec, std::string>> laws = {
      {sim::ShiftedExponentialStraggler{1.0, 0.5}, "scenarios/abft_vs_coded.json"},
      {sim::ShiftedExponentialStraggler{1.0, 2.0}, "scenarios/iterative_job.json"},
      {sim::ParetoStraggler{1.0, 3.0}, "the pareto law's default shape (sim/straggler_model.hpp)"},
      {sim::BimodalStraggler{0.1, 5.0}, "chosen here: one node in ten 5x slower"},
      {sim::LognormalStraggler{0.0, 0.5}, "chosen here"}};
  const std::vector<ComparedScheme> compared = straggler_compared_schemes(nodes);
  for (const auto& [law, source] : laws) {
    StragglerLawRows rows{law, source, {}, {}, {}};
    for (int k = 1; k <= nodes; ++k) {
      rows.exact.push_back(analysis::exact_order_statistic(law, k, nodes));
    }
    rows.monte_carlo =
        analysis::monte_carlo_order_statistics(law, nodes, kStragglerTrials, kStragglerSeed);
    for (const ComparedScheme& c : compared) {
      rows.schemes.push_back({c.scheme, c.configuration,
                              structure_wait(c.spec, models::Direction::forward, law),
                              structure_wait(c.spec, models::Direction::backward, law)});
    }
    table.laws.push_back(std::move(rows));
  }
  return table;
}

Json to_json(const TradeoffTable& table) {
  Json rows = Json::array();
  for (const models::TradeoffRow& r : table.rows) {
    rows.push_back({{"m", r.m},
                    {"n", r.n},
                    {"scheme", r.scheme},
                    {"configuration", r.configuration},
                    {"nodes", r.nodes},
                    {"storage_fraction_per_node", r.storage_fraction_per_node},
                    {"forward", direction_json(r.forward)},
                    {"backward", direction_json(r.backward)}});
  }
  return {{"table", "tradeoff"},
          {"redundancy", table.redundancy},
          {"traffic_unit", "elements per entry of the product (N_out forward, N_in backward)"},
          {"rows", rows}};
}

Json to_json(const ToleranceGrid& table) {
  Json rows = Json::array();
  for (const models::ToleranceGridRow& r : table.rows) {
    Json row = {{"m", r.m}, {"n", r.n}};
    row.update(tolerance_row_json(r.tolerance));
    rows.push_back(row);
  }
  return {{"table", "tolerance_grid"},
          {"errors", "erroneous nodes per decode, worst case; adversarial unless *_random"},
          {"rows", rows}};
}

Json to_json(const ConditioningTable& table) {
  Json points = Json::array();
  for (const models::ConditioningPoint& p : table.points) {
    points.push_back({{"scheme", p.scheme},
                      {"configuration", p.configuration},
                      {"m", p.m},
                      {"n", p.n},
                      {"nodes", p.nodes},
                      {"forward", direction_json(p.forward)},
                      {"backward", direction_json(p.backward)}});
  }
  Json accurate = Json::array();
  for (const AccurateUpTo& a : table.accurate) {
    accurate.push_back(
        {{"scheme", a.scheme},
         {"nodes", a.nodes},
         {"first_inaccurate_nodes",
          a.first_inaccurate_nodes == 0 ? Json(nullptr) : Json(a.first_inaccurate_nodes)}});
  }
  return {{"table", "conditioning"},
          {"target_relative_accuracy", models::kDecodeRelativeAccuracyTarget},
          {"safety_factor", models::kConditioningSafetyFactor},
          {"points", points},
          {"accurate_up_to", accurate}};
}

Json to_json(const StragglerTable& table) {
  Json laws = Json::array();
  for (const StragglerLawRows& law : table.laws) {
    Json rows = Json::array();
    for (std::size_t i = 0; i < law.exact.size(); ++i) {
      // The standard error the Monte Carlo's mean has, from the exact variance.
      const double exact_error = std::sqrt(law.exact[i].variance / table.trials);
      rows.push_back({{"k", static_cast<int>(i) + 1},
                      {"expected", finite_or_null(law.exact[i].mean)},
                      {"exact_standard_error", finite_or_null(exact_error)},
                      {"monte_carlo", law.monte_carlo[i].mean},
                      {"standard_error", law.monte_carlo[i].standard_error}});
    }
    laws.push_back({{"law", std::string(sim::law_name(law.law))},
                    {"parameters", law_parameters(law.law)},
                    {"source", law.source},
                    {"rows", rows},
                    {"schemes", schemes_json(law.schemes)}});
  }
  return {{"table", "stragglers"},
          {"nodes", table.nodes},
          {"trials", table.trials},
          {"seed", table.seed},
          {"unit", "a node's nominal time (flops / speed)"},
          {"schemes_compared",
           "the 2 x 2 split, every node storing 1/4 of W: GPD on P, MDS with k = 8 on P, P / 4 "
           "copies (4 divides P, P >= 8) and the CodeNet grid (2 + 2t) x (2 + 2t), the largest t "
           "with 4 + 8t <= P"},
          {"scheme_wait",
           "expected: the first time the finished nodes, in order of finishing, decode every "
           "codeword (wait_for k, the stochastic mode's resolver): exact (E[X_(K:participants)]) "
           "where any K nodes decode, else null; monte_carlo +- standard_error over `trials` "
           "rounds; kth_fastest: E[X_(K:nodes)] at the worst-case K (threshold_nodes), what only "
           "a code that any K nodes decode waits for"},
          {"laws", laws}};
}

void print_text(const TradeoffTable& table, std::ostream& out) {
  out << "recovery threshold (nodes) and elements sent per node per product entry, P = "
      << table.redundancy << "mn, storage 1/(mn) per node\n";
  out << "   m   n  scheme        configuration         P  K_ff  sent_ff  K_bp  sent_bp\n";
  for (const models::TradeoffRow& r : table.rows) {
    out << std::setw(4) << r.m << std::setw(4) << r.n << "  " << std::left << std::setw(14)
        << r.scheme << std::setw(20) << r.configuration << std::right << std::setw(4) << r.nodes
        << std::setw(6) << r.forward.threshold_nodes << std::setw(9)
        << significant(r.forward.sent_per_node, 4) << std::setw(6) << r.backward.threshold_nodes
        << std::setw(9) << significant(r.backward.sent_per_node, 4) << "\n";
  }
}

void print_text(const ToleranceGrid& table, std::ostream& out) {
  out << "errors corrected per decode (adversarial), P in [2mn, 4mn], storage 1/(mn) per node\n";
  out << "   m   n     P  gpd_ff  gpd_bp  codenet  mds  replication\n";
  const auto cell = [](const std::optional<int>& v) {
    return v ? std::to_string(*v) : std::string("-");
  };
  for (const models::ToleranceGridRow& r : table.rows) {
    const models::ToleranceRow& t = r.tolerance;
    out << std::setw(4) << r.m << std::setw(4) << r.n << std::setw(6) << t.nodes << std::setw(8)
        << cell(t.gpd_forward) << std::setw(8) << cell(t.gpd_backward) << std::setw(9)
        << cell(t.codenet) << std::setw(5) << cell(t.mds) << std::setw(13)
        << cell(t.replication_correctable) << "\n";
  }
}

void print_text(const ConditioningTable& table, std::ostream& out) {
  out << "worst decode condition numbers and float64 relative errors, P = 3mn (target "
      << significant(models::kDecodeRelativeAccuracyTarget, 3) << ")\n";
  out << "  scheme        m   n    P    cond_ff    cond_bp   err_ff_subset  err_bp_subset  "
         "accurate\n";
  for (const models::ConditioningPoint& p : table.points) {
    out << "  " << std::left << std::setw(12) << p.scheme << std::right << std::setw(3) << p.m
        << std::setw(4) << p.n << std::setw(5) << p.nodes << std::setw(11)
        << condition_text(p.forward.worst_condition) << std::setw(11)
        << condition_text(p.backward.worst_condition) << std::setw(16)
        << condition_text(p.forward.subset_relative_error) << std::setw(15)
        << condition_text(p.backward.subset_relative_error) << std::setw(10)
        << (p.forward.accurate && p.backward.accurate ? "yes" : "no") << "\n";
  }
  for (const AccurateUpTo& a : table.accurate) {
    out << a.scheme << ": accurate up to P = " << a.nodes;
    if (a.first_inaccurate_nodes != 0) out << ", not at P = " << a.first_inaccurate_nodes;
    out << "\n";
  }
}

void print_text(const StragglerTable& table, std::ostream& out) {
  out << "expected time of the K-th fastest of P = " << table.nodes
      << " nodes, in nominal task times: exact, and Monte Carlo (" << table.trials
      << " trials) +- standard error\n";
  for (const StragglerLawRows& law : table.laws) {
    out << law_text(law.law) << " [" << law.source << "]\n";
    for (std::size_t i = 0; i < law.exact.size(); ++i) {
      out << std::setw(6) << i + 1 << std::setw(12) << significant(law.exact[i].mean, 6)
          << std::setw(12) << significant(law.monte_carlo[i].mean, 6) << " +- "
          << significant(law.monte_carlo[i].standard_error, 2) << "\n";
    }
    print_scheme_waits(law.schemes, out);
  }
}

}  // namespace codesim::app
