// The public entry points of numeric coded training: the spec's validation, train_coded and
// run_coded_training. The run itself is CodedTrainingRun (coded_training_run.hpp).
#include "models/dnn/coded_training.hpp"

#include <cmath>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "models/dnn/coded_training_run.hpp"
#include "models/dnn/layer_steps.hpp"
#include "models/dnn/training_protocol.hpp"

namespace codesim::models {

namespace {

// The layers' own problems: the MLP's sizes, or the network's layers; "" when none.
std::string layers_problem(const TrainingSpec& spec) {
  if (!spec.network) {
    const std::vector<int>& sizes = spec.mlp.layer_sizes;
    if (sizes.size() < 2) return "the MLP needs at least an input and an output size";
    for (int size : sizes)
      if (size < 1) return "every layer size must be >= 1";
    return {};
  }
  if (const std::optional<NetworkIssue> issue = validate_network(*spec.network)) {
    return (issue->layer >= 0 ? "network layer " + std::to_string(issue->layer) + ": " : "") +
           (issue->field.empty() ? "" : issue->field + ": ") + issue->message;
  }
  if (spec.network->layers.empty() || !std::holds_alternative<Dense>(spec.network->layers.back()))
    return "the network must end with a dense layer (its product gives the logits)";
  return {};
}

}  // namespace

std::string validate_training(const TrainingSpec& spec, int cluster_nodes, int features,
                              int classes) {
  if (std::string problem = layers_problem(spec); !problem.empty()) return problem;
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
  const std::vector<WeightShape> shapes = weight_shapes(spec);
  const int inputs = input_features(spec);
  if (features != inputs) {
    return "the input layer has " + std::to_string(inputs) + " units but the data has " +
           std::to_string(features) + " features";
  }
  if (classes > shapes.back().rows) {
    return "the output layer has " + std::to_string(shapes.back().rows) +
           " units but the data has " + std::to_string(classes) + " classes";
  }
  for (std::size_t l = 0; l < shapes.size(); ++l) {
    const std::string problem =
        validate_scheme(spec.scheme, shapes[l].rows, shapes[l].cols).message;
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
  // Only the metrics are returned: nobody reads the log's digests.
  FaultInjector injector(faults, cluster.node_count(), seed, replica, SequenceDigest::skipped);
  return train_coded(cluster, checkpoint, spec, injector, train, test, seed, replica).metrics;
}

}  // namespace codesim::models
