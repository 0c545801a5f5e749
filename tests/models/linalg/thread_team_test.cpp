// ThreadTeam runs every index once and passes failures on; DenseKernels cut between threads give
// the very bits of one thread, for both arithmetics, GEMV and GEMM shapes, views and updates.
#include "models/linalg/thread_team.hpp"

#include <doctest/doctest.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "kernel_test_support.hpp"
#include "models/linalg/dense_kernels.hpp"

using namespace codesim::models;
using Eigen::MatrixXd;

namespace {

using codesim::test::random_matrix;
using Shape = codesim::test::KernelShape;

bool same_bits(const MatrixXd& a, const MatrixXd& b) {
  return a.rows() == b.rows() && a.cols() == b.cols() &&
         std::memcmp(a.data(), b.data(), sizeof(double) * static_cast<std::size_t>(a.size())) == 0;
}

// Large enough to be cut (rows, depth and batch over a few granules, some not multiples of them);
// batch 1 takes Eigen's GEMV paths, the others its blocked GEMM (17 is cut in updates only).
const std::vector<Shape> kShapes = {{1000, 700, 1},  {2500, 2000, 1}, {777, 901, 3},
                                    {1300, 257, 64}, {130, 4100, 1},  {4100, 130, 64}};

// Every kernel's results for `s`, computed on `kernels` (products of blocks with an outer stride,
// transposed products, and updates with alpha 1 and not 1).
std::vector<MatrixXd> results(const Shape& s, const DenseKernels& kernels) {
  const MatrixXd wide = random_matrix(s.rows + 9, s.depth + 5, 1);
  const auto a = wide.block(3, 2, s.rows, s.depth);
  const MatrixXd x = random_matrix(s.depth, s.cols, 2);
  const MatrixXd d = random_matrix(s.rows, s.cols, 3);
  std::vector<MatrixXd> out{kernels.product(a, x), kernels.transposed_product(a, d)};
  for (double alpha : {1.0, -0.037}) {
    MatrixXd c = wide;
    kernels.add_outer_product(c.block(3, 2, s.rows, s.depth), alpha, d, x);
    out.push_back(c);
  }
  return out;
}

}  // namespace

TEST_CASE("a team runs every index exactly once, call after call") {
  for (int threads : {1, 2, 3, 8}) {
    ThreadTeam team(threads);
    CHECK(team.size() == threads);
    for (int call = 0; call < 50; ++call) {
      const int count = call % 7;
      std::vector<std::atomic<int>> runs(static_cast<std::size_t>(count));
      team.parallel_for(count, [&](int i) { ++runs[static_cast<std::size_t>(i)]; });
      for (const auto& r : runs) CHECK(r.load() == 1);
    }
  }
}

TEST_CASE("a team of one thread runs the indices in order on the caller") {
  ThreadTeam team(1);
  std::vector<int> order;
  team.parallel_for(5, [&](int i) { order.push_back(i); });
  CHECK(order == std::vector<int>{0, 1, 2, 3, 4});
}

TEST_CASE("a failing task's exception reaches the caller and the team stays usable") {
  ThreadTeam team(3);
  CHECK_THROWS_WITH_AS(team.parallel_for(6,
                                         [](int i) {
                                           if (i == 4) throw std::runtime_error("task 4 failed");
                                         }),
                       "task 4 failed", std::runtime_error);
  std::atomic<int> ran{0};
  team.parallel_for(4, [&](int) { ++ran; });
  CHECK(ran.load() == 4);
}

TEST_CASE("products and updates cut between threads give the bits of one thread") {
  for (Arithmetic arithmetic : available_arithmetics()) {
    const DenseKernels alone(arithmetic);
    for (int threads : {2, 3, 5}) {
      ThreadTeam team(threads);
      DenseKernels shared(arithmetic);
      shared.use_team(&team);
      for (const Shape& s : kShapes) {
        CAPTURE(arithmetic_name(arithmetic));
        CAPTURE(threads);
        CAPTURE(s.rows);
        CAPTURE(s.depth);
        CAPTURE(s.cols);
        const std::vector<MatrixXd> expected = results(s, alone);
        const std::vector<MatrixXd> actual = results(s, shared);
        REQUIRE(expected.size() == actual.size());
        for (std::size_t k = 0; k < expected.size(); ++k) {
          CAPTURE(k);
          CHECK(same_bits(expected[k], actual[k]));
        }
      }
    }
  }
}

TEST_CASE("small products are not cut and still agree") {
  ThreadTeam team(2);
  DenseKernels shared;
  shared.use_team(&team);
  const MatrixXd a = random_matrix(40, 30, 7);
  const MatrixXd x = random_matrix(30, 2, 8);
  CHECK(same_bits(shared.product(a, x), DenseKernels().product(a, x)));
}
