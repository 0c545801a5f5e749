// What one training replica will need before it runs: the bytes it holds and the arithmetic it
// does per iteration, from the scheme summaries (so a preflight can refuse a run that does not
// fit in memory and say how long a long one takes). Estimates, not the time model of round_costs.
#pragma once

#include "models/dnn/coded_training.hpp"
#include "models/dnn/dataset_source.hpp"
#include "sim/checkpoint_policy.hpp"

namespace codesim::models {

struct TrainingEstimate {
  double stored_bytes = 0;   ///< every node's stored blocks (8 bytes per value, every copy)
  double working_bytes = 0;  ///< stored_bytes + one decoded layer + the audit's shadow
  /// Numeric mode: forward, backward and update products of every node and the input
  /// encodings, per iteration (each stored value twice per batch column and direction).
  double flops_per_iteration = 0;
  /// Stochastic mode: node operations per iteration: the participants of L forward and L - 1
  /// backward rounds and every node's update (P each, an upper bound), plus a verification pass
  /// of 2L rounds per checkpoint under every_iterations. No blocks are stored.
  double node_operations_per_iteration = 0;
};

/// The estimate of one replica of `spec` under `checkpoint`.
TrainingEstimate estimate_training(const TrainingSpec& spec, const sim::CheckpointSpec& checkpoint);

/// Values (samples x features, 8 bytes each) of a dataset as the run loads it; an upper bound
/// for files whose size is known only after reading (MNIST-sized).
double dataset_values(const DatasetSource& source, int features);

}  // namespace codesim::models
