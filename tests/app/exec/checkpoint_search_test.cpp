// checkpoint.policy = "optimal_simulated": one candidate point per factor of Daly's interval, on
// common random numbers, the fastest named in the results with its paired difference to Daly's;
// under exponential failures it agrees with Daly's interval, under Weibull up times of shape 0.7
// on a job shorter than a node's mean up time it beats it; bad search settings stop the run
// before it starts.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
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

/// 64 nodes whose up times have mean 64,000 s (Daly's MTBF: 1000 s) under `failure`, every crash
/// rolling back a job of 300 iterations of 10 s (3000 s of work, a twentieth of a node's mean up
/// time); 200 replicas.
fs::path write_fleet_scenario(const fs::path& directory, const std::string& failure) {
  const fs::path path = directory / "fleet.json";
  std::ofstream(path) << R"({"name": "fleet", "seed": 7, "replicas": 200,
    "cluster": {"nodes": 64, "speed_flops_per_s": 1e9,
                "crashes": {"failure": )"
                      << failure << R"(, "repair_s": 60}},
    "checkpoint": {"policy": "optimal_simulated", "write_s": 10, "restart_s": 20},
    "workload": {"kind": "iterative_job", "iterations": 300, "task_flops": 1e10}})";
  return path;
}

Json run(const fs::path& scenario, const fs::path& output) {
  const CliResult r = cli({"run", scenario.string(), "-o", output.string(), "-q", "--jobs", "2"});
  INFO(r.err);
  REQUIRE(r.code == 0);
  return Json::parse(read_file(output));
}

/// A search over `factors` (a JSON array) with 4 s writes and 20 s restarts on write_scenario's
/// job, its results written to `name`.
Json run_search(const TempDirectory& dir, const std::string& factors, int replicas, int iterations,
                const std::string& name = "out.json") {
  return run(write_scenario(dir.path(),
                            R"({"policy": "optimal_simulated", "search_factors": )" + factors +
                                R"(, "write_s": 4, "restart_s": 20})",
                            replicas, iterations),
             dir / name);
}

}  // namespace

TEST_CASE("a search runs one point per factor on common random numbers and names the fastest") {
  TempDirectory dir;
  const Json results = run_search(dir, "[0.25, 1, 4]", 8, 300);
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

TEST_CASE("the paired difference to Daly's is each candidate's mean per-replica difference") {
  TempDirectory dir;
  const Json results = run_search(dir, "[0.5, 1, 2]", 6, 200);
  const Json& search = results["checkpoint_search"][0];
  for (std::size_t k = 0; k < 3; ++k) {
    double sum = 0.0;
    for (std::size_t i = 0; i < 6; ++i) {
      sum += results["points"][k]["replicas"][i]["completion_time_s"].get<double>() -
             results["points"][1]["replicas"][i]["completion_time_s"].get<double>();
    }
    CHECK(search["difference_to_daly_s"][k].get<double>() == doctest::Approx(sum / 6));
    CHECK(search["ci95_difference_to_daly_s"][k].get<double>() >= 0.0);
  }
  CHECK(search["difference_to_daly_s"][1] == 0.0);
  CHECK(search["ci95_difference_to_daly_s"][1] == 0.0);
  // Without factor 1 there is nothing to pair with.
  const Json without = run_search(dir, "[0.5, 2]", 2, 50, "without.json");
  CHECK(without["checkpoint_search"][0]["difference_to_daly_s"] == Json::array({nullptr, nullptr}));
}

namespace {

/// The chosen factor's paired difference to Daly's interval and its 95% half-width.
std::pair<double, double> chosen_difference(const Json& search) {
  const Json& factors = search["factors"];
  const auto k = static_cast<std::size_t>(
      std::find(factors.begin(), factors.end(), search["chosen_factor"]) - factors.begin());
  return {search["difference_to_daly_s"][k].get<double>(),
          search["ci95_difference_to_daly_s"][k].get<double>()};
}

}  // namespace

TEST_CASE("under Weibull up times of shape 0.7 the simulated optimum beats Daly's interval") {
  // Every node starts new: with shape 0.7 a young node fails far more often than its mean up
  // time says (the hazard falls with age), so on a job of a twentieth of that mean the fleet
  // fails about 2.7 times as often as Daly's MTBF of 1000 s assumes, and a shorter interval wins.
  TempDirectory dir;
  // scale_s 50,565 = 64,000 / Gamma(1 + 1 / 0.7): the same mean as the exponential below.
  const Json weibull =
      run(write_fleet_scenario(dir.path(), R"({"law": "weibull", "shape": 0.7, "scale_s": 50565})"),
          dir / "weibull.json");
  const Json& search = weibull["checkpoint_search"][0];
  CAPTURE(search.dump());
  CHECK(search["chosen_factor"].get<double>() < 1.0);
  const auto [difference_s, ci_s] = chosen_difference(search);
  CHECK(difference_s + ci_s < 0.0);  // faster than Daly's, beyond the paired 95% interval
  // The same fleet with exponential up times of the same mean: Daly's interval is the fastest,
  // and no candidate beats it beyond its paired interval.
  const Json exponential =
      run(write_fleet_scenario(dir.path(), R"({"law": "exponential", "mean_s": 64000})"),
          dir / "exponential.json");
  const Json& control = exponential["checkpoint_search"][0];
  CAPTURE(control.dump());
  CHECK(control["chosen_factor"] == 1.0);
  for (const Json& difference : control["difference_to_daly_s"]) CHECK(difference >= 0.0);
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
  // 40,000 factors took 30 s to validate and got past the sweep's limit of 10,000 points.
  std::string many = "[";
  for (int k = 1; k <= 10001; ++k) {
    if (k > 1) many += ',';
    many += std::to_string(k);  // appends: GCC 12 warns falsely on chained concatenation
  }
  many += "]";
  refused(R"({"policy": "optimal_simulated", "write_s": 4, "search_factors": )" + many + "}",
          "/checkpoint/search_factors");
}
