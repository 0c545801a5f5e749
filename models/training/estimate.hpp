// What one training replica will need before it runs: the bytes it holds and the arithmetic it
// does per iteration, from the scheme summaries (so a preflight can refuse a run that does not
// fit in memory and say how long a long one takes). Estimates, not the time model of round_costs.
#pragma once

#include "models/data/dataset_source.hpp"
#include "models/faults/fault_targets.hpp"
#include "models/training/spec.hpp"
#include "sim/checkpoint_policy.hpp"

namespace codesim::models {

struct TrainingEstimate {
  double stored_bytes = 0;  ///< every node's stored blocks (8 bytes per value, every copy)
  /// Buffers sized by the batch: activations, encoded inputs and partial results.
  double batch_bytes = 0;
  /// stored_bytes + one decoded layer + batch_bytes + the audit's shadow
  double working_bytes = 0;
  /// Forward, backward and update products of every node and the input encodings, per
  /// iteration (each stored value twice per batch column and direction); the stochastic mode
  /// simulates the same arithmetic without doing it.
  double flops_per_iteration = 0;
  /// Stochastic mode: node operations per iteration: the participants of L forward and L - 1
  /// backward rounds and every node's update (P each, an upper bound), plus a verification pass
  /// of 2L rounds per checkpoint under every_iterations. No blocks are stored.
  double node_operations_per_iteration = 0;
};

/// The estimate of one replica of `spec` under `checkpoint`.
TrainingEstimate estimate_training(const TrainingSpec& spec, const sim::CheckpointSpec& checkpoint);

/// Rollback probability of a steady iteration by the closed forms (models/theory) at the weights
/// target's probability_per_operation: a lower bound (the other targets, per-flop rates,
/// verification failures and crashes only add). 0 when per-node overrides could lower rates or
/// the theory does not describe the scheme and layers.
double training_rollback_probability(const TrainingSpec& spec, const FaultConfig& faults);

/// Values (samples x features, 8 bytes each) of a dataset as the run loads it. IDX files are
/// sized from their headers (a DatasetError when one is missing or malformed).
double dataset_values(const DatasetSource& source, int features);

}  // namespace codesim::models
