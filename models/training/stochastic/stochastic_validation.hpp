// What the stochastic mode of coded training models: the settings it refuses (unmodelled_setting)
// and its validation; the run itself is run_stochastic_training (models/training/train.hpp).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "models/faults/fault_targets.hpp"
#include "models/training/spec.hpp"
#include "sim/checkpoint_policy.hpp"
#include "sim/cluster.hpp"
#include "sim/metric_set.hpp"

namespace codesim::models {

/// A setting run_stochastic_training does not model, asked for by a scenario.
struct UnmodelledSetting {
  /// "audit", "record_loss" or "eval_cost_s".
  std::string setting;
  std::string message;   ///< e.g. "the audit needs the arithmetic"
  std::string expected;  ///< the value that would do, e.g. "false"
};

/// The first setting stochastic mode does not model, in this order: audit, record_loss,
/// eval_cost_s > 0; nullopt when there is none (every fault target is modelled). Precondition:
/// `faults` is valid for the cluster (validate_fault_config).
std::optional<UnmodelledSetting> unmodelled_setting(const sim::ClusterSpec& cluster,
                                                    const TrainingSpec& spec,
                                                    const FaultConfig& faults);

/// Returns "" when run_stochastic_training models `spec` on `cluster` with `faults`, else what is
/// wrong (validate_training, validate_fault_config) or what it does not model
/// (unmodelled_setting). The layers give the sizes; there is no data to check them against.
std::string validate_stochastic_training(const sim::ClusterSpec& cluster, const TrainingSpec& spec,
                                         const FaultConfig& faults);

}  // namespace codesim::models
