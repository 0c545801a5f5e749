// Runs that once looped forever: a checkpoint poisoned by a regeneration nobody re-checked, and
// rollbacks that can never get further. They must finish, or stop with a reason.
#include <doctest/doctest.h>

#include <string>

#include "app/exec/runner.hpp"

using codesim::app::Json;

namespace {

// 784-40-40-10 on MNIST, CodeNet 7x6 (5, 4) on 40 nodes, a checkpoint every 10 iterations,
// weights struck at eps = 3e-3, seed 1: before the verification pass re-checked its
// regenerations, the checkpoint of iteration 440 held a block the code disagreed with and every
// later rollback restored it (441 iterations never ended).
Json poisoned_checkpoint_case(double eps) {
  return Json::parse(R"({
    "name": "livelock", "seed": 1, "replicas": 1,
    "cluster": {"nodes": 40},
    "checkpoint": {"policy": "every_iterations", "every_iterations": 10, "write_s": 0.001,
                   "restart_s": 0.001},
    "workload": {"kind": "training", "dataset": {"kind": "mnist"}, "layers": [784, 40, 40, 10],
                 "learning_rate": 0.01, "iterations": 441, "time_limit_s": 1e6},
    "strategy": {"scheme": "codenet_grid", "m": 5, "n": 4, "grid_rows": 7, "grid_cols": 6},
    "faults": {"targets": {"weights": {"probability_per_operation": )" +
                     std::to_string(eps) + "}}}}");
}

Json first_replica(const Json& scenario) {
  const auto experiment = codesim::app::make_experiment(scenario, "livelock.json");
  return codesim::app::run_experiment(experiment).results["points"][0]["replicas"][0];
}

}  // namespace

TEST_CASE(
    "a run whose verification pass corrects an error finishes with the fault-free "
    "accuracy") {
  const Json struck = first_replica(poisoned_checkpoint_case(3e-3));
  const Json clean = first_replica(poisoned_checkpoint_case(0.0));
  CHECK(struck["completed"] == 1.0);
  CHECK(struck["iterations"] == 441.0);
  CHECK(struck["corrected"].get<double>() > 0);
  CHECK(struck["checkpoint_fallbacks"] == 0.0);
  CHECK(struck["final_test_accuracy"].get<double>() ==
        doctest::Approx(clean["final_test_accuracy"].get<double>()).epsilon(0.01));
  CHECK(clean["final_test_accuracy"].get<double>() > 0.5);
}

TEST_CASE("a run that rolls back without progress falls back, then stops with a reason") {
  // A learning rate of 10 diverges at the same iteration after every rollback: the decodes
  // see absurd magnitudes and detect them, with no fault at all.
  Json scenario = poisoned_checkpoint_case(0.0);
  scenario["workload"]["learning_rate"] = 10;
  scenario["workload"]["iterations"] = 100;
  const Json replica = first_replica(scenario);
  CHECK(replica["completed"] == 0.0);
  CHECK(replica["completion_time_s"].get<double>() < 1e6);
  REQUIRE(replica.contains("stop_reason"));
  CHECK(replica["stop_reason"].get<std::string>().find("no progress from the initial state") == 0);
}

TEST_CASE("an iterative job in a failure storm stops with its reason") {
  // Tasks of 1 us; up and repair times of 1 ns: a task never ends (preflight's event bound,
  // 2e9 events per simulated second over at least 1 us of work, lets it through). The job
  // restarts at every crash and never rolls back, so only the storm guard stops it.
  const Json scenario = Json::parse(R"({
    "name": "storm", "seed": 1, "replicas": 1,
    "cluster": {"nodes": 2, "crashes": {"mtbf_s": 1e-9, "repair_s": 1e-9}},
    "checkpoint": {"policy": "every_iterations", "every_iterations": 1, "restart_s": 1e-6},
    "workload": {"iterations": 1, "tasks": 2, "task_flops": 1000}
  })");
  const Json replica = first_replica(scenario);
  CHECK(replica["completed"] == 0.0);
  CHECK(replica["iterations_done"] == 0.0);
  REQUIRE(replica.contains("stop_reason"));
  CHECK(replica["stop_reason"].get<std::string>().find("failure storm: 100000000") == 0);
}
