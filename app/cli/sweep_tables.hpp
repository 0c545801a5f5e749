// The sweeps of `codesim theory --table` beyond T1 and T3's first table: the threshold /
// communication trade-off (tradeoff), T3 over many splits (tolerance_grid), the decode's
// conditioning against P (conditioning) and the K-th fastest node under stragglers (stragglers),
// as typed values with their JSON and their text. scripts/reproduce draws and judges them.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/straggler_order_statistics.hpp"
#include "models/theory/conditioning_sweep.hpp"
#include "models/theory/tradeoff_table.hpp"

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

/// One straggler law: X_(K:P) for K = 1..P, exact and Monte Carlo.
struct StragglerLawRows {
  sim::StragglerSpec law;
  std::string source;  ///< where the parameters come from
  std::vector<analysis::OrderStatistic> exact;
  std::vector<analysis::OrderStatisticEstimate> monte_carlo;
};

struct StragglerTable {
  int nodes = 12;
  int trials = 0;
  std::uint64_t seed = 0;
  std::vector<StragglerLawRows> laws;
};

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
