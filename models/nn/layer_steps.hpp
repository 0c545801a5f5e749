// The nodes' own steps of a network between its coded products: what turns the decoded
// product of weighted layer l into the input of layer l + 1, and the backward product of layer l
// into the delta of layer l - 1. Coded training (models/training/train.hpp) distributes only the
// three products of every weighted layer (W A, W^T D and W += eta D A^T); everything else runs at
// every node on its own copies, as these steps. An MLP's steps are its activation; a convolutional
// network's are the layout changes, ReLU, pooling, flatten, im2col and col2im (conv_layers.hpp).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "models/nn/mlp.hpp"
#include "models/nn/model_spec.hpp"

namespace codesim::models {

/// The weight matrix of one weighted layer and the columns its products have per sample.
struct WeightShape {
  int rows = 0;       ///< units, or a conv's output channels
  int cols = 0;       ///< inputs, or a conv's C_in k k
  int positions = 1;  ///< product columns per sample: a conv's H_out W_out, else 1
  /// Glorot-normal standard deviation of the initial weights, sqrt(2 / (fan_in + fan_out)) with
  /// PyTorch's fans (a conv's fan_out is C_out k k).
  double init_sd = 0.0;
  int network_layer = -1;  ///< its index among spec.network's layers; -1 for an MLP
};

/// Every weighted layer's shape, in order: the MLP's layer_sizes, or spec.network's conv and dense
/// layers. Precondition: the network (when set) is valid.
std::vector<WeightShape> weight_shapes(const ModelSpec& spec);

/// Values per sample the run's data must have: the MLP's first layer size, or the network's
/// input size.
int input_features(const ModelSpec& spec);

/// The steps between the products of one training run. Matrices are in product layout: a conv's
/// z and D are C_out x (H_out W_out B), its A is C_in k k x (H_out W_out B); a dense layer's are
/// units x B and inputs x B. z = W A + b (the bias added per row). The last weighted layer's z is
/// the logits (validate_model requires a network to end with a dense layer).
class LayerSteps {
 public:
  virtual ~LayerSteps() = default;
  /// Layer 0's input A from a batch (features x B).
  virtual Matrix first_input(const Matrix& batch) const = 0;
  /// Layer l + 1's input A from layer l's z (l below the last weighted layer).
  virtual Matrix next_input(int l, const Matrix& z) const = 0;
  /// Layer l - 1's D from back = W_l^T D_l and layer l - 1's z (l >= 1).
  virtual Matrix previous_delta(int l, const Matrix& back, const Matrix& z_previous) const = 0;
  /// One plain SGD step of the uncoded reference on `parameters` (the audit's shadow); returns
  /// the loss before the step.
  virtual double reference_step(MlpParameters& parameters, const Matrix& batch,
                                const std::vector<int>& labels, const DenseKernels& kernels) = 0;
  /// Samples evaluated at a time (0: all at once): a conv's im2col of a whole test set would not
  /// fit in memory.
  virtual int evaluation_chunk() const = 0;
};

/// The steps of spec.network when set, else of the MLP; reference_step's SGD steps by
/// `learning_rate`. Precondition: validate_model(spec) is empty.
std::unique_ptr<LayerSteps> make_layer_steps(const ModelSpec& spec, double learning_rate);

/// glorot_init of the run's network (its layers' shapes and fans).
MlpParameters initial_parameters(const ModelSpec& spec, std::uint64_t seed);

}  // namespace codesim::models
