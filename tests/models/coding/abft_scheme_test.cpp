// ABFT as a scheme: products through checksummed blocks, one wrong entry per column corrected at
// its node, two withheld (detected), corrupted weights repaired in place, updates keep checksums.
#include <doctest/doctest.h>

#include "models/coding/abft_scheme.hpp"
#include "tests/models/coding/scheme_test_support.hpp"

namespace codesim::models {
namespace {

using testing::random_matrix;
using testing::relative_error;

struct Fixture {
  AbftScheme scheme{2, 3, 60, 90};
  Matrix weights = random_matrix(60, 90, 1);
  Matrix x = random_matrix(90, 3, 2);
  Matrix d = random_matrix(60, 3, 3);
  Fixture() { scheme.encode(weights); }
};

// A hook that adds `error` to entry (row, 0) of node `node`'s partial (and, when `second`, to
// row + 1 too).
PartialResultHook strike(int node, Eigen::Index row, double error, bool second = false) {
  return [=](int p, Matrix& partial) {
    if (p == node) {
      partial(row, 0) += error;
      if (second) partial(row + 1, 0) += error;
    }
    return true;
  };
}

TEST_CASE("abft stores checksummed blocks and multiplies like the uncoded grid") {
  Fixture f;
  CHECK(f.scheme.node_count() == 6);
  CHECK(f.scheme.stored_blocks(0).front().rows() == 30 + 3);
  CHECK(f.scheme.stored_blocks(0).front().cols() == 30 + 3);
  CHECK(f.scheme.decode_weights() == f.weights);
  for (const Direction dir : {Direction::forward, Direction::backward}) {
    const bool forward = dir == Direction::forward;
    const ProductDecode decoded =
        compute_and_decode(f.scheme, dir, forward ? f.x : f.d, DecodeOptions{});
    CHECK(decoded.status == DecodeStatus::clean);
    const Matrix expected = forward ? Matrix(f.weights * f.x) : Matrix(f.weights.transpose() * f.d);
    CHECK(relative_error(decoded.product, expected) < 1e-14);
  }
}

TEST_CASE("one wrong entry of a node's product is corrected at the node in both directions") {
  Fixture f;
  for (const Direction dir : {Direction::forward, Direction::backward}) {
    const bool forward = dir == Direction::forward;
    for (const Eigen::Index row : {0, 17, 29, 30, 32}) {  // values, then checksums
      CAPTURE(forward);
      CAPTURE(row);
      const ProductDecode decoded = compute_and_decode(f.scheme, dir, forward ? f.x : f.d,
                                                       DecodeOptions{}, strike(4, row, 0.75));
      CHECK(decoded.status == DecodeStatus::corrected);
      CHECK(decoded.blamed_nodes.empty());
      const Matrix expected =
          forward ? Matrix(f.weights * f.x) : Matrix(f.weights.transpose() * f.d);
      CHECK(relative_error(decoded.product, expected) < 1e-13);
    }
  }
}

TEST_CASE("two wrong entries of a node's product column are detected, never corrected wrongly") {
  Fixture f;
  const ProductDecode decoded = compute_and_decode(f.scheme, Direction::forward, f.x,
                                                   DecodeOptions{}, strike(1, 4, 1.0, true));
  CHECK(decoded.status == DecodeStatus::detected);
}

TEST_CASE("a corrupted stored weight is found by the product check and repaired in place") {
  Fixture f;
  for (const bool checksum_entry : {false, true}) {
    BlockRef block = f.scheme.stored_blocks(5).front();
    const Matrix clean = block;
    const Eigen::Index row = checksum_entry ? 31 : 7;
    block(row, 11) += 3.0;
    Matrix partial = f.scheme.multiply(5, Direction::forward, f.x.middleRows(60, 30));
    const PartialCheck check =
        f.scheme.check_partial(5, Direction::forward, partial, DecodeOptions{});
    CHECK(check.status == DecodeStatus::corrected);
    CHECK(check.block_suspect);
    CHECK(partial.rows() == 30);
    CHECK(f.scheme.repair_block(5, DecodeOptions{}) == DecodeStatus::corrected);
    CHECK(relative_error(block, clean) < 1e-14);
  }
  CHECK(relative_error(f.scheme.decode_weights(), f.weights) < 1e-15);
}

TEST_CASE("a block corrupted beyond its checksums cannot be repaired") {
  Fixture f;
  BlockRef block = f.scheme.stored_blocks(2).front();
  for (const Eigen::Index i : {3, 9})
    for (const Eigen::Index j : {4, 20}) block(i, j) += 1.0 + static_cast<double>(i * j);
  CHECK(f.scheme.repair_block(2, DecodeOptions{}) == DecodeStatus::detected);
}

TEST_CASE("encoded updates keep the checksums current and the weights those of plain SGD") {
  Fixture f;
  Matrix plain = f.weights;
  for (int step = 0; step < 500; ++step) {
    const Matrix delta = random_matrix(60, 2, 100 + step) * 0.01;
    const Matrix input = random_matrix(90, 2, 1000 + step);
    for (int p = 0; p < f.scheme.node_count(); ++p) f.scheme.update(p, delta, input, -0.1);
    plain += -0.1 * delta * input.transpose();
  }
  CHECK(relative_error(f.scheme.decode_weights(), plain) < 1e-13);
  for (int p = 0; p < f.scheme.node_count(); ++p)
    CHECK(f.scheme.repair_block(p, DecodeOptions{}) == DecodeStatus::clean);
  const ProductDecode decoded = compute_and_decode(f.scheme, Direction::forward, f.x, {});
  CHECK(decoded.status == DecodeStatus::clean);
}

TEST_CASE("an abft block cannot be regenerated from other nodes, and a missing node fails") {
  Fixture f;
  CHECK_FALSE(f.scheme.regenerate(0, std::vector<int>{1, 2, 3, 4, 5}));
  const ProductDecode missing = compute_and_decode(
      f.scheme, Direction::forward, f.x, DecodeOptions{}, [](int p, Matrix&) { return p != 3; });
  CHECK(missing.status == DecodeStatus::detected);
}

}  // namespace
}  // namespace codesim::models
