// The public entry points of numeric coded training: the spec's validation, train_coded and
// run_coded_training. The run itself is CodedTrainingRun (coded_training_run.hpp).
#include "models/dnn/coded_training.hpp"

#include <cmath>
#include <string>
#include <vector>

#include "models/dnn/coded_training_run.hpp"
#include "models/dnn/training_protocol.hpp"

namespace codesim::models {

std::string validate_training(const TrainingSpec& spec, int cluster_nodes, int features,
                              int classes) {
  const std::vector<int>& sizes = spec.mlp.layer_sizes;
  if (sizes.size() < 2) return "the MLP needs at least an input and an output size";
  for (int size : sizes)
    if (size < 1) return "every layer size must be >= 1";
  if (spec.mlp.batch_size < 1) return "batch_size must be >= 1";
  if (!(spec.mlp.learning_rate > 0.0) || !std::isfinite(spec.mlp.learning_rate))
    return "learning_rate must be a positive number";
  if (spec.iterations < 1) return "iterations must be >= 1";
  if (spec.threads < 1) return "threads must be >= 1";
  if (spec.eval_every < 0) return "eval_every must be >= 0";
  if (spec.eval_samples < 0) return "eval_samples must be >= 0";
  if (!(spec.eval_cost_s >= 0.0)) return "eval_cost_s must be >= 0";
  if (spec.wait_errors < 0) return "wait_errors must be >= 0";
  if (!(spec.time_limit_s > 0.0)) return "time_limit_s must be > 0";
  if (!(spec.audit_tolerance > 0.0)) return "audit_tolerance must be > 0";
  if (features != sizes.front()) {
    return "the input layer has " + std::to_string(sizes.front()) + " units but the data has " +
           std::to_string(features) + " features";
  }
  if (classes > sizes.back()) {
    return "the output layer has " + std::to_string(sizes.back()) + " units but the data has " +
           std::to_string(classes) + " classes";
  }
  for (std::size_t l = 0; l + 1 < sizes.size(); ++l) {
    const std::string problem = validate_scheme(spec.scheme, sizes[l + 1], sizes[l]).message;
    if (!problem.empty()) return "layer " + std::to_string(l) + ": " + problem;
  }
  const int needed = summarize_scheme(spec.scheme).nodes;
  if (cluster_nodes < needed) {
    return "the scheme needs " + std::to_string(needed) + " nodes but the cluster has " +
           std::to_string(cluster_nodes);
  }
  return {};
}

TrainingResult train_coded(const sim::ClusterSpec& cluster, const sim::CheckpointSpec& checkpoint,
                           const TrainingSpec& spec, FaultInjector& injector, const Dataset& train,
                           const Dataset& test, std::uint64_t seed, std::uint64_t replica,
                           const TrainingObserver& observer) {
  detail::CodedTrainingRun run(cluster, checkpoint, spec, injector, train, test, seed, replica,
                               observer);
  return run.run();
}

sim::MetricSet run_coded_training(const sim::ClusterSpec& cluster,
                                  const sim::CheckpointSpec& checkpoint, const TrainingSpec& spec,
                                  const FaultConfig& faults, const Dataset& train,
                                  const Dataset& test, std::uint64_t seed, std::uint64_t replica) {
  FaultInjector injector(faults, cluster.node_count(), seed, replica);
  return train_coded(cluster, checkpoint, spec, injector, train, test, seed, replica).metrics;
}

}  // namespace codesim::models
