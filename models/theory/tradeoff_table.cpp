// The trade-off table and T3 over many splits, from summarize_scheme and the schemes' symbols.
#include "models/theory/tradeoff_table.hpp"

#include <memory>
#include <string>
#include <utility>

#include "models/coding/coding_scheme.hpp"
#include "sim/check.hpp"

namespace codesim::models {
namespace {

// A direction's participants, thresholds and traffic. The symbols come from the built scheme (on
// its smallest W: they do not depend on the shape), the rest from its summary.
TradeoffDirection direction_of(const CodingScheme& scheme, const DirectionCapability& capability,
                               Direction dir) {
  TradeoffDirection out;
  out.participants = static_cast<int>(scheme.participants(dir).size());
  std::size_t memberships = 0;
  for (int s = 0; s < scheme.symbol_count(dir); ++s) {
    memberships += scheme.symbol_members(dir, s).size();
  }
  CODESIM_CHECK(memberships == scheme.participants(dir).size(),
                "every participant is a member of one symbol");
  out.threshold_nodes = out.participants - capability.erasures_tolerated;
  out.threshold_symbols = capability.recovery_threshold;
  out.sent_per_node = capability.elements_sent_per_node;
  out.received_per_node = capability.elements_received_per_node;
  return out;
}

TradeoffRow row_of(int m, int n, const SchemeSpec& spec, std::string configuration) {
  const auto [rows, cols] = block_grid(spec);
  const std::unique_ptr<CodingScheme> scheme = make_scheme(spec, rows, cols);
  const SchemeSummary summary = summarize_scheme(spec);
  TradeoffRow row;
  row.m = m;
  row.n = n;
  row.scheme = summary.scheme;
  row.configuration = std::move(configuration);
  row.nodes = summary.nodes;
  row.storage_fraction_per_node = summary.storage_fraction_per_node;
  row.forward = direction_of(*scheme, summary.forward, Direction::forward);
  row.backward = direction_of(*scheme, summary.backward, Direction::backward);
  return row;
}

void check_splits(int max_m, int max_n) {
  CODESIM_CHECK(max_m >= 1 && max_n >= 1 && max_m * max_n <= 64, "1 <= m, n and mn <= 64");
}

}  // namespace

std::vector<TradeoffRow> tradeoff_table(int max_m, int max_n, int redundancy) {
  check_splits(max_m, max_n);
  CODESIM_CHECK(redundancy >= 2 && redundancy <= 8, "2 <= redundancy <= 8");
  std::vector<TradeoffRow> rows;
  for (int m = 1; m <= max_m; ++m) {
    for (int n = 1; n <= max_n; ++n) {
      const int blocks = m * n;
      const int p = redundancy * blocks;
      rows.push_back(row_of(m, n, gpd_spec(m, n, p), "P = " + std::to_string(p)));
      rows.push_back(row_of(m, n, mds_spec(2 * blocks, p), "k = " + std::to_string(2 * blocks)));
      rows.push_back(
          row_of(m, n, replication_spec(m, n, redundancy), std::to_string(redundancy) + " copies"));
      const int t = (p - blocks) / (2 * (m + n));
      rows.push_back(row_of(m, n, codenet_grid_spec(m, n, m + 2 * t, n + 2 * t),
                            "grid " + std::to_string(m + 2 * t) + " x " +
                                std::to_string(n + 2 * t) + " (t = " + std::to_string(t) + ")"));
    }
  }
  return rows;
}

std::vector<ToleranceGridRow> tolerance_grid(int max_m, int max_n) {
  check_splits(max_m, max_n);
  std::vector<ToleranceGridRow> rows;
  for (int m = 1; m <= max_m; ++m) {
    for (int n = 1; n <= max_n; ++n) {
      for (const ToleranceRow& row : tolerance_table(m, n)) {
        if (row.nodes >= 2 * m * n) rows.push_back({m, n, row});
      }
    }
  }
  return rows;
}

}  // namespace codesim::models
