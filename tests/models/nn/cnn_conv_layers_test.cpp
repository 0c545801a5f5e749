// Convolution and pooling arithmetic: im2col and col2im are adjoint, W im2col(x) is the direct
// convolution, pooling follows PyTorch's ties and its backward passes match finite differences.
#include "models/nn/conv_layers.hpp"

#include <doctest/doctest.h>

#include <boost/random/mersenne_twister.hpp>
#include <boost/random/normal_distribution.hpp>
#include <cmath>
#include <limits>

using namespace codesim::models;
using Matrix = Eigen::MatrixXd;

namespace {

Matrix random_matrix(Eigen::Index rows, Eigen::Index cols, unsigned seed) {
  boost::random::mt19937_64 gen(seed);
  boost::random::normal_distribution<double> normal;
  Matrix m(rows, cols);
  for (Eigen::Index i = 0; i < m.size(); ++i) m.data()[i] = normal(gen);
  return m;
}

double inner(const Matrix& a, const Matrix& b) { return a.cwiseProduct(b).sum(); }

// The library writes into buffers; the tests read results as values.
Matrix im2col_of(const ConvGeometry& g, const Matrix& x) {
  Matrix out;
  im2col(g, x, out);
  return out;
}
Matrix col2im_of(const ConvGeometry& g, const Matrix& patches) {
  Matrix out;
  col2im(g, patches, out);
  return out;
}
Matrix max_pool_of(const PoolGeometry& g, const Matrix& x, std::vector<std::int32_t>& argmax) {
  Matrix out;
  max_pool(g, x, out, argmax);
  return out;
}
Matrix avg_pool_of(const PoolGeometry& g, const Matrix& x) {
  Matrix out;
  avg_pool(g, x, out);
  return out;
}

// Input channels, height, width, output channels, kernel, stride, padding: covers stride > 1,
// padding, non-square inputs and windows that leave a remainder.
struct ConvCase {
  int in_channels, height, width, out_channels, kernel, stride, padding;
};
const ConvCase kConvCases[] = {{1, 6, 6, 2, 3, 1, 0},
                               {3, 7, 5, 4, 3, 2, 1},
                               {2, 5, 8, 3, 5, 1, 2},
                               {2, 9, 9, 2, 4, 3, 1},
                               {1, 4, 4, 1, 1, 1, 0}};

ConvGeometry geometry_of(const ConvCase& c) {
  return conv_geometry(TensorShape{c.in_channels, c.height, c.width, false},
                       Conv2d{c.out_channels, c.kernel, c.stride, c.padding});
}

// out[co, oh, ow] = bias[co] + sum over ci, kh, kw of w[co, ci, kh, kw] x[ci, ih, iw], read
// straight from the definition (zero outside the input).
Matrix direct_convolution(const ConvCase& c, const ConvGeometry& g, const Matrix& w,
                          const Eigen::VectorXd& bias, const Matrix& x) {
  Matrix out(c.out_channels * g.positions(), x.cols());
  for (Eigen::Index b = 0; b < x.cols(); ++b)
    for (int co = 0; co < c.out_channels; ++co)
      for (int oh = 0; oh < g.out_height; ++oh)
        for (int ow = 0; ow < g.out_width; ++ow) {
          double sum = bias(co);
          for (int ci = 0; ci < c.in_channels; ++ci)
            for (int kh = 0; kh < c.kernel; ++kh)
              for (int kw = 0; kw < c.kernel; ++kw) {
                const int ih = oh * c.stride - c.padding + kh;
                const int iw = ow * c.stride - c.padding + kw;
                if (ih < 0 || ih >= c.height || iw < 0 || iw >= c.width) continue;
                sum += w(co, (ci * c.kernel + kh) * c.kernel + kw) *
                       x((ci * c.height + ih) * c.width + iw, b);
              }
          out((co * g.out_height + oh) * g.out_width + ow, b) = sum;
        }
  return out;
}

}  // namespace

TEST_CASE("col2im is the adjoint of im2col: <col2im(D), X> equals <D, im2col(X)>") {
  unsigned seed = 1;
  for (const ConvCase& c : kConvCases) {
    CAPTURE(c.kernel);
    CAPTURE(c.stride);
    CAPTURE(c.padding);
    const ConvGeometry g = geometry_of(c);
    const int batch = 3;
    const Matrix x = random_matrix(c.in_channels * c.height * c.width, batch, seed++);
    const Matrix d = random_matrix(g.patch_rows(), g.positions() * batch, seed++);
    const double left = inner(col2im_of(g, d), x), right = inner(d, im2col_of(g, x));
    CHECK(left == doctest::Approx(right).epsilon(1e-12));
  }
}

TEST_CASE("a convolution as W im2col(x) equals the direct convolution with stride and padding") {
  unsigned seed = 100;
  for (const ConvCase& c : kConvCases) {
    CAPTURE(c.kernel);
    CAPTURE(c.stride);
    CAPTURE(c.padding);
    const ConvGeometry g = geometry_of(c);
    const Matrix w = random_matrix(c.out_channels, g.patch_rows(), seed++);
    const Eigen::VectorXd bias = random_matrix(c.out_channels, 1, seed++).col(0);
    const Matrix x = random_matrix(c.in_channels * c.height * c.width, 2, seed++);
    Matrix ours;
    positions_to_samples(w * im2col_of(g, x), bias, g.positions(), ours);
    const Matrix direct = direct_convolution(c, g, w, bias, x);
    CHECK((ours - direct).cwiseAbs().maxCoeff() < 1e-12);
  }
}

TEST_CASE("positions_to_samples and samples_to_positions undo each other") {
  const Matrix y = random_matrix(4, 6 * 3, 7);
  Matrix by_sample, back;
  positions_to_samples(y, Eigen::VectorXd::Zero(4), 6, by_sample);
  CHECK(by_sample.rows() == 24);
  CHECK(by_sample.cols() == 3);
  CHECK(by_sample(2 * 6 + 5, 1) == y(2, 1 * 6 + 5));
  samples_to_positions(by_sample, 4, back);
  CHECK(back == y);
}

TEST_CASE("max pooling takes the first maximum of a window, as PyTorch does") {
  const PoolGeometry g = pool_geometry(TensorShape{1, 2, 4, false}, 2, 2);
  Matrix x(8, 1);
  x << 0, 3, 0, 0,  // row 0
      3, 2, 0, 0;   // row 1: the left window ties at 3, the right is all zeros (ReLU's output)
  std::vector<std::int32_t> argmax;
  const Matrix y = max_pool_of(g, x, argmax);
  CHECK(y(0, 0) == 3.0);
  CHECK(y(1, 0) == 0.0);
  CHECK(argmax == std::vector<std::int32_t>{1, 2});
  Matrix delta(2, 1);
  delta << 5.0, 7.0;
  Matrix back;
  max_pool_backward(g, delta, argmax, back);
  Matrix expected = Matrix::Zero(8, 1);
  expected(1, 0) = 5.0;
  expected(2, 0) = 7.0;
  CHECK(back == expected);
}

TEST_CASE("max pooling lets a NaN win its window, the last NaN when several, as PyTorch does") {
  const PoolGeometry g = pool_geometry(TensorShape{1, 2, 4, false}, 2, 2);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  Matrix x(8, 1);
  x << 1, nan, 5, 6,  // row 0
      nan, 3, 7, 8;   // row 1: PyTorch takes any NaN, so the window's last NaN stays
  std::vector<std::int32_t> argmax;
  const Matrix y = max_pool_of(g, x, argmax);
  CHECK(std::isnan(y(0, 0)));
  CHECK(y(1, 0) == 8.0);
  CHECK(argmax == std::vector<std::int32_t>{4, 7});
}

TEST_CASE("pooling backward passes match finite differences of the pooled sum") {
  // Overlapping windows (stride < kernel) and windows that leave a remainder.
  for (const auto& [kernel, stride] : {std::pair{2, 2}, std::pair{3, 2}, std::pair{2, 1}}) {
    CAPTURE(kernel);
    CAPTURE(stride);
    const PoolGeometry g = pool_geometry(TensorShape{2, 7, 6, false}, kernel, stride);
    const Matrix x = random_matrix(2 * 7 * 6, 2, 11);  // distinct values: no ties
    const Matrix weights = random_matrix(2 * g.out_height * g.out_width, 2, 12);
    std::vector<std::int32_t> argmax;
    const auto max_loss = [&](const Matrix& in) {
      std::vector<std::int32_t> unused;
      return inner(weights, max_pool_of(g, in, unused));
    };
    const auto avg_loss = [&](const Matrix& in) { return inner(weights, avg_pool_of(g, in)); };
    max_pool_of(g, x, argmax);
    Matrix max_grad, avg_grad;
    max_pool_backward(g, weights, argmax, max_grad);
    avg_pool_backward(g, weights, avg_grad);
    const double h = 1e-6;
    for (Eigen::Index i = 0; i < x.size(); ++i) {
      Matrix plus = x, minus = x;
      plus.data()[i] += h;
      minus.data()[i] -= h;
      CHECK(max_grad.data()[i] ==
            doctest::Approx((max_loss(plus) - max_loss(minus)) / (2 * h)).epsilon(1e-6));
      CHECK(avg_grad.data()[i] ==
            doctest::Approx((avg_loss(plus) - avg_loss(minus)) / (2 * h)).epsilon(1e-6));
    }
  }
}

TEST_CASE("average pooling divides each window's sum by kernel squared") {
  const PoolGeometry g = pool_geometry(TensorShape{1, 3, 3, false}, 3, 1);
  Matrix x(9, 1);
  x << 1, 2, 3, 4, 5, 6, 7, 8, 9;
  CHECK(avg_pool_of(g, x)(0, 0) == 45.0 / 9.0);
}
