// Shared by the coded-training tests: a small synthetic dataset, the schemes on 16 nodes, the
// plain SGD reference on the protocol's batch order, and fault configurations.
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include "models/data/synthetic_dataset.hpp"
#include "models/nn/cnn.hpp"
#include "models/nn/layer_steps.hpp"
#include "models/training/train.hpp"
#include "sim/random_stream.hpp"

namespace codesim::models::testing {

struct Data {
  Dataset train;
  Dataset test;
};

inline const Data& data() {
  static const Data d = [] {
    SyntheticSpec spec;
    spec.classes = 4;
    spec.features = 8;
    spec.samples = 240;
    spec.separation = 4.0;
    spec.seed = 5;
    DatasetSplit split = split_dataset(make_synthetic_dataset(spec), 60, 2);
    return Data{std::move(split.train), std::move(split.test)};
  }();
  return d;
}

inline SchemeSpec scheme(const std::string& kind) {
  // GPD: K forward 5, backward 6, corrects one error in each direction. CodeNet grid: 12 nodes,
  // corrects one grid row (column) per decode.
  SchemeSpec s = kind == "replication3"   ? replication_spec(2, 2, 3)
                 : kind == "replication"  ? replication_spec(2, 2, 2)
                 : kind == "mds"          ? mds_spec(2, 4)
                 : kind == "gpd"          ? gpd_spec(2, 2, 8)
                 : kind == "codenet_grid" ? codenet_grid_spec(2, 2, 4, 4)
                 : kind == "abft"         ? abft_spec(2, 2)
                 : kind == "abft_codenet" ? abft_codenet_spec(2, 2, 4, 4)
                                          : uncoded_spec(2, 2);
  set_generator_seed(s, 11);
  return s;
}

// The synthetic data's 8 features as 2 x 2 x 2 images: conv 4@2x2 padding 1 (A: 8 x 9 B),
// relu, max_pool 2/1, conv 4@2x2 (A: 16 x B), relu, flatten, dense 12, relu, dense 4. Every
// weight matrix splits in 2 x 2 blocks.
inline NetworkSpec small_network() {
  NetworkSpec n;
  n.input = {2, 2, 2, false};
  n.layers = {Conv2d{4, 2, 1, 1}, Relu{}, MaxPool{2, 1}, Conv2d{4, 2, 1, 0}, Relu{}, Flatten{},
              Dense{12},          Relu{}, Dense{4}};
  return n;
}

inline TrainingSpec training(const std::string& kind, int iterations, int batch = 1) {
  TrainingSpec t;
  t.mlp.layer_sizes = {8, 12, 12, 4};
  t.sgd.learning_rate = 0.05;
  t.sgd.batch_size = batch;
  t.scheme = scheme(kind);
  t.iterations = iterations;
  return t;
}

inline sim::ClusterSpec cluster(int nodes = 16) {
  sim::ClusterSpec c = sim::uniform_cluster(nodes, 1e9);
  c.network.latency_s = 1e-6;
  c.network.bandwidth_Bps = 1e9;
  return c;
}

inline FaultConfig no_faults() { return fault_free_config(); }

// Probability 1 at every opportunity of `target` on `node`, nothing elsewhere.
inline FaultConfig always_on(int node, FaultTarget target, ValueModelSpec model = {}) {
  FaultConfig f = no_faults();
  f[target].model = model;
  FaultRateOverride o;
  o.nodes = {node};
  o.target = target;
  o.rate.probability_per_operation = 1.0;
  f.overrides.push_back(o);
  return f;
}

// Plain SGD (the MLP's, or the network's when spec.network is set) on the batches the protocol
// documents: sample k of the concatenated epochs, epoch e
// in seeded_permutation order keyed by (seed, replica, "batch_order", e).
inline MlpParameters reference(const TrainingSpec& spec, int iterations, std::uint64_t seed,
                               std::uint64_t replica = 0) {
  const Dataset& train = data().train;
  MlpParameters p = initial_parameters(spec, seed);
  const int n = train.samples();
  const int batch = spec.sgd.batch_size;
  for (int i = 0; i < iterations; ++i) {
    Matrix x(train.features(), batch);
    std::vector<int> y(static_cast<std::size_t>(batch));
    for (int b = 0; b < batch; ++b) {
      const long k = static_cast<long>(i) * batch + b;
      const std::uint64_t key =
          sim::stream_seed({seed, replica, "batch_order", static_cast<std::uint64_t>(k / n)});
      const int sample = seeded_permutation(n, key)[static_cast<std::size_t>(k % n)];
      x.col(b) = train.images.col(sample);
      y[static_cast<std::size_t>(b)] = train.labels[static_cast<std::size_t>(sample)];
    }
    if (spec.network) {
      network_sgd_step(p, *spec.network, spec.sgd.learning_rate, x, y);
    } else {
      sgd_step(p, spec.mlp, spec.sgd.learning_rate, x, y);
    }
  }
  return p;
}

inline double max_difference(const MlpParameters& a, const MlpParameters& b) {
  double worst = 0.0;
  for (std::size_t l = 0; l < a.weights.size(); ++l) {
    worst = std::max(worst, (a.weights[l] - b.weights[l]).cwiseAbs().maxCoeff());
    worst = std::max(worst, (a.biases[l] - b.biases[l]).cwiseAbs().maxCoeff());
  }
  return worst;
}

inline TrainingResult train(const TrainingSpec& spec, FaultInjector& injector,
                            const sim::CheckpointSpec& checkpoint = {},
                            const sim::ClusterSpec& c = cluster(), std::uint64_t seed = 3,
                            const TrainingObserver& observer = {}) {
  return train_coded(c, checkpoint, spec, injector, data().train, data().test, seed, 0, observer);
}

inline TrainingResult train(const TrainingSpec& spec, const FaultConfig& faults,
                            const sim::CheckpointSpec& checkpoint = {},
                            const sim::ClusterSpec& c = cluster(), std::uint64_t seed = 3) {
  FaultInjector injector(faults, c.node_count(), seed, 0);
  return train(spec, injector, checkpoint, c, seed);
}

inline sim::CheckpointSpec every(int iterations, double write_s = 0.0, double restart_s = 0.0) {
  sim::CheckpointSpec c;
  c.policy = sim::CheckpointKind::every_iterations;
  c.every_iterations = iterations;
  c.write_s = write_s;
  c.restart_s = restart_s;
  return c;
}

// Weight strikes with probability eps per opportunity on every node, nothing else.
inline FaultConfig weights_at(double eps) {
  FaultConfig f = no_faults();
  f[FaultTarget::weights].rate.probability_per_operation = eps;
  return f;
}

}  // namespace codesim::models::testing
