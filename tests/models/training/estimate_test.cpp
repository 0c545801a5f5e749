// The per-replica estimates that the preflight sums: stored bytes, working bytes and arithmetic.
#include "models/training/estimate.hpp"

#include <doctest/doctest.h>

#include <cstdint>
#include <vector>

#include "models/data/idx_loader.hpp"
#include "support/temp_directory.hpp"

namespace codesim::models {
namespace {

TrainingSpec replicated(std::vector<int> layers, int batch) {
  TrainingSpec spec;
  spec.mlp.layer_sizes = std::move(layers);
  spec.sgd.batch_size = batch;
  spec.scheme = replication_spec(1, 1, 2);
  return spec;
}

TEST_CASE("a replica stores every copy and works on one decoded layer and the audit's shadow") {
  TrainingSpec spec = replicated({4, 3, 2}, 5);
  const TrainingEstimate plain = estimate_training(spec, {});
  CHECK(plain.stored_bytes == 2 * (12 + 6) * 8.0);
  // Input, pre-activation and delta, and every node's encoded input and partial result, per
  // column of the batch of 5: (3 + 2 nodes) (rows + cols) per layer.
  CHECK(plain.batch_bytes == (3 + 2) * ((3 + 4) + (2 + 3)) * 5 * 8.0);
  CHECK(plain.working_bytes == plain.stored_bytes + 12 * 8.0 + plain.batch_bytes);
  // Three products touching every stored value twice per column, plus the input encodings.
  CHECK(plain.flops_per_iteration == 3 * 2 * 36.0 * 5 + 2 * 2 * (7 + 5) * 5);
  spec.audit = true;
  CHECK(estimate_training(spec, {}).working_bytes == plain.working_bytes + 18 * 8.0);
}

TEST_CASE("an abft replica stores its blocks with their checksum rows and columns") {
  TrainingSpec spec = replicated({4, 6, 2}, 1);
  spec.scheme = abft_spec(2, 1);  // blocks 3 x 4 and 1 x 6, stored 6 x 7 and 4 x 9, two each
  CHECK(estimate_training(spec, {}).stored_bytes == 2 * (6 * 7 + 4 * 9) * 8.0);
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

TEST_CASE("a synthetic dataset holds its samples times features; IDX files say in their header") {
  DatasetSource synthetic;
  synthetic.kind = DatasetKind::synthetic;
  synthetic.synthetic.samples = 300;
  CHECK(dataset_values(synthetic, 12) == 3600.0);
  const test::TempDirectory dir("estimate");
  // 5 images of 3 x 4 for training, 2 for testing: 7 x 12 values, whatever the features given.
  write_idx(dir.path() / "train.gz", {{5, 3, 4}, std::vector<std::uint8_t>(60, 1)}, true);
  write_idx(dir.path() / "test", {{2, 3, 4}, std::vector<std::uint8_t>(24, 1)}, false);
  DatasetSource idx;
  idx.kind = DatasetKind::idx;
  idx.images = (dir.path() / "train.gz").string();
  CHECK(dataset_values(idx, 784) == 5.0 * 12);
  idx.test_images = (dir.path() / "test").string();
  CHECK(dataset_values(idx, 784) == 7.0 * 12);
  idx.images = (dir.path() / "missing").string();
  CHECK_THROWS_AS(dataset_values(idx, 784), DatasetError);
}

}  // namespace
}  // namespace codesim::models
