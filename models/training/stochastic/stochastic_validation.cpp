// What the stochastic mode models: the one place its rules live (the scenario reader maps the
// setting each returns to its JSON pointer).
#include <optional>
#include <string>

#include "models/nn/layer_steps.hpp"
#include "models/training/stochastic/stochastic_validation.hpp"

namespace codesim::models {

// Every fault target is modelled (vector_strikes.hpp): what is left needs the arithmetic.
std::optional<UnmodelledSetting> unmodelled_setting(const sim::ClusterSpec&,
                                                    const TrainingSpec& spec, const FaultConfig&) {
  if (spec.audit) return UnmodelledSetting{"audit", "the audit needs the arithmetic", "false"};
  if (spec.record_loss) {
    return UnmodelledSetting{"record_loss", "stochastic mode computes no loss", "false"};
  }
  if (spec.eval_cost_s > 0.0) {
    return UnmodelledSetting{"eval_cost_s", "stochastic mode evaluates nothing", "0"};
  }
  return std::nullopt;
}

std::string validate_stochastic_training(const sim::ClusterSpec& cluster, const TrainingSpec& spec,
                                         const FaultConfig& faults) {
  if (!spec.network && spec.mlp.layer_sizes.size() < 2)
    return "the MLP needs at least an input and an output size";
  std::string problem = validate_training(spec, cluster.node_count(), input_features(spec), 0);
  if (!problem.empty()) return problem;
  problem = validate_fault_config(faults, cluster.node_count());
  if (!problem.empty()) return problem;
  if (const auto unmodelled = unmodelled_setting(cluster, spec, faults)) {
    return unmodelled->message + " (expected " + unmodelled->expected + ")";
  }
  return {};
}

std::variant<ValidTraining, std::string> check_stochastic_training(const sim::ClusterSpec& cluster,
                                                                   const TrainingSpec& spec,
                                                                   const FaultConfig& faults) {
  std::string problem = validate_stochastic_training(cluster, spec, faults);
  if (!problem.empty()) return problem;
  ValidTraining valid(spec, {cluster.node_count(), input_features(spec), 0});
  valid.stochastic_checked_ = true;
  return valid;
}

}  // namespace codesim::models
