// Stage 3 of codesim advise (--confirm): the verdict on a configuration's numeric replicas, and
// the leaders trained beside an error-free reference, ranked by time to accuracy on request.
#include "app/advise/strategy_confirmation.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include "app/advise/advice.hpp"
#include "app/exec/runner.hpp"

namespace codesim::app {
namespace {

/// One replica of a results file: its final accuracy, silent corruptions and accuracy series.
Json replica(double accuracy, double silent, std::vector<std::pair<double, double>> series) {
  Json rows = Json::array();
  for (const auto& [time_s, a] : series) rows.push_back({time_s, 0, a, 1.0, 0.0});
  return {{"completed", 1.0},
          {"final_test_accuracy", accuracy},
          {"silent_corruptions", silent},
          {"detected", 2.0},
          {"rollbacks", 1.0},
          {"accuracy_vs_time",
           {{"columns", {"time_s", "iteration", "test_accuracy", "train_loss", "energy_J"}},
            {"rows", rows}}}};
}

/// Numeric training on synthetic data (milliseconds a run) on 6 nodes with weight soft errors.
Json numeric_scenario() {
  return Json::parse(R"({"name": "numeric", "seed": 5, "replicas": 2,
    "cluster": {"nodes": 6},
    "checkpoint": {"policy": "every_iterations", "every_iterations": 10, "write_s": 1e-4,
                   "restart_s": 1e-4},
    "workload": {"kind": "training", "layers": [8, 12, 4], "iterations": 60, "eval_every": 10,
                 "learning_rate": 0.05,
                 "dataset": {"kind": "synthetic", "features": 8, "classes": 4, "samples": 80,
                             "test_samples": 40}},
    "strategy": {"scheme": "uncoded", "m": 1, "n": 1},
    "faults": {"targets": {"weights": {"probability_per_operation": 0.001}}}})");
}

}  // namespace

TEST_CASE("numeric replicas are confirmed unless they lose accuracy or corrupt silently") {
  const Json good = Json::array({replica(0.90, 0, {{0, 0.2}, {1, 0.85}, {2, 0.9}}),
                                 replica(0.92, 0, {{0, 0.2}, {1.5, 0.88}, {2, 0.92}})});
  const Confirmation ok = judge_replicas(good, 0.91, 0.85);
  CHECK(!ok.demoted);
  CHECK(ok.verdict == "confirmed");
  CHECK(ok.accuracy == doctest::Approx(0.91));
  CHECK(ok.time_to_accuracy_s == doctest::Approx(1.25));  // 1 s and 1.5 s
  CHECK(ok.decode_failures == 4.0);
  CHECK(ok.rollbacks == 2.0);
  // One point below the reference less the tolerance loses accuracy.
  const Confirmation worse = judge_replicas(good, 0.91 + kAccuracyTolerance + 0.005, 0.85);
  CHECK(worse.demoted);
  CHECK(worse.verdict.starts_with("lost accuracy"));
  const Json silent = Json::array({replica(0.91, 1, {{0, 0.2}, {1, 0.9}})});
  CHECK(judge_replicas(silent, 0.91, 0.85).verdict == "corrupted silently in numeric training");
  // A replica that never reaches the target makes the time to it infinite.
  CHECK(std::isinf(judge_replicas(good, 0.91, 0.95).time_to_accuracy_s));
}

TEST_CASE("the error-free reference keeps the strategy and drops every fault and crash") {
  Json document = numeric_scenario();
  document["cluster"]["crashes"] = {{"mtbf_s", 10}};
  document["cluster"]["overrides"] = Json::parse(R"([{"nodes": [0], "crashes": {"mtbf_s": 1}}])");
  const Json reference = reference_document(document);
  CHECK(!reference.contains("faults"));
  CHECK(!reference["cluster"].contains("crashes"));
  CHECK(!reference["cluster"]["overrides"][0].contains("crashes"));
  CHECK(reference["strategy"] == document["strategy"]);
}

TEST_CASE("--confirm trains the leaders in numeric mode and time to accuracy reorders them") {
  AdviseOptions options;
  options.confirm = 3;
  options.objective = AdviseObjective::time_to_accuracy;
  options.target_accuracy = 0.3;
  const Advice advice = advise(make_experiment(numeric_scenario(), "numeric.json"), options);
  REQUIRE(advice.confirmation);
  CHECK(advice.confirmation->reference_accuracy > 0.25);  // 4 classes: better than chance
  std::vector<const AdvisedConfiguration*> confirmed;
  for (const AdvisedConfiguration& c : advice.configurations) {
    if (!c.confirmed) continue;
    CHECK(c.stage == AdviseStage::confirmation);
    CHECK(c.confirmed->replicas == 2);
    confirmed.push_back(&c);
  }
  REQUIRE(confirmed.size() == 3);
  std::sort(confirmed.begin(), confirmed.end(),
            [](const auto* a, const auto* b) { return a->rank < b->rank; });
  // The kept ones lead, fastest to the target first; the demoted follow every other.
  CHECK(confirmed.front()->rank == 1);
  for (std::size_t i = 1; i < confirmed.size(); ++i) {
    CAPTURE(confirmed[i]->label);
    if (confirmed[i]->confirmed->demoted || confirmed[i - 1]->confirmed->demoted) continue;
    CHECK(confirmed[i - 1]->confirmed->time_to_accuracy_s <=
          confirmed[i]->confirmed->time_to_accuracy_s);
  }
  CHECK(&advice.configurations[advice.recommended] == confirmed.front());
  CHECK(to_json(advice)["configurations"]["columns"].back() == "confirmed");
}

}  // namespace codesim::app
