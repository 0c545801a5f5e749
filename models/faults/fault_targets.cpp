// Fault targets: names, paper defaults, validation and per-node rate resolution.
#include "models/faults/fault_targets.hpp"

#include <cmath>

#include "sim/check.hpp"

namespace codesim::models {

namespace {
std::string check_rate(const sim::SoftErrorSpec& rate) {
  if (!(rate.probability_per_operation >= 0.0 && rate.probability_per_operation <= 1.0)) {
    return "probability_per_operation must be in [0, 1]";
  }
  if (!(rate.rate_per_flop >= 0.0 && std::isfinite(rate.rate_per_flop))) {
    return "rate_per_flop must be finite and >= 0";
  }
  return "";
}
}  // namespace

std::string_view to_string(FaultTarget target) {
  return kFaultTargetNames[static_cast<std::size_t>(target)];
}

std::optional<FaultTarget> parse_fault_target(std::string_view name) {
  for (int t = 0; t < kFaultTargetCount; ++t)
    if (kFaultTargetNames[static_cast<std::size_t>(t)] == name) return static_cast<FaultTarget>(t);
  return std::nullopt;
}

FaultConfig default_fault_config() {
  FaultConfig config;
  for (FaultTargetSpec& target : config.targets) {
    target.rate = {};
    target.model = value_model_defaults(ValueModelKind::sparse_additive);
  }
  config[FaultTarget::weights].rate.probability_per_operation = kPaperErrorProbability;
  return config;
}

FaultConfig fault_free_config() {
  FaultConfig config = default_fault_config();
  for (FaultTargetSpec& target : config.targets) target.rate = {};
  return config;
}

std::string validate_fault_config(const FaultConfig& config, int node_count) {
  if (node_count < 0) return "node count must be >= 0";
  for (int t = 0; t < kFaultTargetCount; ++t) {
    const FaultTargetSpec& target = config.targets[static_cast<std::size_t>(t)];
    const std::string name(kFaultTargetNames[static_cast<std::size_t>(t)]);
    if (std::string problem = check_rate(target.rate); !problem.empty()) {
      return "target " + name + ": " + problem;
    }
    if (std::string problem = validate_value_model(target.model); !problem.empty()) {
      return "target " + name + ": value model: " + problem;
    }
  }
  for (std::size_t i = 0; i < config.overrides.size(); ++i) {
    const FaultRateOverride& o = config.overrides[i];
    const std::string where = "override " + std::to_string(i) + ": ";
    if (o.nodes.empty()) return where + "lists no nodes";
    for (const int node : o.nodes) {
      if (node < 0 || node >= node_count) {
        return where + "node " + std::to_string(node) + " does not exist (nodes are 0.." +
               std::to_string(node_count - 1) + ")";
      }
    }
    if (std::string problem = check_rate(o.rate); !problem.empty()) return where + problem;
  }
  if (!config.rate_traces.empty() &&
      config.rate_traces.size() != static_cast<std::size_t>(node_count)) {
    return "rate traces: " + std::to_string(config.rate_traces.size()) +
           " (expected none or one per node, " + std::to_string(node_count) + ")";
  }
  return "";
}

std::vector<NodeFaultRates> resolve_fault_rates(const FaultConfig& config, int node_count) {
  CODESIM_CHECK(validate_fault_config(config, node_count).empty(), "invalid fault config");
  NodeFaultRates everywhere;
  for (int t = 0; t < kFaultTargetCount; ++t) {
    everywhere[static_cast<std::size_t>(t)] = config.targets[static_cast<std::size_t>(t)].rate;
  }
  std::vector<NodeFaultRates> rates(static_cast<std::size_t>(node_count), everywhere);
  for (const FaultRateOverride& o : config.overrides) {
    for (const int node : o.nodes) {
      rates[static_cast<std::size_t>(node)][static_cast<std::size_t>(o.target)] = o.rate;
    }
  }
  return rates;
}

double strike_probability(const sim::SoftErrorSpec& rate, double flops) {
  CODESIM_CHECK(flops >= 0.0, "operation flops must be >= 0");
  // 1 - (1 - eps) e^(-r f) written with expm1 so tiny rates keep their precision.
  const double eps = rate.probability_per_operation;
  return eps - (1.0 - eps) * std::expm1(-rate.rate_per_flop * flops);
}

bool is_disabled(const sim::SoftErrorSpec& rate) {
  return rate.probability_per_operation == 0.0 && rate.rate_per_flop == 0.0;
}

}  // namespace codesim::models
