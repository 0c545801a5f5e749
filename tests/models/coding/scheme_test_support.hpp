// Shared fixtures for the coding-scheme tests: seeded data, small configurations, symbol access.
#pragma once

#include <boost/random/mersenne_twister.hpp>
#include <boost/random/normal_distribution.hpp>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "models/coding/coding_scheme.hpp"

namespace codesim::models::testing {

/// A rows x cols matrix of N(0, 1) entries from a seeded generator.
inline Matrix random_matrix(int rows, int cols, std::uint64_t seed) {
  boost::random::mt19937_64 engine(seed);
  boost::random::normal_distribution<double> normal(0.0, 1.0);
  Matrix matrix(rows, cols);
  for (int c = 0; c < cols; ++c) {
    for (int r = 0; r < rows; ++r) matrix(r, c) = normal(engine);
  }
  return matrix;
}

/// ||a - b||_F / ||b||_F (or ||a - b||_F when b is zero); infinite on a shape mismatch.
inline double relative_error(const Matrix& a, const Matrix& b) {
  if (a.rows() != b.rows() || a.cols() != b.cols()) return std::numeric_limits<double>::infinity();
  const double scale = b.norm();
  return scale > 0.0 ? (a - b).norm() / scale : (a - b).norm();
}

/// A small scheme configuration with the shape of W it is built for.
struct SmallConfig {
  std::string name;
  SchemeSpec spec;
  int rows = 0;
  int cols = 0;
};

/// Small configurations covering every scheme, orientation and code shape (all seeded with 7).
inline std::vector<SmallConfig> small_configs() {
  std::vector<SmallConfig> configs;
  auto add = [&](std::string name, SchemeSpec spec, int rows, int cols) {
    set_generator_seed(spec, 7);
    configs.push_back({std::move(name), std::move(spec), rows, cols});
  };
  add("uncoded 2x3", uncoded_spec(2, 3), 6, 9);
  add("replication 2x(2x2)", replication_spec(2, 2, 2), 6, 4);
  add("replication 3x(2x2)", replication_spec(2, 2, 3), 6, 4);
  add("replication 4x(1x2)", replication_spec(1, 2, 4), 3, 4);
  add("mds (8,3)", mds_spec(3, 8), 6, 9);
  add("gpd (2,2) P=10", gpd_spec(2, 2, 10), 6, 8);
  add("gpd (2,2) P=10 mirrored", gpd_spec(2, 2, 10, true), 6, 8);
  add("gpd (3,1) P=9", gpd_spec(3, 1, 9), 6, 5);
  add("gpd (1,3) P=8 mirrored", gpd_spec(1, 3, 8, true), 4, 6);
  add("codenet_grid 5x4/(2,2)", codenet_grid_spec(2, 2, 5, 4), 6, 8);
  add("codenet_grid 6x3/(3,1)", codenet_grid_spec(3, 1, 6, 3), 6, 4);
  return configs;
}

/// The clean symbols of a product, computed node by node as compute_and_decode does.
inline std::vector<std::optional<Matrix>> clean_symbols(const CodingScheme& scheme, Direction dir,
                                                        const Matrix& input) {
  std::vector<std::optional<Matrix>> symbols(scheme.symbol_count(dir));
  for (int s = 0; s < scheme.symbol_count(dir); ++s) {
    for (int node : scheme.symbol_members(dir, s)) {
      const Matrix partial = scheme.multiply(node, dir, scheme.encode_input(node, dir, input));
      if (symbols[s]) {
        *symbols[s] += partial;
      } else {
        symbols[s] = partial;
      }
    }
  }
  return symbols;
}

/// The exact product W X (forward) or W^T D (backward).
inline Matrix exact_product(const Matrix& weights, Direction dir, const Matrix& input) {
  return dir == Direction::forward ? Matrix(weights * input) : Matrix(weights.transpose() * input);
}

/// Input of the right height for `dir` with `batch` columns.
inline Matrix random_input(const SmallConfig& config, Direction dir, int batch,
                           std::uint64_t seed) {
  return random_matrix(dir == Direction::forward ? config.cols : config.rows, batch, seed);
}

}  // namespace codesim::models::testing
