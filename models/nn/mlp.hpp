// A plain multilayer perceptron (uncoded reference): layers, activations, softmax loss, SGD.
#pragma once

#include <Eigen/Dense>
#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "models/linalg/dense_kernels.hpp"

namespace codesim::models {

using Matrix = Eigen::MatrixXd;
using Vector = Eigen::VectorXd;

/// A hidden layer's activation: max(0, s), or the logistic 1 / (1 + e^-s).
enum class Activation { relu, sigmoid };
/// The activations' names (in scenarios), indexed by Activation.
inline constexpr std::array<std::string_view, 2> kActivationNames = {"relu", "sigmoid"};

/// Layer sizes (input first, classes last) and the hidden layers' activation.
struct MlpSpec {
  std::vector<int> layer_sizes{784, 256, 256, 10};
  Activation hidden_activation = Activation::relu;
};

/// Plain SGD's settings: step size eta and samples per step. A training run holds one
/// (TrainingSpec::sgd), whatever network it trains.
struct SgdSettings {
  double learning_rate = 0.005;  ///< eta, > 0
  int batch_size = 1;            ///< >= 1
};

/// Parameters of an MLP: weights[l] is N_l x N_{l-1}, biases[l] has N_l entries.
struct MlpParameters {
  std::vector<Matrix> weights;
  std::vector<Vector> biases;
};

/// Glorot-normal weights (sd sqrt(2 / (fan_in + fan_out))) and zero biases, drawn from the
/// stream (seed, 0, "mlp_init", layer): identical across strategies and replicas for one seed.
MlpParameters glorot_init(const MlpSpec& spec, std::uint64_t seed);

/// f(s) applied entrywise.
Matrix activate(Activation activation, const Matrix& pre_activation);
/// f'(s) applied entrywise (ReLU' is 1 for s > 0, else 0).
Matrix activation_derivative(Activation activation, const Matrix& pre_activation);
/// Column-wise softmax of the logits.
Matrix softmax(const Matrix& logits);
/// Mean cross-entropy of softmax(logits) against integer labels (one per column).
double cross_entropy(const Matrix& logits, const std::vector<int>& labels);
/// Negative gradient of the mean loss with respect to the logits: (onehot - softmax) / B.
Matrix output_delta(const Matrix& logits, const std::vector<int>& labels);

/// Logits of the network for inputs X (features x B); products on `kernels` (the run's).
Matrix forward_logits(const MlpParameters& parameters, Activation hidden, const Matrix& inputs,
                      const DenseKernels& kernels = DenseKernels());
/// Fraction of columns whose arg-max logit equals the label.
double accuracy(const MlpParameters& parameters, Activation hidden, const Matrix& inputs,
                const std::vector<int>& labels, const DenseKernels& kernels = DenseKernels());
/// One plain SGD step W_l <- W_l + eta delta_l x_{l-1}^T, b_l <- b_l + eta sum_b delta_l
/// (eta = learning_rate); returns the loss before the step.
double sgd_step(MlpParameters& parameters, const MlpSpec& spec, double learning_rate,
                const Matrix& inputs, const std::vector<int>& labels,
                const DenseKernels& kernels = DenseKernels());

}  // namespace codesim::models
