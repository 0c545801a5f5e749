// Determinism suite: every shipped scenario, shortened, gives byte-identical results when run
// twice, on two threads, and with each training run's products cut between threads.
#include <doctest/doctest.h>

#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/cli/cli.hpp"
#include "support/short_scenarios.hpp"
#include "support/temp_directory.hpp"

using codesim::test::read_file;
using codesim::test::TempDirectory;
namespace fs = std::filesystem;

namespace {

/// Overrides that shorten a shipped scenario to a fraction of a second: few replicas, and for
/// training a small network on synthetic data of the same input size (no dataset needed); in
/// stochastic mode (no data, no arithmetic) few iterations of the scenario's own network, whose
/// strategies may need its layer sizes (the production scale's 128 x 128 grids).
bool has_network(const std::string& text) {
  const nlohmann::ordered_json scenario = nlohmann::ordered_json::parse(text);
  return scenario.contains("workload") && scenario["workload"].contains("network");
}

// The input size of a scenario that trains on synthetic data, else 0: such a scenario keeps its
// data and its layers, whose sizes its strategies' block counts were chosen to divide.
int synthetic_features(const std::string& text) {
  const nlohmann::ordered_json scenario = nlohmann::ordered_json::parse(text);
  if (!scenario.contains("workload") || !scenario["workload"].contains("dataset")) return 0;
  const auto& dataset = scenario["workload"]["dataset"];
  return dataset.value("kind", "") == "synthetic" ? dataset.value("features", 0) : 0;
}

std::vector<std::string> shortening(const std::string& text) {
  std::vector<std::string> sets = {"--set", "/replicas=2"};
  if (text.find("\"stochastic\"") != std::string::npos) {
    sets.insert(sets.end(), {"--set", "/workload/iterations=12"});
  } else if (synthetic_features(text) > 0) {
    sets.insert(sets.end(), {"--set", "/workload/iterations=12"});
  } else if (text.find("\"training\"") != std::string::npos) {
    sets.insert(sets.end(),
                {"--set", "/workload/iterations=12", "--set", "/workload/eval_every=4"});
    const std::vector<std::string> data = codesim::test::synthetic_data_sets(has_network(text));
    sets.insert(sets.end(), data.begin(), data.end());
  }
  return sets;
}

int run(std::vector<std::string> args) {
  std::ostringstream out;
  std::ostringstream err;
  const int code = codesim::app::run_cli(args, out, err);
  INFO(err.str());
  return code;
}

}  // namespace

TEST_CASE("every shipped scenario gives the same bytes twice and on two threads") {
  int scenarios = 0;
  for (const auto& entry : fs::directory_iterator(fs::path(CODESIM_SOURCE_DIR) / "scenarios")) {
    if (entry.path().extension() != ".json") continue;
    ++scenarios;
    CAPTURE(entry.path().string());
    TempDirectory dir;
    const std::vector<std::string> sets = shortening(read_file(entry.path()));
    std::vector<std::string> outputs;
    for (const auto& extra : std::vector<std::vector<std::string>>{{}, {}, {"--jobs", "2"}}) {
      const fs::path output = dir / ("run" + std::to_string(outputs.size()) + ".json");
      std::vector<std::string> args = {"run", entry.path().string(), "-o", output.string(), "-q"};
      args.insert(args.end(), sets.begin(), sets.end());
      args.insert(args.end(), extra.begin(), extra.end());
      REQUIRE(run(args) == 0);
      outputs.push_back(read_file(output));
    }
    CHECK(!outputs[0].empty());
    CHECK(outputs[0] == outputs[1]);
    CHECK(outputs[0] == outputs[2]);
  }
  CHECK(scenarios >= 6);
}

TEST_CASE("every shipped training scenario gives the same bytes with its products on 3 threads") {
  int scenarios = 0;
  for (const auto& entry : fs::directory_iterator(fs::path(CODESIM_SOURCE_DIR) / "scenarios")) {
    const std::string text = read_file(entry.path());
    if (entry.path().extension() != ".json" || text.find("\"training\"") == std::string::npos ||
        text.find("\"stochastic\"") != std::string::npos) {
      continue;
    }
    ++scenarios;
    CAPTURE(entry.path().string());
    TempDirectory dir;
    std::vector<std::string> sets = shortening(text);
    // Layers wide enough that the node products and updates are cut between the threads.
    if (!has_network(text)) {
      const int features = synthetic_features(text);
      sets.insert(sets.end(),
                  {"--set", "/workload/layers=[" + std::to_string(features > 0 ? features : 784) +
                                ", 520, 200, 10]"});
    }
    sets.insert(sets.end(), {"--set", "/workload/iterations=4", "--set", "/replicas=1"});
    std::vector<std::string> outputs;
    for (const char* threads : {"1", "3"}) {
      const fs::path output = dir / (std::string("threads") + threads + ".json");
      std::vector<std::string> args = {"run", entry.path().string(), "-o",   output.string(),
                                       "-q",  "--threads",           threads};
      args.insert(args.end(), sets.begin(), sets.end());
      REQUIRE(run(args) == 0);
      outputs.push_back(read_file(output));
    }
    CHECK(!outputs[0].empty());
    CHECK(outputs[0] == outputs[1]);
  }
  CHECK(scenarios >= 4);
}
