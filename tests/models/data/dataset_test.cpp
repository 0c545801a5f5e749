// Tests for Dataset validation, the seeded permutation and the train/test split.
#include "models/data/dataset.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <numeric>
#include <set>
#include <vector>

#include "tests/models/data/dataset_test_support.hpp"

namespace {

using codesim::models::Dataset;
using codesim::models::DatasetSplit;
using codesim::test::contains;
using codesim::test::dataset_error_message;

// Sample j has the single feature j (an identity tag) and label j % 3.
Dataset tagged_dataset(int samples) {
  Dataset data;
  data.name = "tagged";
  data.classes = 3;
  data.images.resize(1, samples);
  for (int j = 0; j < samples; ++j) {
    data.images(0, j) = j;
    data.labels.push_back(j % 3);
  }
  return data;
}

std::vector<int> tags(const Dataset& data) {
  std::vector<int> out;
  for (int j = 0; j < data.samples(); ++j) out.push_back(static_cast<int>(data.images(0, j)));
  return out;
}

}  // namespace

TEST_CASE("a seeded permutation holds every index once and depends only on the seed") {
  const std::vector<int> a = codesim::models::seeded_permutation(1000, 7);
  std::vector<int> sorted = a;
  std::sort(sorted.begin(), sorted.end());
  std::vector<int> identity(1000);
  std::iota(identity.begin(), identity.end(), 0);
  CHECK(sorted == identity);
  CHECK(a == codesim::models::seeded_permutation(1000, 7));
  CHECK(a != codesim::models::seeded_permutation(1000, 8));
  CHECK(a != identity);
  CHECK(codesim::models::seeded_permutation(0, 7).empty());
  CHECK(codesim::models::seeded_permutation(1, 7) == std::vector<int>{0});
}

TEST_CASE("a seeded permutation puts each index first about equally often") {
  constexpr int kSeeds = 6000;
  std::array<int, 6> first{};
  for (int seed = 0; seed < kSeeds; ++seed)
    ++first[static_cast<std::size_t>(codesim::models::seeded_permutation(6, seed)[0])];
  // Expected 1000 each; the standard deviation is about 29, so 150 is over 5 sigma.
  for (int count : first) CHECK(std::abs(count - kSeeds / 6) < 150);
}

TEST_CASE("a split is deterministic, disjoint and covers every sample") {
  const Dataset data = tagged_dataset(100);
  const DatasetSplit split = codesim::models::split_dataset(data, 30, 11);
  CHECK(split.test.samples() == 30);
  CHECK(split.train.samples() == 70);
  CHECK(split.train.name == "tagged/train");
  CHECK(split.test.name == "tagged/test");
  CHECK(split.train.classes == 3);

  const std::vector<int> train = tags(split.train);
  const std::vector<int> test = tags(split.test);
  std::set<int> all(train.begin(), train.end());
  for (int t : test) CHECK(all.insert(t).second);  // never in both parts
  CHECK(all.size() == 100);
  for (int j = 0; j < split.train.samples(); ++j)
    CHECK(split.train.labels[static_cast<std::size_t>(j)] ==
          train[static_cast<std::size_t>(j)] % 3);

  const DatasetSplit again = codesim::models::split_dataset(data, 30, 11);
  CHECK(tags(again.train) == train);
  CHECK(tags(again.test) == test);
  CHECK(tags(codesim::models::split_dataset(data, 30, 12).test) != test);
}

TEST_CASE("a split rejects a test part larger than the dataset") {
  const Dataset data = tagged_dataset(10);
  const std::string message =
      dataset_error_message([&] { codesim::models::split_dataset(data, 11, 1); });
  CHECK_MESSAGE(contains(message, "cannot hold out 11 test samples from 10"), message);
  CHECK(codesim::models::split_dataset(data, 10, 1).train.samples() == 0);
  CHECK(codesim::models::split_dataset(data, 0, 1).train.samples() == 10);
}

TEST_CASE("selecting samples copies the chosen columns and labels in order") {
  const Dataset data = tagged_dataset(10);
  const std::vector<int> picks = {4, 1, 4};
  const Dataset chosen = codesim::models::select_samples(data, picks, "picked");
  CHECK(tags(chosen) == picks);
  CHECK(chosen.labels == std::vector<int>{1, 1, 1});
  const std::vector<int> bad = {10};
  const std::string message =
      dataset_error_message([&] { codesim::models::select_samples(data, bad, "x"); });
  CHECK_MESSAGE(contains(message, "sample index 10 is outside 0..9"), message);
}

TEST_CASE("validation rejects a label out of range and a label count mismatch") {
  Dataset data = tagged_dataset(5);
  CHECK_NOTHROW(codesim::models::validate_dataset(data));
  data.labels[2] = 3;
  std::string message = dataset_error_message([&] { codesim::models::validate_dataset(data); });
  CHECK_MESSAGE(contains(message, "dataset 'tagged': label 3 of sample 2 is outside 0..2"),
                message);
  data.labels.pop_back();
  message = dataset_error_message([&] { codesim::models::validate_dataset(data); });
  CHECK_MESSAGE(contains(message, "5 samples but 4 labels"), message);
}
