// Tests for IDX reading/writing (plain and gzip), its rejection of malformed files, and the Debian
// Fashion-MNIST files.
#include "models/data/idx_loader.hpp"

#include <doctest/doctest.h>

#include <array>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include <boost/random/mersenne_twister.hpp>
#include <boost/random/uniform_int_distribution.hpp>

#include "tests/models/data/dataset_test_support.hpp"

namespace {

using codesim::models::Dataset;
using codesim::models::IdxArray;
using codesim::test::contains;
using codesim::test::dataset_error_message;
using codesim::test::ScratchDir;
using Bytes = std::vector<std::uint8_t>;

IdxArray counting_array(std::vector<std::uint32_t> dimensions) {
  IdxArray array{std::move(dimensions), {}};
  std::size_t count = 1;
  for (std::uint32_t d : array.dimensions) count *= d;
  for (std::size_t i = 0; i < count; ++i) array.values.push_back(static_cast<std::uint8_t>(i * 7));
  return array;
}

IdxArray random_array(std::vector<std::uint32_t> dimensions, std::uint64_t seed) {
  IdxArray array{std::move(dimensions), {}};
  std::size_t count = 1;
  for (std::uint32_t d : array.dimensions) count *= d;
  boost::random::mt19937_64 engine(seed);
  boost::random::uniform_int_distribution<int> byte(0, 255);
  for (std::size_t i = 0; i < count; ++i)
    array.values.push_back(static_cast<std::uint8_t>(byte(engine)));
  return array;
}

// Three 2 x 2 images with labels 0, 9, 4, written as images.idx and labels.idx.
void write_small_pair(const ScratchDir& dir, bool gzip) {
  codesim::models::write_idx(dir / "images.idx", counting_array({3, 2, 2}), gzip);
  codesim::models::write_idx(dir / "labels.idx", IdxArray{{3}, {0, 9, 4}}, gzip);
}

// The DatasetError message of reading `bytes` written raw as one IDX file.
std::string read_error(const ScratchDir& dir, const Bytes& bytes) {
  codesim::test::write_bytes(dir / "bad.idx", bytes);
  return dataset_error_message([&] { codesim::models::read_idx(dir / "bad.idx"); });
}

}  // namespace

TEST_CASE("an IDX file round-trips plain and gzip-compressed") {
  const ScratchDir dir("idx-round-trip");
  const IdxArray array = random_array({5, 3, 4}, 1);
  for (const bool gzip : {false, true}) {
    CAPTURE(gzip);
    const auto file = dir / (gzip ? "a.idx.gz" : "a.idx");
    codesim::models::write_idx(file, array, gzip);
    const Bytes raw = codesim::test::read_bytes(file);
    REQUIRE(raw.size() >= 4);
    if (gzip) {
      CHECK(raw[0] == 0x1f);
      CHECK(raw[1] == 0x8b);
    } else {
      CHECK(Bytes(raw.begin(), raw.begin() + 16) ==
            Bytes{0, 0, 8, 3, 0, 0, 0, 5, 0, 0, 0, 3, 0, 0, 0, 4});
    }
    const IdxArray back = codesim::models::read_idx(file);
    CHECK(back.dimensions == array.dimensions);
    CHECK(back.values == array.values);
  }
}

TEST_CASE("an IDX image and label pair loads as columns of scaled pixels") {
  const ScratchDir dir("idx-load");
  for (const bool gzip : {false, true}) {
    CAPTURE(gzip);
    write_small_pair(dir, gzip);
    const Dataset data =
        codesim::models::load_idx(dir / "images.idx", dir / "labels.idx", "small", 10);
    CHECK(data.name == "small");
    CHECK(data.features() == 4);
    CHECK(data.samples() == 3);
    CHECK(data.classes == 10);
    CHECK(data.labels == std::vector<int>{0, 9, 4});
    // Image 1 holds bytes 4..7 of the file's data (7 * i each), row-major.
    CHECK(data.images(0, 1) == doctest::Approx(28.0 / 255.0));
    CHECK(data.images(3, 2) == doctest::Approx(77.0 / 255.0));
    CHECK(data.images.minCoeff() >= 0.0);
    CHECK(data.images.maxCoeff() <= 1.0);
    const Dataset halves =
        codesim::models::load_idx(dir / "images.idx", dir / "labels.idx", "small", 10, 1.0 / 128.0);
    CHECK(halves.images(3, 2) == 77.0 / 128.0);
  }
}

TEST_CASE("a missing IDX file is reported by name") {
  const ScratchDir dir("idx-missing");
  const std::string message =
      dataset_error_message([&] { codesim::models::read_idx(dir / "none.idx"); });
  CHECK_MESSAGE(contains(message, (dir / "none.idx").string()), message);
  CHECK_MESSAGE(contains(message, "not found"), message);
}

TEST_CASE("an IDX file with a bad header is rejected with the reason") {
  const ScratchDir dir("idx-header");
  std::string message = read_error(dir, {0x12, 0x34, 8, 1, 0, 0, 0, 1, 5});
  CHECK_MESSAGE(contains(message, "bad magic number 0x12340801"), message);
  CHECK_MESSAGE(contains(message, (dir / "bad.idx").string()), message);
  message = read_error(dir, {0, 0, 0x0D, 1, 0, 0, 0, 1, 0, 0, 0, 0});
  CHECK_MESSAGE(contains(message, "unsupported IDX element type 0x0D"), message);
  message = read_error(dir, {0, 0, 8});
  CHECK_MESSAGE(contains(message, "too short for an IDX header (3 bytes)"), message);
  message = read_error(dir, {0, 0, 8, 0});
  CHECK_MESSAGE(contains(message, "zero dimensions"), message);
  message = read_error(dir, {0, 0, 8, 3, 0, 0, 0, 2, 0, 0, 0, 2});
  CHECK_MESSAGE(contains(message, "truncated header: 3 dimensions need 12 bytes but only 8 follow"),
                message);
  message = read_error(dir, {0, 0, 8, 2, 0, 0, 0, 2, 0, 0, 0, 0});
  CHECK_MESSAGE(contains(message, "dimensions 2 x 0 include a zero"), message);
  message =
      read_error(dir, {0, 0, 8, 3, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 1});
  CHECK_MESSAGE(contains(message, "implausibly large"), message);
}

TEST_CASE("an IDX file whose data is short or too long is rejected") {
  const ScratchDir dir("idx-length");
  std::string message = read_error(dir, {0, 0, 8, 2, 0, 0, 0, 2, 0, 0, 0, 3, 1, 2, 3, 4, 5});
  CHECK_MESSAGE(
      contains(message, "truncated: dimensions 2 x 3 need 6 data bytes but only 5 follow"),
      message);
  message = read_error(dir, {0, 0, 8, 1, 0, 0, 0, 2, 1, 2, 3});
  CHECK_MESSAGE(contains(message, "more bytes than dimensions 2 account for"), message);
}

TEST_CASE("a truncated or corrupted gzip IDX file is rejected") {
  const ScratchDir dir("idx-gzip");
  const auto file = dir / "a.idx.gz";
  codesim::models::write_idx(file, random_array({50, 28, 28}, 2), true);
  const Bytes whole = codesim::test::read_bytes(file);

  codesim::test::write_bytes(file, Bytes(whole.begin(), whole.begin() + whole.size() / 2));
  std::string message = dataset_error_message([&] { codesim::models::read_idx(file); });
  CHECK_MESSAGE(contains(message, "truncated: dimensions 50 x 28 x 28 need 39200 data bytes"),
                message);
  CHECK_MESSAGE(contains(message, "unexpected end of file"), message);

  // Cut inside the 8-byte trailer: all data arrives but the checksum cannot be verified.
  codesim::test::write_bytes(file, Bytes(whole.begin(), whole.end() - 3));
  message = dataset_error_message([&] { codesim::models::read_idx(file); });
  CHECK_MESSAGE(contains(message, "gzip"), message);

  Bytes flipped = whole;
  flipped[flipped.size() - 6] ^= 0xFF;  // inside the CRC-32 of the data
  codesim::test::write_bytes(file, flipped);
  message = dataset_error_message([&] { codesim::models::read_idx(file); });
  CHECK_MESSAGE(contains(message, "incorrect data check"), message);
}

TEST_CASE("an IDX pair with wrong ranks, mismatched counts or bad labels is rejected") {
  const ScratchDir dir("idx-pair");
  const auto images = dir / "images.idx";
  const auto labels = dir / "labels.idx";
  write_small_pair(dir, false);
  const auto load = [&] { codesim::models::load_idx(images, labels, "pair", 10); };

  codesim::models::write_idx(labels, IdxArray{{3, 1}, {0, 1, 2}}, false);
  std::string message = dataset_error_message(load);
  CHECK_MESSAGE(
      contains(message, labels.string() + "': a label file needs exactly 1 dimension, found 2"),
      message);

  codesim::models::write_idx(labels, IdxArray{{2}, {0, 1}}, false);
  message = dataset_error_message(load);
  CHECK_MESSAGE(contains(message, "3 images but 2 labels"), message);
  CHECK_MESSAGE(contains(message, images.string()), message);

  codesim::models::write_idx(labels, IdxArray{{3}, {0, 10, 1}}, false);
  message = dataset_error_message(load);
  CHECK_MESSAGE(contains(message, labels.string() + "': label 10 at index 1 is outside 0..9"),
                message);

  codesim::models::write_idx(labels, IdxArray{{3}, {0, 1, 2}}, false);
  codesim::models::write_idx(images, IdxArray{{3}, {0, 1, 2}}, false);
  message = dataset_error_message(load);
  CHECK_MESSAGE(contains(message, "an image file needs at least 2 dimensions"), message);
}

TEST_CASE("a missing Fashion-MNIST directory says how to install the package") {
  const std::string message =
      dataset_error_message([] { codesim::models::load_fashion_mnist("no/such/fashion-mnist"); });
  CHECK_MESSAGE(contains(message, "train-images-idx3-ubyte.gz' not found"), message);
  CHECK_MESSAGE(contains(message, "dataset-fashion-mnist"), message);
  CHECK_MESSAGE(contains(message, "scripts/setup --data"), message);
}

TEST_CASE("the Debian Fashion-MNIST files load as 60,000 training and 10,000 test images") {
  const std::filesystem::path directory = codesim::models::kFashionMnistDirectory;
  if (!std::filesystem::exists(directory / "train-images-idx3-ubyte.gz")) {
    MESSAGE(
        "skipped: Debian package dataset-fashion-mnist is not installed (scripts/setup --data)");
    return;
  }
  const auto start = std::chrono::steady_clock::now();
  const codesim::models::DatasetSplit data = codesim::models::load_fashion_mnist();
  const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
  MESSAGE("Fashion-MNIST: 70,000 images loaded in " << elapsed.count() << " s");

  CHECK(data.train.name == "fashion-mnist/train");
  CHECK(data.train.samples() == 60000);
  CHECK(data.test.samples() == 10000);
  CHECK(data.train.features() == 784);
  CHECK(data.test.features() == 784);
  CHECK(data.train.classes == 10);
  CHECK_NOTHROW(codesim::models::validate_dataset(data.train));
  CHECK_NOTHROW(codesim::models::validate_dataset(data.test));
  std::array<int, 10> train_counts{};
  std::array<int, 10> test_counts{};
  for (int label : data.train.labels) ++train_counts[static_cast<std::size_t>(label)];
  for (int label : data.test.labels) ++test_counts[static_cast<std::size_t>(label)];
  for (int c = 0; c < 10; ++c) {
    CHECK(train_counts[static_cast<std::size_t>(c)] == 6000);
    CHECK(test_counts[static_cast<std::size_t>(c)] == 1000);
  }
  // Known first samples: an ankle boot (9) whose first lit pixel, index 96, has byte 1.
  CHECK(data.train.labels.front() == 9);
  CHECK(data.test.labels.front() == 9);
  CHECK(data.train.images(95, 0) == 0.0);
  CHECK(data.train.images(96, 0) == doctest::Approx(1.0 / 255.0));
  CHECK(data.train.images(100, 0) == doctest::Approx(73.0 / 255.0));
  CHECK(data.train.images.minCoeff() == 0.0);
  CHECK(data.train.images.maxCoeff() == 1.0);
}
