// The GPD paper's trade-off (recovery threshold against communication per node) and T3 over many
// splits, read from the schemes' own summaries and symbol structure, so that a formula in the
// docs is checked against the code rather than copied into it.
#pragma once

#include <string>
#include <vector>

#include "models/theory/tolerance_tables.hpp"

namespace codesim::models {

/// One direction of a scheme in the trade-off.
struct TradeoffDirection {
  int participants = 0;  ///< nodes that compute a partial result in this direction
  /// Worst-case recovery threshold in nodes: any this many of the participants decode, and some
  /// set of one fewer does not. participants - erasures_tolerated: each node is a member of one
  /// symbol, so erasing e nodes spoils at most e symbols, and one member erased from each of
  /// erasures_tolerated + 1 symbols of one codeword leaves it too few.
  int threshold_nodes = 0;
  int threshold_symbols = 0;       ///< K in symbols (summary.recovery_threshold)
  double sent_per_node = 0.0;      ///< elements a node sends per product, per output entry
  double received_per_node = 0.0;  ///< elements a node receives per product, the same unit
};

/// One scheme at one (m, n) split, all at equal storage per node (1/(mn) of W).
struct TradeoffRow {
  int m = 1;
  int n = 1;
  std::string scheme;         ///< the descriptor's name (gpd, mds, replication, codenet_grid)
  std::string configuration;  ///< e.g. "k = 8", "3 copies", "grid 4 x 4 (t = 1)"
  int nodes = 0;              ///< nodes the configuration uses (<= the comparison's P)
  double storage_fraction_per_node = 0.0;
  TradeoffDirection forward;   ///< W x: sent per entry of W x (N_out)
  TradeoffDirection backward;  ///< W^T delta: sent per entry of W^T delta (N_in)
};

/// For m in 1..max_m and n in 1..max_n, on P = redundancy m n nodes: GPD (m, n) (its thresholds
/// do not depend on P), MDS with k = 2mn (a row-split and a column-split block of 1/(2mn) each),
/// `redundancy` copies of the m x n grid, and the CodeNet grid (m + 2t) x (n + 2t) without its
/// corner, the largest t that fits in P (t = 0 is the uncoded grid). Precondition: max_m, max_n
/// >= 1, max_m max_n <= 64, 2 <= redundancy <= 8.
std::vector<TradeoffRow> tradeoff_table(int max_m = 4, int max_n = 4, int redundancy = 3);

/// T3 at one (m, n) and P: tolerance_table's row.
struct ToleranceGridRow {
  int m = 1;
  int n = 1;
  ToleranceRow tolerance;
};

/// T3 over many splits with MDS at every point: for m in 1..max_m, n in 1..max_n, every P from
/// 2mn (the least at which MDS at equal storage, k = 2mn, runs) to 4mn. Precondition: as
/// tradeoff_table.
std::vector<ToleranceGridRow> tolerance_grid(int max_m = 4, int max_n = 4);

}  // namespace codesim::models
