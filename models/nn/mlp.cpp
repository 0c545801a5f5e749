// Plain MLP arithmetic shared by the uncoded reference and the coded training protocol.
#include "models/nn/mlp.hpp"

#include <boost/random/mersenne_twister.hpp>
#include <boost/random/normal_distribution.hpp>
#include <cmath>

#include "models/linalg/dense_kernels.hpp"
#include "sim/check.hpp"
#include "sim/random_stream.hpp"

namespace codesim::models {

MlpParameters glorot_init(const MlpSpec& spec, std::uint64_t seed) {
  CODESIM_CHECK(spec.layer_sizes.size() >= 2, "an MLP needs at least input and output sizes");
  MlpParameters p;
  for (std::size_t l = 1; l < spec.layer_sizes.size(); ++l) {
    const int fan_in = spec.layer_sizes[l - 1], fan_out = spec.layer_sizes[l];
    sim::RandomStream stream({seed, 0, "mlp_init", l});
    boost::random::normal_distribution<double> normal(0.0, std::sqrt(2.0 / (fan_in + fan_out)));
    Matrix w(fan_out, fan_in);
    for (Eigen::Index c = 0; c < w.cols(); ++c)
      for (Eigen::Index r = 0; r < w.rows(); ++r) w(r, c) = normal(stream.generator());
    p.weights.push_back(std::move(w));
    p.biases.push_back(Vector::Zero(fan_out));
  }
  return p;
}

Matrix activate(Activation activation, const Matrix& s) {
  switch (activation) {
    case Activation::relu:
      return s.cwiseMax(0.0);
    case Activation::sigmoid:
      break;
  }
  return (1.0 / (1.0 + (-s.array()).exp())).matrix();
}

Matrix activation_derivative(Activation activation, const Matrix& s) {
  switch (activation) {
    case Activation::relu:
      return (s.array() > 0.0).cast<double>().matrix();
    case Activation::sigmoid:
      break;
  }
  const Eigen::ArrayXXd f = 1.0 / (1.0 + (-s.array()).exp());
  return (f * (1.0 - f)).matrix();
}

Matrix softmax(const Matrix& logits) {
  Matrix out(logits.rows(), logits.cols());
  for (Eigen::Index c = 0; c < logits.cols(); ++c) {
    const Eigen::ArrayXd e = (logits.col(c).array() - logits.col(c).maxCoeff()).exp();
    out.col(c) = (e / e.sum()).matrix();
  }
  return out;
}

double cross_entropy(const Matrix& logits, const std::vector<int>& labels) {
  CODESIM_CHECK(static_cast<Eigen::Index>(labels.size()) == logits.cols(), "one label per column");
  double total = 0.0;
  for (Eigen::Index c = 0; c < logits.cols(); ++c) {
    const double top = logits.col(c).maxCoeff();
    const double log_sum = top + std::log((logits.col(c).array() - top).exp().sum());
    total += log_sum - logits(labels[c], c);
  }
  return total / static_cast<double>(logits.cols());
}

Matrix output_delta(const Matrix& logits, const std::vector<int>& labels) {
  Matrix delta = -softmax(logits);
  for (Eigen::Index c = 0; c < logits.cols(); ++c) delta(labels[c], c) += 1.0;
  return delta / static_cast<double>(logits.cols());
}

Matrix forward_logits(const MlpParameters& p, Activation hidden, const Matrix& inputs,
                      const DenseKernels& kernels) {
  Matrix x = inputs;
  for (std::size_t l = 0; l < p.weights.size(); ++l) {
    Matrix s = kernels.product(p.weights[l], x);
    s.colwise() += p.biases[l];
    x = l + 1 < p.weights.size() ? activate(hidden, s) : s;
  }
  return x;
}

double accuracy(const MlpParameters& p, Activation hidden, const Matrix& inputs,
                const std::vector<int>& labels, const DenseKernels& kernels) {
  const Matrix logits = forward_logits(p, hidden, inputs, kernels);
  int correct = 0;
  for (Eigen::Index c = 0; c < logits.cols(); ++c) {
    Eigen::Index best;
    logits.col(c).maxCoeff(&best);
    correct += best == labels[c];
  }
  return logits.cols() == 0 ? 0.0 : static_cast<double>(correct) / logits.cols();
}

double sgd_step(MlpParameters& p, const MlpSpec& spec, double learning_rate, const Matrix& inputs,
                const std::vector<int>& labels, const DenseKernels& kernels) {
  const std::size_t layers = p.weights.size();
  std::vector<Matrix> x{inputs}, s;  // x[l] feeds layer l; s[l] is layer l's pre-activation
  for (std::size_t l = 0; l < layers; ++l) {
    s.push_back(kernels.product(p.weights[l], x[l]));
    s[l].colwise() += p.biases[l];
    if (l + 1 < layers) x.push_back(activate(spec.hidden_activation, s[l]));
  }
  const double loss = cross_entropy(s.back(), labels);
  Matrix delta = output_delta(s.back(), labels);
  for (std::size_t l = layers; l-- > 0;) {
    Matrix next_delta;
    if (l > 0) {
      next_delta = kernels.transposed_product(p.weights[l], delta)
                       .cwiseProduct(activation_derivative(spec.hidden_activation, s[l - 1]));
    }
    kernels.add_outer_product(p.weights[l], learning_rate, delta, x[l]);
    p.biases[l] += learning_rate * delta.rowwise().sum();
    delta = std::move(next_delta);
  }
  return loss;
}

}  // namespace codesim::models
