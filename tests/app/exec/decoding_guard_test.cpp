// The decoding guard: per-point condition numbers recorded for the results and the warnings for
// ill-conditioned decoding systems.
#include <doctest/doctest.h>

#include "app/exec/decoding_guard.hpp"

namespace {

using codesim::app::Experiment;
using codesim::app::ExperimentPoint;
using codesim::app::Json;
using codesim::app::Scenario;

Scenario training(const codesim::models::SchemeSpec& scheme) {
  Scenario scenario;
  codesim::app::TrainingWorkload training;
  codesim::models::TrainingSpec& spec = training.spec;
  spec.mlp.layer_sizes = {64, 32, 16};
  spec.scheme = scheme;
  scenario.workload = training;
  return scenario;
}

}  // namespace

TEST_CASE("a well-conditioned GPD point records its condition numbers and warns of nothing") {
  const auto guard =
      codesim::app::guard_scenario(training(codesim::models::gpd_spec(2, 2, 8)), "point 0");
  CHECK(guard.warnings.empty());
  const Json& record = guard.record;
  CHECK(record["ill_conditioned"] == false);
  CHECK(record["target_relative_accuracy"].get<double>() == 1e-8);
  const double forward = record["decode_condition"]["forward"].get<double>();
  const double backward = record["decode_condition"]["backward"].get<double>();
  CHECK(forward >= 1.0);
  CHECK(forward < 1e4);
  CHECK(backward >= 1.0);
  REQUIRE(record["layers"].size() == 2);
  CHECK(record["layers"][1]["layer"] == 1);
  CHECK(record["layers"][1]["forward"].get<double>() == forward);
  CHECK(record["layers"][0]["backward"].get<double>() == backward);
}

TEST_CASE("an ill-conditioned GPD point is flagged with one warning per layer and direction") {
  // (m, n) = (4, 8) on 64 nodes: K = 39 forward, 56 backward; monomial decoding from real points
  // is conditioned far beyond 1e8.
  const auto guard =
      codesim::app::guard_scenario(training(codesim::models::gpd_spec(4, 8, 64)), "point 3 (gp)");
  CHECK(guard.record["ill_conditioned"] == true);
  REQUIRE(guard.warnings.size() == 4);
  const std::string& first = guard.warnings[0];
  CHECK(first.find("warning: point 3 (gp): decoding of layer 0 (forward) has condition number ") ==
        0);
  CHECK(first.find(": results may lose accuracy beyond 1e-8 relative") != std::string::npos);
  CHECK(guard.warnings[3].find("layer 1 (backward)") != std::string::npos);
  const Json& worst = guard.record["decode_condition"]["backward"];
  CHECK((worst.is_null() || worst.get<double>() > 1e8));
}

TEST_CASE("schemes that compare copies record condition one and a job workload records null") {
  const auto replication =
      codesim::app::guard_scenario(training(codesim::models::replication_spec(2, 2, 2)), "p");
  CHECK(replication.warnings.empty());
  CHECK(replication.record["decode_condition"]["forward"].get<double>() == 1.0);
  CHECK(replication.record["ill_conditioned"] == false);
  Scenario job;
  job.workload = codesim::sim::IterativeJobSpec{};
  const auto none = codesim::app::guard_scenario(job, "p");
  CHECK(none.record.is_null());
  CHECK(none.warnings.empty());
}

TEST_CASE("an experiment's guard has one record per point and names points by index and label") {
  Experiment experiment;
  ExperimentPoint good;
  good.scenario = training(codesim::models::mds_spec(16, 64));
  ExperimentPoint bad;
  bad.scenario = training(codesim::models::gpd_spec(4, 8, 64));
  bad.label = "gpd 4x8";
  experiment.points = {good, bad};
  const auto guard = codesim::app::guard_experiment(experiment);
  REQUIRE(guard.records.size() == 2);
  CHECK(guard.records[0]["ill_conditioned"] == false);
  CHECK(guard.records[1]["ill_conditioned"] == true);
  REQUIRE(guard.warnings.size() == 4);
  for (const std::string& line : guard.warnings) {
    CHECK(line.find("warning: point 1 (gpd 4x8): ") == 0);
  }
  CHECK(codesim::app::guard_point_name(good, 0) == "point 0");
  // Deterministic: the same experiment gives the same records.
  CHECK(codesim::app::guard_experiment(experiment).records[1].dump() == guard.records[1].dump());
}
