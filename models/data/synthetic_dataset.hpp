// Seeded Gaussian clusters: a small, learnable dataset for tests and quick scenarios.
#pragma once

#include <cstdint>

#include "models/data/dataset.hpp"

namespace codesim::models {

/// Parameters of the Gaussian-cluster dataset.
struct SyntheticSpec {
  /// Number of classes (clusters), >= 2.
  int classes = 10;
  /// Features per sample, >= 1.
  int features = 20;
  /// Number of samples, >= 1; sample j has label j % classes (balanced).
  int samples = 1000;
  /// Distance between class centres in units of the per-feature noise standard deviation (1),
  /// >= 0. With features >= classes the centres are orthogonal and every pair is exactly this far
  /// apart; otherwise centres are Gaussian with this root-mean-square pairwise distance.
  double separation = 4.0;
  /// Seed of the Boost.Random streams; the same seed gives the same dataset.
  std::uint64_t seed = 1;
};

/// Generates dataset "synthetic": sample = centre of its class + N(0, 1) noise per feature.
/// Features are unbounded reals centred near 0 (not pixels). Throws DatasetError on an invalid
/// spec.
Dataset make_synthetic_dataset(const SyntheticSpec& spec);

}  // namespace codesim::models
