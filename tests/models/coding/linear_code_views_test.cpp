// Tests for the in-place decode of the linear code: symbol views, wanted message rows, peaks.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <vector>

#include <boost/random/mersenne_twister.hpp>
#include <boost/random/normal_distribution.hpp>

#include "models/coding/linear_code.hpp"

namespace {

using codesim::models::CodeDecodeResult;
using codesim::models::DecodeOptions;
using codesim::models::DecodeStatus;
using codesim::models::LinearCode;
using codesim::models::Matrix;

LinearCode chebyshev_code(int symbols, int dimension) {
  const std::vector<double> points = codesim::models::chebyshev_points(symbols);
  return LinearCode(codesim::models::vandermonde(points, dimension));
}

Matrix gaussian_matrix(Eigen::Index rows, Eigen::Index cols, std::uint64_t seed) {
  boost::random::mt19937_64 engine(seed);
  boost::random::normal_distribution<double> normal(0.0, 1.0);
  Matrix m(rows, cols);
  for (Eigen::Index j = 0; j < cols; ++j) {
    for (Eigen::Index i = 0; i < rows; ++i) m(i, j) = normal(engine);
  }
  return m;
}

// Row-major copy of the codeword, so that each symbol is contiguous, and pointers into it.
struct Views {
  explicit Views(const Matrix& codeword) : data(codeword) {
    for (Eigen::Index s = 0; s < data.rows(); ++s) pointers.push_back(data.row(s).data());
  }
  Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> data;
  std::vector<const double*> pointers;
};

double max_difference(const Matrix& a, const Matrix& b) {
  if (a.rows() != b.rows() || a.cols() != b.cols()) return 1e300;
  return (a - b).cwiseAbs().maxCoeff();
}

}  // namespace

TEST_CASE("an in-place decode with wanted rows returns exactly those message rows in order") {
  const LinearCode code = chebyshev_code(10, 5);
  const Matrix message = gaussian_matrix(5, 700, 11);
  const Views views(code.encode(message));
  const std::vector<int> wanted = {3, 1};
  const CodeDecodeResult result =
      code.decode(views.pointers, views.data.cols(), DecodeOptions{}, wanted);
  REQUIRE(result.status == DecodeStatus::clean);
  REQUIRE(result.message.rows() == 2);
  CHECK(max_difference(result.message.row(0), message.row(3)) < 1e-10);
  CHECK(max_difference(result.message.row(1), message.row(1)) < 1e-10);
  CHECK(result.erroneous_symbols.empty());
}

TEST_CASE("wanted rows naming all K rows in another order come back in that order") {
  const LinearCode code = chebyshev_code(7, 3);
  const Matrix message = gaussian_matrix(3, 200, 18);
  const Views views(code.encode(message));
  const std::vector<int> wanted = {2, 0, 1};
  const CodeDecodeResult result =
      code.decode(views.pointers, views.data.cols(), DecodeOptions{}, wanted);
  REQUIRE(result.status == DecodeStatus::clean);
  REQUIRE(result.message.rows() == 3);
  for (int i = 0; i < 3; ++i) {
    CHECK(max_difference(result.message.row(i), message.row(wanted[static_cast<std::size_t>(i)])) <
          1e-10);
  }
}

TEST_CASE("an in-place decode with no wanted rows returns the full message") {
  const LinearCode code = chebyshev_code(8, 4);
  const Matrix message = gaussian_matrix(4, 300, 12);
  const Views views(code.encode(message));
  const CodeDecodeResult result = code.decode(views.pointers, views.data.cols(), DecodeOptions{});
  REQUIRE(result.status == DecodeStatus::clean);
  CHECK(max_difference(result.message, message) < 1e-10);
}

TEST_CASE("wanted rows of negligible size still get the full-message consistency decision") {
  // The wanted row is 1e-12 times the others: its own term scale cannot certify the syndrome's
  // round-off, so the decoder must fall back to the full message and still call it clean.
  const LinearCode code = chebyshev_code(10, 5);
  Matrix message = gaussian_matrix(5, 500, 13);
  message.row(2) *= 1e-12;
  const Views views(code.encode(message));
  const std::vector<int> wanted = {2};
  const CodeDecodeResult partial =
      code.decode(views.pointers, views.data.cols(), DecodeOptions{}, wanted);
  const CodeDecodeResult full = code.decode(views.pointers, views.data.cols(), DecodeOptions{});
  REQUIRE(full.status == DecodeStatus::clean);
  REQUIRE(partial.status == DecodeStatus::clean);
  CHECK(max_difference(partial.message.row(0), full.message.row(2)) < 1e-12);
}

TEST_CASE("an in-place decode with wanted rows corrects an error and blames its symbol") {
  const LinearCode code = chebyshev_code(10, 5);
  const Matrix message = gaussian_matrix(5, 400, 14);
  Views views(code.encode(message));
  views.data.row(6) += gaussian_matrix(1, 400, 15);
  const std::vector<int> wanted = {0, 4};
  const CodeDecodeResult result =
      code.decode(views.pointers, views.data.cols(), DecodeOptions{}, wanted);
  REQUIRE(result.status == DecodeStatus::corrected);
  CHECK(result.erroneous_symbols == std::vector<int>{6});
  REQUIRE(result.message.rows() == 2);
  CHECK(max_difference(result.message.row(0), message.row(0)) < 1e-8);
  CHECK(max_difference(result.message.row(1), message.row(4)) < 1e-8);
}

TEST_CASE("null symbol views are erasures") {
  const LinearCode code = chebyshev_code(8, 4);
  const Matrix message = gaussian_matrix(4, 64, 16);
  Views views(code.encode(message));
  for (int s : {0, 3, 5}) views.pointers[static_cast<std::size_t>(s)] = nullptr;
  const CodeDecodeResult result = code.decode(views.pointers, views.data.cols(), DecodeOptions{});
  REQUIRE(result.status == DecodeStatus::clean);
  CHECK(max_difference(result.message, message) < 1e-9);
  views.pointers[1] = nullptr;  // exactly K left: solved without a check
  CHECK(code.decode(views.pointers, views.data.cols(), DecodeOptions{}).status ==
        DecodeStatus::clean);
  views.pointers[2] = nullptr;  // fewer than K
  CHECK(code.decode(views.pointers, views.data.cols(), DecodeOptions{}).status ==
        DecodeStatus::detected);
}

TEST_CASE("given peaks replace the screening pass: an infinite peak erases and blames a symbol") {
  const LinearCode code = chebyshev_code(8, 4);
  const Matrix message = gaussian_matrix(4, 64, 17);
  const Views views(code.encode(message));
  std::vector<double> peaks(8);
  for (int s = 0; s < 8; ++s) {
    peaks[static_cast<std::size_t>(s)] = views.data.row(s).cwiseAbs().maxCoeff();
  }
  peaks[2] = std::numeric_limits<double>::infinity();
  const CodeDecodeResult result =
      code.decode(views.pointers, views.data.cols(), DecodeOptions{}, {}, peaks);
  REQUIRE(result.status == DecodeStatus::corrected);
  CHECK(result.erroneous_symbols == std::vector<int>{2});
  CHECK(max_difference(result.message, message) < 1e-9);
}

TEST_CASE("symbol_peak is the largest magnitude and infinite for NaN or Inf anywhere") {
  using codesim::models::symbol_peak;
  // 21 entries: two blocks of eight lanes and a tail of five.
  std::vector<double> data(21);
  for (std::size_t i = 0; i < data.size(); ++i) data[i] = 0.25 * static_cast<double>(i % 5) - 0.5;
  CHECK(symbol_peak(data.data(), 0) == 0.0);
  CHECK(symbol_peak(data.data(), 21) == 0.5);
  for (std::size_t position = 0; position < data.size(); ++position) {
    CAPTURE(position);
    std::vector<double> peaked = data;
    peaked[position] = -9.0;
    CHECK(symbol_peak(peaked.data(), 21) == 9.0);
    if (position > 0) {  // the entries before it: data[0] = -0.5 is their peak
      CHECK(symbol_peak(peaked.data(), static_cast<Eigen::Index>(position)) == 0.5);
    }
    for (double bad :
         {std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity(),
          -std::numeric_limits<double>::infinity()}) {
      std::vector<double> poisoned = data;
      poisoned[position] = bad;
      CHECK(std::isinf(symbol_peak(poisoned.data(), 21)));
    }
  }
  const double huge = std::numeric_limits<double>::max();
  std::vector<double> large(12, 1.0);
  large[3] = huge;
  large[10] = -huge;
  CHECK(symbol_peak(large.data(), 12) == huge);
}
