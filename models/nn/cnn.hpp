// The uncoded CNN reference, which coded training must follow: initial weights, forward and
// backward passes through a NetworkSpec's layers, plain SGD and accuracy, in float64. Every
// weighted layer works through three explicit products, the ones coded training distributes
// (conv_layers.hpp):
//   forward  W A          A = im2col(x) (conv) or x (dense); positions_to_samples adds the bias
//   backward W^T D        D = samples_to_positions(output delta) (conv) or it; then col2im (conv)
//   update   W += eta D A^T
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "models/data/dataset.hpp"
#include "models/linalg/dense_kernels.hpp"
#include "models/nn/mlp.hpp"
#include "models/nn/network_spec.hpp"

namespace codesim::models {

/// weights[i] and biases[i] belong to the i-th weighted (conv or dense) layer. A conv's weights
/// are C_out x C_in k k, PyTorch's weight.view(C_out, -1); its bias has one entry per channel.
using NetworkParameters = MlpParameters;

/// The Glorot-normal standard deviation of a weighted layer, sqrt(2 / (fan_in + fan_out)) with
/// PyTorch's fans (conv: fan_in C_in k k, fan_out C_out k k; dense: inputs and units).
double glorot_sd(const LayerGeometry& layer);

/// Glorot-normal weights, sd sqrt(2 / (fan_in + fan_out)) with PyTorch's fans (conv: fan_in
/// C_in k k, fan_out C_out k k; dense: inputs and units), drawn column by column (column-major)
/// from the stream (seed, 0, "mlp_init", i + 1) for weighted layer i; zero biases. A network of
/// dense layers starts where glorot_init(MlpSpec) does. Precondition: the spec is valid.
NetworkParameters glorot_init(const NetworkSpec& spec, std::uint64_t seed);

/// One layer's buffers, kept from step to step.
struct LayerBuffers {
  Matrix output;      ///< the layer's output (conv, pooling; dense: W A + b); relu, flatten: unused
  Matrix patches;     ///< conv: A = im2col(x)
  Matrix product;     ///< conv: W A
  Matrix delta;       ///< conv: D, the delta of its output in product layout
  Matrix transposed;  ///< conv: W^T D
  Matrix back;        ///< conv, dense, pooling: the delta of the layer's input
  std::vector<std::int32_t> argmax;  ///< max_pool: the input row each output took
  /// The layer whose `output` holds this layer's output (ReLU and flatten work in place on their
  /// input's buffer); -1: the workspace's input.
  int owner = -1;
};

/// A forward pass's buffers, which its backward pass reads, reused from step to step: once they
/// have their sizes a step allocates nothing (fresh pages cost LeNet-5 more than its arithmetic:
/// bench/README.md). One per thread; a forward pass invalidates what the previous one left.
struct NetworkWorkspace {
  Matrix input;         ///< a copy of the batch (a ReLU first would change it in place)
  Matrix output_delta;  ///< the delta of the logits, changed in place by a last ReLU
  std::vector<LayerBuffers> layers;
};

/// An unweighted layer's forward step (pooling, flatten, ReLU) on `x`, its input (one sample per
/// column, of shape `input`); `argmax` receives max_pool's choices. Coded training's steps
/// between products call it too (layer_steps.cpp). Precondition: not a conv or dense layer (they
/// are products).
StepOutput unweighted_forward(const Layer& layer, const TensorShape& input, Matrix& x, Matrix& out,
                              std::vector<std::int32_t>& argmax);
/// Its backward step: `delta` (of its output) becomes its input's, into `out` (true: pooling,
/// with the forward step's `argmax`) or in place (false: ReLU, from the forward step's `output`;
/// flatten).
bool unweighted_backward(const Layer& layer, const TensorShape& input, Matrix& delta,
                         const Matrix& output, const std::vector<std::int32_t>& argmax,
                         Matrix& out);

/// The logits (classes x B) of `inputs` (input size x B, NCHW order per column), products on
/// `kernels`; `workspace` keeps what network_backward needs. The reference points into it.
/// Precondition: the spec is valid and the parameters are its glorot_init's shapes.
const Matrix& network_forward(const NetworkSpec& spec, const NetworkParameters& parameters,
                              const Matrix& inputs, const DenseKernels& kernels,
                              NetworkWorkspace& workspace);

/// network_forward with a workspace of its own.
Matrix network_logits(const NetworkSpec& spec, const NetworkParameters& parameters,
                      const Matrix& inputs, const DenseKernels& kernels = DenseKernels());

/// Called by network_backward for weighted layer `weighted` with D and A of its product (W += eta
/// D A^T is the SGD step), after W^T D has been formed, so it may change that layer's weights.
using LayerUpdate = std::function<void(int weighted, const Matrix& delta, const Matrix& input)>;

/// Backpropagates `delta` (output_delta of the logits) through the forward pass that `workspace`
/// holds, last layer first; the first layer's input delta is not formed.
void network_backward(const NetworkSpec& spec, const NetworkParameters& parameters,
                      NetworkWorkspace& workspace, const Matrix& delta, const DenseKernels& kernels,
                      const LayerUpdate& update);

/// One plain SGD step W <- W + eta D A^T, b <- b + eta (row sums of D) on every weighted layer
/// (eta = learning_rate; D the negative gradient of the mean loss); returns the mean loss
/// before the step.
double network_sgd_step(NetworkParameters& parameters, const NetworkSpec& spec,
                        double learning_rate, const Matrix& inputs, const std::vector<int>& labels,
                        const DenseKernels& kernels, NetworkWorkspace& workspace);
/// network_sgd_step with a workspace of its own (allocating every buffer: slow in a loop).
double network_sgd_step(NetworkParameters& parameters, const NetworkSpec& spec,
                        double learning_rate, const Matrix& inputs, const std::vector<int>& labels,
                        const DenseKernels& kernels = DenseKernels());

/// The negative gradient of the mean loss with respect to every weight and bias (what
/// network_sgd_step adds, over eta).
NetworkParameters network_negative_gradient(const NetworkSpec& spec,
                                            const NetworkParameters& parameters,
                                            const Matrix& inputs, const std::vector<int>& labels,
                                            const DenseKernels& kernels = DenseKernels());

/// Fraction of `data`'s samples whose first arg-max logit is the label, evaluated `chunk`
/// samples at a time (im2col of a whole test set would not fit).
double network_accuracy(const NetworkSpec& spec, const NetworkParameters& parameters,
                        const Dataset& data, const DenseKernels& kernels = DenseKernels(),
                        int chunk = 256);

}  // namespace codesim::models
