// load_dataset: dispatch to the loaders, seeded split, and size limits.
#include "models/data/dataset_source.hpp"

#include <numeric>
#include <vector>

#include "models/data/idx_loader.hpp"
#include "models/data/mnist_json_loader.hpp"
#include "sim/enum_names.hpp"

namespace codesim::models {

namespace {

/// The first `count` samples of `data` (all when count is 0); DatasetError when there are fewer.
Dataset first_samples(Dataset data, int count, const std::string& what) {
  if (count == 0 || count == data.samples()) return data;
  if (count > data.samples()) {
    throw DatasetError(data.name + ": " + what + " = " + std::to_string(count) + " but only " +
                       std::to_string(data.samples()) + " samples are available");
  }
  std::vector<int> indices(static_cast<std::size_t>(count));
  std::iota(indices.begin(), indices.end(), 0);
  const std::string name = data.name;
  return select_samples(data, indices, name);
}

DatasetSplit split_off_test(const Dataset& data, int test_samples, std::uint64_t seed) {
  if (test_samples < 1 || test_samples >= data.samples()) {
    throw DatasetError(data.name + ": test_samples = " + std::to_string(test_samples) +
                       " must leave both sets non-empty (the data has " +
                       std::to_string(data.samples()) + " samples)");
  }
  return split_dataset(data, test_samples, seed);
}

DatasetSplit load_idx_source(const DatasetSource& source, std::uint64_t seed) {
  const Dataset all =
      load_idx(source.images, source.labels, "idx", source.classes, source.pixel_scale);
  if (source.test_images.empty()) return split_off_test(all, source.test_samples, seed);
  DatasetSplit split;
  split.train = all;
  split.test = load_idx(source.test_images, source.test_labels, "idx/test", source.classes,
                        source.pixel_scale);
  if (split.test.features() != split.train.features()) {
    throw DatasetError("IDX test images have " + std::to_string(split.test.features()) +
                       " features but the training images " +
                       std::to_string(split.train.features()));
  }
  return split;
}

}  // namespace

std::string dataset_directory(const DatasetSource& source) {
  switch (source.kind) {
    case DatasetKind::mnist:
      return source.directory.empty() ? kMnistJsonDirectory : source.directory;
    case DatasetKind::fashion_mnist:
      return source.directory.empty() ? kFashionMnistDirectory : source.directory;
    case DatasetKind::idx:
    case DatasetKind::synthetic:
      return "";
  }
  return "";
}

namespace {

DatasetSplit load_source(const DatasetSource& source, std::uint64_t seed) {
  switch (source.kind) {
    case DatasetKind::mnist:
      return split_off_test(load_mnist_json(dataset_directory(source), source.pixel_scale),
                            source.test_samples, seed);
    case DatasetKind::fashion_mnist:
      return load_fashion_mnist(dataset_directory(source), source.pixel_scale);
    case DatasetKind::idx:
      return load_idx_source(source, seed);
    case DatasetKind::synthetic: {
      SyntheticSpec spec = source.synthetic;
      spec.seed = seed;
      return split_off_test(make_synthetic_dataset(spec), source.test_samples, seed);
    }
  }
  throw DatasetError("unknown dataset kind " + std::to_string(static_cast<int>(source.kind)));
}

}  // namespace

std::string_view to_string(DatasetKind kind) { return sim::name_of(kind, kDatasetKindNames); }

std::optional<DatasetKind> parse_dataset_kind(std::string_view name) {
  return sim::parse_name<DatasetKind>(name, kDatasetKindNames);
}

DatasetSplit load_dataset(const DatasetSource& source, std::uint64_t seed) {
  DatasetSplit split = load_source(source, seed);
  split.train = first_samples(std::move(split.train), source.train_samples, "train_samples");
  return split;
}

}  // namespace codesim::models
