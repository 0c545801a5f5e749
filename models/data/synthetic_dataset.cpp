// Gaussian clusters drawn from seeded Boost.Random streams (centres and noise on separate streams).
#include "models/data/synthetic_dataset.hpp"

#include <cmath>
#include <string>

#include "sim/random_stream.hpp"

namespace codesim::models {
namespace {

void require(bool ok, const std::string& what) {
  if (!ok) throw DatasetError("synthetic dataset: " + what);
}

}  // namespace

Dataset make_synthetic_dataset(const SyntheticSpec& spec) {
  require(spec.classes >= 2, "classes must be >= 2 (got " + std::to_string(spec.classes) + ")");
  require(spec.features >= 1, "features must be >= 1 (got " + std::to_string(spec.features) + ")");
  require(spec.samples >= 1, "samples must be >= 1 (got " + std::to_string(spec.samples) + ")");
  require(spec.separation >= 0.0 && std::isfinite(spec.separation),
          "separation must be finite and >= 0");

  sim::RandomStream centre_stream(
      {.seed = spec.seed, .replica = 0, .component = "synthetic_dataset", .index = 0});
  Eigen::MatrixXd gaussian(spec.features, spec.classes);
  for (Eigen::Index c = 0; c < gaussian.cols(); ++c)
    for (Eigen::Index f = 0; f < gaussian.rows(); ++f) gaussian(f, c) = centre_stream.normal(0, 1);

  Eigen::MatrixXd centres;
  if (spec.features >= spec.classes) {
    // Orthonormal columns q_c: |s/sqrt(2) (q_a - q_b)| = s for every pair.
    const Eigen::HouseholderQR<Eigen::MatrixXd> qr(gaussian);
    centres = qr.householderQ() * Eigen::MatrixXd::Identity(spec.features, spec.classes);
    centres *= spec.separation / std::sqrt(2.0);
  } else {
    // E|c_a - c_b|^2 = 2 * features * sigma^2 = separation^2.
    centres = gaussian * (spec.separation / std::sqrt(2.0 * spec.features));
  }

  sim::RandomStream noise_stream(
      {.seed = spec.seed, .replica = 0, .component = "synthetic_dataset", .index = 1});
  Dataset data;
  data.name = "synthetic";
  data.classes = spec.classes;
  data.images.resize(spec.features, spec.samples);
  data.labels.resize(static_cast<std::size_t>(spec.samples));
  for (int j = 0; j < spec.samples; ++j) {
    const int label = j % spec.classes;
    data.labels[static_cast<std::size_t>(j)] = label;
    for (int f = 0; f < spec.features; ++f)
      data.images(f, j) = centres(f, label) + noise_stream.normal(0, 1);
  }
  return data;
}

}  // namespace codesim::models
