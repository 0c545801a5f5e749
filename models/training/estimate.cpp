// Memory and arithmetic estimates of one training replica, from the scheme summary per layer.
#include "models/training/estimate.hpp"

#include <algorithm>
#include <vector>

#include "models/coding/abft_checksums.hpp"
#include "models/data/idx_loader.hpp"
#include "models/nn/layer_steps.hpp"
#include "models/theory/training_theory.hpp"
#include "models/training/protocol/round_costs.hpp"

namespace codesim::models {
namespace {

// The stochastic mode's node operations; it stores no blocks and reads no data, but simulates
// the numeric mode's arithmetic (flops_per_iteration is kept).
void make_stochastic(TrainingEstimate& estimate, const TrainingSpec& spec,
                     const sim::CheckpointSpec& checkpoint) {
  estimate.stored_bytes = estimate.batch_bytes = estimate.working_bytes = 0;
  const double nodes = summarize_scheme(spec.scheme).nodes;
  const double layers = static_cast<double>(weight_shapes(spec).size());
  // Rounds: L forward, L - 1 backward (L with first_layer_backward), and the update.
  double per_iteration = nodes * (2 * layers - (spec.first_layer_backward ? 0 : 1) + 1);
  if (checkpoint.policy == sim::CheckpointKind::every_iterations) {
    per_iteration += nodes * 2 * layers / checkpoint.every_iterations;
  }
  estimate.node_operations_per_iteration = per_iteration;
}

// Values of the IDX file `file` (the product of its header's dimensions).
double idx_values(const std::string& file) {
  double values = 1;
  for (std::uint32_t size : read_idx_dimensions(file)) values *= size;
  return values;
}

}  // namespace

TrainingEstimate estimate_training(const TrainingSpec& spec,
                                   const sim::CheckpointSpec& checkpoint) {
  double stored_values = 0;
  double weights = 0;
  double largest_layer = 0;
  TrainingEstimate estimate;
  for (const WeightShape& shape : weight_shapes(spec)) {
    const double rows = shape.rows;
    const double cols = shape.cols;
    // Product columns: the batch, times a conv's output positions per sample.
    const double batch = static_cast<double>(spec.sgd.batch_size) * shape.positions;
    const SchemeSummary summary = summarize_scheme(spec.scheme, 0, 0);
    double layer_stored = summary.redundancy * rows * cols;
    if (checks_at_nodes(spec.scheme)) {
      // Every node's block also carries its checksum rows and columns.
      const auto [m, n] = block_grid(spec.scheme);
      const double height = rows / m;
      const double width = cols / n;
      const double lines = abft::kChecksums;
      layer_stored += summary.nodes * ((height + lines) * (width + lines) - height * width);
    }
    stored_values += layer_stored;
    weights += rows * cols;
    largest_layer = std::max(largest_layer, rows * cols);
    estimate.flops_per_iteration +=
        3 * 2 * layer_stored * batch + 2 * summary.nodes * (rows + cols) * batch;
    // Per batch column: the layer's input, pre-activation and delta, and (an upper bound) every
    // node's encoded input and partial result at once.
    estimate.batch_bytes += (3 + summary.nodes) * (rows + cols) * batch * kBytesPerValue;
  }
  estimate.stored_bytes = stored_values * kBytesPerValue;
  estimate.working_bytes = estimate.stored_bytes;
  estimate.working_bytes += largest_layer * kBytesPerValue + estimate.batch_bytes;
  if (spec.audit) estimate.working_bytes += weights * kBytesPerValue;
  if (spec.mode == TrainingMode::stochastic) make_stochastic(estimate, spec, checkpoint);
  return estimate;
}

double training_rollback_probability(const TrainingSpec& spec, const FaultConfig& faults) {
  const double eps = faults[FaultTarget::weights].rate.probability_per_operation;
  // The closed forms cover the MLP's layers (models/theory), not a network's.
  if (eps <= 0.0 || !faults.overrides.empty() || spec.network ||
      !validate_training_theory(spec.scheme, spec.mlp.layer_sizes).empty()) {
    return 0.0;
  }
  TrainingTheoryOptions options;
  options.error_model = spec.decode.error_model;
  options.first_layer_backward = spec.first_layer_backward;
  return TrainingTheory(spec.scheme, spec.mlp.layer_sizes, options).rollback_probability(eps);
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
      // From the files' headers, before any data is read.
      return idx_values(source.images) +
             (source.test_images.empty() ? 0.0 : idx_values(source.test_images));
  }
  return samples * features;
}

}  // namespace codesim::models
