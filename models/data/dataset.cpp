// Dataset validation, seeded permutation (Fisher-Yates on Boost.Random) and train/test splits.
#include "models/data/dataset.hpp"

#include <string_view>
#include <utility>

#include "sim/random_stream.hpp"

namespace codesim::models {

void validate_dataset(const Dataset& data) {
  const std::string where = "dataset '" + data.name + "': ";
  if (data.classes < 1)
    throw DatasetError(where + "class count must be >= 1 (got " + std::to_string(data.classes) +
                       ")");
  if (data.labels.size() != static_cast<std::size_t>(data.images.cols()))
    throw DatasetError(where + std::to_string(data.images.cols()) + " samples but " +
                       std::to_string(data.labels.size()) + " labels");
  for (std::size_t i = 0; i < data.labels.size(); ++i) {
    const int label = data.labels[i];
    if (label < 0 || label >= data.classes)
      throw DatasetError(where + "label " + std::to_string(label) + " of sample " +
                         std::to_string(i) + " is outside 0.." + std::to_string(data.classes - 1));
  }
}

std::vector<int> seeded_permutation(int count, std::uint64_t seed) {
  if (count < 0) throw DatasetError("permutation size must be >= 0");
  std::vector<int> order(static_cast<std::size_t>(count));
  for (int i = 0; i < count; ++i) order[static_cast<std::size_t>(i)] = i;
  sim::RandomStream stream(
      {.seed = seed, .replica = 0, .component = "dataset_shuffle", .index = 0});
  // Fisher-Yates: position i takes a uniform pick among the not-yet-placed 0..i.
  for (int i = count - 1; i > 0; --i) {
    const auto j = static_cast<std::size_t>(stream.uniform_int(0, i));
    std::swap(order[static_cast<std::size_t>(i)], order[j]);
  }
  return order;
}

Dataset select_samples(const Dataset& data, std::span<const int> indices, std::string name) {
  Dataset out;
  out.name = std::move(name);
  out.classes = data.classes;
  out.images.resize(data.images.rows(), static_cast<Eigen::Index>(indices.size()));
  out.labels.resize(indices.size());
  for (std::size_t k = 0; k < indices.size(); ++k) {
    const int i = indices[k];
    if (i < 0 || i >= data.samples())
      throw DatasetError("dataset '" + data.name + "': sample index " + std::to_string(i) +
                         " is outside 0.." + std::to_string(data.samples() - 1));
    out.images.col(static_cast<Eigen::Index>(k)) = data.images.col(i);
    out.labels[k] = data.labels[static_cast<std::size_t>(i)];
  }
  return out;
}

DatasetSplit split_dataset(const Dataset& data, int test_samples, std::uint64_t seed) {
  if (test_samples < 0 || test_samples > data.samples())
    throw DatasetError("dataset '" + data.name + "': cannot hold out " +
                       std::to_string(test_samples) + " test samples from " +
                       std::to_string(data.samples()));
  const std::vector<int> order = seeded_permutation(data.samples(), seed);
  const std::span<const int> all(order);
  const auto test_count = static_cast<std::size_t>(test_samples);
  DatasetSplit split;
  split.test = select_samples(data, all.first(test_count), data.name + "/test");
  split.train = select_samples(data, all.subspan(test_count), data.name + "/train");
  return split;
}

}  // namespace codesim::models
