// The uncoded CNN reference: layer steps around the three products and the SGD loop over them.
#include "models/nn/cnn.hpp"

#include <boost/random/normal_distribution.hpp>
#include <cmath>

#include "models/nn/conv_layers.hpp"
#include "sim/check.hpp"
#include "sim/overloaded.hpp"
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

namespace {

using sim::Overloaded;

// Conv and dense layers are the products around the steps, never steps themselves.
constexpr const char* kNotAStep = "a conv or dense layer is a product, not a step between them";

// A weighted kind is a product that coded training distributes: forward_layer, backward_layer
// and layer_steps.cpp form its A and its layout changes, as they do a conv's and a dense layer's.
template <class Kind>
constexpr bool kIsStep = !Kind::weighted;

}  // namespace

StepOutput unweighted_forward(const Layer& layer, const TensorShape& input, Matrix& x, Matrix& out,
                              Argmax& argmax) {
  return std::visit(
      [&]<class Kind>(const Kind& kind) -> StepOutput {
        if constexpr (kIsStep<Kind>) {
          return kind.forward(input, x, out, argmax);
        } else {
          CODESIM_CHECK(false, kNotAStep);
          return StepOutput::same;
        }
      },
      layer);
}

bool unweighted_backward(const Layer& layer, const TensorShape& input, Matrix& delta,
                         const Matrix& output, const Argmax& argmax, Matrix& out) {
  return std::visit(
      [&]<class Kind>(const Kind& kind) -> bool {
        if constexpr (kIsStep<Kind>) {
          return kind.backward(input, delta, output, argmax, out);
        } else {
          CODESIM_CHECK(false, kNotAStep);
          return false;
        }
      },
      layer);
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
  std::visit(
      Overloaded{
          [&](const Conv2d& conv) {
            const auto w = static_cast<std::size_t>(g.weighted_index);
            im2col(conv_geometry(g.input, conv), x, buffers.patches);
            kernels.product(p.weights[w], buffers.patches, buffers.product);
            positions_to_samples(buffers.product, p.biases[w], g.positions, buffers.output);
          },
          [&](const Dense&) {
            const auto w = static_cast<std::size_t>(g.weighted_index);
            kernels.product(p.weights[w], x, buffers.output);
            buffers.output.colwise() += p.biases[w];
          },
          [&]<class Step>(const Step& step) -> void {
            static_assert(kIsStep<Step>, "a new weighted kind needs its product here");
            // A step in place (ReLU, flatten) leaves its output in its input's buffer.
            if (step.forward(g.input, x, buffers.output, buffers.argmax) != StepOutput::written)
              buffers.owner = input_owner;
          },
      },
      layer);
}

// Layer l's backward pass: `delta` (its output's) becomes its input's (not formed for the first
// layer), after `update` for a weighted layer.
void backward_layer(const Layer& layer, const LayerGeometry& g, bool first,
                    const NetworkParameters& p, const DenseKernels& kernels, const Matrix& x,
                    LayerBuffers& buffers, const Matrix& output, Matrix*& delta,
                    const LayerUpdate& update) {
  std::visit(Overloaded{
                 [&](const Conv2d& conv) {
                   const auto w = static_cast<std::size_t>(g.weighted_index);
                   samples_to_positions(*delta, g.weight_rows, buffers.delta);
                   if (!first) {
                     kernels.transposed_product(p.weights[w], buffers.delta, buffers.transposed);
                     col2im(conv_geometry(g.input, conv), buffers.transposed, buffers.back);
                   }
                   update(g.weighted_index, buffers.delta, buffers.patches);
                   delta = &buffers.back;
                 },
                 [&](const Dense&) {
                   const auto w = static_cast<std::size_t>(g.weighted_index);
                   if (!first) kernels.transposed_product(p.weights[w], *delta, buffers.back);
                   update(g.weighted_index, *delta, x);
                   delta = &buffers.back;
                 },
                 [&]<class Step>(const Step& step) -> void {
                   static_assert(kIsStep<Step>, "a new weighted kind needs its product here");
                   if (first) return;  // the first layer's input delta is not formed
                   if (step.backward(g.input, *delta, output, buffers.argmax, buffers.back))
                     delta = &buffers.back;
                 },
             },
             layer);
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
