// validate_training: whether a training spec fits a cluster and a data set; check_training makes
// the ValidTraining the runs take.
#include "models/training/spec.hpp"

#include <cmath>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "models/nn/layer_steps.hpp"
#include "sim/check.hpp"

namespace codesim::models {

std::string validate_training(const TrainingSpec& spec, int cluster_nodes, int features,
                              int classes) {
  if (std::string problem = validate_model(spec); !problem.empty()) return problem;
  if (spec.sgd.batch_size < 1) return "batch_size must be >= 1";
  if (!(spec.sgd.learning_rate > 0.0) || !std::isfinite(spec.sgd.learning_rate))
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

std::variant<ValidTraining, std::string> check_training(const TrainingSpec& spec,
                                                        const TrainingFit& fit) {
  std::string problem = validate_training(spec, fit.cluster_nodes, fit.features, fit.classes);
  if (!problem.empty()) return problem;
  return ValidTraining(spec, fit);
}

ValidTraining valid_training(const TrainingSpec& spec, const TrainingFit& fit) {
  auto checked = check_training(spec, fit);
  if (const auto* problem = std::get_if<std::string>(&checked)) {
    CODESIM_CHECK(false, problem->c_str());
  }
  return std::get<ValidTraining>(std::move(checked));
}

}  // namespace codesim::models
