// Dense kernels: the portable build gives exactly Eigen's own results, the AVX2 + FMA and
// AVX-512 builds the same products to round-off, each build's bits do not depend on where the
// data lie, and each DenseKernels value uses its own build (no process-wide switch).
#include "models/linalg/dense_kernels.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <vector>

#include "kernel_test_support.hpp"

using namespace codesim::models;
using Eigen::MatrixXd;

namespace {

using codesim::test::random_matrix;
using Shape = codesim::test::KernelShape;

// Coefficient-based (tiny), GEMV (one column) and blocked GEMM sizes.
const std::vector<Shape> kShapes = {
    {3, 4, 2}, {70, 90, 1}, {1, 90, 70}, {130, 257, 64}, {300, 500, 3}};

double relative_difference(const MatrixXd& a, const MatrixXd& b) {
  return (a - b).cwiseAbs().maxCoeff() / std::max(1e-300, b.cwiseAbs().maxCoeff());
}

// The results of every kernel of `kernels`, for one shape.
std::vector<MatrixXd> kernel_results(const Shape& s, const DenseKernels& kernels) {
  const MatrixXd a = random_matrix(s.rows, s.depth, 1);
  const MatrixXd b = random_matrix(s.depth, s.cols, 2);
  const MatrixXd at = random_matrix(s.depth, s.rows, 3);
  const MatrixXd wide = random_matrix(s.rows + 5, s.depth + 7, 4);  // blocks with outer stride
  const MatrixXd d = random_matrix(s.rows, s.cols, 5);
  const MatrixXd x = random_matrix(s.depth, s.cols, 6);
  std::vector<MatrixXd> out;
  out.push_back(kernels.product(a, b));
  out.push_back(kernels.transposed_product(at, b));
  out.push_back(kernels.product(wide.block(2, 3, s.rows, s.depth), b));
  MatrixXd c = random_matrix(s.rows, s.depth, 7);
  kernels.add_outer_product(c, 1.0, d, x);
  out.push_back(c);
  kernels.add_outer_product(c, -0.25, d, x);
  out.push_back(c);
  MatrixXd big = random_matrix(s.rows + 4, s.depth + 2, 8);
  kernels.add_outer_product(big.block(1, 2, s.rows, s.depth), 0.5, d, x);
  out.push_back(big);
  return out;
}

}  // namespace

TEST_CASE("arithmetic names parse and the portable arithmetic is always available") {
  CHECK(parse_arithmetic("portable") == Arithmetic::portable);
  CHECK(parse_arithmetic("avx2_fma") == Arithmetic::avx2_fma);
  CHECK(parse_arithmetic("avx512") == Arithmetic::avx512);
  CHECK(parse_arithmetic("auto") == fastest_arithmetic());
  CHECK_FALSE(parse_arithmetic("Auto").has_value());
  CHECK_FALSE(parse_arithmetic("avx2").has_value());
  CHECK_FALSE(parse_arithmetic("").has_value());
  CHECK(arithmetic_name(Arithmetic::avx2_fma) == "avx2_fma");
  CHECK(arithmetic_name(Arithmetic::avx512) == "avx512");
  CHECK(arithmetic_available(Arithmetic::portable));
  CHECK(DenseKernels().arithmetic() == Arithmetic::portable);
  CHECK(arithmetic_available(fastest_arithmetic()));
  CHECK(available_arithmetics().front() == Arithmetic::portable);
  CHECK(available_arithmetics().back() == fastest_arithmetic());
}

TEST_CASE("portable kernels give exactly the results of Eigen's own expressions") {
  for (const Shape& s : kShapes) {
    CAPTURE(s.rows);
    CAPTURE(s.depth);
    CAPTURE(s.cols);
    const std::vector<MatrixXd> got = kernel_results(s, DenseKernels(Arithmetic::portable));
    const MatrixXd a = random_matrix(s.rows, s.depth, 1);
    const MatrixXd b = random_matrix(s.depth, s.cols, 2);
    const MatrixXd at = random_matrix(s.depth, s.rows, 3);
    const MatrixXd wide = random_matrix(s.rows + 5, s.depth + 7, 4);
    const MatrixXd d = random_matrix(s.rows, s.cols, 5);
    const MatrixXd x = random_matrix(s.depth, s.cols, 6);
    CHECK(got[0] == MatrixXd(a * b));
    CHECK(got[1] == MatrixXd(at.transpose() * b));
    CHECK(got[2] == MatrixXd(wide.block(2, 3, s.rows, s.depth) * b));
    MatrixXd c = random_matrix(s.rows, s.depth, 7);
    c.noalias() += d * x.transpose();
    CHECK(got[3] == c);
    c.noalias() += -0.25 * d * x.transpose();
    CHECK(got[4] == c);
    MatrixXd big = random_matrix(s.rows + 4, s.depth + 2, 8);
    big.block(1, 2, s.rows, s.depth).noalias() += 0.5 * d * x.transpose();
    CHECK(got[5] == big);
  }
}

TEST_CASE("combine_rows sums coefficient-weighted source rows into a row-major output") {
  const Eigen::Index rows = 5, width = 37, stride = 40;
  for (int n : {1, 3, 4, 9}) {
    CAPTURE(n);
    const MatrixXd coefficients = random_matrix(rows, n, 9);
    const MatrixXd sources = random_matrix(n, width, 10);  // one source per row
    std::vector<Eigen::RowVectorXd> rows_of_sources;
    std::vector<const double*> pointers;
    for (int i = 0; i < n; ++i) rows_of_sources.push_back(sources.row(i));
    for (const Eigen::RowVectorXd& row : rows_of_sources) pointers.push_back(row.data());
    const MatrixXd expected = coefficients * sources;
    for (Arithmetic arithmetic : {Arithmetic::portable, fastest_arithmetic()}) {
      std::vector<double> out(static_cast<std::size_t>(rows * stride), 7.0);
      DenseKernels(arithmetic).combine_rows(coefficients, pointers, width, out.data(), stride);
      const Eigen::Map<const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>,
                       0, Eigen::OuterStride<>>
          got(out.data(), rows, width, Eigen::OuterStride<>(stride));
      CHECK(relative_difference(got, expected) < 1e-14);
      CHECK(out[static_cast<std::size_t>(width)] == 7.0);  // padding past `width` untouched
    }
  }
}

TEST_CASE("portable combine_rows sums in the documented order, bit for bit") {
  const DenseKernels portable(Arithmetic::portable);
  const Eigen::Index rows = 3, width = 53;  // one tile of 16 columns, registers, single columns
  for (int n : {2, 4, 7, 18}) {
    CAPTURE(n);
    const MatrixXd coefficients = random_matrix(rows, n, 11);
    const MatrixXd sources = random_matrix(width, n, 12);  // column i = source i
    std::vector<const double*> pointers;
    for (int i = 0; i < n; ++i) pointers.push_back(sources.col(i).data());
    std::vector<double> out(static_cast<std::size_t>(rows * width));
    portable.combine_rows(coefficients, pointers, width, out.data(), width);
    for (Eigen::Index r = 0; r < rows; ++r) {
      for (Eigen::Index j = 0; j < width; ++j) {
        const auto term = [&](int i) { return coefficients(r, i) * sources(j, i); };
        double expected = 0.0;
        int i = 0;
        for (; i + 4 <= n; i += 4) {
          expected = expected + (((term(i) + term(i + 1)) + term(i + 2)) + term(i + 3));
        }
        for (; i < n; ++i) expected = expected + term(i);
        CHECK(out[static_cast<std::size_t>(r * width + j)] == expected);
      }
    }
  }
}

namespace {

// The vector builds this CPU runs (each test says which it skipped).
std::vector<Arithmetic> vector_arithmetics() {
  std::vector<Arithmetic> available = available_arithmetics();
  available.erase(available.begin());  // portable
  for (const Arithmetic arithmetic : {Arithmetic::avx2_fma, Arithmetic::avx512}) {
    if (!arithmetic_available(arithmetic))
      MESSAGE("this CPU or build does not run ", arithmetic_name(arithmetic), ": not tested");
  }
  return available;
}

}  // namespace

TEST_CASE("the vector kernels give the portable products to round-off, deterministically") {
  for (const Arithmetic arithmetic : vector_arithmetics()) {
    CAPTURE(arithmetic_name(arithmetic));
    const DenseKernels fast_kernels(arithmetic);
    CHECK(fast_kernels.arithmetic() == arithmetic);
    for (const Shape& s : kShapes) {
      CAPTURE(s.rows);
      CAPTURE(s.depth);
      CAPTURE(s.cols);
      const std::vector<MatrixXd> portable = kernel_results(s, DenseKernels(Arithmetic::portable));
      const std::vector<MatrixXd> fast = kernel_results(s, fast_kernels);
      const std::vector<MatrixXd> again = kernel_results(s, fast_kernels);
      REQUIRE(fast.size() == portable.size());
      for (std::size_t k = 0; k < fast.size(); ++k) {
        CAPTURE(k);
        CHECK(relative_difference(fast[k], portable[k]) < 1e-13);
        CHECK(fast[k] == again[k]);
      }
    }
    // On a large product the builds really differ in their last bits (FMA rounds once).
    const Shape large{130, 257, 64};
    const MatrixXd a = random_matrix(large.rows, large.depth, 1);
    const MatrixXd b = random_matrix(large.depth, large.cols, 2);
    CHECK(fast_kernels.product(a, b) != DenseKernels(Arithmetic::portable).product(a, b));
  }
  if (arithmetic_available(Arithmetic::avx512)) {
    const Shape large{130, 257, 64};
    const MatrixXd a = random_matrix(large.rows, large.depth, 1);
    const MatrixXd b = random_matrix(large.depth, large.cols, 2);
    CHECK(DenseKernels(Arithmetic::avx512).product(a, b) !=
          DenseKernels(Arithmetic::avx2_fma).product(a, b));
  }
}

TEST_CASE("every kernel gives the same bits wherever its operands lie in memory") {
  // Operands copied 0-7 doubles into a 64-byte aligned buffer: a kernel whose loops split where
  // the data's address falls (rather than at fixed indices) would round differently.
  const std::vector<Arithmetic> arithmetics = available_arithmetics();
  const Eigen::Index rows = 67, depth = 130, cols = 9;
  const MatrixXd a = random_matrix(rows, depth, 41);
  const MatrixXd b = random_matrix(depth, cols, 42);
  const MatrixXd v = random_matrix(depth, 1, 43);
  const MatrixXd d = random_matrix(rows, cols, 44);
  const MatrixXd x = random_matrix(depth, cols, 45);
  const MatrixXd c0 = random_matrix(rows, depth, 46);
  const MatrixXd coefficients = random_matrix(5, 6, 47);
  const MatrixXd sources = random_matrix(depth, 6, 48);
  for (const Arithmetic arithmetic : arithmetics) {
    const DenseKernels kernels(arithmetic);
    std::vector<MatrixXd> reference;
    for (Eigen::Index shift = 0; shift < 8; ++shift) {
      CAPTURE(arithmetic_name(arithmetic));
      CAPTURE(shift);
      // Each operand at `shift` doubles past a fresh 64-byte aligned column start.
      const auto placed = [shift](const MatrixXd& m, MatrixXd& storage) {
        storage = MatrixXd::Zero(m.rows() + 8, m.cols());
        storage.middleRows(shift, m.rows()) = m;
        return storage.middleRows(shift, m.rows());
      };
      MatrixXd sa, sb, sv, sd, sx, sc, ss;
      std::vector<MatrixXd> got;
      got.push_back(kernels.product(placed(a, sa), placed(b, sb)));
      got.push_back(kernels.product(placed(a, sa), placed(v, sv)));
      got.push_back(kernels.transposed_product(placed(a, sa), placed(d, sd)));
      auto c = placed(c0, sc);
      kernels.add_outer_product(c, -0.5, placed(d, sd), placed(x, sx));
      got.push_back(c);
      const auto source_block = placed(sources, ss);
      std::vector<const double*> pointers;
      for (Eigen::Index i = 0; i < sources.cols(); ++i) pointers.push_back(&source_block(0, i));
      std::vector<double> out(static_cast<std::size_t>(5 * 200 + 8));
      kernels.combine_rows(coefficients, pointers, depth, out.data() + shift, 200);
      got.emplace_back(Eigen::Map<const MatrixXd>(out.data() + shift, 5 * 200, 1));
      if (shift == 0) {
        reference = got;
        continue;
      }
      for (std::size_t k = 0; k < got.size(); ++k) {
        CAPTURE(k);
        CHECK(got[k] == reference[k]);
      }
    }
  }
}

TEST_CASE("the portable kernels block their products by pinned cache sizes, not the CPU's") {
  // Eigen cuts each sum of a product at a depth it derives from the L1 and L2 sizes, so the bits
  // would follow the machine; kernel_bodies.inc pins them when the program loads.
  CHECK(Eigen::l1CacheSize() == 48 * 1024);
  CHECK(Eigen::l2CacheSize() == 1024 * 1024);
}

TEST_CASE("weighted column sums match the entry-order sums with weights 1, i + 1, (i + 1)^2") {
  const std::vector<Arithmetic> arithmetics = available_arithmetics();
  // Lengths around the kernels' 4- and 8-row steps, column counts around their 4-column blocks.
  for (const Arithmetic arithmetic : arithmetics) {
    const DenseKernels kernels(arithmetic);
    for (const Eigen::Index length : {0, 1, 3, 4, 7, 8, 9, 17, 819}) {
      for (const Eigen::Index cols : {1, 3, 4, 5, 9}) {
        CAPTURE(arithmetic_name(arithmetic));
        CAPTURE(length);
        CAPTURE(cols);
        const MatrixXd stored = random_matrix(length + 3, cols, 31);  // outer stride length + 3
        const Eigen::Matrix<double, 3, Eigen::Dynamic> sums =
            kernels.weighted_column_sums(stored.topRows(length));
        REQUIRE(sums.cols() == cols);
        for (Eigen::Index c = 0; c < cols; ++c) {
          for (int k = 0; k < 3; ++k) {
            double sum = 0.0;
            double magnitude = 0.0;
            for (Eigen::Index i = 0; i < length; ++i) {
              const double w = static_cast<double>(i + 1);
              const double weight = k == 0 ? 1.0 : k == 1 ? w : w * w;
              sum += weight * stored(i, c);
              magnitude += weight * std::abs(stored(i, c));
            }
            // Any summation order is within 2 n u of the magnitude of the entry-order one.
            CHECK(std::abs(sums(k, c) - sum) <=
                  2.0 * static_cast<double>(length + 1) * 0x1p-53 * magnitude);
          }
        }
      }
    }
  }
}

TEST_CASE("products into a buffer equal the returned ones and keep the buffer's storage") {
  for (const Arithmetic arithmetic : {Arithmetic::portable, fastest_arithmetic()}) {
    const DenseKernels kernels(arithmetic);
    for (const Shape& s : kShapes) {
      const MatrixXd a = random_matrix(s.rows, s.depth, 1);
      const MatrixXd b = random_matrix(s.depth, s.cols, 2);
      const MatrixXd at = random_matrix(s.depth, s.rows, 3);
      MatrixXd out, transposed;
      kernels.product(a, b, out);
      kernels.transposed_product(at, b, transposed);
      CHECK(out == kernels.product(a, b));
      CHECK(transposed == kernels.transposed_product(at, b));
      const double* storage = out.data();
      kernels.product(a, b, out);  // the same shape again: no new storage
      CHECK(out.data() == storage);
      CHECK(out == kernels.product(a, b));
    }
  }
}
