// Memory and arithmetic estimates of one training replica, from the scheme summary per layer.
#include "models/dnn/training_estimate.hpp"

#include <algorithm>
#include <vector>

#include "models/dnn/round_costs.hpp"

namespace codesim::models {
namespace {

TrainingEstimate stochastic_estimate(const TrainingSpec& spec,
                                     const sim::CheckpointSpec& checkpoint) {
  TrainingEstimate estimate;
  const double nodes = summarize_scheme(spec.scheme).nodes;
  const double layers = static_cast<double>(spec.mlp.layer_sizes.size()) - 1;
  double per_iteration = nodes * (2 * layers - 1 + 1);
  if (checkpoint.policy == sim::CheckpointKind::every_iterations) {
    per_iteration += nodes * 2 * layers / checkpoint.every_iterations;
  }
  estimate.node_operations_per_iteration = per_iteration;
  return estimate;
}

}  // namespace

TrainingEstimate estimate_training(const TrainingSpec& spec,
                                   const sim::CheckpointSpec& checkpoint) {
  if (spec.mode == TrainingMode::stochastic) return stochastic_estimate(spec, checkpoint);
  const std::vector<int>& sizes = spec.mlp.layer_sizes;
  double stored_values = 0;
  double weights = 0;
  double largest_layer = 0;
  TrainingEstimate estimate;
  const double batch = spec.mlp.batch_size;
  for (std::size_t l = 0; l + 1 < sizes.size(); ++l) {
    const double rows = sizes[l + 1];
    const double cols = sizes[l];
    const SchemeSummary summary = summarize_scheme(spec.scheme, 0, 0);
    const double layer_stored = summary.redundancy * rows * cols;
    stored_values += layer_stored;
    weights += rows * cols;
    largest_layer = std::max(largest_layer, rows * cols);
    estimate.flops_per_iteration +=
        3 * 2 * layer_stored * batch + 2 * summary.nodes * (rows + cols) * batch;
  }
  estimate.stored_bytes = stored_values * kBytesPerValue;
  estimate.working_bytes = estimate.stored_bytes;
  estimate.working_bytes += largest_layer * kBytesPerValue;
  if (spec.audit) estimate.working_bytes += weights * kBytesPerValue;
  return estimate;
}

double dataset_values(const DatasetSource& source, int features) {
  double samples = 0;
  switch (source.kind) {
    case DatasetKind::mnist:
      samples = 10000;
      break;
    case DatasetKind::fashion_mnist:
      samples = 70000;
      break;
    case DatasetKind::synthetic:
      samples = source.synthetic.samples;
      break;
    case DatasetKind::idx:
      samples = 70000;  // unknown before reading: MNIST-sized
      break;
  }
  return samples * features;
}

}  // namespace codesim::models
