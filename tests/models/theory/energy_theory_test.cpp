// The expected energy per useful iteration (analysis/theory.hpp: the checkpoint model's closed
// form with joules in place of seconds) against the stochastic mode's energy_J, with the
// iteration, checkpoint and rollback energies measured from runs of the same configuration.
#include <doctest/doctest.h>

#include <cmath>

#include "analysis/theory.hpp"
#include "models/theory/training_theory.hpp"
#include "models/training/stochastic/stochastic_validation.hpp"
#include "models/training/train.hpp"
#include "sim/cluster.hpp"
#include "tests/models/training/coded_training_test_support.hpp"

using namespace codesim;
using namespace codesim::models;

namespace {

TrainingSpec codenet_training(int iterations) {
  TrainingSpec t;
  t.mlp.layer_sizes = {40, 40, 40, 10};
  t.sgd.learning_rate = 0.01;
  t.scheme = codenet_grid_spec(2, 2, 4, 4, 3);
  t.iterations = iterations;
  return t;
}

sim::CheckpointSpec every(int iterations) { return testing::every(iterations, 1e-4, 2e-4); }

using testing::weights_at;

}  // namespace

TEST_CASE("the closed form's expected energy per useful iteration matches the stochastic mode") {
  // The model's step energies are read from the run (as a user reads T_it from a measurement): an
  // iteration's kept work (corrections and regenerations included), a checkpoint with its
  // verification pass, a restart. What it predicts is the rest: how often work is lost.
  sim::ClusterSpec cluster = sim::uniform_cluster(16, 1e9);
  cluster.network.latency_s = 2e-6;
  cluster.network.bandwidth_Bps = 1.25e9;
  cluster.power[3].busy_W = 450.0;  // nodes need not be alike
  constexpr int kTau = 5;
  const double eps = 4e-3;
  const sim::MetricSet m =
      run_stochastic_training(cluster, every(kTau), codenet_training(40000), weights_at(eps), 1, 0);
  REQUIRE(m.get("rollbacks") > 200.0);
  const double kept_J =
      m.get("energy_compute_J") + m.get("energy_idle_J") + m.get("energy_network_J");
  const double lost_J = m.get("energy_lost_J");
  const analysis::EnergyCosts costs{kept_J / m.get("iterations"),
                                    m.get("energy_checkpoint_J") / m.get("checkpoints"),
                                    m.get("energy_restart_J") / m.get("rollbacks")};
  const TrainingTheory theory(codenet_training(1).scheme, {40, 40, 40, 10});
  const analysis::IntervalRisk risk{theory.first_rollback_probability(eps),
                                    theory.rollback_probability(eps),
                                    theory.verification_failure_probability(eps, kTau)};
  const double predicted = analysis::expected_energy_per_iteration_J(risk, kTau, costs);
  const double simulated = m.get("energy_J") / m.get("iterations");
  // What rollbacks add: over the same run without failures (the model with zero risk).
  const double no_risk = analysis::expected_energy_per_iteration_J({0, 0, 0}, kTau, costs);
  CAPTURE(costs.iteration_J);
  CAPTURE(costs.checkpoint_J);
  CAPTURE(costs.rollback_J);
  CAPTURE(predicted);
  CAPTURE(simulated);
  CAPTURE(no_risk);
  // The total within 0.5%, and what the rollbacks add (lost work, restarts, repeated
  // verifications) within 15%.
  CHECK(lost_J > 0.0);
  CHECK(simulated == doctest::Approx(predicted).epsilon(0.005).scale(0));
  CHECK(simulated - no_risk == doctest::Approx(predicted - no_risk).epsilon(0.15).scale(0));
}

TEST_CASE("expected energy is the expected time's closed form in joules") {
  const analysis::IntervalRisk risk{0.2, 0.1, 0.05};
  CHECK(analysis::expected_energy_per_iteration_J(risk, 3, {1.0, 2.0, 0.5}) ==
        doctest::Approx(analysis::expect_interval(risk, 3, {1.0, 2.0, 0.5}).time_per_iteration_s));
  // Without failures: one iteration's energy plus a checkpoint's share.
  CHECK(analysis::expected_energy_per_iteration_J({0, 0, 0}, 4, {100.0, 40.0, 7.0}) ==
        doctest::Approx(110.0));
}
