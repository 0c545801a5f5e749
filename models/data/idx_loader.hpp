// IDX image/label files (the MNIST container format), plain or gzip-compressed, and Fashion-MNIST.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "models/data/dataset.hpp"

namespace codesim::models {

/// One IDX array of unsigned bytes (element type code 0x08): `dimensions` (the first is the item
/// count) and the values in row-major order; values.size() is the product of the dimensions.
struct IdxArray {
  std::vector<std::uint32_t> dimensions;
  std::vector<std::uint8_t> values;
};

/// Reads an IDX file of unsigned bytes, gzip-compressed or not (recognised from its content).
/// Throws DatasetError naming the file when it is missing, not IDX (bad magic), of another element
/// type, has a zero dimension, is truncated or corrupt, or has bytes after the data.
IdxArray read_idx(const std::filesystem::path& file);

/// The dimensions in the header of an IDX file (checked as read_idx checks them), without reading
/// its data: what a preflight needs to size a dataset before loading it.
std::vector<std::uint32_t> read_idx_dimensions(const std::filesystem::path& file);

/// Writes `array` as an IDX file, gzip-compressed when `gzip`. Throws DatasetError when the
/// dimensions do not match the value count or the file cannot be written.
void write_idx(const std::filesystem::path& file, const IdxArray& array, bool gzip);

/// Loads an image file (IDX, >= 2 dimensions: count x rows x cols ...) and its label file (IDX,
/// 1 dimension) as a dataset named `name`: feature = pixel byte * pixel_scale, features per
/// sample = product of the image dimensions after the first. Throws DatasetError when either file
/// is malformed, the counts differ, or a label lies outside 0..classes-1.
Dataset load_idx(const std::filesystem::path& images_file, const std::filesystem::path& labels_file,
                 std::string name, int classes = 10, double pixel_scale = kDefaultPixelScale);

/// Where the Debian package dataset-fashion-mnist installs the four gzip IDX files.
inline constexpr const char* kFashionMnistDirectory = "/usr/share/datasets/fashion-mnist";

/// Loads Fashion-MNIST from `directory` (train-{images-idx3,labels-idx1}-ubyte.gz: 60,000 samples;
/// t10k-*: 10,000; 28 x 28 = 784 features; 10 classes) as "fashion-mnist/train" and
/// "fashion-mnist/test". A missing file gives a DatasetError saying how to install the package.
DatasetSplit load_fashion_mnist(const std::filesystem::path& directory = kFashionMnistDirectory,
                                double pixel_scale = kDefaultPixelScale);

}  // namespace codesim::models
