// Where soft errors strike (product, weights, activation, decode, update) and how often: a rate
// and a value model per target, per-node rate overrides, and their resolution per node.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "models/faults/value_model.hpp"
#include "sim/soft_error_process.hpp"
#include "sim/step_trace.hpp"

namespace codesim::models {

/// The data a fault corrupts at one node.
///   product:    transient - the node's result of a forward or backward product;
///   weights:    persistent - the node's stored block, wrong until regenerated or rolled back;
///   activation: the node's copy of the nonlinear step's output f(s) or f'(s);
///   decode:     the node's decoded vector;
///   update:     the node's encoded update before it is added to its block.
enum class FaultTarget { product, weights, activation, decode, update };

inline constexpr int kFaultTargetCount = 5;
inline constexpr std::array<std::string_view, kFaultTargetCount> kFaultTargetNames = {
    "product", "weights", "activation", "decode", "update"};

std::string_view to_string(FaultTarget target);
std::optional<FaultTarget> parse_fault_target(std::string_view name);

/// How faults strike one target: a rate (sim::SoftErrorSpec: probability per operation and rate
/// per flop, combined as 1 - (1 - p) exp(-rate_per_flop * flops)) and what a strike does.
struct FaultTargetSpec {
  sim::SoftErrorSpec rate;  ///< both zero = target disabled
  ValueModelSpec model;
};

/// Replaces the rate of `target` on each listed node.
struct FaultRateOverride {
  std::vector<int> nodes;  ///< node ids, each in [0, node_count)
  FaultTarget target = FaultTarget::weights;
  sim::SoftErrorSpec rate;
};

/// Complete fault configuration. `targets` is indexed by FaultTarget.
struct FaultConfig {
  std::array<FaultTargetSpec, kFaultTargetCount> targets;
  /// Applied in order after the target-wide rates; a later override of the same (node, target)
  /// wins.
  std::vector<FaultRateOverride> overrides;
  /// Empty, or one per node: the multiplier of every rate of that node over time (a core that
  /// turns mercurial). At multiplier m an opportunity struck with probability p at rate 1 is
  /// struck with 1 - (1 - p)^m (sim::scaled_probability); a disabled rate stays disabled.
  std::vector<sim::StepTrace> rate_traces;
  /// No soft error strikes until the run's first checkpoint is written (every rate 0 until then),
  /// as the CodeNet authors' experiment code runs replication: the scenario's
  /// faults.off_before_first_checkpoint lists the schemes it applies to.
  bool off_before_first_checkpoint = false;

  FaultTargetSpec& operator[](FaultTarget t) { return targets[static_cast<std::size_t>(t)]; }
  const FaultTargetSpec& operator[](FaultTarget t) const {
    return targets[static_cast<std::size_t>(t)];
  }
};

/// The papers' epsilon and the CodeNet experiment's rate: 3e-4 per node per operation.
inline constexpr double kPaperErrorProbability = 3e-4;

/// The paper-faithful defaults: weights struck with probability 3e-4 per operation by
/// sparse_additive (density 0.005, magnitude 5); every other target disabled (rate 0, same model).
FaultConfig default_fault_config();
/// default_fault_config with every target's rate 0: no fault at all (error-free reference runs,
/// benchmarks).
FaultConfig fault_free_config();
/// Empty when `config` is valid for `node_count` nodes, else what is wrong.
std::string validate_fault_config(const FaultConfig& config, int node_count);

/// Rate of every target on one node, indexed by FaultTarget.
using NodeFaultRates = std::array<sim::SoftErrorSpec, kFaultTargetCount>;
/// Per-node rates with the overrides applied. Precondition: validate_fault_config is empty.
std::vector<NodeFaultRates> resolve_fault_rates(const FaultConfig& config, int node_count);

/// Probability that an operation of `flops` is struck under `rate` (the same law as
/// sim::SoftErrorProcess::strike_probability).
double strike_probability(const sim::SoftErrorSpec& rate, double flops);
/// True when `rate` can never strike.
bool is_disabled(const sim::SoftErrorSpec& rate);

}  // namespace codesim::models
