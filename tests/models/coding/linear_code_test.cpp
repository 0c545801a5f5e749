// Tests for the real linear code: generators, encoding, solves and the errors-and-erasures decoder.
#include "models/coding/linear_code.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <set>
#include <vector>

#include <boost/random/mersenne_twister.hpp>
#include <boost/random/normal_distribution.hpp>
#include <boost/random/uniform_int_distribution.hpp>
#include <boost/random/uniform_real_distribution.hpp>

namespace {

using codesim::models::CodeDecodeResult;
using codesim::models::DecodeOptions;
using codesim::models::DecodeStatus;
using codesim::models::ErrorModel;
using codesim::models::LinearCode;
using codesim::models::Matrix;
using Received = std::vector<std::optional<Eigen::RowVectorXd>>;

LinearCode chebyshev_code(int symbols, int dimension) {
  const std::vector<double> points = codesim::models::chebyshev_points(symbols);
  return LinearCode(codesim::models::vandermonde(points, dimension));
}

LinearCode gaussian_code(int symbols, int dimension) {
  return LinearCode(codesim::models::systematic_gaussian_generator(symbols, dimension, 2017));
}

Matrix gaussian_matrix(Eigen::Index rows, Eigen::Index cols, boost::random::mt19937_64& engine) {
  boost::random::normal_distribution<double> normal(0.0, 1.0);
  Matrix m(rows, cols);
  for (Eigen::Index j = 0; j < cols; ++j) {
    for (Eigen::Index i = 0; i < rows; ++i) m(i, j) = normal(engine);
  }
  return m;
}

Received all_symbols(const Matrix& codeword) {
  Received received(static_cast<std::size_t>(codeword.rows()));
  for (Eigen::Index s = 0; s < codeword.rows(); ++s) {
    received[static_cast<std::size_t>(s)] = Eigen::RowVectorXd(codeword.row(s));
  }
  return received;
}

double relative_error(const Matrix& decoded, const Matrix& truth) {
  if (decoded.rows() != truth.rows() || decoded.cols() != truth.cols()) return 1e300;
  // Max-abs norms: no underflow for tiny messages.
  return (decoded - truth).cwiseAbs().maxCoeff() / truth.cwiseAbs().maxCoeff();
}

DecodeOptions options_for(ErrorModel model, int inner_dimension) {
  DecodeOptions options;
  options.error_model = model;
  options.inner_dimension = inner_dimension;
  return options;
}

double flip_bit(double value, int bit) {
  return std::bit_cast<double>(std::bit_cast<std::uint64_t>(value) ^ (std::uint64_t{1} << bit));
}

// Every subset of {0..n-1} with `size` elements, in lexicographic order.
std::vector<std::vector<int>> subsets(int n, int size) {
  std::vector<std::vector<int>> all;
  for (std::uint32_t mask = 0; mask < (1u << n); ++mask) {
    if (std::popcount(mask) != size) continue;
    std::vector<int> subset;
    for (int i = 0; i < n; ++i) {
      if (mask & (1u << i)) subset.push_back(i);
    }
    all.push_back(subset);
  }
  std::sort(all.begin(), all.end());
  return all;
}

}  // namespace

TEST_CASE("chebyshev points follow the cosine formula in spread order inside (-1, 1)") {
  const std::vector<double> points = codesim::models::chebyshev_points(5);
  REQUIRE(points.size() == 5);
  const int order[] = {0, 4, 2, 1, 3};  // pruned bit reversal
  for (int p = 0; p < 5; ++p) {
    CHECK(points[static_cast<std::size_t>(p)] ==
          doctest::Approx(std::cos((2.0 * order[p] + 1.0) * 3.14159265358979323846 / 10.0)));
    CHECK(std::abs(points[static_cast<std::size_t>(p)]) < 1.0);
  }
  CHECK(points[2] == doctest::Approx(0.0).epsilon(1e-15));
}

TEST_CASE("vandermonde entries are powers of the points") {
  const std::vector<double> points{2.0, -0.5, 3.0};
  const Matrix v = codesim::models::vandermonde(points, 4);
  REQUIRE(v.rows() == 3);
  REQUIRE(v.cols() == 4);
  CHECK(v(0, 0) == 1.0);
  CHECK(v(0, 3) == 8.0);
  CHECK(v(1, 2) == 0.25);
  CHECK(v(2, 1) == 3.0);
  CHECK(v(2, 3) == 27.0);
}

TEST_CASE(
    "the systematic gaussian generator starts with the identity and depends only on its seed") {
  const Matrix g = codesim::models::systematic_gaussian_generator(9, 4, 7);
  REQUIRE(g.rows() == 9);
  REQUIRE(g.cols() == 4);
  CHECK(g.topRows(4) == Matrix::Identity(4, 4));
  CHECK(g == codesim::models::systematic_gaussian_generator(9, 4, 7));
  CHECK(g != codesim::models::systematic_gaussian_generator(9, 4, 8));
  // R is drawn row by row from mt19937_64(seed) with a standard normal distribution.
  boost::random::mt19937_64 engine(7);
  boost::random::normal_distribution<double> normal(0.0, 1.0);
  CHECK(g(4, 0) == normal(engine));
  CHECK(g(4, 1) == normal(engine));
  const Matrix parity = g.bottomRows(5);
  CHECK(std::abs(parity.mean()) < 1.0);
  CHECK(parity.cwiseAbs().maxCoeff() > 0.1);
}

TEST_CASE("encoding multiplies the generator by the message") {
  const LinearCode code = chebyshev_code(6, 3);
  CHECK(code.symbol_count() == 6);
  CHECK(code.dimension() == 3);
  boost::random::mt19937_64 engine(1);
  const Matrix message = gaussian_matrix(3, 5, engine);
  const Matrix symbols = code.encode(message);
  REQUIRE(symbols.rows() == 6);
  REQUIRE(symbols.cols() == 5);
  CHECK((symbols - code.generator() * message).norm() == 0.0);
}

TEST_CASE("correctable and detectable error counts follow the model bounds") {
  const LinearCode code = chebyshev_code(7, 4);
  CHECK(code.correctable_errors(ErrorModel::adversarial) == 1);
  CHECK(code.correctable_errors(ErrorModel::random) == 2);
  CHECK(code.detectable_errors() == 3);
  CHECK(code.correctable_errors(ErrorModel::adversarial, 1) == 1);
  CHECK(code.correctable_errors(ErrorModel::random, 1) == 1);
  CHECK(code.detectable_errors(1) == 2);
  CHECK(code.correctable_errors(ErrorModel::adversarial, 2) == 0);
  CHECK(code.correctable_errors(ErrorModel::random, 3) == 0);
  CHECK(code.correctable_errors(ErrorModel::random, 5) == 0);
  CHECK(code.detectable_errors(5) == 0);
  const LinearCode wide = gaussian_code(12, 5);
  CHECK(wide.correctable_errors(ErrorModel::adversarial) == 3);
  CHECK(wide.correctable_errors(ErrorModel::random) == 6);
  CHECK(wide.correctable_errors(ErrorModel::adversarial, 3) == 2);
}

TEST_CASE("decoding from every K-subset recovers the message and every (K-1)-subset is detected") {
  boost::random::mt19937_64 engine(11);
  for (const LinearCode& code : {chebyshev_code(7, 4), gaussian_code(7, 5)}) {
    const int s_count = code.symbol_count();
    const int k = code.dimension();
    const Matrix message = gaussian_matrix(k, 6, engine);
    const Matrix codeword = code.encode(message);
    for (ErrorModel model : {ErrorModel::adversarial, ErrorModel::random}) {
      const DecodeOptions options = options_for(model, k);
      for (int size = k - 1; size <= s_count; ++size) {
        for (const std::vector<int>& kept : subsets(s_count, size)) {
          Received received(static_cast<std::size_t>(s_count));
          for (int s : kept) received[static_cast<std::size_t>(s)] = codeword.row(s);
          const CodeDecodeResult result = code.decode(received, options);
          if (size < k) {
            CHECK(result.status == DecodeStatus::detected);
            CHECK(result.message.size() == 0);
            CHECK(result.erroneous_symbols.empty());
          } else {
            REQUIRE(result.status == DecodeStatus::clean);
            CHECK(relative_error(result.message, message) < 1e-10);
            CHECK(result.erroneous_symbols.empty());
            CHECK(result.condition_number >= 1.0);
          }
        }
      }
    }
  }
}

TEST_CASE("solve_from recovers the message from any listed symbols") {
  const LinearCode code = gaussian_code(7, 5);
  boost::random::mt19937_64 engine(3);
  const Matrix message = gaussian_matrix(5, 4, engine);
  const Matrix codeword = code.encode(message);
  for (int size : {5, 6}) {
    for (const std::vector<int>& kept : subsets(7, size)) {
      Matrix rows(size, 4);
      for (int i = 0; i < size; ++i) rows.row(i) = codeword.row(kept[static_cast<std::size_t>(i)]);
      CHECK(relative_error(code.solve_from(kept, rows), message) < 1e-10);
    }
  }
  // Listed order need not be ascending.
  const std::vector<int> shuffled{6, 2, 4, 0, 5};
  Matrix rows(5, 4);
  for (int i = 0; i < 5; ++i) rows.row(i) = codeword.row(shuffled[static_cast<std::size_t>(i)]);
  CHECK(relative_error(code.solve_from(shuffled, rows), message) < 1e-10);
}

TEST_CASE("NaN, infinite and absurdly large symbols are screened out and blamed") {
  const LinearCode code = chebyshev_code(7, 4);
  boost::random::mt19937_64 engine(5);
  const Matrix message = gaussian_matrix(4, 3, engine);
  const Matrix codeword = code.encode(message);
  for (ErrorModel model : {ErrorModel::adversarial, ErrorModel::random}) {
    Received received = all_symbols(codeword);
    (*received[1])(0) = std::numeric_limits<double>::quiet_NaN();
    (*received[4])(2) = -std::numeric_limits<double>::infinity();
    (*received[6])(1) = 1e300;
    const CodeDecodeResult result = code.decode(received, options_for(model, 4));
    REQUIRE(result.status == DecodeStatus::corrected);
    CHECK(result.erroneous_symbols == std::vector<int>{1, 4, 6});
    CHECK(relative_error(result.message, message) < 1e-10);
    // Four screened symbols leave K - 1 usable ones.
    (*received[0])(0) = std::numeric_limits<double>::signaling_NaN();
    const CodeDecodeResult too_many = code.decode(received, options_for(model, 4));
    CHECK(too_many.status == DecodeStatus::detected);
    CHECK(too_many.erroneous_symbols == std::vector<int>{0, 1, 4, 6});
  }
}

TEST_CASE("the absurd-magnitude screen is relative to the median symbol magnitude") {
  const LinearCode code = chebyshev_code(7, 4);
  boost::random::mt19937_64 engine(6);
  const Matrix message = 1e-200 * gaussian_matrix(4, 3, engine);
  const Matrix codeword = code.encode(message);
  Received received = all_symbols(codeword);
  (*received[3])(1) = 1e-180;  // 1e20 times the typical tiny magnitude: absurd here
  DecodeOptions options = options_for(ErrorModel::adversarial, 4);
  CodeDecodeResult result = code.decode(received, options);
  REQUIRE(result.status == DecodeStatus::corrected);
  CHECK(result.erroneous_symbols == std::vector<int>{3});
  CHECK(relative_error(result.message, message) < 1e-10);
  // With the screen effectively off, the same value is an ordinary (located) error.
  options.absurd_ratio = 1e100;
  result = code.decode(received, options);
  REQUIRE(result.status == DecodeStatus::corrected);
  CHECK(result.erroneous_symbols == std::vector<int>{3});
  CHECK(relative_error(result.message, message) < 1e-10);
}

TEST_CASE("a single error anywhere is located and corrected in the adversarial model") {
  boost::random::mt19937_64 engine(7);
  for (const LinearCode& code : {chebyshev_code(7, 4), gaussian_code(7, 5)}) {
    const Matrix message = gaussian_matrix(code.dimension(), 5, engine);
    const Matrix codeword = code.encode(message);
    for (int s = 0; s < code.symbol_count(); ++s) {
      Received received = all_symbols(codeword);
      (*received[static_cast<std::size_t>(s)])(2) += 0.75;
      const CodeDecodeResult result =
          code.decode(received, options_for(ErrorModel::adversarial, code.dimension()));
      REQUIRE(result.status == DecodeStatus::corrected);
      CHECK(result.erroneous_symbols == std::vector<int>{s});
      CHECK(relative_error(result.message, message) < 1e-10);
      CHECK(result.condition_number >= 1.0);
    }
  }
}

TEST_CASE("every two- and three-error pattern of a seven-four code is detected adversarially") {
  const LinearCode code = chebyshev_code(7, 4);
  boost::random::mt19937_64 engine(8);
  const Matrix message = gaussian_matrix(4, 4, engine);
  const Matrix codeword = code.encode(message);
  for (int errors : {2, 3}) {
    for (const std::vector<int>& wrong : subsets(7, errors)) {
      Received received = all_symbols(codeword);
      Matrix noise = gaussian_matrix(errors, 4, engine);
      for (int i = 0; i < errors; ++i) {
        *received[static_cast<std::size_t>(wrong[static_cast<std::size_t>(i)])] += noise.row(i);
      }
      const CodeDecodeResult result =
          code.decode(received, options_for(ErrorModel::adversarial, 4));
      CHECK(result.status == DecodeStatus::detected);
      CHECK(result.message.size() == 0);
    }
  }
}

TEST_CASE("the random model corrects r - 1 errors and detects r") {
  const LinearCode code = chebyshev_code(7, 4);
  boost::random::mt19937_64 engine(9);
  const Matrix message = gaussian_matrix(4, 6, engine);
  const Matrix codeword = code.encode(message);
  for (int errors : {2, 3}) {
    for (const std::vector<int>& wrong : subsets(7, errors)) {
      Received received = all_symbols(codeword);
      Matrix noise = gaussian_matrix(errors, 6, engine);
      for (int i = 0; i < errors; ++i) {
        *received[static_cast<std::size_t>(wrong[static_cast<std::size_t>(i)])] += noise.row(i);
      }
      const CodeDecodeResult result = code.decode(received, options_for(ErrorModel::random, 4));
      if (errors == 2) {
        REQUIRE(result.status == DecodeStatus::corrected);
        CHECK(result.erroneous_symbols == wrong);
        CHECK(relative_error(result.message, message) < 1e-10);
      } else {
        CHECK(result.status == DecodeStatus::detected);
      }
    }
  }
}

TEST_CASE("two errors in the same single entry are corrected randomly and detected adversarially") {
  // The syndrome then has rank one, so the support comes from the subset search.
  const LinearCode code = chebyshev_code(7, 4);
  boost::random::mt19937_64 engine(10);
  const Matrix message = gaussian_matrix(4, 8, engine);
  const Matrix codeword = code.encode(message);
  for (const std::vector<int>& wrong : subsets(7, 2)) {
    Received received = all_symbols(codeword);
    (*received[static_cast<std::size_t>(wrong[0])])(5) += 1.5;
    (*received[static_cast<std::size_t>(wrong[1])])(5) -= 0.625;
    const CodeDecodeResult random = code.decode(received, options_for(ErrorModel::random, 4));
    REQUIRE(random.status == DecodeStatus::corrected);
    CHECK(random.erroneous_symbols == wrong);
    CHECK(relative_error(random.message, message) < 1e-10);
    const CodeDecodeResult adversarial =
        code.decode(received, options_for(ErrorModel::adversarial, 4));
    CHECK(adversarial.status == DecodeStatus::detected);
  }
}

TEST_CASE("erasures and errors with 2t + e <= r are corrected on a longer code") {
  const LinearCode code = chebyshev_code(12, 5);  // r = 7
  boost::random::mt19937_64 engine(12);
  const Matrix message = gaussian_matrix(5, 40, engine);
  const Matrix codeword = code.encode(message);
  boost::random::uniform_int_distribution<int> pick(0, 11);
  for (int trial = 0; trial < 60; ++trial) {
    const int errors = trial % 4;  // 0..3
    const int erasures = 7 - 2 * errors;
    std::set<int> chosen;
    while (static_cast<int>(chosen.size()) < errors + erasures) chosen.insert(pick(engine));
    const std::vector<int> order(chosen.begin(), chosen.end());
    Received received = all_symbols(codeword);
    std::vector<int> wrong;
    for (int i = 0; i < errors + erasures; ++i) {
      const int s = order[static_cast<std::size_t>(i)];
      if (i < errors) {
        *received[static_cast<std::size_t>(s)] += gaussian_matrix(1, 40, engine);
        wrong.push_back(s);
      } else {
        received[static_cast<std::size_t>(s)].reset();
      }
    }
    std::sort(wrong.begin(), wrong.end());
    const CodeDecodeResult result = code.decode(received, options_for(ErrorModel::adversarial, 5));
    REQUIRE(result.status != DecodeStatus::detected);
    CHECK(result.status == (errors == 0 ? DecodeStatus::clean : DecodeStatus::corrected));
    CHECK(result.erroneous_symbols == wrong);
    CHECK(relative_error(result.message, message) < 1e-10);
  }
}

TEST_CASE("errors below the tolerance are harmless and large ones are never accepted") {
  const LinearCode code = chebyshev_code(7, 4);
  boost::random::mt19937_64 engine(13);
  const Matrix message = gaussian_matrix(4, 16, engine);
  const Matrix codeword = code.encode(message);
  for (int bit = 0; bit < 52; ++bit) {
    Received received = all_symbols(codeword);
    (*received[2])(3) = flip_bit((*received[2])(3), bit);
    (*received[5])(3) = flip_bit((*received[5])(3), bit);
    for (ErrorModel model : {ErrorModel::adversarial, ErrorModel::random}) {
      const CodeDecodeResult result = code.decode(received, options_for(model, 4));
      if (result.status != DecodeStatus::detected) {
        CHECK(relative_error(result.message, message) < 1e-9);
      }
      if (bit < 2) CHECK(result.status == DecodeStatus::clean);
      if (bit > 30 && model == ErrorModel::adversarial) {
        CHECK(result.status == DecodeStatus::detected);
      }
    }
  }
}

TEST_CASE("long symbols decode with the same guarantees") {
  const LinearCode code = gaussian_code(16, 8);
  boost::random::mt19937_64 engine(14);
  const Matrix message = gaussian_matrix(8, 4096, engine);
  const Matrix codeword = code.encode(message);
  Received received = all_symbols(codeword);
  CodeDecodeResult result = code.decode(received, options_for(ErrorModel::adversarial, 8));
  REQUIRE(result.status == DecodeStatus::clean);
  CHECK(relative_error(result.message, message) < 1e-10);

  // Four errors, the adversarial bound for r = 8, of different shapes.
  (*received[1])(17) += 3.0;
  *received[6] += gaussian_matrix(1, 4096, engine);
  (*received[9])(4000) = flip_bit((*received[9])(4000), 62);
  (*received[13]).segment(100, 50).array() *= -1.0;
  result = code.decode(received, options_for(ErrorModel::adversarial, 8));
  REQUIRE(result.status == DecodeStatus::corrected);
  CHECK(result.erroneous_symbols == std::vector<int>{1, 6, 9, 13});
  CHECK(relative_error(result.message, message) < 1e-10);

  // Seven errors: beyond the adversarial bound (detected), within the random one (corrected).
  for (int s : {0, 3, 11}) (*received[static_cast<std::size_t>(s)])(s * 100) += 1.0;
  result = code.decode(received, options_for(ErrorModel::adversarial, 8));
  CHECK(result.status == DecodeStatus::detected);
  result = code.decode(received, options_for(ErrorModel::random, 8));
  REQUIRE(result.status == DecodeStatus::corrected);
  CHECK(result.erroneous_symbols == std::vector<int>{0, 1, 3, 6, 9, 11, 13});
  CHECK(relative_error(result.message, message) < 1e-10);
}

TEST_CASE("a huge error does not hide much smaller ones") {
  const LinearCode code = gaussian_code(16, 8);
  boost::random::mt19937_64 engine(16);
  const Matrix message = gaussian_matrix(8, 64, engine);
  Received received = all_symbols(code.encode(message));
  (*received[3])(10) += 1e10;
  (*received[9])(5) += 1e-6;
  *received[12] += 0.5 * gaussian_matrix(1, 64, engine);
  for (ErrorModel model : {ErrorModel::adversarial, ErrorModel::random}) {
    const CodeDecodeResult result = code.decode(received, options_for(model, 8));
    REQUIRE(result.status == DecodeStatus::corrected);
    CHECK(result.erroneous_symbols == std::vector<int>{3, 9, 12});
    CHECK(relative_error(result.message, message) < 1e-10);
  }
}

TEST_CASE("a huge dense error next to tiny ones is corrected") {
  // The huge error's round-off swamps the tiny ones in the syndrome; the random model gets there
  // by setting the dominant symbol aside and searching a freshly computed syndrome.
  const LinearCode code = gaussian_code(16, 8);
  boost::random::mt19937_64 engine(20);
  const Matrix message = gaussian_matrix(8, 64, engine);
  Received received = all_symbols(code.encode(message));
  *received[2] += 1e9 * gaussian_matrix(1, 64, engine);
  (*received[5])(7) += 1e-6;
  (*received[11])(40) -= 3e-6;
  (*received[13])(40) += 2e-6;
  for (ErrorModel model : {ErrorModel::adversarial, ErrorModel::random}) {
    const CodeDecodeResult result = code.decode(received, options_for(model, 8));
    REQUIRE(result.status == DecodeStatus::corrected);
    CHECK(result.erroneous_symbols == std::vector<int>{2, 5, 11, 13});
    CHECK(relative_error(result.message, message) < 1e-10);
  }
}

TEST_CASE("errors sharing one entry are located next to a dense error on a wide code") {
  // Six errors but a rank-two syndrome: enumerating 6 (or, after setting one symbol aside, 5) of
  // ~28 symbols is over budget, so the support must come from the syndrome's column space
  // augmented by 4 enumerated symbols.
  const LinearCode code = gaussian_code(30, 15);
  boost::random::mt19937_64 engine(17);
  const Matrix message = gaussian_matrix(15, 40, engine);
  Received received = all_symbols(code.encode(message));
  *received[4] += 0.1 * gaussian_matrix(1, 40, engine);
  (*received[7])(13) += 2.0;
  (*received[11])(13) -= 3.0;
  (*received[16])(13) += 7.5;
  (*received[22])(13) += 4.0;
  (*received[28])(13) -= 5.0;
  received[0].reset();
  received[25].reset();
  for (ErrorModel model : {ErrorModel::adversarial, ErrorModel::random}) {
    const CodeDecodeResult result = code.decode(received, options_for(model, 15));
    REQUIRE(result.status == DecodeStatus::corrected);
    CHECK(result.erroneous_symbols == std::vector<int>{4, 7, 11, 16, 22, 28});
    CHECK(relative_error(result.message, message) < 1e-10);
  }
}

TEST_CASE("the consistency threshold scales with the tolerance factor and the inner dimension") {
  const LinearCode code = chebyshev_code(7, 4);
  boost::random::mt19937_64 engine(18);
  const Matrix message = gaussian_matrix(4, 4, engine);
  Received received = all_symbols(code.encode(message));
  (*received[2])(0) += 1e-9;
  DecodeOptions options = options_for(ErrorModel::adversarial, 4);
  CodeDecodeResult result = code.decode(received, options);
  REQUIRE(result.status == DecodeStatus::corrected);
  CHECK(result.erroneous_symbols == std::vector<int>{2});
  CHECK(relative_error(result.message, message) < 1e-12);
  options.inner_dimension = 1000000;
  result = code.decode(received, options);
  CHECK(result.status == DecodeStatus::clean);
  CHECK(relative_error(result.message, message) < 1e-8);
  options.inner_dimension = 4;
  options.tolerance_factor = 64.0 * 250000.0;
  CHECK(code.decode(received, options).status == DecodeStatus::clean);
}

TEST_CASE("exactly K usable symbols are solved without a check") {
  const LinearCode code = chebyshev_code(7, 4);
  boost::random::mt19937_64 engine(19);
  const Matrix message = gaussian_matrix(4, 3, engine);
  Received received = all_symbols(code.encode(message));
  received[0].reset();
  received[5].reset();
  (*received[3])(1) = std::numeric_limits<double>::infinity();
  CodeDecodeResult result = code.decode(received, options_for(ErrorModel::adversarial, 4));
  REQUIRE(result.status == DecodeStatus::corrected);
  CHECK(result.erroneous_symbols == std::vector<int>{3});
  CHECK(relative_error(result.message, message) < 1e-10);
  // With no redundancy left an error cannot be seen: the caller must count on S - K checks.
  received[3].reset();
  received[6] = Eigen::RowVectorXd(*received[6] + Eigen::RowVectorXd::Constant(3, 1.0));
  result = code.decode(received, options_for(ErrorModel::adversarial, 4));
  CHECK(result.status == DecodeStatus::clean);
  CHECK(relative_error(result.message, message) > 1e-3);
  received[1].reset();
  CHECK(code.decode(received, options_for(ErrorModel::adversarial, 4)).status ==
        DecodeStatus::detected);  // three usable symbols: fewer than K
}

TEST_CASE("singular generator rows give detected instead of a solve") {
  Matrix generator(5, 2);
  generator << 1, 0, 1, 0, 0, 1, 1, 1, 1, 2;  // rows 0 and 1 coincide: not MDS
  const LinearCode code(generator);
  const Matrix message = (Matrix(2, 2) << 1.0, -2.0, 0.5, 3.0).finished();
  const Matrix codeword = code.encode(message);
  Received received(5);
  received[0] = codeword.row(0);
  received[1] = codeword.row(1);
  CHECK(code.decode(received, options_for(ErrorModel::adversarial, 2)).status ==
        DecodeStatus::detected);
  received[2] = codeword.row(2);
  const CodeDecodeResult result = code.decode(received, options_for(ErrorModel::adversarial, 2));
  REQUIRE(result.status == DecodeStatus::clean);
  CHECK(relative_error(result.message, message) < 1e-12);
}

TEST_CASE("decoding is deterministic") {
  const LinearCode code = chebyshev_code(9, 4);
  boost::random::mt19937_64 engine(15);
  const Matrix message = gaussian_matrix(4, 33, engine);
  Received received = all_symbols(code.encode(message));
  *received[2] += gaussian_matrix(1, 33, engine);
  (*received[7])(9) = -7.0;
  received[4].reset();
  const CodeDecodeResult first = code.decode(received, options_for(ErrorModel::random, 4));
  const CodeDecodeResult second = code.decode(received, options_for(ErrorModel::random, 4));
  REQUIRE(first.status == DecodeStatus::corrected);
  CHECK(first.erroneous_symbols == second.erroneous_symbols);
  CHECK(first.message == second.message);
  CHECK(first.condition_number == second.condition_number);
}

namespace {

// One randomized configuration of the property test.
struct PropertyConfig {
  LinearCode code;
  ErrorModel model;
  int length;
};

enum class Kind { gaussian_row, gaussian_entry, bit_flip, nan, inf, huge };

struct Tally {
  int trials = 0;
  int within_bound = 0;
  int beyond_bound = 0;
  int corrected = 0;
  int detected = 0;
};

// Runs `trials` random error/erasure patterns and checks the decoder's guarantees on each.
Tally run_property_trials(const PropertyConfig& config, int trials, std::uint64_t seed) {
  const LinearCode& code = config.code;
  const int s_count = code.symbol_count();
  const int k = code.dimension();
  const int redundancy = s_count - k;
  boost::random::mt19937_64 engine(seed);
  boost::random::uniform_int_distribution<int> any_symbol(0, s_count - 1);
  boost::random::uniform_int_distribution<int> any_entry(0, config.length - 1);
  boost::random::uniform_int_distribution<int> any_count(0, redundancy);
  boost::random::uniform_int_distribution<int> any_kind(0, 5);
  boost::random::uniform_int_distribution<int> any_bit(0, 63);
  boost::random::uniform_real_distribution<double> exponent(-6.0, 3.0);
  boost::random::uniform_real_distribution<double> unit(0.0, 1.0);
  boost::random::normal_distribution<double> normal(0.0, 1.0);
  const DecodeOptions options = options_for(config.model, k);
  Tally tally;
  for (int trial = 0; trial < trials; ++trial) {
    const Matrix message = gaussian_matrix(k, config.length, engine);
    const Matrix codeword = code.encode(message);
    const double magnitude = codeword.cwiseAbs().maxCoeff();
    Received received = all_symbols(codeword);
    const int erasures = any_count(engine);
    const int errors = std::min(any_count(engine), s_count - erasures);
    std::set<int> chosen;
    while (static_cast<int>(chosen.size()) < erasures + errors) chosen.insert(any_symbol(engine));
    std::vector<int> order(chosen.begin(), chosen.end());
    for (std::size_t i = order.size(); i > 1; --i) {  // deterministic shuffle
      boost::random::uniform_int_distribution<std::size_t> pick(0, i - 1);
      std::swap(order[i - 1], order[pick(engine)]);
    }
    // Single-entry errors share one column in a third of the trials (rank-deficient syndrome).
    const bool shared_column = trial % 3 == 0;
    const int column = any_entry(engine);
    for (int i = 0; i < erasures + errors; ++i) {
      const auto s = static_cast<std::size_t>(order[static_cast<std::size_t>(i)]);
      if (i < erasures) {
        received[s].reset();
        continue;
      }
      Eigen::RowVectorXd& symbol = *received[s];
      const int entry = shared_column ? column : any_entry(engine);
      const double scale = magnitude * std::pow(10.0, exponent(engine));
      switch (static_cast<Kind>(any_kind(engine))) {
        case Kind::gaussian_row:
          for (int j = 0; j < config.length; ++j) symbol(j) += scale * normal(engine);
          break;
        case Kind::gaussian_entry:
          symbol(entry) += scale * normal(engine);
          break;
        case Kind::bit_flip:
          symbol(entry) = flip_bit(symbol(entry), any_bit(engine));
          break;
        case Kind::nan:
          symbol(entry) = std::numeric_limits<double>::quiet_NaN();
          break;
        case Kind::inf:
          symbol(entry) = (trial % 2 ? 1.0 : -1.0) * std::numeric_limits<double>::infinity();
          break;
        case Kind::huge:
          symbol(entry) = (trial % 2 ? 1e300 : -1e300) * (1.0 + unit(engine));
          break;
      }
    }

    // Classify what the decoder should see: the documented screen (non-finite, or a peak above
    // absurd_ratio times the lower median of the nonzero finite peaks) makes erasures; the rest
    // are errors, big (>1e-9 relative), tiny (<=1e-15 relative, invisible) or in between.
    std::vector<double> peaks;
    for (const auto& symbol : received) {
      if (symbol && symbol->allFinite() && symbol->cwiseAbs().maxCoeff() > 0.0) {
        peaks.push_back(symbol->cwiseAbs().maxCoeff());
      }
    }
    std::sort(peaks.begin(), peaks.end());
    const double limit = peaks.empty() ? std::numeric_limits<double>::infinity()
                                       : options.absurd_ratio * peaks[(peaks.size() - 1) / 2];
    std::vector<int> screened;
    std::vector<int> big;
    int middle = 0;
    int usable = 0;
    for (int s = 0; s < s_count; ++s) {
      const auto& symbol = received[static_cast<std::size_t>(s)];
      if (!symbol) continue;
      if (!symbol->allFinite() || symbol->cwiseAbs().maxCoeff() > limit) {
        screened.push_back(s);
        continue;
      }
      ++usable;
      const double difference = (*symbol - codeword.row(s)).cwiseAbs().maxCoeff();
      if (difference > 1e-9 * magnitude) {
        big.push_back(s);
      } else if (difference > 1e-15 * magnitude) {
        ++middle;
      }
    }
    // Identical errors in the same entry of two symbols (same bit flipped in values of equal
    // exponent) are not random: beyond the adversarial bound they carry no guarantee.
    bool structured = false;
    for (std::size_t x = 0; x < big.size(); ++x) {
      for (std::size_t y = x + 1; y < big.size(); ++y) {
        const Eigen::RowVectorXd dx =
            *received[static_cast<std::size_t>(big[x])] - codeword.row(big[x]);
        const Eigen::RowVectorXd dy =
            *received[static_cast<std::size_t>(big[y])] - codeword.row(big[y]);
        for (int j = 0; j < config.length; ++j) structured |= dx(j) != 0.0 && dx(j) == dy(j);
      }
    }
    const int left = usable - k;
    const int counted = static_cast<int>(big.size()) + middle;
    const int bound = left < 0                                  ? -1
                      : config.model == ErrorModel::adversarial ? left / 2
                                                                : std::max(0, left - 1);

    const CodeDecodeResult result = code.decode(received, options);
    ++tally.trials;
    if (result.status == DecodeStatus::corrected) ++tally.corrected;
    if (result.status == DecodeStatus::detected) ++tally.detected;
    INFO("trial " << trial << " erasures " << erasures << " errors " << errors << " big "
                  << big.size() << " middle " << middle << " screened " << screened.size() << " S "
                  << s_count << " K " << k << " L " << config.length << " status "
                  << static_cast<int>(result.status));
    if (result.status == DecodeStatus::detected) CHECK(result.message.size() == 0);
    if (left < 0) {
      CHECK(result.status == DecodeStatus::detected);
      continue;
    }
    if (structured && counted > left / 2) continue;
    // Never a silently wrong message (exactly K usable symbols carry no check at all).
    if (result.status != DecodeStatus::detected && (left > 0 || counted == 0)) {
      CHECK(relative_error(result.message, message) < 1e-9);
    }
    if (left == 0) continue;
    const bool within = counted <= bound || (counted == 0 && left >= 0);
    if (within) {
      ++tally.within_bound;
      REQUIRE(result.status != DecodeStatus::detected);
      std::vector<int> must_blame = screened;
      must_blame.insert(must_blame.end(), big.begin(), big.end());
      std::sort(must_blame.begin(), must_blame.end());
      if (middle == 0) {
        CHECK(result.erroneous_symbols == must_blame);
      } else {
        CHECK(std::includes(result.erroneous_symbols.begin(), result.erroneous_symbols.end(),
                            must_blame.begin(), must_blame.end()));
      }
      if (must_blame.empty() && middle == 0) CHECK(result.status == DecodeStatus::clean);
    } else if (middle == 0 && !big.empty()) {
      // Random-valued errors beyond the correction bound are detected.
      ++tally.beyond_bound;
      CHECK(result.status == DecodeStatus::detected);
    }
  }
  return tally;
}

}  // namespace

TEST_CASE(
    "random error and erasure patterns are corrected within the bound and never accepted wrongly") {
  std::vector<PropertyConfig> configs;
  for (ErrorModel model : {ErrorModel::adversarial, ErrorModel::random}) {
    configs.push_back({chebyshev_code(7, 4), model, 6});
    configs.push_back({gaussian_code(7, 5), model, 6});
    configs.push_back({chebyshev_code(10, 4), model, 1});
    configs.push_back({chebyshev_code(11, 5), model, 12});
    configs.push_back({gaussian_code(13, 7), model, 3});
  }
  Tally total;
  std::uint64_t seed = 100;
  for (const PropertyConfig& config : configs) {
    const Tally tally = run_property_trials(config, 2000, seed++);
    total.trials += tally.trials;
    total.within_bound += tally.within_bound;
    total.beyond_bound += tally.beyond_bound;
    total.corrected += tally.corrected;
    total.detected += tally.detected;
  }
  MESSAGE("trials " << total.trials << " within bound " << total.within_bound << " beyond bound "
                    << total.beyond_bound << " corrected " << total.corrected << " detected "
                    << total.detected);
  CHECK(total.within_bound > 6000);
  CHECK(total.beyond_bound > 2500);
}

TEST_CASE("peaks measured during the first pass decide exactly as peaks given beforehand") {
  // Long symbols (several chunks) so that early stops and per-chunk peaks are exercised.
  const LinearCode code = chebyshev_code(9, 4);
  boost::random::mt19937_64 engine(77);
  const Matrix message = gaussian_matrix(4, 1000, engine);
  const Matrix clean = code.encode(message);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  // Corruptions: none, one small error late in the data, two errors, an absurd value, a NaN, an
  // infinity, and an absurd symbol with an error.
  const std::vector<std::vector<std::pair<int, double>>> cases = {
      {},
      {{2, 1e-3}},
      {{1, 5.0}, {6, -3.0}},
      {{4, 1e300}},
      {{3, nan}},
      {{0, std::numeric_limits<double>::infinity()}},
      {{5, 1e200}, {7, 2.0}}};
  for (std::size_t c = 0; c < cases.size(); ++c) {
    CAPTURE(c);
    Matrix received = clean;
    for (const auto& [symbol, value] : cases[c]) received(symbol, 900) += value;
    std::vector<Eigen::RowVectorXd> rows;
    for (Eigen::Index s = 0; s < received.rows(); ++s) rows.push_back(received.row(s));
    std::vector<const double*> views;
    std::vector<double> peaks;
    for (const Eigen::RowVectorXd& row : rows) {
      views.push_back(row.data());
      peaks.push_back(codesim::models::symbol_peak(row.data(), row.size()));
    }
    views[8] = nullptr;  // one erasure as well
    peaks[8] = 0.0;
    for (int rank : {0, 4}) {
      CAPTURE(rank);
      const DecodeOptions options = options_for(ErrorModel::random, 8);
      const CodeDecodeResult measured = code.decode(views, 1000, options, {}, {}, rank);
      const CodeDecodeResult given = code.decode(views, 1000, options, {}, peaks, rank);
      CHECK(measured.status == given.status);
      CHECK(measured.erroneous_symbols == given.erroneous_symbols);
      CHECK(measured.message == given.message);
      CHECK(measured.condition_number == given.condition_number);
      if (c == 0) CHECK(measured.status == DecodeStatus::clean);
      if (c == 1 || c == 2) CHECK(measured.status == DecodeStatus::corrected);
    }
  }
}

TEST_CASE("absurd_peaks marks infinite peaks and those far above the needed-th smallest") {
  const std::vector<double> peaks = {1.0, -1.0, 2.0, 1e13, std::numeric_limits<double>::infinity(),
                                     0.0, 3.0};
  const std::vector<bool> two = codesim::models::absurd_peaks(peaks, 2, 1e12);
  CHECK(two == std::vector<bool>{false, false, false, true, true, false, false});
  // 1e13 is not absurd against the 4th smallest nonzero finite peak (1e13 itself).
  CHECK(codesim::models::absurd_peaks(peaks, 4, 1e12) ==
        std::vector<bool>{false, false, false, false, true, false, false});
  // Fewer nonzero finite peaks than needed: only the infinite one.
  CHECK(codesim::models::absurd_peaks(peaks, 5, 1e12) ==
        std::vector<bool>{false, false, false, false, true, false, false});
}
