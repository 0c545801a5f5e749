// checkpoint.policy = "optimal_simulated": one candidate point per factor of Daly's interval, on
// common random numbers, the fastest named in the results; under exponential failures it agrees
// with Daly's interval; bad search settings stop the run before it starts.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "support/cli_runner.hpp"
#include "support/temp_directory.hpp"

namespace {

namespace fs = std::filesystem;
using codesim::test::cli;
using codesim::test::CliResult;
using codesim::test::read_file;
using codesim::test::TempDirectory;
using Json = nlohmann::json;

/// An iterative job on 4 nodes waiting for all of them: every crash rolls back (job MTBF 100 s,
/// Daly's interval about 26 s of progress).
fs::path write_scenario(const fs::path& directory, const std::string& checkpoint, int replicas = 60,
                        int iterations = 1000) {
  const fs::path path = directory / "search.json";
  std::ofstream(path) << R"({"name": "search", "seed": 4, "replicas": )" << replicas << R"(,
    "cluster": {"nodes": 4, "speed_flops_per_s": 1e9, "crashes": {"mtbf_s": 400, "repair_s": 5}},
    "checkpoint": )" << checkpoint
                      << R"(,
    "workload": {"kind": "iterative_job", "iterations": )"
                      << iterations << R"(, "task_flops": 1e9}})";
  return path;
}

Json run(const fs::path& scenario, const fs::path& output) {
  const CliResult r = cli({"run", scenario.string(), "-o", output.string(), "-q", "--jobs", "2"});
  INFO(r.err);
  REQUIRE(r.code == 0);
  return Json::parse(read_file(output));
}

}  // namespace

TEST_CASE("a search runs one point per factor on common random numbers and names the fastest") {
  TempDirectory dir;
  const Json results = run(write_scenario(dir.path(), R"({"policy": "optimal_simulated",
      "search_factors": [0.25, 1, 4], "write_s": 4, "restart_s": 20})",
                                          8, 300),
                           dir / "out.json");
  REQUIRE(results["points"].size() == 3);
  const Json& search = results["checkpoint_search"][0];
  CHECK(search["factors"] == Json::array({0.25, 1.0, 4.0}));
  std::vector<double> means;
  for (std::size_t k = 0; k < 3; ++k) {
    const Json& point = results["points"][k];
    CHECK(point["params"]["/checkpoint/interval_factor"] == search["factors"][k]);
    means.push_back(point["aggregate"]["completion_time_s"]["mean"].get<double>());
    CHECK(search["mean_completion_time_s"][k] == means.back());
  }
  const auto fastest = std::min_element(means.begin(), means.end()) - means.begin();
  CHECK(search["chosen_factor"] == search["factors"][static_cast<std::size_t>(fastest)]);
  // The factor-1 candidate is a plain Daly run of the same scenario, replica for replica.
  const Json daly = run(write_scenario(dir.path(), R"({"policy": "daly", "write_s": 4,
      "restart_s": 20})",
                                       8, 300),
                        dir / "daly.json");
  CHECK(daly["points"][0]["replicas"] == results["points"][1]["replicas"]);
}

TEST_CASE("under exponential failures the simulated optimum matches Daly's interval") {
  TempDirectory dir;
  const Json results = run(write_scenario(dir.path(), R"({"policy": "optimal_simulated",
      "write_s": 4, "restart_s": 20})"),
                           dir / "out.json");
  const Json& search = results["checkpoint_search"][0];
  const Json& factors = search["factors"];
  const auto index_of = [&](double factor) {
    return static_cast<std::size_t>(std::find(factors.begin(), factors.end(), factor) -
                                    factors.begin());
  };
  const std::size_t daly = index_of(1.0);
  const std::size_t chosen = index_of(search["chosen_factor"].get<double>());
  CAPTURE(search.dump());
  CHECK(std::abs(std::log2(search["chosen_factor"].get<double>())) <= 1.0);
  const auto mean = [&](std::size_t k) {
    return search["mean_completion_time_s"][k].get<double>();
  };
  const auto ci = [&](std::size_t k) { return search["ci95_completion_time_s"][k].get<double>(); };
  CHECK(mean(daly) - mean(chosen) <= ci(daly) + ci(chosen));
  // The extremes are clearly slower: the search resolves the optimum.
  CHECK(mean(0) > mean(daly) + ci(0) + ci(daly));
  CHECK(mean(factors.size() - 1) > mean(daly) + ci(factors.size() - 1) + ci(daly));
}

TEST_CASE("bad search settings exit 2 with the pointer and write nothing") {
  TempDirectory dir;
  const auto refused = [&](const std::string& checkpoint, const std::string& pointer) {
    const fs::path out = dir / "out.json";
    const CliResult r =
        cli({"run", write_scenario(dir.path(), checkpoint).string(), "-o", out.string(), "-q"});
    INFO(r.err);
    CHECK(r.code == 2);
    CHECK(r.err.find(": " + pointer + ": ") != std::string::npos);
    CHECK_FALSE(fs::exists(out));
  };
  refused(R"({"policy": "optimal_simulated", "search_factors": [1], "write_s": 4})",
          "/checkpoint/search_factors");
  refused(R"({"policy": "optimal_simulated", "search_factors": [2, 1], "write_s": 4})",
          "/checkpoint/search_factors/1");
  refused(R"({"policy": "optimal_simulated", "search_factors": [0, 1], "write_s": 4})",
          "/checkpoint/search_factors/0");
  refused(R"({"policy": "optimal_simulated"})", "/checkpoint/write_s");
  refused(R"({"policy": "daly", "interval_factor": 0, "write_s": 4})",
          "/checkpoint/interval_factor");
}
