// How the decode's conditioning grows with the node count P for each code, and whether real
// float64 decodes stay accurate there: the decoding guard's flag (conditioning.hpp) checked
// against measured relative errors, and the largest P at which each code keeps its target.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace codesim::models {

/// One direction of one code at one P.
struct ConditioningDirection {
  int symbols = 0;    ///< S
  int dimension = 0;  ///< K
  /// Worst condition number over decoding_conditioning's K-subsets (+Inf when singular).
  double worst_condition = 1.0;
  bool flagged = false;  ///< may_lose_accuracy(worst_condition): the guard would warn
  /// A decode of N(0, 1) data from that worst subset alone (every other symbol erased):
  /// max |decoded - exact| / max |exact| (+Inf when detected: no product returned).
  double subset_relative_error = 0.0;
  bool subset_detected = false;
  /// The same product decoded from all S symbols, error-free.
  double all_relative_error = 0.0;
  bool all_detected = false;
  bool all_clean = false;  ///< status clean (no symbol blamed)
  /// Both decodes returned a product within the target and the full one blamed nobody.
  bool accurate = false;
};

/// One code at one split.
struct ConditioningPoint {
  std::string scheme;         ///< gpd, mds or codenet_grid
  std::string configuration;  ///< e.g. "k = 8", "grid 4 x 4"
  int m = 1;
  int n = 1;
  int nodes = 0;  ///< P the code uses
  ConditioningDirection forward;
  ConditioningDirection backward;
};

/// The splits of the sweep: s x s and s x (s + 1) for s = 1 .. max_s (mn = 1, 2, 4, 6, 9, ...).
std::vector<std::pair<int, int>> conditioning_splits(int max_s = 5);

/// For every split, on P = 3mn: GPD (m, n), MDS with k = 2mn (equal storage) and the CodeNet grid
/// (m + 2t) x (n + 2t) with the largest t that fits; the relative errors against
/// kDecodeRelativeAccuracyTarget. Data and input N(0, 1) from streams keyed (seed, 0,
/// "conditioning_sweep", point); W has four rows and columns per block, 4 input columns.
/// Precondition: splits with m, n >= 1 and mn <= 64. Cost: well under a second at max_s = 5.
std::vector<ConditioningPoint> conditioning_sweep(const std::vector<std::pair<int, int>>& splits,
                                                  std::uint64_t seed = 1);

}  // namespace codesim::models
