// What the stochastic mode models: the one place its rules live (the scenario reader maps the
// setting each returns to its JSON pointer).
#include <optional>
#include <string>
#include <vector>

#include "models/nn/layer_steps.hpp"
#include "models/training/stochastic/stochastic_validation.hpp"

namespace codesim::models {
namespace {

// The first node whose resolved rate of `target` can strike, or -1.
int first_node_striking(const std::vector<NodeFaultRates>& rates, FaultTarget target) {
  for (std::size_t p = 0; p < rates.size(); ++p) {
    if (!is_disabled(rates[p][static_cast<std::size_t>(target)])) return static_cast<int>(p);
  }
  return -1;
}

}  // namespace

std::optional<UnmodelledSetting> unmodelled_setting(const sim::ClusterSpec& cluster,
                                                    const TrainingSpec& spec,
                                                    const FaultConfig& faults) {
  const std::vector<NodeFaultRates> rates = resolve_fault_rates(faults, cluster.node_count());
  for (FaultTarget target : {FaultTarget::activation, FaultTarget::decode, FaultTarget::update}) {
    if (const int node = first_node_striking(rates, target); node >= 0) {
      const std::string name(to_string(target));
      return UnmodelledSetting{
          name, node,
          "stochastic mode does not model the " + name + " fault target (only weights and product)",
          "rates 0"};
    }
  }
  if (spec.audit) return UnmodelledSetting{"audit", -1, "the audit needs the arithmetic", "false"};
  if (spec.record_loss) {
    return UnmodelledSetting{"record_loss", -1, "stochastic mode computes no loss", "false"};
  }
  if (spec.eval_cost_s > 0.0) {
    return UnmodelledSetting{"eval_cost_s", -1, "stochastic mode evaluates nothing", "0"};
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
    const std::string node =
        unmodelled->node >= 0 ? ", first at node " + std::to_string(unmodelled->node) : "";
    return unmodelled->message + node + " (expected " + unmodelled->expected + ")";
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
