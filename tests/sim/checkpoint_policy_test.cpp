// Checkpoint policies: write cost, Young and Daly intervals and Daly's expected completion time
// against hand-computed values, when each policy is due, and validation messages.
#include "sim/checkpoint_policy.hpp"
#include "sim/enum_names.hpp"
#include "sim/iterative_job.hpp"
#include "sim/topology.hpp"

#include <doctest/doctest.h>

#include <cmath>

using namespace codesim::sim;

TEST_CASE("the write cost adds the bandwidth term only when a bandwidth is given") {
  CheckpointSpec spec;
  spec.write_s = 2.0;
  spec.bytes = 8e9;
  CHECK(checkpoint_write_cost_s(spec) == 2.0);
  spec.write_bandwidth_Bps = 1e9;
  CHECK(checkpoint_write_cost_s(spec) == 10.0);
}

TEST_CASE("Young's interval is sqrt(2 delta M)") {
  // sqrt(2 * 60 * 86400) = sqrt(10368000) = 3219.9378876
  CHECK(young_interval_s(60.0, 86400.0) == doctest::Approx(3219.9378876).epsilon(1e-10));
  CHECK(young_interval_s(50.0, 100.0) == doctest::Approx(100.0));
  CHECK(std::isinf(young_interval_s(60.0, INFINITY)));
}

TEST_CASE("Daly's interval adds the higher-order terms for delta < 2M") {
  // sqrt(delta/2M) = sqrt(60/172800) = 0.0186339; 1 + 0.0186339/3 + 60/1555200 = 1.00624988;
  // 3219.9378876 * 1.00624988 - 60 = 3180.0621136
  CHECK(daly_interval_s(60.0, 86400.0) == doctest::Approx(3180.0621136).epsilon(1e-10));
  // delta = 50, M = 100: sqrt(1e4) (1 + 0.5/3 + 50/1800) - 50 = 100 * 1.19444... - 50 = 69.444...
  CHECK(daly_interval_s(50.0, 100.0) == doctest::Approx(69.4444444444));
  CHECK(std::isinf(daly_interval_s(60.0, INFINITY)));
}

TEST_CASE("Daly's interval is M once the write cost reaches 2M") {
  CHECK(daly_interval_s(200.0, 100.0) == 100.0);
  CHECK(daly_interval_s(500.0, 100.0) == 100.0);
  CHECK(daly_interval_s(199.0, 100.0) != 100.0);
}

TEST_CASE("Daly's expected completion time matches a hand-computed value") {
  // W = 36000, tau = 3000, delta = 60, R = 120, M = 86400:
  // 86400 * e^(120/86400) * (e^(3060/86400) - 1) * 36000/3000 = 37429.94497
  CHECK(daly_expected_completion_s(36000.0, 3000.0, 60.0, 120.0, 86400.0) ==
        doctest::Approx(37429.944966).epsilon(1e-9));
  // Without failures it is the work plus one write per interval.
  CHECK(daly_expected_completion_s(36000.0, 3000.0, 60.0, 120.0, INFINITY) ==
        doctest::Approx(36720.0));
  // A huge MTBF approaches that limit.
  CHECK(daly_expected_completion_s(36000.0, 3000.0, 60.0, 120.0, 1e12) ==
        doctest::Approx(36720.0).epsilon(1e-6));
  // Daly's interval does better than checkpointing much more or much less often.
  const double tau = daly_interval_s(60.0, 86400.0);
  const double best = daly_expected_completion_s(1e6, tau, 60.0, 120.0, 86400.0);
  CHECK(best < daly_expected_completion_s(1e6, tau / 4.0, 60.0, 120.0, 86400.0));
  CHECK(best < daly_expected_completion_s(1e6, tau * 4.0, 60.0, 120.0, 86400.0));
}

TEST_CASE("the none policy never checkpoints") {
  CheckpointPolicy policy({}, 100.0);
  CHECK_FALSE(policy.enabled());
  CHECK(std::isinf(policy.interval_s()));
  CHECK_FALSE(policy.due(1000000, 1e12));
}

TEST_CASE("every_iterations is due once N iterations have run") {
  CheckpointSpec spec;
  spec.policy = CheckpointKind::every_iterations;
  spec.every_iterations = 5;
  spec.write_s = 3.0;
  spec.restart_s = 4.0;
  CheckpointPolicy policy(spec, INFINITY);
  CHECK(policy.enabled());
  CHECK(policy.interval_s() == 0.0);
  CHECK(policy.write_cost_s() == 3.0);
  CHECK(policy.restart_s() == 4.0);
  CHECK_FALSE(policy.due(4, 1e9));
  CHECK(policy.due(5, 0.0));
  CHECK(policy.due(6, 0.0));
}

TEST_CASE("every_seconds is due once that much progress was made") {
  CheckpointSpec spec;
  spec.policy = CheckpointKind::every_seconds;
  spec.every_s = 30.0;
  CheckpointPolicy policy(spec, INFINITY);
  CHECK(policy.enabled());
  CHECK(policy.interval_s() == 30.0);
  CHECK_FALSE(policy.due(1000, 29.9));
  CHECK(policy.due(1, 30.0));
}

TEST_CASE("young and daly are due after their interval of progress") {
  CheckpointSpec spec;
  spec.policy = CheckpointKind::young;
  spec.write_s = 20.0;
  spec.bytes = 4e10;
  spec.write_bandwidth_Bps = 1e9;  // delta = 20 + 40 = 60
  CheckpointPolicy young(spec, 86400.0);
  CHECK(young.write_cost_s() == 60.0);
  CHECK(young.interval_s() == doctest::Approx(3219.9378876));
  CHECK_FALSE(young.due(100, 3219.0));
  CHECK(young.due(1, 3220.0));

  spec.policy = CheckpointKind::daly;
  CheckpointPolicy daly(spec, 86400.0);
  CHECK(daly.interval_s() == doctest::Approx(3180.0621136));
  CHECK_FALSE(daly.due(100, 3180.0));
  CHECK(daly.due(1, 3180.1));
}

TEST_CASE("an interval factor scales Young's and Daly's interval, and a search runs as Daly") {
  CheckpointSpec spec;
  spec.policy = CheckpointKind::daly;
  spec.write_s = 60.0;
  const double daly_s = CheckpointPolicy(spec, 86400.0).interval_s();
  spec.interval_factor = 2.5;
  CHECK(CheckpointPolicy(spec, 86400.0).interval_s() == doctest::Approx(2.5 * daly_s));
  spec.policy = CheckpointKind::optimal_simulated;
  spec.interval_factor = 1.0;
  CHECK(CheckpointPolicy(spec, 86400.0).interval_s() == daly_s);
  spec.search_factors = {1.0};
  CHECK(validate_checkpoint(spec).find("search_factors needs at least two") != std::string::npos);
  spec.search_factors = {0.5, 1.0};
  spec.interval_factor = 0.0;
  CHECK(validate_checkpoint(spec).find("interval_factor must be") != std::string::npos);
}

TEST_CASE("young's interval counts the transfers to shared storage that a write pays") {
  // Four nodes on a star (no latency) each send 1e10 of the job's 4e10 bytes to a server hanging
  // off node 0 by a 1e9 B/s link: the link moves 4e10 bytes in 40 s, so delta = 20 + 40 = 60 s
  // and Young's interval at M = 86400 s is sqrt(2 * 60 * 86400) = 3219.9378876 s.
  TopologySpec star;
  star.shape = TopologyShape::star;
  star.nodes = 4;
  star.latency_s = 0.0;
  star.bandwidth_Bps = 1e10;
  const Topology topology(star);
  CheckpointSpec spec;
  spec.policy = CheckpointKind::young;
  spec.write_s = 20.0;
  spec.restart_s = 5.0;
  spec.bytes = 4e10;
  spec.storage.kind = StorageKind::shared;
  spec.storage.latency_s = 0.0;
  spec.storage.bandwidth_Bps = 1e9;
  const CheckpointCosts costs = iterative_job_checkpoint_costs(spec, topology);
  CHECK(costs.write_s == doctest::Approx(60.0));
  CHECK(costs.restart_s == doctest::Approx(45.0));
  const CheckpointPolicy young(spec, 86400.0, costs);
  CHECK(young.write_cost_s() == doctest::Approx(60.0));
  CHECK(young.restart_s() == doctest::Approx(45.0));
  CHECK(young.interval_s() == doctest::Approx(3219.9378876));
  // Without the storage's transfers the interval would be sqrt(2 * 20 * 86400) = 1859.03 s.
  CHECK(CheckpointPolicy(spec, 86400.0).interval_s() == doctest::Approx(1859.0320062));
}

TEST_CASE("the spec's MTBF wins over the cluster's for young and daly") {
  CheckpointSpec spec;
  spec.policy = CheckpointKind::young;
  spec.write_s = 50.0;
  spec.mtbf_s = 100.0;
  CHECK(CheckpointPolicy(spec, 86400.0).interval_s() == doctest::Approx(100.0));
  spec.mtbf_s = 0.0;
  CHECK(CheckpointPolicy(spec, 400.0).interval_s() == doctest::Approx(200.0));
}

TEST_CASE("young and daly never checkpoint when nothing can fail") {
  for (CheckpointKind kind : {CheckpointKind::young, CheckpointKind::daly}) {
    CheckpointSpec spec;
    spec.policy = kind;
    spec.write_s = 60.0;
    CheckpointPolicy policy(spec, INFINITY);
    INFO(to_string(kind));
    CHECK(std::isinf(policy.interval_s()));
    CHECK_FALSE(policy.enabled());
    CHECK_FALSE(policy.due(1000000, 1e15));
  }
}

TEST_CASE("valid checkpoint specs pass validation") {
  CheckpointSpec spec;
  CHECK(validate_checkpoint(spec) == "");
  spec.policy = CheckpointKind::every_iterations;
  spec.every_iterations = 10;
  CHECK(validate_checkpoint(spec) == "");
  spec.policy = CheckpointKind::every_seconds;
  spec.every_s = 5.0;
  CHECK(validate_checkpoint(spec) == "");
  spec.policy = CheckpointKind::daly;
  spec.bytes = 1e9;
  spec.write_bandwidth_Bps = 1e8;  // positive write cost from the bandwidth term alone
  CHECK(validate_checkpoint(spec) == "");
}

TEST_CASE("invalid checkpoint specs are rejected saying what is wrong and expected") {
  CHECK(parse_name<CheckpointKind>("sometimes", kCheckpointKindNames) == std::nullopt);
  CHECK(parse_name<CheckpointKind>("daly", kCheckpointKindNames) == CheckpointKind::daly);
  CHECK(to_string(CheckpointKind::every_seconds) == "every_seconds");

  CheckpointSpec spec;
  spec.policy = CheckpointKind::every_iterations;
  CHECK(validate_checkpoint(spec) == "checkpoint every_iterations must be > 0 (got 0)");

  spec = {};
  spec.policy = CheckpointKind::every_seconds;
  spec.every_s = -2.0;
  CHECK(validate_checkpoint(spec) == "checkpoint every_s must be finite and > 0 (got -2)");

  spec = {};
  spec.policy = CheckpointKind::young;
  CHECK(validate_checkpoint(spec) ==
        "checkpoint young needs a positive write cost (write_s, or bytes with "
        "write_bandwidth_Bps) (got 0)");

  spec = {};
  spec.write_s = -1.0;
  CHECK(validate_checkpoint(spec) == "checkpoint write_s must be finite and >= 0 (got -1)");
  spec = {};
  spec.bytes = NAN;
  CHECK(validate_checkpoint(spec) != "");
  spec = {};
  spec.write_bandwidth_Bps = -5.0;
  CHECK(validate_checkpoint(spec) ==
        "checkpoint write_bandwidth_Bps must be finite and >= 0 (got -5)");
  spec = {};
  spec.restart_s = INFINITY;
  CHECK(validate_checkpoint(spec) == "checkpoint restart_s must be finite and >= 0 (got inf)");
  spec = {};
  spec.mtbf_s = -3.0;
  CHECK(validate_checkpoint(spec) == "checkpoint mtbf_s must be > 0, or 0 to derive it (got -3)");
}
