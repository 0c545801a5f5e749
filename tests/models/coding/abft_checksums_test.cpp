// ABFT checksums: one wrong product entry or stored weight is located and corrected, two are
// always detected (never taken for one), and rank-B updates keep every checksum current.
#include "models/coding/abft_checksums.hpp"

#include <doctest/doctest.h>

#include <array>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <vector>

#include "tests/models/linalg/kernel_test_support.hpp"

using namespace codesim::models;
using codesim::test::random_matrix;
using Eigen::MatrixXd;

namespace {

double relative_difference(const MatrixXd& a, const MatrixXd& b) {
  return (a - b).cwiseAbs().maxCoeff() / b.cwiseAbs().maxCoeff();
}

struct Setup {
  MatrixXd w = random_matrix(37, 23, 11);
  MatrixXd a = abft::augment(w);
  MatrixXd x = random_matrix(23, 4, 12);
  MatrixXd d = random_matrix(37, 4, 13);
  MatrixXd forward() const { return a.leftCols(w.cols()) * x; }
  MatrixXd backward() const { return a.topRows(w.rows()).transpose() * d; }
};

}  // namespace

TEST_CASE("products of an augmented block carry their checksums and check clean") {
  const Setup s;
  MatrixXd y = s.forward();
  CHECK(relative_difference(y.topRows(37), s.w * s.x) < 1e-14);
  CHECK(abft::check_columns(y, 37).verdict == abft::Verdict::clean);
  MatrixXd c = s.backward();
  CHECK(relative_difference(c.topRows(23), s.w.transpose() * s.d) < 1e-14);
  CHECK(abft::check_columns(c, 23).verdict == abft::Verdict::clean);
}

TEST_CASE("one wrong entry of a product is corrected in either direction, checksums included") {
  const Setup s;
  for (const bool forward : {true, false}) {
    const MatrixXd clean = forward ? s.forward() : s.backward();
    const Eigen::Index length = forward ? 37 : 23;
    for (Eigen::Index entry = 0; entry < clean.rows(); ++entry) {
      CAPTURE(forward);
      CAPTURE(entry);
      MatrixXd y = clean;
      y(entry, 1) += 0.37;  // column 1 only
      const abft::CheckResult result = abft::check_columns(y, length);
      CHECK(result.verdict == abft::Verdict::corrected);
      CHECK(result.corrected_values + result.corrected_checksums == 1);
      CHECK(result.corrected_values == (entry < length ? 1 : 0));
      CHECK(relative_difference(y, clean) < 1e-12);
    }
  }
}

TEST_CASE("two wrong entries of a product column are detected and left as they are") {
  const Setup s;
  const MatrixXd clean = s.forward();
  // Equal errors at 0 and 2 fit one error at 1 under the two classic checksums; the third
  // checksum tells them apart.
  const std::vector<std::array<double, 4>> cases = {
      {0, 2, 1.0, 1.0}, {0, 36, 0.5, -0.25}, {5, 6, 1e-3, 2.0}, {10, 38, 1.0, 1.0}, {3, 39, 7, 7}};
  for (const auto& [i, j, e1, e2] : cases) {
    CAPTURE(i);
    CAPTURE(j);
    MatrixXd y = clean;
    y(static_cast<Eigen::Index>(i), 2) += e1;
    y(static_cast<Eigen::Index>(j), 2) += e2;
    const MatrixXd struck = y;
    const abft::CheckResult result = abft::check_columns(y, 37);
    CHECK(result.verdict == abft::Verdict::detected);
    CHECK(result.detected_columns == 1);
    CHECK(y == struck);
  }
}

TEST_CASE("random pairs of wrong entries are never taken for one") {
  const Setup s;
  const MatrixXd clean = s.forward();
  std::srand(5);
  for (int trial = 0; trial < 2000; ++trial) {
    MatrixXd y = clean;
    const Eigen::Index i = std::rand() % 40;
    const Eigen::Index j = (i + 1 + std::rand() % 39) % 40;
    const double magnitude = std::pow(10.0, std::rand() % 8 - 4);
    y(i, 0) += magnitude * (std::rand() % 2 ? 1.0 : -1.0);
    y(j, 0) += (std::rand() % 2 ? magnitude : 1.0);
    CAPTURE(trial);
    CHECK(abft::check_columns(y, 37).verdict == abft::Verdict::detected);
  }
}

TEST_CASE("NaN and Inf in a product are detected") {
  const Setup s;
  for (const double bad :
       {std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity()}) {
    MatrixXd y = s.forward();
    y(4, 0) = bad;
    CHECK(abft::check_columns(y, 37).verdict == abft::Verdict::detected);
  }
}

TEST_CASE("a column whose weighted sums cancel is judged by its magnitudes, not its sums") {
  // Values +-1 in pairs: every weighted sum is small against sum_i w_i |y_i|, so the one-GEMM
  // screen (which allows round-off on |sum| only) sends the column to the full check, which
  // allows round-off on the magnitudes and finds it clean; a real error is still corrected.
  const Eigen::Index length = 64;
  MatrixXd y = MatrixXd::Zero(length + abft::kChecksums, 3);
  for (Eigen::Index i = 0; i < length; ++i) y(i, 0) = y(i, 1) = i % 2 ? -1.0 : 1.0;
  y.bottomRows(abft::kChecksums) = abft::with_checksums(y.topRows(length)).bottomRows(3);
  y.col(2) = abft::with_checksums(MatrixXd::Random(length, 1)).col(0);
  const double roundoff = 0x1p-53;
  y(length, 0) += 8 * roundoff;  // within 64 ulps of the magnitude (64), far above |sum| (0)
  const MatrixXd before = y;
  CHECK(abft::check_columns(y, length).verdict == abft::Verdict::clean);
  CHECK(y == before);
  y(10, 1) += 0.5;
  const abft::CheckResult result = abft::check_columns(y, length);
  CHECK(result.verdict == abft::Verdict::corrected);
  CHECK(result.corrected_values == 1);
  CHECK(y == before);
}

TEST_CASE("rank-B updates keep every checksum current over thousands of updates") {
  MatrixXd w = random_matrix(40, 30, 21);
  MatrixXd a = abft::augment(w);
  std::srand(22);
  for (int step = 0; step < 3000; ++step) {
    const MatrixXd d = MatrixXd::Random(40, 2) * 0.01;
    const MatrixXd x = MatrixXd::Random(30, 2);
    a.noalias() += -0.05 * abft::with_checksums(d) * abft::with_checksums(x).transpose();
    w.noalias() += -0.05 * d * x.transpose();
  }
  CHECK(relative_difference(a.topLeftCorner(40, 30), w) < 1e-12);
  const MatrixXd fresh = abft::augment(a.topLeftCorner(40, 30));
  CHECK(relative_difference(a, fresh) < 1e-11);
  abft::CheckOptions options;
  options.inner_dimension = 3000;  // each entry is a sum of that many increments
  CHECK(abft::check_block(a, 40, 30, options).verdict == abft::Verdict::clean);
}

TEST_CASE("one corrupted stored entry per column, or per row, is repaired in place") {
  const Setup s;
  MatrixXd a = s.a;
  a(3, 4) += 2.5;
  a(20, 9) = -100.0;
  a(37, 11) += 1.0;  // a checksum row's entry
  abft::CheckResult result = abft::check_block(a, 37, 23);
  CHECK(result.verdict == abft::Verdict::corrected);
  CHECK(relative_difference(a, s.a) < 1e-12);

  a = s.a;
  a(3, 4) += 2.5;
  a(8, 4) -= 1.5;  // two in one column, in different rows
  result = abft::check_block(a, 37, 23);
  CHECK(result.verdict == abft::Verdict::corrected);
  CHECK(relative_difference(a, s.a) < 1e-12);
}

TEST_CASE("corruption that neither rows nor columns explain is detected") {
  const Setup s;
  MatrixXd a = s.a;
  for (const Eigen::Index i : {3, 8})
    for (const Eigen::Index j : {4, 9}) a(i, j) += 1.0 + static_cast<double>(i + j);
  CHECK(abft::check_block(a, 37, 23).verdict == abft::Verdict::detected);
}

namespace {

// The full check's verdict on one column, by its documented allowance (entry order, magnitudes).
bool flagged_by_full_check(const MatrixXd& y, Eigen::Index c, Eigen::Index length,
                           const abft::CheckOptions& options) {
  const double scale = options.tolerance_factor * 0x1p-53 * options.inner_dimension;
  for (int k = 0; k < abft::kChecksums; ++k) {
    double sum = 0.0;
    double magnitude = 0.0;
    for (Eigen::Index i = 0; i < length; ++i) {
      sum += abft::weight(k, i) * y(i, c);
      magnitude += abft::weight(k, i) * std::abs(y(i, c));
    }
    const double checksum = y(length + k, c);
    if (!(std::abs(sum - checksum) <= scale * (magnitude + std::abs(checksum)))) return true;
  }
  return false;
}

}  // namespace

TEST_CASE("the screen never passes a column with an error above the full check's allowance") {
  // Checksum errors planted at 0.5 to 1.5 times the full allowance, of either sign, in columns of
  // every sign pattern (cancelling sums are where the screen's allowance is smallest): every
  // column the full check flags must be reported (corrected or detected), none other.
  for (const Eigen::Index length : {5, 64, 819}) {
    for (const int inner : {1, 8, 1020}) {
      abft::CheckOptions options;
      options.inner_dimension = inner;
      const double scale = options.tolerance_factor * 0x1p-53 * inner;
      MatrixXd y = abft::with_checksums(random_matrix(length, 64, 41));
      for (Eigen::Index i = 0; i < length; ++i) y(i, 0) = i % 2 ? -1.0 : 1.0;  // cancels
      y.col(0) = abft::with_checksums(y.col(0).head(length)).col(0);
      std::srand(static_cast<unsigned>(length + inner));
      for (Eigen::Index c = 0; c < y.cols(); ++c) {
        const int k = std::rand() % abft::kChecksums;
        double magnitude = 0.0;
        for (Eigen::Index i = 0; i < length; ++i)
          magnitude += abft::weight(k, i) * std::abs(y(i, c));
        const double edge = scale * (magnitude + std::abs(y(length + k, c)));
        const double factor = 0.5 + static_cast<double>(std::rand() % 1001) / 1000.0;
        y(length + k, c) += (std::rand() % 2 ? factor : -factor) * edge;
      }
      int flagged = 0;
      for (Eigen::Index c = 0; c < y.cols(); ++c)
        flagged += flagged_by_full_check(y, c, length, options);
      CAPTURE(length);
      CAPTURE(inner);
      CHECK(flagged > 0);
      const abft::CheckResult result = abft::check_columns(y, length, options);
      CHECK(result.corrected_values + result.corrected_checksums + result.detected_columns ==
            flagged);
    }
  }
}

TEST_CASE("dropping the checksum rows in place leaves exactly the values") {
  for (const Eigen::Index cols : {0, 1, 2, 5, 64}) {
    for (const Eigen::Index length : {0, 1, 819}) {
      CAPTURE(cols);
      CAPTURE(length);
      MatrixXd y = random_matrix(length + abft::kChecksums, cols, 51);
      const MatrixXd values = y.topRows(length);
      abft::drop_checksum_rows(y, length);
      REQUIRE(y.rows() == length);
      REQUIRE(y.cols() == cols);
      CHECK(y == values);  // bit for bit
    }
  }
}
