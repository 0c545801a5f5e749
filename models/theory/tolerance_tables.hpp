// Reproduction tables T1 (GPD recovery thresholds) and T3 (errors tolerated versus nodes, and the
// GPD / replication ratio), all read from summarize_scheme rather than from paper formulas.
#pragma once

#include <optional>
#include <vector>

namespace codesim::models {

/// GPD recovery thresholds of an (m, n) split, both orientations.
struct ThresholdRow {
  int m = 1;
  int n = 1;
  int forward = 0;            ///< K_ff, default orientation (u = v^n): mn + n - 1
  int backward = 0;           ///< K_bp, default orientation: 2mn - n
  int mirrored_forward = 0;   ///< K_ff, mirrored (v = u^m): 2mn - m
  int mirrored_backward = 0;  ///< K_bp, mirrored: mn + m - 1
};

/// T1: rows for m in 1..max_m and n in 1..max_n (row-major in m), each >= 1.
std::vector<ThresholdRow> gpd_threshold_table(int max_m = 4, int max_n = 4);

/// Errors one decode tolerates on P nodes that each store 1/(mn) of W (worst case, erroneous
/// nodes; nullopt where the strategy cannot run on P nodes).
struct ToleranceRow {
  int nodes = 0;                           ///< P
  std::optional<int> gpd_forward;          ///< adversarial floor((P - K_ff) / 2), P >= K_ff
  std::optional<int> gpd_backward;         ///< adversarial floor((P - K_bp) / 2), P >= K_bp
  std::optional<int> gpd_forward_random;   ///< random errors: P - K_ff - 1 (>= 0)
  std::optional<int> gpd_backward_random;  ///< random errors: P - K_bp - 1 (>= 0)
  /// CodeNet grid with P_r = m + 2t and P_c = n + 2t, the largest t whose mn + 2t(m + n) nodes
  /// fit in P: it corrects t grid rows forward and t grid columns backward.
  std::optional<int> codenet;
  int codenet_nodes = 0;  ///< nodes that grid uses (<= P)
  /// MDS (Lee et al.) at equal storage: each node stores a row-split and a column-split block of
  /// 1/k each, so k = 2mn; floor((P - 2mn) / 2), P >= 2mn.
  std::optional<int> mds;
  /// Replication of the m x n grid: floor(P / mn) copies (1 copy = uncoded); majority corrects
  /// floor((copies - 1) / 2) and comparison detects copies - 1 erroneous copies of a block.
  std::optional<int> replication_copies;
  std::optional<int> replication_correctable;
  std::optional<int> replication_detectable;
};

/// T3 for (m, n): P from the smaller GPD threshold to 4mn. Precondition: m, n >= 1, mn <= 1024.
std::vector<ToleranceRow> tolerance_table(int m, int n, bool mirrored = false);

/// GPD versus replication at P = 2mn and P = 3mn nodes (replication: 2 and 3 copies).
struct RatioRow {
  int m = 1;
  int n = 1;
  int gpd_at_2mn = 0;                     ///< GPD forward, adversarial, P = 2mn
  int replication_detectable_at_2mn = 0;  ///< 2 copies correct nothing and detect 1
  double detection_ratio_at_2mn = 0.0;    ///< (P - K_ff) / 1: GPD detects P - K_ff errors
  int gpd_at_3mn = 0;                     ///< GPD forward, adversarial, P = 3mn
  int gpd_backward_at_3mn = 0;            ///< GPD backward (threshold 2mn - n), P = 3mn
  int replication_at_3mn = 0;             ///< 3 copies correct 1 by majority
  double ratio_at_3mn = 0.0;              ///< gpd_at_3mn / replication_at_3mn
  /// Training runs both products, so what it tolerates per round is the smaller of the two:
  /// min(gpd_at_3mn, gpd_backward_at_3mn) / replication_at_3mn.
  double training_ratio_at_3mn = 0.0;
};

/// Square splits m = n = s for s in 1..max_s: the ratio grows like mn (unbounded gain).
std::vector<RatioRow> gpd_replication_ratio_table(int max_s = 8, bool mirrored = false);

}  // namespace codesim::models
