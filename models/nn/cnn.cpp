// The uncoded CNN reference: layer steps around the three products and the SGD loop over them.
#include "models/nn/cnn.hpp"

#include <boost/random/normal_distribution.hpp>
#include <cmath>

#include "models/nn/conv_layers.hpp"
#include "sim/check.hpp"
#include "sim/random_stream.hpp"

namespace codesim::models {

double glorot_sd(const LayerGeometry& g) {
  // PyTorch's fans: a conv's receptive field (k k) multiplies both.
  const double field = static_cast<double>(g.weight_cols) / g.input.channels;
  const double fan_in = g.weight_cols;
  const double fan_out = g.input.flat ? g.weight_rows : g.weight_rows * field;
  return std::sqrt(2.0 / (fan_in + fan_out));
}

NetworkParameters glorot_init(const NetworkSpec& spec, std::uint64_t seed) {
  NetworkParameters p;
  const std::vector<LayerGeometry> geometry = network_geometry(spec);
  for (std::size_t l = 0; l < spec.layers.size(); ++l) {
    const LayerGeometry& g = geometry[l];
    if (g.weighted_index < 0) continue;
    sim::RandomStream stream(
        {seed, 0, "mlp_init", static_cast<std::uint64_t>(g.weighted_index + 1)});
    boost::random::normal_distribution<double> normal(0.0, glorot_sd(g));
    Matrix w(g.weight_rows, g.weight_cols);
    for (Eigen::Index c = 0; c < w.cols(); ++c)
      for (Eigen::Index r = 0; r < w.rows(); ++r) w(r, c) = normal(stream.generator());
    p.weights.push_back(std::move(w));
    p.biases.push_back(Vector::Zero(g.weight_rows));
  }
  return p;
}

bool pool_forward(const Layer& layer, const TensorShape& input, const Matrix& x, Matrix& out,
                  std::vector<std::int32_t>& argmax) {
  if (const auto* pool = std::get_if<MaxPool>(&layer)) {
    max_pool(pool_geometry(input, pool->kernel, pool->stride), x, out, argmax);
  } else if (const auto* avg = std::get_if<AvgPool>(&layer)) {
    avg_pool(pool_geometry(input, avg->kernel, avg->stride), x, out);
  } else {
    return false;
  }
  return true;
}

bool pool_backward(const Layer& layer, const TensorShape& input, const Matrix& delta,
                   const std::vector<std::int32_t>& argmax, Matrix& out) {
  if (const auto* pool = std::get_if<MaxPool>(&layer)) {
    max_pool_backward(pool_geometry(input, pool->kernel, pool->stride), delta, argmax, out);
  } else if (const auto* avg = std::get_if<AvgPool>(&layer)) {
    avg_pool_backward(pool_geometry(input, avg->kernel, avg->stride), delta, out);
  } else {
    return false;
  }
  return true;
}

namespace {

// The buffer that holds the output of layer `owner` (-1: the workspace's input).
Matrix& activation(NetworkWorkspace& ws, int owner) {
  return owner < 0 ? ws.input : ws.layers[static_cast<std::size_t>(owner)].output;
}

// Layer l's forward pass on x; sets buffers.owner.
void forward_layer(const Layer& layer, const LayerGeometry& g, int l, const NetworkParameters& p,
                   const DenseKernels& kernels, Matrix& x, LayerBuffers& buffers, int input_owner) {
  buffers.owner = l;
  if (const auto* conv = std::get_if<Conv2d>(&layer)) {
    const auto w = static_cast<std::size_t>(g.weighted_index);
    im2col(conv_geometry(g.input, *conv), x, buffers.patches);
    kernels.product(p.weights[w], buffers.patches, buffers.product);
    positions_to_samples(buffers.product, p.biases[w], g.positions, buffers.output);
  } else if (std::holds_alternative<Dense>(layer)) {
    const auto w = static_cast<std::size_t>(g.weighted_index);
    kernels.product(p.weights[w], x, buffers.output);
    buffers.output.colwise() += p.biases[w];
  } else if (!pool_forward(layer, g.input, x, buffers.output, buffers.argmax)) {
    // ReLU in place (nothing reads its input again: a weighted layer's A is its own input, and
    // ReLU's backward reads its output); flatten is the identity on the batch layout.
    if (std::holds_alternative<Relu>(layer)) x = x.cwiseMax(0.0);
    buffers.owner = input_owner;
  }
}

// Layer l's backward pass: `delta` (its output's) becomes its input's (not formed for the first
// layer), after `update` for a weighted layer.
void backward_layer(const Layer& layer, const LayerGeometry& g, bool first,
                    const NetworkParameters& p, const DenseKernels& kernels, const Matrix& x,
                    LayerBuffers& buffers, const Matrix& output, Matrix*& delta,
                    const LayerUpdate& update) {
  if (const auto* conv = std::get_if<Conv2d>(&layer)) {
    const auto w = static_cast<std::size_t>(g.weighted_index);
    samples_to_positions(*delta, g.weight_rows, buffers.delta);
    if (!first) {
      kernels.transposed_product(p.weights[w], buffers.delta, buffers.transposed);
      col2im(conv_geometry(g.input, *conv), buffers.transposed, buffers.back);
    }
    update(g.weighted_index, buffers.delta, buffers.patches);
    delta = &buffers.back;
  } else if (std::holds_alternative<Dense>(layer)) {
    const auto w = static_cast<std::size_t>(g.weighted_index);
    if (!first) kernels.transposed_product(p.weights[w], *delta, buffers.back);
    update(g.weighted_index, *delta, x);
    delta = &buffers.back;
  } else if (first) {
    return;
  } else if (pool_backward(layer, g.input, *delta, buffers.argmax, buffers.back)) {
    delta = &buffers.back;
  } else if (std::holds_alternative<Relu>(layer)) {
    // ReLU' is 1 where the output is positive, else 0 (PyTorch's threshold_backward).
    delta->array() *= (output.array() > 0.0).cast<double>();
  }
}

}  // namespace

const Matrix& network_forward(const NetworkSpec& spec, const NetworkParameters& p,
                              const Matrix& inputs, const DenseKernels& kernels,
                              NetworkWorkspace& ws) {
  const std::vector<LayerGeometry> geometry = network_geometry(spec);
  CODESIM_CHECK(inputs.rows() == spec.input.size(), "one input column per sample");
  CODESIM_CHECK(p.weights.size() == p.biases.size(), "a bias per weight matrix");
  ws.layers.resize(spec.layers.size());
  ws.input = inputs;
  int owner = -1;
  for (std::size_t l = 0; l < spec.layers.size(); ++l) {
    CODESIM_CHECK(geometry[l].weighted_index < static_cast<int>(p.weights.size()),
                  "weights for every weighted layer");
    forward_layer(spec.layers[l], geometry[l], static_cast<int>(l), p, kernels,
                  activation(ws, owner), ws.layers[l], owner);
    owner = ws.layers[l].owner;
  }
  return activation(ws, owner);
}

Matrix network_logits(const NetworkSpec& spec, const NetworkParameters& p, const Matrix& inputs,
                      const DenseKernels& kernels) {
  NetworkWorkspace ws;
  return network_forward(spec, p, inputs, kernels, ws);
}

void network_backward(const NetworkSpec& spec, const NetworkParameters& p, NetworkWorkspace& ws,
                      const Matrix& delta, const DenseKernels& kernels, const LayerUpdate& update) {
  const std::vector<LayerGeometry> geometry = network_geometry(spec);
  CODESIM_CHECK(ws.layers.size() == spec.layers.size(), "a forward pass of this network");
  ws.output_delta = delta;
  Matrix* current = &ws.output_delta;
  for (std::size_t l = spec.layers.size(); l-- > 0;) {
    const int input_owner = l == 0 ? -1 : ws.layers[l - 1].owner;
    backward_layer(spec.layers[l], geometry[l], l == 0, p, kernels, activation(ws, input_owner),
                   ws.layers[l], activation(ws, ws.layers[l].owner), current, update);
  }
}

double network_sgd_step(NetworkParameters& p, const NetworkSpec& spec, double learning_rate,
                        const Matrix& inputs, const std::vector<int>& labels,
                        const DenseKernels& kernels, NetworkWorkspace& ws) {
  const Matrix& logits = network_forward(spec, p, inputs, kernels, ws);
  const double loss = cross_entropy(logits, labels);
  const double eta = learning_rate;
  network_backward(spec, p, ws, output_delta(logits, labels), kernels,
                   [&](int w, const Matrix& d, const Matrix& a) {
                     const auto i = static_cast<std::size_t>(w);
                     kernels.add_outer_product(p.weights[i], eta, d, a);
                     p.biases[i] += eta * d.rowwise().sum();
                   });
  return loss;
}

double network_sgd_step(NetworkParameters& p, const NetworkSpec& spec, double learning_rate,
                        const Matrix& inputs, const std::vector<int>& labels,
                        const DenseKernels& kernels) {
  NetworkWorkspace ws;
  return network_sgd_step(p, spec, learning_rate, inputs, labels, kernels, ws);
}

NetworkParameters network_negative_gradient(const NetworkSpec& spec, const NetworkParameters& p,
                                            const Matrix& inputs, const std::vector<int>& labels,
                                            const DenseKernels& kernels) {
  NetworkWorkspace ws;
  const Matrix& logits = network_forward(spec, p, inputs, kernels, ws);
  NetworkParameters gradient = p;
  network_backward(spec, p, ws, output_delta(logits, labels), kernels,
                   [&](int w, const Matrix& d, const Matrix& a) {
                     const auto i = static_cast<std::size_t>(w);
                     gradient.weights[i].setZero();
                     kernels.add_outer_product(gradient.weights[i], 1.0, d, a);
                     gradient.biases[i] = d.rowwise().sum();
                   });
  return gradient;
}

double network_accuracy(const NetworkSpec& spec, const NetworkParameters& p, const Dataset& data,
                        const DenseKernels& kernels, int chunk) {
  CODESIM_CHECK(chunk >= 1, "a positive chunk");
  if (data.samples() == 0) return 0.0;
  NetworkWorkspace ws;
  Matrix inputs;
  int correct = 0;
  for (int first = 0; first < data.samples(); first += chunk) {
    const int count = std::min(chunk, data.samples() - first);
    inputs = data.images.middleCols(first, count);
    const Matrix& logits = network_forward(spec, p, inputs, kernels, ws);
    for (int c = 0; c < count; ++c) {
      Eigen::Index best;
      logits.col(c).maxCoeff(&best);
      correct += best == data.labels[static_cast<std::size_t>(first + c)];
    }
  }
  return static_cast<double>(correct) / data.samples();
}

}  // namespace codesim::models
