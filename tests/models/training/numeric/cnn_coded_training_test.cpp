// Coded training of a convolutional network: every conv and dense layer's products run
// coded on the simulated nodes, the steps between them at every node (layer_steps.hpp).
#include <doctest/doctest.h>

#include <string>

#include "models/nn/layer_steps.hpp"
#include "tests/models/training/coded_training_test_support.hpp"

using namespace codesim;
using namespace codesim::models;
using namespace codesim::models::testing;

namespace {

TrainingSpec network_training(const std::string& kind, int iterations, int batch = 3) {
  TrainingSpec spec = training(kind, iterations, batch);
  spec.network = small_network();
  spec.audit = true;
  return spec;
}

}  // namespace

TEST_CASE("a network's weight shapes are its conv and dense layers with their positions") {
  const std::vector<WeightShape> shapes = weight_shapes(network_training("uncoded", 1));
  REQUIRE(shapes.size() == 4);
  CHECK(shapes[0].rows == 4);
  CHECK(shapes[0].cols == 8);
  CHECK(shapes[0].positions == 9);
  CHECK(shapes[1].cols == 16);
  CHECK(shapes[1].positions == 1);
  CHECK(shapes[2].rows == 12);
  CHECK(shapes[3].cols == 12);
  CHECK(shapes[0].init_sd == doctest::Approx(std::sqrt(2.0 / (8 + 16))));
}

TEST_CASE("an error-free coded network run follows the uncoded reference under every scheme") {
  for (const std::string kind :
       {"uncoded", "replication", "mds", "gpd", "codenet_grid", "abft", "abft_codenet"}) {
    CAPTURE(kind);
    const TrainingSpec spec = network_training(kind, 15);
    const TrainingResult r = train(spec, no_faults(), every(4));
    CHECK(r.metrics.get("completed") == 1.0);
    CHECK(r.metrics.get("silent_corruptions") == 0.0);
    CHECK(max_difference(r.parameters, reference(spec, 15, 3)) < 1e-12);
    CHECK(r.metrics.get("audit_final_weight_deviation") < 1e-12);
  }
}

TEST_CASE("codenet and replication correct faults in a network's products; uncoded drifts") {
  ValueModelSpec one_entry = value_model_defaults(ValueModelKind::sparse_additive);
  one_entry.entries = 1;
  for (const std::string kind : {"codenet_grid", "replication3", "uncoded"}) {
    CAPTURE(kind);
    const TrainingSpec spec = network_training(kind, 10);
    const TrainingResult r = train(spec, always_on(1, FaultTarget::product, one_entry), every(3));
    CHECK(r.metrics.get("faults_injected") >= 10.0);
    const double difference = max_difference(r.parameters, reference(spec, 10, 3));
    if (kind == "uncoded") {
      CHECK(r.metrics.get("silent_corruptions") > 0.0);
      CHECK(difference > 1e-3);
    } else {
      CHECK(r.metrics.get("corrected") > 0.0);
      CHECK(r.metrics.get("silent_corruptions") == 0.0);
      CHECK(difference < 1e-9);
    }
  }
}

TEST_CASE("a fault in a node's stored conv weights is regenerated from the code, not kept") {
  ValueModelSpec one_entry = value_model_defaults(ValueModelKind::sparse_additive);
  one_entry.entries = 1;
  const TrainingSpec spec = network_training("codenet_grid", 8);
  FaultConfig faults = always_on(2, FaultTarget::weights, one_entry);
  faults.overrides.front().rate.probability_per_operation = 0.2;
  const TrainingResult r = train(spec, faults, every(3));
  CHECK(r.metrics.get("faults_injected") > 0.0);
  CHECK(r.metrics.get("regenerations") > 0.0);
  CHECK(r.metrics.get("silent_corruptions") == 0.0);
  CHECK(max_difference(r.parameters, reference(spec, 8, 3)) < 1e-9);
}

TEST_CASE("a network's products are charged their columns: a conv layer's positions times B") {
  // The same weights' shapes and batch, but the first layer's products have 9 B columns: the
  // forward compute time grows with the positions.
  const TrainingSpec spec = network_training("uncoded", 2);
  const TrainingResult r = train(spec, no_faults());
  TrainingSpec dense = training("uncoded", 2, 3);
  dense.mlp.layer_sizes = {8, 4, 4, 12, 4};
  const TrainingResult d = train(dense, no_faults());
  CHECK(r.metrics.get("time_compute_s") > d.metrics.get("time_compute_s"));
}

TEST_CASE("a network that does not end with a dense layer or does not fit the code is refused") {
  TrainingSpec spec = network_training("uncoded", 1);
  spec.network->layers.push_back(Relu{});
  CHECK(validate_training(spec, 16, 8, 4).find("end with a dense layer") != std::string::npos);
  spec = network_training("uncoded", 1);
  spec.network->layers.front() = Conv2d{4, 5, 1, 0};  // a 5x5 kernel on a 2x2 input
  CHECK(validate_training(spec, 16, 8, 4).find("network layer 0") != std::string::npos);
  spec = network_training("codenet_grid", 1);
  spec.network->layers[3] = Conv2d{3, 2, 1, 0};  // 3 output channels do not split in 2
  CHECK(validate_training(spec, 16, 8, 4).find("layer 1") != std::string::npos);
}

TEST_CASE("a fault in a node's own patches or pooled input is corrected by the code, not kept") {
  // The activation target strikes a node's copy of a layer's input (after ReLU, pooling and
  // im2col) or of the delta (after col2im and the pooling's backward step): its partial and its
  // update are wrong, the grid decode corrects the one and regenerates the other.
  ValueModelSpec one_entry = value_model_defaults(ValueModelKind::sparse_additive);
  one_entry.entries = 1;
  for (const std::string kind : {"codenet_grid", "uncoded"}) {
    CAPTURE(kind);
    const TrainingSpec spec = network_training(kind, 8);
    const TrainingResult r =
        train(spec, always_on(3, FaultTarget::activation, one_entry), every(3));
    CHECK(r.metrics.get("faults_injected") >= 8.0);
    if (kind == "uncoded") {
      CHECK(r.metrics.get("silent_corruptions") > 0.0);
    } else {
      CHECK(r.metrics.get("corrected") > 0.0);
      CHECK(r.metrics.get("silent_corruptions") == 0.0);
      CHECK(max_difference(r.parameters, reference(spec, 8, 3)) < 1e-9);
    }
  }
}
