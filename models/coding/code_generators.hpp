// Generator matrices for real linear codes: Chebyshev-point Vandermonde and systematic Gaussian.
#pragma once

#include <Eigen/Core>
#include <cstdint>
#include <span>
#include <vector>

namespace codesim::models {

/// The P Chebyshev points cos((2j + 1) pi / (2P)), j = 0..P-1, in (-1, 1), listed in spread
/// order: entry p is point j = spread_order(P)[p]. Every prefix and suffix of the list is then
/// spread over (-1, 1) like Chebyshev points of its own size, so decoding from the first (or last)
/// K symbols is as well conditioned as from an evenly spread K-subset (the natural order would
/// put them all near +1 (-1): condition numbers beyond 1e15 for K = 8 of P = 64).
std::vector<double> chebyshev_points(int count);
/// The pruned bit-reversal permutation of 0..count-1: the indices j < count in the order of the
/// bit-reversed i = 0, 1, ... over the next power of two (0, 4, 2, 6, 1, 5, 3, 7 for 8).
std::vector<int> spread_order(int count);
/// The S x K Vandermonde matrix V(s, k) = points[s]^k.
Eigen::MatrixXd vandermonde(std::span<const double> points, int columns);
/// A systematic S x K generator [I_K; R] with R i.i.d. N(0, 1) drawn row by row from
/// boost::random::mt19937_64(seed) and boost::random::normal_distribution.
Eigen::MatrixXd systematic_gaussian_generator(int symbols, int dimension, std::uint64_t seed);

}  // namespace codesim::models
