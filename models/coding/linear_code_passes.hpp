// Decoder internals shared by LinearCode::decode and the error search: factoring a symbol
// subset's generator rows, one blocked check-and-solve pass, and the reduced syndrome.
// Internal to models/coding (namespace detail).
#pragma once

#include <limits>
#include <span>

#include "models/coding/linear_code.hpp"

namespace codesim::models::detail {

using Eigen::Index;
// Received symbols read in place: `length` contiguous entries each; nullptr = erasure.
using Symbols = std::span<const double* const>;

constexpr double kUnitRoundoff = std::numeric_limits<double>::epsilon() / 2.0;  // 2^-53
constexpr double kInfinity = std::numeric_limits<double>::infinity();

// Generator rows of one symbol set, factored once for checking and solving.
struct SubsetFactor {
  // n x n: the first n - K rows are an orthonormal parity check H (H * G_set = 0), the last K
  // the least-squares solver pinv(G_set) = R^-1 Q1^T.
  Matrix combined;
  Matrix abs_rows;  // |G_set|, entrywise
  Index redundancy = 0;
  double condition = kInfinity;
  // max row sum of |G_set| |pinv(G_set)|: bounds the term scale by this times the symbol peak.
  double term_bound = kInfinity;
  bool usable = false;
};

// tolerance_factor * 2^-53 * inner_dimension: tau per unit of term scale.
inline double unit_threshold(const DecodeOptions& options) {
  return options.tolerance_factor * kUnitRoundoff * options.inner_dimension;
}

// Factors the generator rows of `set`; not usable when cond * unit_threshold reaches 1.
SubsetFactor factor_subset(const Matrix& generator, std::span<const int> set,
                           const DecodeOptions& options);

// One blocked pass over the symbols of `set`: the least-squares message and whether the set is
// consistent, i.e. max|H Y_set| <= tau = unit_threshold * max_s sum_k |G_sk| max_j |M_kj|.
// Stops early once the syndrome exceeds the a-priori bound unit_threshold * term_bound * peak.
// With `wanted` (message rows in [0, K); empty = all) only those rows are solved and returned
// (row i = coefficient wanted[i]); tau is then bounded below by the same sum over the wanted rows
// only, and when that bound does not already certify the set, the pass is redone with all rows,
// so the decision is the full-message one.
// With `set_peaks` (one entry per member of `set`, zero on entry) the pass also measures each
// member's peak (symbol_peak) chunk by chunk while the data is in cache, and the early stop uses
// the largest peak read so far instead of `peak`: it can only stop sooner, so a pass that
// completes decides exactly as one given the final peaks would.
struct PassResult {
  bool consistent = false;
  bool complete = false;  // went through all the data (no early stop)
  RowMajorMatrix message;
};

PassResult check_and_solve(const SubsetFactor& factor, Symbols symbols, std::span<const int> set,
                           Index length, double peak, const DecodeOptions& options,
                           const DenseKernels& kernels, std::span<const int> wanted = {},
                           std::span<double> set_peaks = {});

// The syndrome S = H * Y_set (r x L), times `inverse_scale` (a power of two, so exact and safe
// from overflow), reduced to an r x min(r, L) matrix T with T T^T = S S^T: the same column space,
// singular values and Frobenius norms of projections. A blocked QR of S^T; S is never stored.
Matrix reduced_syndrome(const SubsetFactor& factor, Symbols symbols, std::span<const int> set,
                        Index length, double inverse_scale);

}  // namespace codesim::models::detail
