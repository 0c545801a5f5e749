// The CNN reference's training: the whole network's gradient matches finite differences, a
// network of dense layers is the MLP bit for bit, initialisation is seeded, SGD learns.
#include "models/nn/cnn.hpp"

#include <doctest/doctest.h>

#include <boost/random/mersenne_twister.hpp>
#include <boost/random/normal_distribution.hpp>
#include <cmath>

#include "models/data/synthetic_dataset.hpp"

using namespace codesim::models;

namespace {

Matrix random_matrix(Eigen::Index rows, Eigen::Index cols, unsigned seed, double sd = 1.0) {
  boost::random::mt19937_64 gen(seed);
  boost::random::normal_distribution<double> normal(0.0, sd);
  Matrix m(rows, cols);
  for (Eigen::Index i = 0; i < m.size(); ++i) m.data()[i] = normal(gen);
  return m;
}

// Every kind of layer: a strided, padded conv, ReLU, overlapping max pooling, a second conv,
// average pooling, flatten and two dense layers.
NetworkSpec tiny_network() {
  NetworkSpec spec;
  spec.input = TensorShape{2, 7, 7, false};
  spec.layers = {Conv2d{3, 3, 2, 1}, Relu{},   MaxPool{2, 1}, Conv2d{4, 2}, AvgPool{2, 2},
                 Flatten{},          Dense{5}, Relu{},        Dense{3}};
  return spec;
}

constexpr double kEta = 0.1;  // tiny_network's learning rate

double loss_of(const NetworkSpec& spec, const NetworkParameters& p, const Matrix& x,
               const std::vector<int>& labels) {
  return cross_entropy(network_logits(spec, p, x), labels);
}

}  // namespace

TEST_CASE("the tiny network's every weight and bias gradient matches finite differences") {
  const NetworkSpec spec = tiny_network();
  REQUIRE_FALSE(validate_network(spec).has_value());
  NetworkParameters p = glorot_init(spec, 5);
  for (std::size_t i = 0; i < p.biases.size(); ++i)
    p.biases[i] = random_matrix(p.biases[i].size(), 1, 40 + static_cast<unsigned>(i), 0.1).col(0);
  const Matrix x = random_matrix(spec.input.size(), 3, 9);
  const std::vector<int> labels{0, 2, 1};
  const NetworkParameters gradient = network_negative_gradient(spec, p, x, labels);
  REQUIRE(gradient.weights.size() == 4);
  const double h = 1e-6;
  const auto numeric = [&](double& entry) {
    const double kept = entry;
    entry = kept + h;
    const double plus = loss_of(spec, p, x, labels);
    entry = kept - h;
    const double minus = loss_of(spec, p, x, labels);
    entry = kept;
    return -(plus - minus) / (2 * h);
  };
  for (std::size_t l = 0; l < p.weights.size(); ++l) {
    CAPTURE(l);
    for (Eigen::Index i = 0; i < p.weights[l].size(); ++i)
      CHECK(gradient.weights[l].data()[i] ==
            doctest::Approx(numeric(p.weights[l].data()[i])).epsilon(1e-5).scale(1e-8));
    for (Eigen::Index i = 0; i < p.biases[l].size(); ++i)
      CHECK(gradient.biases[l](i) ==
            doctest::Approx(numeric(p.biases[l](i))).epsilon(1e-5).scale(1e-8));
  }
}

TEST_CASE("an SGD step adds eta times the negative gradient and returns the loss before it") {
  const NetworkSpec spec = tiny_network();
  const NetworkParameters p = glorot_init(spec, 6);
  const Matrix x = random_matrix(spec.input.size(), 3, 10);
  const std::vector<int> labels{2, 2, 0};
  const NetworkParameters gradient = network_negative_gradient(spec, p, x, labels);
  NetworkParameters stepped = p;
  CHECK(network_sgd_step(stepped, spec, kEta, x, labels) == loss_of(spec, p, x, labels));
  for (std::size_t l = 0; l < p.weights.size(); ++l) {
    const Matrix moved = (stepped.weights[l] - p.weights[l]) / kEta;
    CHECK((moved - gradient.weights[l]).cwiseAbs().maxCoeff() < 1e-12);
  }
}

TEST_CASE("a network of dense layers trains bit for bit as the MLP of the same sizes") {
  NetworkSpec spec;
  spec.input = TensorShape{20, 1, 1, true};
  spec.layers = {Dense{16}, Relu{}, Dense{8}, Relu{}, Dense{3}};
  const MlpSpec mlp{{20, 16, 8, 3}, Activation::relu};
  NetworkParameters ours = glorot_init(spec, 12);
  MlpParameters theirs = glorot_init(mlp, 12);
  for (std::size_t l = 0; l < ours.weights.size(); ++l) CHECK(ours.weights[l] == theirs.weights[l]);
  for (unsigned step = 0; step < 3; ++step) {
    const Matrix x = random_matrix(20, 4, 20 + step);
    const std::vector<int> labels{0, 1, 2, static_cast<int>(step % 3)};
    CHECK(network_sgd_step(ours, spec, 0.05, x, labels) == sgd_step(theirs, mlp, 0.05, x, labels));
  }
  for (std::size_t l = 0; l < ours.weights.size(); ++l) {
    CHECK(ours.weights[l] == theirs.weights[l]);
    CHECK(ours.biases[l] == theirs.biases[l]);
  }
}

TEST_CASE("CNN initialisation depends only on the seed and uses PyTorch's fans for convs") {
  const NetworkSpec spec = lenet5();
  const NetworkParameters a = glorot_init(spec, 7), b = glorot_init(spec, 7),
                          c = glorot_init(spec, 8);
  REQUIRE(a.weights.size() == 5);
  CHECK(a.weights[1] == b.weights[1]);
  CHECK(a.weights[1] != c.weights[1]);
  CHECK(a.weights[0].rows() == 6);
  CHECK(a.weights[0].cols() == 25);
  // conv 2: fan_in 6 * 25 = 150, fan_out 16 * 25 = 400; 2400 draws.
  const double sd = std::sqrt(a.weights[1].array().square().mean());
  CHECK(sd == doctest::Approx(std::sqrt(2.0 / 550)).epsilon(0.05));
  for (const Vector& bias : a.biases) CHECK(bias.isZero());
}

TEST_CASE("accuracy is the same whatever the evaluation chunk") {
  const NetworkSpec spec = tiny_network();
  const NetworkParameters p = glorot_init(spec, 3);
  Dataset data;
  data.images = random_matrix(spec.input.size(), 50, 4);
  data.classes = 3;
  for (int i = 0; i < 50; ++i) data.labels.push_back(i % 3);
  const double whole = network_accuracy(spec, p, data, DenseKernels(), 50);
  CHECK(network_accuracy(spec, p, data, DenseKernels(), 1) == whole);
  CHECK(network_accuracy(spec, p, data, DenseKernels(), 7) == whole);
}

TEST_CASE("SGD on a small convolutional network learns separable synthetic classes") {
  SyntheticSpec synthetic;
  synthetic.classes = 3;
  synthetic.features = 2 * 7 * 7;
  synthetic.samples = 300;
  synthetic.separation = 8.0;
  synthetic.seed = 2;
  const Dataset data = make_synthetic_dataset(synthetic);
  const NetworkSpec spec = tiny_network();
  NetworkParameters p = glorot_init(spec, 1);
  const double before = network_accuracy(spec, p, data);
  for (int step = 0; step < 200; ++step) {
    const int first = (step * 30) % 300;
    const std::vector<int> labels(data.labels.begin() + first, data.labels.begin() + first + 30);
    network_sgd_step(p, spec, kEta, data.images.middleCols(first, 30), labels);
  }
  const double after = network_accuracy(spec, p, data);
  MESSAGE("accuracy " << before << " -> " << after);
  CHECK(after > 0.9);
  CHECK(after > before);
}

TEST_CASE("steps through one reused workspace equal steps with fresh ones, batch sizes changing") {
  NetworkSpec spec = tiny_network();
  spec.layers.insert(spec.layers.begin(), Relu{});  // a ReLU first works on the input's copy
  NetworkParameters reused = glorot_init(spec, 4), fresh = reused;
  NetworkWorkspace workspace;
  for (unsigned step = 0; step < 4; ++step) {
    const int batch = step == 2 ? 5 : 3;
    const Matrix x = random_matrix(spec.input.size(), batch, 30 + step);
    std::vector<int> labels;
    for (int b = 0; b < batch; ++b) labels.push_back((b + static_cast<int>(step)) % 3);
    const Matrix kept = x;
    CHECK(network_sgd_step(reused, spec, kEta, x, labels, DenseKernels(), workspace) ==
          network_sgd_step(fresh, spec, kEta, x, labels));
    CHECK(x == kept);
  }
  for (std::size_t l = 0; l < reused.weights.size(); ++l) {
    CHECK(reused.weights[l] == fresh.weights[l]);
    CHECK(reused.biases[l] == fresh.biases[l]);
  }
}
