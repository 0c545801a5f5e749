// Dataset: samples as the columns of an Eigen matrix with integer labels, the error loaders throw,
// and the seeded shuffle and train/test split shared by every data source.
#pragma once

#include <Eigen/Dense>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace codesim::models {

/// A dataset is missing, truncated, malformed or inconsistent. The message names the file (or
/// dataset) and what is wrong; the application turns it into exit code 2.
class DatasetError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Default pixel scaling: feature = byte value (0..255) * scale, so features lie in [0, 1].
/// (The CodeNet experiment divided by 128, giving [0, 2); pass 1.0 / 128 to reproduce it.)
inline constexpr double kDefaultPixelScale = 1.0 / 255.0;

/// A labelled dataset held in memory.
struct Dataset {
  /// Short identifier ("mnist", "fashion-mnist/train", "synthetic", ...).
  std::string name;
  /// features x samples; column j is sample j.
  Eigen::MatrixXd images;
  /// One label per column of `images`, each in 0..classes-1.
  std::vector<int> labels;
  /// Number of classes (labels range over 0..classes-1).
  int classes = 0;

  /// Number of features per sample (rows of `images`).
  int features() const { return static_cast<int>(images.rows()); }
  /// Number of samples (columns of `images`).
  int samples() const { return static_cast<int>(images.cols()); }
};

/// Throws DatasetError unless labels.size() == samples(), classes >= 1 and every label lies in
/// 0..classes-1.
void validate_dataset(const Dataset& data);

/// A disjoint train/test partition of one dataset.
struct DatasetSplit {
  Dataset train;
  Dataset test;
};

/// A uniformly random permutation of 0..count-1 (Fisher-Yates driven by Boost.Random on the
/// stream keyed by `seed`); identical for the same seed on every platform. count >= 0.
std::vector<int> seeded_permutation(int count, std::uint64_t seed);

/// The samples at `indices` (in that order) as a new dataset named `name`; each index must lie
/// in 0..samples()-1 (else DatasetError).
Dataset select_samples(const Dataset& data, std::span<const int> indices, std::string name);

/// Shuffles `data` with seeded_permutation(samples, seed) and puts the first `test_samples`
/// shuffled samples in `test` ("<name>/test") and the rest in `train` ("<name>/train").
/// 0 <= test_samples <= samples() (else DatasetError).
DatasetSplit split_dataset(const Dataset& data, int test_samples, std::uint64_t seed);

}  // namespace codesim::models
