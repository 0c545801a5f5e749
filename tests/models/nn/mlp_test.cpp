// The plain MLP: gradients match finite differences, initialisation is seeded, SGD learns.
#include "models/nn/mlp.hpp"

#include <doctest/doctest.h>

#include <boost/random/mersenne_twister.hpp>
#include <boost/random/normal_distribution.hpp>

using namespace codesim::models;

namespace {
Matrix random_matrix(int rows, int cols, unsigned seed) {
  boost::random::mt19937_64 gen(seed);
  boost::random::normal_distribution<double> normal;
  Matrix m(rows, cols);
  for (Eigen::Index i = 0; i < m.size(); ++i) m.data()[i] = normal(gen);
  return m;
}
}  // namespace

TEST_CASE("Glorot initialisation depends only on the seed and has the right spread") {
  MlpSpec spec{{300, 200, 10}, Activation::relu};
  const auto a = glorot_init(spec, 7), b = glorot_init(spec, 7), c = glorot_init(spec, 8);
  CHECK(a.weights[0] == b.weights[0]);
  CHECK(a.weights[0] != c.weights[0]);
  const double sd = std::sqrt(a.weights[0].array().square().mean());
  CHECK(sd == doctest::Approx(std::sqrt(2.0 / 500)).epsilon(0.02));
  CHECK(a.biases[1].isZero());
}

TEST_CASE("one SGD step moves the weights along the finite-difference gradient") {
  for (Activation act : {Activation::relu, Activation::sigmoid}) {
    MlpSpec spec{{5, 4, 3}, act};
    const double eta = 1e-3;
    MlpParameters p = glorot_init(spec, 3);
    p.biases[0] = random_matrix(4, 1, 9).col(0) * 0.1;
    const Matrix x = random_matrix(5, 2, 11);
    const std::vector<int> y{0, 2};
    MlpParameters stepped = p;
    sgd_step(stepped, spec, eta, x, y);
    const double h = 1e-6;
    for (int i = 0; i < 4; ++i) {
      for (int j = 0; j < 5; ++j) {
        MlpParameters plus = p, minus = p;
        plus.weights[0](i, j) += h;
        minus.weights[0](i, j) -= h;
        const double grad = (cross_entropy(forward_logits(plus, act, x), y) -
                             cross_entropy(forward_logits(minus, act, x), y)) /
                            (2 * h);
        const double moved = (stepped.weights[0](i, j) - p.weights[0](i, j)) / eta;
        CHECK(moved == doctest::Approx(-grad).epsilon(1e-5).scale(1e-8));
      }
    }
  }
}

TEST_CASE("softmax columns sum to one and the output delta is onehot minus softmax over B") {
  const Matrix logits = random_matrix(4, 3, 5);
  const Matrix p = softmax(logits);
  for (int c = 0; c < 3; ++c) CHECK(p.col(c).sum() == doctest::Approx(1.0));
  const Matrix d = output_delta(logits, {1, 0, 3});
  CHECK(d(1, 0) == doctest::Approx((1.0 - p(1, 0)) / 3));
  CHECK(d(2, 0) == doctest::Approx(-p(2, 0) / 3));
}

TEST_CASE("SGD on two separable clusters reaches high accuracy") {
  MlpSpec spec{{2, 16, 2}, Activation::relu};
  MlpParameters p = glorot_init(spec, 1);
  boost::random::mt19937_64 gen(4);
  boost::random::normal_distribution<double> noise(0.0, 0.5);
  Matrix x(2, 400);
  std::vector<int> y(400);
  for (int i = 0; i < 400; ++i) {
    y[i] = i % 2;
    x(0, i) = (y[i] ? 2.0 : -2.0) + noise(gen);
    x(1, i) = noise(gen);
  }
  for (int epoch = 0; epoch < 3; ++epoch)
    for (int i = 0; i < 400; ++i) sgd_step(p, spec, 0.1, x.col(i), {y[i]});
  CHECK(accuracy(p, Activation::relu, x, y) > 0.97);
}
