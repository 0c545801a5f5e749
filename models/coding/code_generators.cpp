// Generator matrices: spread-ordered Chebyshev points, Vandermonde rows, systematic Gaussian.
#include "models/coding/code_generators.hpp"

#include <cmath>
#include <numbers>

#include <boost/random/mersenne_twister.hpp>
#include <boost/random/normal_distribution.hpp>

#include "sim/check.hpp"

namespace codesim::models {

using Eigen::Index;

std::vector<int> spread_order(int count) {
  CODESIM_CHECK(count >= 1, "spread_order needs count >= 1");
  int bits = 0;
  while ((1LL << bits) < count) ++bits;
  std::vector<int> order;
  order.reserve(static_cast<std::size_t>(count));
  for (long long i = 0; i < (1LL << bits); ++i) {
    long long reversed = 0;
    for (int b = 0; b < bits; ++b) {
      if ((i >> b) & 1) reversed |= 1LL << (bits - 1 - b);
    }
    if (reversed < count) order.push_back(static_cast<int>(reversed));
  }
  return order;
}

std::vector<double> chebyshev_points(int count) {
  CODESIM_CHECK(count >= 1, "at least one Chebyshev point");
  const std::vector<int> order = spread_order(count);
  std::vector<double> points(static_cast<std::size_t>(count));
  for (std::size_t p = 0; p < points.size(); ++p) {
    points[p] = std::cos((2.0 * order[p] + 1.0) * std::numbers::pi / (2.0 * count));
  }
  return points;
}

Eigen::MatrixXd vandermonde(std::span<const double> points, int columns) {
  CODESIM_CHECK(columns >= 1, "at least one column");
  const auto rows = static_cast<Index>(points.size());
  Eigen::MatrixXd v(rows, columns);
  for (Index s = 0; s < rows; ++s) {
    double power = 1.0;
    for (int k = 0; k < columns; ++k) {
      v(s, k) = power;
      power *= points[static_cast<std::size_t>(s)];
    }
  }
  return v;
}

Eigen::MatrixXd systematic_gaussian_generator(int symbols, int dimension, std::uint64_t seed) {
  CODESIM_CHECK(dimension >= 1 && symbols >= dimension, "a generator needs S >= K >= 1");
  boost::random::mt19937_64 engine(seed);
  boost::random::normal_distribution<double> normal(0.0, 1.0);
  Eigen::MatrixXd g(symbols, dimension);
  g.topRows(dimension).setIdentity();
  // Parity rows drawn row by row.
  for (int s = dimension; s < symbols; ++s) {
    for (int k = 0; k < dimension; ++k) g(s, k) = normal(engine);
  }
  return g;
}

}  // namespace codesim::models
