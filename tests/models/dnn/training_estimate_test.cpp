// The per-replica estimates that the preflight sums: stored bytes, working bytes and arithmetic.
#include "models/dnn/training_estimate.hpp"

#include <doctest/doctest.h>

namespace codesim::models {
namespace {

TrainingSpec replicated(std::vector<int> layers, int batch) {
  TrainingSpec spec;
  spec.mlp.layer_sizes = std::move(layers);
  spec.mlp.batch_size = batch;
  spec.scheme = replication_spec(1, 1, 2);
  return spec;
}

TEST_CASE("a replica stores every copy and works on one decoded layer and the audit's shadow") {
  TrainingSpec spec = replicated({4, 3, 2}, 5);
  const TrainingEstimate plain = estimate_training(spec, {});
  CHECK(plain.stored_bytes == 2 * (12 + 6) * 8.0);
  CHECK(plain.working_bytes == plain.stored_bytes + 12 * 8.0);
  // Three products touching every stored value twice per column, plus the input encodings.
  CHECK(plain.flops_per_iteration == 3 * 2 * 36.0 * 5 + 2 * 2 * (7 + 5) * 5);
  spec.audit = true;
  CHECK(estimate_training(spec, {}).working_bytes == plain.working_bytes + 18 * 8.0);
}

TEST_CASE("a stochastic replica counts node operations and stores nothing") {
  TrainingSpec spec = replicated({4, 3, 2}, 1);
  spec.mode = TrainingMode::stochastic;
  sim::CheckpointSpec every_two;
  every_two.policy = sim::CheckpointKind::every_iterations;
  every_two.every_iterations = 2;
  const TrainingEstimate e = estimate_training(spec, every_two);
  CHECK(e.stored_bytes == 0.0);
  CHECK(e.node_operations_per_iteration == 2 * 4.0 + 2 * 2 * 2.0 / 2);
}

TEST_CASE("a synthetic dataset holds its samples times features; files are MNIST-sized") {
  DatasetSource synthetic;
  synthetic.kind = DatasetKind::synthetic;
  synthetic.synthetic.samples = 300;
  CHECK(dataset_values(synthetic, 12) == 3600.0);
  DatasetSource idx;
  idx.kind = DatasetKind::idx;
  CHECK(dataset_values(idx, 784) == 70000.0 * 784);
}

}  // namespace
}  // namespace codesim::models
