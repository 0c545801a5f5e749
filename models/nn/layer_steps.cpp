// The steps between coded products: an MLP's activations, a convolutional network's layout
// changes, ReLU, pooling, flatten, im2col and col2im (the same functions as the uncoded
// reference in cnn.cpp, so that an error-free coded run follows it).
#include "models/nn/layer_steps.hpp"

#include <cmath>
#include <variant>

#include "models/nn/cnn.hpp"
#include "models/nn/conv_layers.hpp"

namespace codesim::models {

namespace {

class MlpSteps final : public LayerSteps {
 public:
  MlpSteps(const MlpSpec& mlp, double learning_rate) : mlp_(mlp), learning_rate_(learning_rate) {}
  Matrix first_input(const Matrix& batch) const override { return batch; }
  Matrix next_input(int, const Matrix& z) const override {
    return activate(mlp_.hidden_activation, z);
  }
  Matrix previous_delta(int, const Matrix& back, const Matrix& z_previous) const override {
    return back.cwiseProduct(activation_derivative(mlp_.hidden_activation, z_previous));
  }
  double reference_step(MlpParameters& parameters, const Matrix& batch,
                        const std::vector<int>& labels, const DenseKernels& kernels) override {
    return sgd_step(parameters, mlp_, learning_rate_, batch, labels, kernels);
  }
  int evaluation_chunk() const override { return 0; }

 private:
  MlpSpec mlp_;
  double learning_rate_;
};

// What an unweighted layer's backward step needs from its forward step.
struct Saved {
  Matrix output;                     // relu
  std::vector<std::int32_t> argmax;  // max_pool
};

class NetworkSteps final : public LayerSteps {
 public:
  NetworkSteps(const NetworkSpec& network, double learning_rate)
      : network_(network), learning_rate_(learning_rate) {
    geometry_ = network_geometry(network_);
    for (std::size_t i = 0; i < geometry_.size(); ++i) {
      if (geometry_[i].weighted_index < 0) continue;
      at_.push_back(static_cast<int>(i));
      zero_bias_.push_back(Vector::Zero(geometry_[i].weight_rows));
    }
  }

  Matrix first_input(const Matrix& batch) const override {
    Matrix x = batch;
    forward_between(0, at_.front(), x, nullptr);
    return input_of(0, std::move(x));
  }

  Matrix next_input(int l, const Matrix& z) const override {
    Matrix x = samples_of(l, z);
    forward_between(at(l) + 1, at(l + 1), x, nullptr);
    return input_of(l + 1, std::move(x));
  }

  Matrix previous_delta(int l, const Matrix& back, const Matrix& z_previous) const override {
    Matrix delta = back;
    if (const auto* conv = conv_at(l)) {
      col2im(conv_geometry(layer(l).input, *conv), back, delta);
    }
    // The steps between the two products run forward again from z_previous: their ReLU outputs
    // and maxima are what their backward steps need (a node whose z differs has its own).
    const int from = at(l - 1) + 1, to = at(l);
    std::vector<Saved> saved;
    Matrix x = samples_of(l - 1, z_previous);
    forward_between(from, to, x, &saved);
    Matrix out;
    for (int i = to; i-- > from;) {
      const Layer& step = network_.layers[static_cast<std::size_t>(i)];
      const TensorShape& input = geometry_[static_cast<std::size_t>(i)].input;
      Saved& s = saved[static_cast<std::size_t>(i - from)];
      if (unweighted_backward(step, input, delta, s.output, s.argmax, out)) delta.swap(out);
    }
    if (conv_at(l - 1) == nullptr) return delta;
    samples_to_positions(delta, layer(l - 1).weight_rows, out);
    return out;
  }

  double reference_step(MlpParameters& parameters, const Matrix& batch,
                        const std::vector<int>& labels, const DenseKernels& kernels) override {
    return network_sgd_step(parameters, network_, learning_rate_, batch, labels, kernels,
                            workspace_);
  }
  int evaluation_chunk() const override { return 256; }

 private:
  int at(int l) const { return at_[static_cast<std::size_t>(l)]; }
  const LayerGeometry& layer(int l) const { return geometry_[static_cast<std::size_t>(at(l))]; }
  const Conv2d* conv_at(int l) const {
    return std::get_if<Conv2d>(&network_.layers[static_cast<std::size_t>(at(l))]);
  }

  // Weighted layer l's z in the batch layout (one sample per column).
  Matrix samples_of(int l, const Matrix& z) const {
    if (conv_at(l) == nullptr) return z;
    Matrix x;
    positions_to_samples(z, zero_bias_[static_cast<std::size_t>(l)], layer(l).positions, x);
    return x;
  }

  // Weighted layer l's A from its input x.
  Matrix input_of(int l, Matrix x) const {
    const auto* conv = conv_at(l);
    if (conv == nullptr) return x;
    Matrix patches;
    im2col(conv_geometry(layer(l).input, *conv), x, patches);
    return patches;
  }

  // The unweighted layers [from, to) forward on x; `saved` (when given) receives what their
  // backward steps need.
  void forward_between(int from, int to, Matrix& x, std::vector<Saved>* saved) const {
    Matrix out;
    for (int i = from; i < to; ++i) {
      const Layer& step = network_.layers[static_cast<std::size_t>(i)];
      const TensorShape& input = geometry_[static_cast<std::size_t>(i)].input;
      Saved s;
      switch (unweighted_forward(step, input, x, out, s.argmax)) {
        case StepOutput::written:
          x.swap(out);
          break;
        case StepOutput::in_place:  // its backward step reads its output
          if (saved != nullptr) s.output = x;
          break;
        case StepOutput::same:
          break;
      }
      if (saved != nullptr) saved->push_back(std::move(s));
    }
  }

  NetworkSpec network_;
  double learning_rate_;
  std::vector<LayerGeometry> geometry_;
  std::vector<int> at_;  // per weighted layer: its index among the network's layers
  std::vector<Vector> zero_bias_;
  NetworkWorkspace workspace_;  // the reference step's
};

}  // namespace

std::vector<WeightShape> weight_shapes(const ModelSpec& spec) {
  std::vector<WeightShape> shapes;
  if (spec.network) {
    const std::vector<LayerGeometry> geometry = network_geometry(*spec.network);
    for (std::size_t i = 0; i < geometry.size(); ++i) {
      const LayerGeometry& g = geometry[i];
      if (g.weighted_index >= 0) {
        shapes.push_back(
            {g.weight_rows, g.weight_cols, g.positions, glorot_sd(g), static_cast<int>(i)});
      }
    }
    return shapes;
  }
  const std::vector<int>& sizes = spec.mlp.layer_sizes;
  for (std::size_t l = 0; l + 1 < sizes.size(); ++l) {
    const int rows = sizes[l + 1], cols = sizes[l];
    shapes.push_back({rows, cols, 1, std::sqrt(2.0 / (cols + rows))});
  }
  return shapes;
}

int input_features(const ModelSpec& spec) {
  return spec.network ? spec.network->input.size() : spec.mlp.layer_sizes.front();
}

std::unique_ptr<LayerSteps> make_layer_steps(const ModelSpec& spec, double learning_rate) {
  if (spec.network) return std::make_unique<NetworkSteps>(*spec.network, learning_rate);
  return std::make_unique<MlpSteps>(spec.mlp, learning_rate);
}

MlpParameters initial_parameters(const ModelSpec& spec, std::uint64_t seed) {
  return spec.network ? glorot_init(*spec.network, seed) : glorot_init(spec.mlp, seed);
}

}  // namespace codesim::models
