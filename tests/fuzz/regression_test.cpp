// Replays every kept fuzz input (the seeds and the regressions of past findings) through the
// same harness bodies the libFuzzer targets use, in the regular test build.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "harnesses.hpp"
#include "support/temp_directory.hpp"

namespace codesim::fuzz {
namespace {

const std::filesystem::path kFuzzDir = std::filesystem::path(CODESIM_SOURCE_DIR) / "tests/fuzz";

std::vector<std::uint8_t> bytes_of(std::string_view text) { return {text.begin(), text.end()}; }

std::vector<std::uint8_t> file_bytes(const std::filesystem::path& path) {
  return bytes_of(test::read_file(path));
}

// The regular files under `dir` in name order (none when it does not exist).
std::vector<std::filesystem::path> files_in(const std::filesystem::path& dir) {
  std::vector<std::filesystem::path> files;
  if (!std::filesystem::is_directory(dir)) return files;
  for (const auto& entry : std::filesystem::directory_iterator(dir))
    if (entry.is_regular_file()) files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  return files;
}

// Feeds each kept input of `target` to its harness; a finding fails the check (or the binary).
std::size_t replay_kept_inputs(std::string_view target) {
  const Harness harness = find_harness(target);
  const bool known = harness != nullptr;
  REQUIRE(known);
  std::size_t replayed = 0;
  for (const char* kind : {"seeds", "regressions"}) {
    for (const auto& path : files_in(kFuzzDir / kind / std::string(target))) {
      CAPTURE(path.string());
      const std::vector<std::uint8_t> bytes = file_bytes(path);
      CHECK_NOTHROW(harness(bytes));
      ++replayed;
    }
  }
  return replayed;
}

TEST_CASE("kept scenario fuzz inputs are loaded or rejected with a ScenarioError") {
  CHECK(replay_kept_inputs("scenario") > 0);
}

TEST_CASE("kept IDX fuzz inputs are read or rejected with a DatasetError") {
  CHECK(replay_kept_inputs("idx") > 0);
}

TEST_CASE("kept MNIST JSON fuzz inputs are read or rejected with a DatasetError") {
  CHECK(replay_kept_inputs("mnist_json") > 0);
}

TEST_CASE("kept fault log fuzz inputs are read or rejected with a ScenarioError") {
  CHECK(replay_kept_inputs("fault_log") > 0);
}

TEST_CASE("the scenario harness loads the shipped scenarios and rejects broken JSON") {
  for (const auto& path : files_in(std::filesystem::path(CODESIM_SOURCE_DIR) / "scenarios")) {
    if (path.extension() != ".json") continue;
    CAPTURE(path.string());
    CHECK(scenario_harness(file_bytes(path)) == Verdict::accepted);
  }
  CHECK(scenario_harness(bytes_of("{\"cluster\": ")) == Verdict::rejected);
  CHECK(scenario_harness(bytes_of("[]")) == Verdict::rejected);
}

TEST_CASE("the IDX harness reads a valid file and rejects a bad magic number") {
  CHECK(idx_harness(file_bytes(kFuzzDir / "seeds/idx/labels-3.idx")) == Verdict::accepted);
  CHECK(idx_harness(file_bytes(kFuzzDir / "seeds/idx/images-2x2x3.idx.gz")) == Verdict::accepted);
  CHECK(idx_harness(bytes_of(std::string("\x01\x00\x08\x01\x00\x00\x00\x01\x07", 9))) ==
        Verdict::rejected);
  CHECK(idx_harness({}) == Verdict::rejected);
}

TEST_CASE("the MNIST JSON harness reads one image and rejects a short one") {
  std::string image = "{\"data\": [";
  for (int i = 0; i < 784; ++i) {
    if (i > 0) image += ',';
    image += i % 2 ? "0.5" : "0";
  }
  CHECK(mnist_json_harness(bytes_of(image + "]}")) == Verdict::accepted);
  CHECK(mnist_json_harness(bytes_of("{\"data\": [0.5, 1]}")) == Verdict::rejected);
}

TEST_CASE("the fault log harness reads an empty log and rejects malformed ones") {
  CHECK(fault_log_harness(file_bytes(kFuzzDir / "seeds/fault_log/empty.json")) ==
        Verdict::accepted);
  CHECK(fault_log_harness(bytes_of("{\"records\": 3}")) == Verdict::rejected);
  CHECK(fault_log_harness(bytes_of("{")) == Verdict::rejected);
}

TEST_CASE("fuzz harnesses are found by their target names only") {
  // Function pointers compared outside CHECK: doctest cannot print them.
  for (std::string_view name : harness_names()) {
    CAPTURE(name);
    const bool found = find_harness(name) != nullptr;
    CHECK(found);
  }
  CHECK(harness_names().size() == 4);
  const bool misspelt_found = find_harness("scenarios") != nullptr;
  const bool empty_found = find_harness("") != nullptr;
  CHECK_FALSE(misspelt_found);
  CHECK_FALSE(empty_found);
}

}  // namespace
}  // namespace codesim::fuzz
