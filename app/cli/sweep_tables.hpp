// The sweeps of `codesim theory --table` beyond T1 and T3's first table: the threshold /
// communication trade-off (tradeoff), T3 over many splits (tolerance_grid), the decode's
// conditioning against P (conditioning) and the K-th fastest node under stragglers beside what each
// scheme's structure waits for (stragglers), as typed values with their JSON and their text.
// scripts/reproduce draws and judges them.
#pragma once

#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/straggler_order_statistics.hpp"
#include "models/coding/scheme_spec.hpp"
#include "models/theory/conditioning_sweep.hpp"
#include "models/theory/tradeoff_table.hpp"
#include "models/training/stochastic/structure_waits.hpp"

namespace codesim::app {

/// Every scheme at every (m, n) in 1..4 x 1..4 on P = 3mn nodes.
struct TradeoffTable {
  int redundancy = 3;  ///< P / (mn)
  std::vector<models::TradeoffRow> rows;
};

/// T3 at every (m, n) in 1..4 x 1..4 and P in [2mn, 4mn].
struct ToleranceGrid {
  std::vector<models::ToleranceGridRow> rows;
};

/// The largest P up to which a code's every point decoded accurately (0: not even the first).
struct AccurateUpTo {
  std::string scheme;
  int nodes = 0;
  int first_inaccurate_nodes = 0;  ///< 0 when every point was accurate
};

/// The codes' conditioning on P = 3mn for the splits of models::conditioning_splits.
struct ConditioningTable {
  std::vector<models::ConditioningPoint> points;
  std::vector<AccurateUpTo> accurate;
};

/// One scheme the straggler table compares, at the split of T1's comparison (2 x 2, every node
/// storing 1/4 of W) sized to the table's P.
struct ComparedScheme {
  std::string scheme;         ///< the descriptor's name
  std::string configuration;  ///< e.g. "3 copies", "grid 4 x 4 (t = 1)"
  models::SchemeSpec spec;
};

/// One direction of a compared scheme under one law, in nominal task times: what its round
/// waits for (the first time the finished nodes decode every codeword, models/training/
/// stochastic/structure_waits.hpp) beside the K-th fastest of its nodes that the table quoted
/// before, which only a code that any K nodes decode waits for.
struct StructureWaitRow {
  models::RoundStructure structure;
  std::optional<double> exact;  ///< any K nodes decode: E[X_(K:participants)]; else none
  models::StructureWaitEstimate monte_carlo;
  double kth_fastest = 0.0;  ///< E[X_(K:nodes)] at K = structure.threshold_nodes
};

struct SchemeWaits {
  std::string scheme;
  std::string configuration;
  StructureWaitRow forward;
  StructureWaitRow backward;
};

/// One straggler law: X_(K:P) for K = 1..P, exact and Monte Carlo, and each compared scheme's wait.
struct StragglerLawRows {
  sim::StragglerSpec law;
  std::string source;  ///< where the parameters come from
  std::vector<analysis::OrderStatistic> exact;
  std::vector<analysis::OrderStatisticEstimate> monte_carlo;
  std::vector<SchemeWaits> schemes;
};

struct StragglerTable {
  int nodes = 12;
  int trials = 0;
  std::uint64_t seed = 0;
  std::vector<StragglerLawRows> laws;
};

/// The schemes the straggler table compares on `nodes` nodes, at the 2 x 2 split: GPD on P, MDS
/// with k = 8 on P, P / 4 copies (when 4 divides P and P >= 8) and the CodeNet grid
/// (2 + 2t) x (2 + 2t) with the largest t that fits (4 + 8t <= P nodes); those that fit.
std::vector<ComparedScheme> straggler_compared_schemes(int nodes);

TradeoffTable tradeoff_table();
ToleranceGrid tolerance_grid();
ConditioningTable conditioning_table();
/// Precondition: 1 <= nodes <= kMaxStragglerNodes.
StragglerTable straggler_table(int nodes);
inline constexpr int kMaxStragglerNodes = 256;

nlohmann::ordered_json to_json(const TradeoffTable& table);
nlohmann::ordered_json to_json(const ToleranceGrid& table);
nlohmann::ordered_json to_json(const ConditioningTable& table);
nlohmann::ordered_json to_json(const StragglerTable& table);

void print_text(const TradeoffTable& table, std::ostream& out);
void print_text(const ToleranceGrid& table, std::ostream& out);
void print_text(const ConditioningTable& table, std::ostream& out);
void print_text(const StragglerTable& table, std::ostream& out);

}  // namespace codesim::app
