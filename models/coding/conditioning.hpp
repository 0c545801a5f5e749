// Condition numbers of a scheme's decoding systems over a fixed family of symbol subsets, and the
// test of whether they can cost a decode its target accuracy.
#pragma once

#include <vector>

#include "models/coding/coding_scheme.hpp"

namespace codesim::models {

/// Relative accuracy max|decoded - exact| / max|exact| that a decode is meant to keep.
inline constexpr double kDecodeRelativeAccuracyTarget = 1e-8;
/// Safety factor c of may_lose_accuracy. A decode from the symbol set B loses about
/// cond(G_B) x u x f in relative accuracy, u = 2^-53 and f the rounding of the symbols relative
/// to their peak. Over the GPD, MDS and CodeNet sweep to P = 64 (first, last and random
/// K-subsets, errors) f stayed below 6 wherever cond <= 1e8, and the worst decode that c = 16
/// leaves unflagged (cond <= 5.6e6) erred 7e-10. f grows with cond beyond 1e10 (up to 74), far
/// past the flag. Long dot products (large layers) add about sqrt(length) to f for random data.
inline constexpr double kConditioningSafetyFactor = 16.0;
/// Seed of the random K-subsets examined by decoding_conditioning.
inline constexpr std::uint64_t kConditioningSeed = 0x636f6e646974696f;  // "conditio"
/// Number of random K-subsets examined per direction.
inline constexpr int kConditioningRandomSubsets = 6;

/// Conditioning of one direction's decoding systems.
struct DirectionConditioning {
  int symbols = 0;    ///< S, the symbols of the direction (0 when it has no linear code)
  int dimension = 0;  ///< K, symbols needed (0: decoding compares copies; condition 1)
  /// Largest 2-norm condition number of G_B over the examined K-subsets B (+Inf when one is
  /// numerically singular: cond >= 1 / (K u)); 1 without a linear code.
  double worst_condition = 1.0;
  std::vector<int> worst_subset;  ///< symbols of that subset, ascending (empty without a code)
  int subsets = 0;                ///< distinct K-subsets examined
};

/// Conditioning of both directions of a scheme.
struct DecodingConditioning {
  DirectionConditioning forward;
  DirectionConditioning backward;
};

/// Per direction, the worst condition number of the K x K generator rows G_B that a decode from
/// exactly K symbols solves, over a deterministic family of K-subsets B: the first K symbols,
/// the last K, K spread evenly over the S, and kConditioningRandomSubsets seeded random ones
/// (Boost mt19937_64(kConditioningSeed)), duplicates examined once. The generators are those the
/// scheme decodes with (they do not depend on the shape of W). Cost: up to 9 K x K QRs and SVDs
/// per direction: well under a millisecond at K = 16, a few tens of milliseconds at K = 64.
/// Precondition: validate_scheme(spec, rows, cols) is empty.
DecodingConditioning decoding_conditioning(const SchemeSpec& spec, int rows, int cols);

/// Condition number of one symbol subset of a direction of `spec` (|subset| >= K rows of the
/// generator, least-squares conditioning beyond K); 1 without a linear code, +Inf when
/// numerically rank deficient (cond >= 1 / (K u)). Precondition: as decoding_conditioning, subset
/// entries in [0, S).
double subset_condition(const SchemeSpec& spec, Direction dir, const std::vector<int>& subset);

/// True when a solve with this condition number can miss kDecodeRelativeAccuracyTarget:
/// condition x 2^-53 x kConditioningSafetyFactor > kDecodeRelativeAccuracyTarget, and for a
/// non-finite condition.
bool may_lose_accuracy(double condition_number);

}  // namespace codesim::models
