// The experiment runner: common random numbers across sweep points and replica numbering.
#include <doctest/doctest.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <string>

#include "app/config/scenario_error.hpp"
#include "app/exec/preflight.hpp"
#include "app/exec/runner.hpp"
#include "app/exec/unit_executor.hpp"

using codesim::app::Json;

namespace {

/// An iterative job with stragglers and soft errors but no crashes, so the repair time is
/// irrelevant, and one relevant knob (the task size).
Json job_with_sweep(const Json& sweep) {
  Json document = Json::parse(R"({
    "name": "crn", "seed": 11, "replicas": 3,
    "cluster": {"nodes": 5, "stragglers": {"kind": "shifted_exponential", "shift": 1, "rate": 1},
                "soft_errors": {"probability_per_operation": 0.05}},
    "checkpoint": {"policy": "every_iterations", "every_iterations": 3, "write_s": 0.2},
    "workload": {"iterations": 20, "wait_for": 4}
  })");
  document["sweep"] = sweep;
  return document;
}

}  // namespace

TEST_CASE("points differing only in a parameter that does not matter give identical replicas") {
  const auto experiment = codesim::app::make_experiment(
      job_with_sweep(Json::parse(R"({"grid": {"/cluster/crashes/repair_s": [1, 50]}})")), "t");
  const Json results = codesim::app::run_experiment(experiment).results;
  REQUIRE(results["points"].size() == 2);
  CHECK(results["points"][0]["replicas"].dump() == results["points"][1]["replicas"].dump());
  // ... while the replicas of one point differ from each other.
  CHECK(results["points"][0]["replicas"][0]["completion_time_s"] !=
        results["points"][0]["replicas"][1]["completion_time_s"]);
}

TEST_CASE("points differing in a parameter that matters share their random draws") {
  // Doubling every task's flops doubles every task's duration under the same straggler draws,
  // so compute time doubles exactly, replica by replica.
  const auto experiment = codesim::app::make_experiment(
      job_with_sweep(Json::parse(R"({"grid": {"/workload/task_flops": [1e9, 2e9]}})")), "t");
  const Json results = codesim::app::run_experiment(experiment).results;
  for (int r = 0; r < 3; ++r) {
    CAPTURE(r);
    const double one = results["points"][0]["replicas"][r]["time_compute_s"];
    const double two = results["points"][1]["replicas"][r]["time_compute_s"];
    CHECK(two == doctest::Approx(2 * one).epsilon(1e-12));
  }
}

TEST_CASE("a run's own stop flag stops it alone and keeps the replicas that finished") {
  const auto experiment = codesim::app::make_experiment(
      job_with_sweep(Json::parse(R"({"grid": {"/cluster/nodes": [5, 6]}})")), "t.json");
  const Json whole = codesim::app::run_experiment(experiment).results;
  std::atomic<bool> stop{false};
  codesim::app::RunOptions options;
  options.stop = &stop;
  options.on_progress = [&stop](const codesim::app::RunProgress& progress) {
    if (progress.units_done == 2) stop = true;
  };
  const Json stopped = codesim::app::run_experiment(experiment, options).results;
  CHECK_FALSE(stopped["complete"].get<bool>());
  CHECK(stopped["points"][0]["replicas"] ==
        Json::array({whole["points"][0]["replicas"][0], whole["points"][0]["replicas"][1]}));
  CHECK(stopped["points"][1]["replicas"].empty());
  CHECK_FALSE(codesim::app::stop_requested());  // the process-wide request is untouched
  CHECK(codesim::app::run_experiment(experiment).results == whole);
}

TEST_CASE("an invalid value in one sweep point names the point") {
  try {
    codesim::app::make_experiment(
        job_with_sweep(Json::parse(R"({"grid": {"/cluster/nodes": [4, -1]}})")), "t.json");
    FAIL("expected an error");
  } catch (const std::exception& e) {
    CHECK(std::string(e.what()).find(
              "t.json: /cluster/nodes: in sweep point 1 (/cluster/nodes=-1)") == 0);
  }
}

TEST_CASE("an error inside a swept value names where the value is in the file") {
  const auto message = [](const char* sweep) {
    try {
      codesim::app::make_experiment(job_with_sweep(Json::parse(sweep)), "t.json");
    } catch (const codesim::app::ScenarioError& e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  CHECK(message(R"({"zip": [{"/label": ["a", "b"],
                             "/checkpoint": [{"policy": "none"},
                                             {"policy": "every_iterations", "every_iterations": 0}]}]})") ==
        "t.json: /checkpoint/every_iterations: in sweep point 1 (b), swept at "
        "/sweep/zip/0/~1checkpoint/1/every_iterations: value 0 is out of range (expected an "
        "integer in [1, 1000000000])");
  CHECK(message(R"({"grid": {"/cluster/nodes": [4, -1]}})") ==
        "t.json: /cluster/nodes: in sweep point 1 (/cluster/nodes=-1), swept at "
        "/sweep/grid/~1cluster~1nodes/1: value -1 is out of range (expected an integer in [1, "
        "100000])");
  // An error elsewhere than the swept values names the point only.
  CHECK(message(R"({"grid": {"/checkpoint/bytes": [0, 1]}})")
            .starts_with("t.json: /checkpoint/write_bandwidth_Bps: in sweep point 1 "
                         "(/checkpoint/bytes=1): checkpoint bytes need a write bandwidth"));
}

namespace {

Json small_training() {
  return Json::parse(R"({
    "name": "pre", "seed": 1, "replicas": 4, "cluster": {"nodes": 6},
    "workload": {"kind": "training",
                 "dataset": {"kind": "synthetic", "features": 12, "classes": 3, "samples": 100,
                             "test_samples": 20},
                 "layers": [12, 8, 3], "iterations": 10},
    "strategy": {"scheme": "replication", "m": 1, "n": 2, "copies": 3}
  })");
}

}  // namespace

TEST_CASE("preflight estimates stored blocks, data and flops from the scheme and layers") {
  const auto experiment = codesim::app::make_experiment(small_training(), "t.json");
  const auto estimate = codesim::app::estimate_run(experiment, 2);
  // Three copies of 8 x 12 + 3 x 8 weights, 8 bytes each.
  CHECK(estimate.blocks_bytes == doctest::Approx(3 * 120 * 8));
  CHECK(estimate.dataset_bytes == doctest::Approx(100 * 12 * 8));
  CHECK(estimate.concurrent_replicas == 2);
  // Per replica: the blocks, the largest layer's working copy and the buffers of a batch of 1
  // ((3 + 6 nodes) (rows + cols) per layer).
  CHECK(estimate.batch_bytes == doctest::Approx(9 * ((8 + 12) + (3 + 8)) * 8));
  CHECK(estimate.memory_bytes ==
        doctest::Approx(100 * 12 * 8 + 2 * (3 * 120 * 8 + 96 * 8 + 9 * 31 * 8)));
  // Forward, backward and update: 2 flops per stored value each, plus the input encodings of
  // the 6 nodes (2 (N_out + N_in) per layer), for 10 iterations of 4 replicas.
  const double per_iteration = 6.0 * 360 + 2.0 * 6 * (8 + 12) + 2.0 * 6 * (3 + 8);
  CHECK(estimate.flops == doctest::Approx(per_iteration * 10 * 4));
}

TEST_CASE("preflight refuses a run that does not fit in the available memory") {
  const auto experiment = codesim::app::make_experiment(small_training(), "t.json");
  const auto estimate = codesim::app::estimate_run(experiment, 1);
  CHECK_NOTHROW(codesim::app::check_memory(experiment, estimate, 1e9));
  try {
    codesim::app::check_memory(experiment, estimate, 1000);
    FAIL("expected a refusal");
  } catch (const codesim::app::ScenarioError& e) {
    CHECK(e.pointer() == "/workload/dataset");  // the largest part here
    CHECK(e.message().find("the run needs about") == 0);
    CHECK(e.message().find("(expected fewer --jobs") != std::string::npos);
  }
}

TEST_CASE("preflight counts the batch and points at it when its buffers dominate") {
  Json scenario = small_training();
  scenario["workload"]["batch"] = 100000;
  const auto experiment = codesim::app::make_experiment(scenario, "t.json");
  const auto estimate = codesim::app::estimate_run(experiment, 1);
  CHECK(estimate.batch_bytes == doctest::Approx(9 * 31 * 8 * 1e5));
  try {
    codesim::app::check_memory(experiment, estimate, 1e8);
    FAIL("expected a refusal");
  } catch (const codesim::app::ScenarioError& e) {
    CHECK(e.pointer() == "/workload/batch");
    CHECK(e.message().find("of batch buffers") != std::string::npos);
  }
}

TEST_CASE("preflight refuses a run whose expected time is far beyond its time limit") {
  Json scenario = Json::parse(R"({
    "name": "never", "seed": 1, "replicas": 1,
    "cluster": {"nodes": 4, "soft_errors": {"probability_per_operation": 1e-3}},
    "workload": {"iterations": 10, "tasks": 10000000}
  })");
  const auto hopeless = codesim::app::make_experiment(scenario, "t.json");
  try {
    codesim::app::check_expected_time(hopeless);
    FAIL("expected a refusal");
  } catch (const codesim::app::ScenarioError& e) {
    CHECK(e.pointer() == "/workload/time_limit_s");
    CHECK(e.message().find("the run cannot finish") == 0);
    CHECK(e.message().find("--force") != std::string::npos);
  }
  scenario["allow_unfinished"] = true;
  CHECK_NOTHROW(codesim::app::check_expected_time(codesim::app::make_experiment(scenario, "t")));
  scenario["allow_unfinished"] = false;
  scenario["workload"]["tasks"] = 100;  // an iteration is clean with probability 0.9
  CHECK_NOTHROW(codesim::app::check_expected_time(codesim::app::make_experiment(scenario, "t")));
}

TEST_CASE("preflight refuses failures and repairs too dense for the engine, at their cause") {
  // 4 nodes x 10000 tasks of 1e9 flops at 1e9 flop/s: at least 2500 s of work per iteration.
  Json scenario = Json::parse(R"({
    "name": "storm", "seed": 1, "replicas": 1,
    "cluster": {"nodes": 4, "crashes": {"mtbf_s": 1e-300, "repair_s": 1e-300}},
    "workload": {"iterations": 10, "tasks": 10000}
  })");
  const auto refused_at = [](const Json& s) -> std::string {
    try {
      codesim::app::check_failure_events(codesim::app::make_experiment(s, "t.json"));
    } catch (const codesim::app::ScenarioError& e) {
      CHECK(e.message().find("the run cannot finish: its failures and repairs come") == 0);
      CHECK(e.message().find("--force") != std::string::npos);
      return e.pointer();
    }
    return "";
  };
  CHECK(refused_at(scenario) == "/cluster/crashes");
  // 1e-3 s cycles: 8000 events per simulated second over at least 25000 s: 2e8, allowed.
  scenario["cluster"]["crashes"] = Json::parse(R"({"mtbf_s": 5e-4, "repair_s": 5e-4})");
  CHECK(refused_at(scenario).empty());
  scenario["workload"]["iterations"] = 100;  // 2e9
  CHECK(refused_at(scenario) == "/cluster/crashes");
  scenario["workload"]["time_limit_s"] = 1000.0;  // the run stops at 1000 s: 8e6
  CHECK(refused_at(scenario).empty());
  scenario["workload"].erase("time_limit_s");
  scenario["allow_unfinished"] = true;
  CHECK(refused_at(scenario).empty());
  scenario["allow_unfinished"] = false;
  scenario["cluster"]["crashes"] = Json::parse(R"({"mtbf_s": 10, "repair_s": 1})");
  scenario["cluster"]["domains"] = Json::parse(
      R"([{"name": "rack", "nodes": [0, 1], "failure": {"law": "exponential", "mean_s": 1e-9},
           "repair": {"law": "fixed", "value_s": 1e-9}}])");
  CHECK(refused_at(scenario) == "/cluster/domains");
}

TEST_CASE("no shipped scenario makes failure events too dense for preflight") {
  int scenarios = 0;
  const auto directory = std::filesystem::path(CODESIM_SOURCE_DIR) / "scenarios";
  for (const auto& entry : std::filesystem::directory_iterator(directory)) {
    if (entry.path().extension() != ".json") continue;
    ++scenarios;
    std::ifstream file(entry.path());
    const Json scenario = Json::parse(file);
    INFO(entry.path().string());
    CHECK_NOTHROW(codesim::app::check_failure_events(
        codesim::app::make_experiment(scenario, entry.path().string())));
  }
  CHECK(scenarios >= 10);
}

TEST_CASE("the machine's measured throughput is a plausible number") {
  const double rate = codesim::app::measured_flops_per_s();
  CHECK(rate > 1e7);
  CHECK(rate < 1e12);
  CHECK(codesim::app::describe_duration(90) == "about 90 s");
  CHECK(codesim::app::describe_duration(600) == "about 10 min");
  CHECK(codesim::app::describe_duration(3 * 3600) == "about 3 h");
}

TEST_CASE("a scheme field in a swept strategy that does not fit a layer is located in the sweep") {
  Json document = small_training();
  document["sweep"] = Json::parse(R"({"zip": [{"/strategy": [
      {"scheme": "replication", "m": 1, "n": 2, "copies": 3},
      {"scheme": "uncoded", "m": 5, "n": 1}]}]})");
  try {
    codesim::app::make_experiment(document, "t.json");
    FAIL("expected an error");
  } catch (const codesim::app::ScenarioError& e) {
    CHECK(e.pointer() == "/strategy/m");
    CHECK(std::string(e.what()).starts_with(
        "t.json: /strategy/m: in sweep point 1 "
        "(/strategy={\"scheme\":\"uncoded\",\"m\":5,\"n\":1}), "
        "swept at /sweep/zip/0/~1strategy/1/m: layer 0 (8 x 12): m = 5 does not divide rows = 8"));
  }
}
