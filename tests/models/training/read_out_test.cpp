// The read-out after the last iteration: an error its verification pass detects and cannot
// correct rolls the run back (as the CodeNet authors' code does), in both modes, so that every
// detection of a completed run is a rollback and no reported model holds a detected error.
#include <doctest/doctest.h>

#include "models/data/synthetic_dataset.hpp"
#include "models/training/train.hpp"
#include "sim/cluster.hpp"

namespace {

using namespace codesim;

// Two copies of a 5 x 4 split on a 40-40-40-10 network whose updates are struck (probability
// 0.006 per node and layer: about half the iterations meet a strike), 200 iterations with a
// checkpoint after each. A strike at the last update comes after every read but the read-out's,
// so about every other replica's read-out detects one (two copies detect, never correct).
struct LastInterval {
  models::TrainingSpec spec;
  sim::CheckpointSpec checkpoint;
  models::FaultConfig faults = models::default_fault_config();
  sim::ClusterSpec cluster;

  LastInterval() {
    spec.mlp.layer_sizes = {40, 40, 40, 10};
    spec.sgd.batch_size = 1;
    spec.scheme = models::replication_spec(5, 4, 2);
    spec.iterations = 200;
    checkpoint.policy = sim::CheckpointKind::every_iterations;
    checkpoint.every_iterations = 1;
    auto& update = faults[models::FaultTarget::update];
    update.rate.probability_per_operation = 0.006;
    update.model.entries = 1'000'000;  // every entry: no strike hides behind a zero
    cluster = sim::uniform_cluster(models::summarize_scheme(spec.scheme).nodes, 1e9);
  }
};

}  // namespace

TEST_CASE("every detection of a completed numeric run is a rollback, the read-out's too") {
  const LastInterval run;
  models::SyntheticSpec data;
  data.features = 40;
  data.samples = 400;
  const auto train = models::make_synthetic_dataset(data);
  data.samples = 50;
  data.seed = 2;
  const auto test = models::make_synthetic_dataset(data);
  for (std::uint64_t replica = 0; replica < 8; ++replica) {
    CAPTURE(replica);
    const sim::MetricSet m = models::run_coded_training(run.cluster, run.checkpoint, run.spec,
                                                        run.faults, train, test, 7, replica);
    REQUIRE(m.get("completed") == 1.0);
    CHECK(m.get("detected") > 0.0);
    CHECK(m.get("detected") == m.get("rollbacks"));
  }
}

TEST_CASE("every detection of a completed stochastic run is a rollback, the read-out's too") {
  const LastInterval run;
  for (std::uint64_t replica = 0; replica < 20; ++replica) {
    CAPTURE(replica);
    const sim::MetricSet m = models::run_stochastic_training(run.cluster, run.checkpoint, run.spec,
                                                             run.faults, 7, replica);
    REQUIRE(m.get("completed") == 1.0);
    CHECK(m.get("detected") > 0.0);
    CHECK(m.get("detected") == m.get("rollbacks"));
  }
}
