// T1 and T3 tables from the schemes' own capability summaries.
#include "models/theory/tolerance_tables.hpp"

#include <algorithm>
#include <tuple>
#include <utility>

#include "models/coding/coding_scheme.hpp"
#include "sim/check.hpp"

namespace codesim::models {
namespace {

// The (forward, backward) thresholds of a GPD split; 2mn nodes satisfy both orientations.
std::pair<int, int> gpd_thresholds(int m, int n, bool mirrored) {
  const SchemeSummary s = summarize_scheme(gpd_spec(m, n, 2 * m * n, mirrored));
  return {s.forward.recovery_threshold, s.backward.recovery_threshold};
}

// Capability of one GPD direction with threshold K on P nodes. When P is below the other
// direction's threshold the GPD spec is invalid, but the direction alone is a (P, K) MDS code.
DirectionCapability gpd_direction(int m, int n, int nodes, bool mirrored, bool forward,
                                  int threshold) {
  const SchemeSpec spec = gpd_spec(m, n, nodes, mirrored);
  if (validate_scheme(spec).empty()) {
    const SchemeSummary s = summarize_scheme(spec);
    return forward ? s.forward : s.backward;
  }
  return summarize_scheme(mds_spec(threshold, nodes)).forward;
}

}  // namespace

std::vector<ThresholdRow> gpd_threshold_table(int max_m, int max_n) {
  CODESIM_CHECK(max_m >= 1 && max_n >= 1 && max_m * max_n <= 1024, "a small GPD table");
  std::vector<ThresholdRow> rows;
  for (int m = 1; m <= max_m; ++m) {
    for (int n = 1; n <= max_n; ++n) {
      ThresholdRow row;
      row.m = m;
      row.n = n;
      std::tie(row.forward, row.backward) = gpd_thresholds(m, n, false);
      std::tie(row.mirrored_forward, row.mirrored_backward) = gpd_thresholds(m, n, true);
      rows.push_back(row);
    }
  }
  return rows;
}

std::vector<ToleranceRow> tolerance_table(int m, int n, bool mirrored) {
  CODESIM_CHECK(m >= 1 && n >= 1 && m * n <= 1024, "m, n >= 1 and mn <= 1024");
  const int blocks = m * n;
  const auto [forward_k, backward_k] = gpd_thresholds(m, n, mirrored);
  std::vector<ToleranceRow> rows;
  for (int p = std::min(forward_k, backward_k); p <= 4 * blocks; ++p) {
    ToleranceRow row;
    row.nodes = p;
    if (p >= forward_k) {
      const DirectionCapability c = gpd_direction(m, n, p, mirrored, true, forward_k);
      row.gpd_forward = c.correctable_adversarial;
      row.gpd_forward_random = c.correctable_random;
    }
    if (p >= backward_k) {
      const DirectionCapability c = gpd_direction(m, n, p, mirrored, false, backward_k);
      row.gpd_backward = c.correctable_adversarial;
      row.gpd_backward_random = c.correctable_random;
    }
    if (p >= blocks) {
      const int t = (p - blocks) / (2 * (m + n));
      const SchemeSummary s = summarize_scheme(codenet_grid_spec(m, n, m + 2 * t, n + 2 * t));
      CODESIM_CHECK(
          s.forward.correctable_adversarial == t && s.backward.correctable_adversarial == t,
          "a CodeNet grid with 2t parity rows and columns corrects t");
      row.codenet = t;
      row.codenet_nodes = s.nodes;
    }
    if (p >= 2 * blocks) {
      row.mds = summarize_scheme(mds_spec(2 * blocks, p)).forward.correctable_adversarial;
    }
    const int copies = p / blocks;
    if (copies >= 1) {
      const SchemeSummary s =
          summarize_scheme(copies == 1 ? uncoded_spec(m, n) : replication_spec(m, n, copies));
      row.replication_copies = copies;
      row.replication_correctable = s.forward.correctable_adversarial;
      row.replication_detectable = s.forward.detectable;
    }
    rows.push_back(row);
  }
  return rows;
}

std::vector<RatioRow> gpd_replication_ratio_table(int max_s, bool mirrored) {
  CODESIM_CHECK(max_s >= 1 && max_s * max_s <= 1024, "1 <= s and s^2 <= 1024");
  std::vector<RatioRow> rows;
  for (int s = 1; s <= max_s; ++s) {
    const int blocks = s * s;
    RatioRow row;
    row.m = s;
    row.n = s;
    const SchemeSummary gpd2 = summarize_scheme(gpd_spec(s, s, 2 * blocks, mirrored));
    const SchemeSummary gpd3 = summarize_scheme(gpd_spec(s, s, 3 * blocks, mirrored));
    const SchemeSummary rep2 = summarize_scheme(replication_spec(s, s, 2));
    const SchemeSummary rep3 = summarize_scheme(replication_spec(s, s, 3));
    row.gpd_at_2mn = gpd2.forward.correctable_adversarial;
    row.replication_detectable_at_2mn = rep2.forward.detectable;
    row.detection_ratio_at_2mn =
        static_cast<double>(gpd2.forward.detectable) / rep2.forward.detectable;
    row.gpd_at_3mn = gpd3.forward.correctable_adversarial;
    row.replication_at_3mn = rep3.forward.correctable_adversarial;
    row.ratio_at_3mn = static_cast<double>(row.gpd_at_3mn) / row.replication_at_3mn;
    row.gpd_backward_at_3mn = gpd3.backward.correctable_adversarial;
    row.training_ratio_at_3mn =
        static_cast<double>(std::min(row.gpd_at_3mn, row.gpd_backward_at_3mn)) /
        row.replication_at_3mn;
    rows.push_back(row);
  }
  return rows;
}

}  // namespace codesim::models
