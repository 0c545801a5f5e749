// The experiment runner: common random numbers across sweep points and replica numbering.
#include <doctest/doctest.h>

#include "app/runner.hpp"

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
