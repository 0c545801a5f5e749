// Tests for the seeded Gaussian-cluster dataset: determinism, shape, balance and separability.
#include "models/data/synthetic_dataset.hpp"

#include <doctest/doctest.h>

#include <vector>

#include "tests/models/data/dataset_test_support.hpp"

namespace {

using codesim::models::Dataset;
using codesim::models::SyntheticSpec;

// Class means of `data` (features x classes).
Eigen::MatrixXd class_means(const Dataset& data) {
  Eigen::MatrixXd sums = Eigen::MatrixXd::Zero(data.features(), data.classes);
  Eigen::VectorXd counts = Eigen::VectorXd::Zero(data.classes);
  for (int j = 0; j < data.samples(); ++j) {
    const int label = data.labels[static_cast<std::size_t>(j)];
    sums.col(label) += data.images.col(j);
    counts(label) += 1;
  }
  for (int c = 0; c < data.classes; ++c) sums.col(c) /= counts(c);
  return sums;
}

// Accuracy on `test` of the nearest-centroid classifier fitted on `train`.
double nearest_centroid_accuracy(const Dataset& train, const Dataset& test) {
  const Eigen::MatrixXd means = class_means(train);
  int correct = 0;
  for (int j = 0; j < test.samples(); ++j) {
    Eigen::Index best = 0;
    (means.colwise() - test.images.col(j)).colwise().squaredNorm().minCoeff(&best);
    if (best == test.labels[static_cast<std::size_t>(j)]) ++correct;
  }
  return static_cast<double>(correct) / test.samples();
}

}  // namespace

TEST_CASE("the synthetic dataset has the requested shape and balanced labels") {
  const Dataset data = codesim::models::make_synthetic_dataset(
      {.classes = 4, .features = 7, .samples = 10, .separation = 3.0, .seed = 5});
  CHECK(data.name == "synthetic");
  CHECK(data.features() == 7);
  CHECK(data.samples() == 10);
  CHECK(data.classes == 4);
  CHECK(data.labels == std::vector<int>{0, 1, 2, 3, 0, 1, 2, 3, 0, 1});
  CHECK_NOTHROW(codesim::models::validate_dataset(data));
}

TEST_CASE("the synthetic dataset depends only on its seed") {
  const SyntheticSpec spec{
      .classes = 3, .features = 5, .samples = 50, .separation = 2.0, .seed = 9};
  const Dataset a = codesim::models::make_synthetic_dataset(spec);
  const Dataset b = codesim::models::make_synthetic_dataset(spec);
  CHECK(a.images == b.images);
  CHECK(a.labels == b.labels);
  SyntheticSpec other = spec;
  other.seed = 10;
  CHECK(codesim::models::make_synthetic_dataset(other).images != a.images);
}

TEST_CASE("well separated clusters are classified almost perfectly by their nearest centroid") {
  const Dataset data = codesim::models::make_synthetic_dataset(
      {.classes = 5, .features = 20, .samples = 3000, .separation = 6.0, .seed = 3});
  const auto split = codesim::models::split_dataset(data, 1000, 4);
  // Pairwise error is Phi(-3) ~ 0.13%, so 4 rivals give at most ~0.5%.
  CHECK(nearest_centroid_accuracy(split.train, split.test) > 0.98);
}

TEST_CASE("class centres lie the requested separation apart") {
  const Dataset data = codesim::models::make_synthetic_dataset(
      {.classes = 3, .features = 10, .samples = 30000, .separation = 5.0, .seed = 8});
  const Eigen::MatrixXd means = class_means(data);
  // Each mean carries noise of standard deviation 1/sqrt(10000) per feature.
  for (int a = 0; a < 3; ++a)
    for (int b = a + 1; b < 3; ++b)
      CHECK((means.col(a) - means.col(b)).norm() == doctest::Approx(5.0).epsilon(0.03));
}

TEST_CASE("clusters without separation are classified at chance level") {
  const Dataset data = codesim::models::make_synthetic_dataset(
      {.classes = 5, .features = 3, .samples = 3000, .separation = 0.0, .seed = 3});
  const auto split = codesim::models::split_dataset(data, 1000, 4);
  CHECK(nearest_centroid_accuracy(split.train, split.test) < 0.3);
}

TEST_CASE("fewer features than classes still gives separable clusters") {
  const Dataset data = codesim::models::make_synthetic_dataset(
      {.classes = 4, .features = 2, .samples = 2000, .separation = 12.0, .seed = 21});
  const auto split = codesim::models::split_dataset(data, 500, 4);
  CHECK(nearest_centroid_accuracy(split.train, split.test) > 0.8);
}

TEST_CASE("an invalid synthetic spec is rejected with the reason") {
  using codesim::test::contains;
  using codesim::test::dataset_error_message;
  std::string message =
      dataset_error_message([] { codesim::models::make_synthetic_dataset({.classes = 1}); });
  CHECK_MESSAGE(contains(message, "classes must be >= 2 (got 1)"), message);
  message = dataset_error_message([] { codesim::models::make_synthetic_dataset({.features = 0}); });
  CHECK_MESSAGE(contains(message, "features must be >= 1"), message);
  message = dataset_error_message([] { codesim::models::make_synthetic_dataset({.samples = 0}); });
  CHECK_MESSAGE(contains(message, "samples must be >= 1"), message);
  message =
      dataset_error_message([] { codesim::models::make_synthetic_dataset({.separation = -1.0}); });
  CHECK_MESSAGE(contains(message, "separation must be finite and >= 0"), message);
}
