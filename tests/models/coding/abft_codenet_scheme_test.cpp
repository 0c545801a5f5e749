// The abft_codenet hybrid: a CodeNet grid whose nodes correct their own errors before the grid
// decode, withhold what they cannot fix (an erasure the grid tolerates), repair their blocks in
// place, keep their checksums through updates, and regenerate checksummed blocks.
#include <doctest/doctest.h>

#include "models/coding/abft_checksums.hpp"
#include "models/coding/codenet_grid_scheme.hpp"
#include "tests/models/coding/scheme_test_support.hpp"

namespace codesim::models {
namespace {

using testing::random_matrix;
using testing::relative_error;

// A 2 x 2 split on a 4 x 3 grid without the corner: 2 * 3 + 2 * 2 = 10 nodes; forward symbols
// are the 4 grid rows (K = 2), backward symbols the 3 grid columns (K = 2).
struct Fixture {
  std::unique_ptr<CodingScheme> scheme = make_scheme(abft_codenet_spec(2, 2, 4, 3, 7), 40, 60);
  Matrix weights = random_matrix(40, 60, 1);
  Matrix x = random_matrix(60, 2, 2);
  Matrix d = random_matrix(40, 2, 3);
  Fixture() { scheme->encode(weights); }
  Matrix expected(Direction dir) const {
    return dir == Direction::forward ? Matrix(weights * x) : Matrix(weights.transpose() * d);
  }
  const Matrix& input(Direction dir) const { return dir == Direction::forward ? x : d; }
};

// Adds `error` to rows `rows` of column 0 of node `node`'s partial.
PartialResultHook strike(int node, std::vector<Eigen::Index> rows, double error) {
  return [=](int p, Matrix& partial) {
    if (p == node)
      for (Eigen::Index row : rows) partial(row, 0) += error;
    return true;
  };
}

TEST_CASE("the hybrid is the CodeNet grid with checksummed blocks") {
  Fixture f;
  CHECK(f.scheme->summary().scheme == "abft_codenet");
  CHECK(f.scheme->node_count() == 10);
  CHECK(f.scheme->checksum_lines() == abft::kChecksums);
  CHECK(f.scheme->stored_blocks(9).front().rows() == 20 + abft::kChecksums);
  CHECK(f.scheme->stored_blocks(9).front().cols() == 30 + abft::kChecksums);
  CHECK(relative_error(f.scheme->decode_weights(), f.weights) == 0.0);
  // The same grid code as the plain CodeNet grid of the same seed.
  const auto plain = make_scheme(codenet_grid_spec(2, 2, 4, 3, 7), 40, 60);
  CHECK(*plain->symbol_generator(Direction::forward) ==
        *f.scheme->symbol_generator(Direction::forward));
  for (const Direction dir : {Direction::forward, Direction::backward}) {
    const ProductDecode decoded = compute_and_decode(*f.scheme, dir, f.input(dir), {});
    CHECK(decoded.status == DecodeStatus::clean);
    CHECK(relative_error(decoded.product, f.expected(dir)) < 1e-12);
  }
}

TEST_CASE("one wrong entry at a node is corrected there and the grid blames no one") {
  Fixture f;
  for (const Direction dir : {Direction::forward, Direction::backward}) {
    CAPTURE(dir == Direction::forward);
    const ProductDecode decoded =
        compute_and_decode(*f.scheme, dir, f.input(dir), {}, strike(1, {5}, 2.5));
    CHECK(decoded.status == DecodeStatus::corrected);
    CHECK(decoded.blamed_nodes.empty());
    CHECK(relative_error(decoded.product, f.expected(dir)) < 1e-12);
  }
}

TEST_CASE("two wrong entries at a node are withheld and the grid decodes around the erasure") {
  Fixture f;
  for (const Direction dir : {Direction::forward, Direction::backward}) {
    CAPTURE(dir == Direction::forward);
    const ProductDecode decoded =
        compute_and_decode(*f.scheme, dir, f.input(dir), {}, strike(0, {3, 8}, 1.0));
    CHECK(decoded.status == DecodeStatus::corrected);
    CHECK(decoded.blamed_nodes == std::vector<int>{0});  // by itself, so it is regenerated
    CHECK(relative_error(decoded.product, f.expected(dir)) < 1e-10);
  }
  // The plain grid, same strike: the error reaches the grid decode, which must correct it.
  const auto plain = make_scheme(codenet_grid_spec(2, 2, 4, 3, 7), 40, 60);
  plain->encode(f.weights);
  const ProductDecode grid_only =
      compute_and_decode(*plain, Direction::forward, f.x, {}, strike(0, {3, 8}, 1.0));
  CHECK(grid_only.status == DecodeStatus::corrected);
  CHECK(grid_only.blamed_nodes == std::vector<int>{0, 1});  // grid row 0: both regenerated
}

TEST_CASE("a corrupted weight of a hybrid node is repaired in place") {
  Fixture f;
  BlockRef block = f.scheme->stored_blocks(8).front();
  const Matrix clean = block;
  block(4, 6) -= 5.0;
  CHECK(f.scheme->repair_block(8, {}) == DecodeStatus::corrected);
  CHECK(relative_error(block, clean) < 1e-14);
}

TEST_CASE("hybrid updates keep every checksum equal to one recomputed from scratch") {
  Fixture f;
  for (int step = 0; step < 2000; ++step) {
    const Matrix delta = random_matrix(40, 1, 100 + step) * 0.01;
    const Matrix input = random_matrix(60, 1, 5000 + step);
    for (int p = 0; p < f.scheme->node_count(); ++p) f.scheme->update(p, delta, input, -0.05);
  }
  for (int p = 0; p < f.scheme->node_count(); ++p) {
    CAPTURE(p);
    const BlockRef block = f.scheme->stored_blocks(p).front();
    const Matrix fresh = abft::augment(block.topLeftCorner(20, 30));
    CHECK(relative_error(block, fresh) < 1e-12);
    CHECK(f.scheme->repair_block(p, {}) == DecodeStatus::clean);
  }
}

TEST_CASE("a regenerated hybrid block carries consistent checksums") {
  Fixture f;
  BlockRef block = f.scheme->stored_blocks(3).front();
  const Matrix clean = block;
  block.setZero();
  const std::vector<int> healthy = {0, 1, 2, 4, 5, 6, 7, 8, 9};
  REQUIRE(f.scheme->regenerate(3, healthy));
  CHECK(relative_error(f.scheme->stored_blocks(3).front(), clean) < 1e-12);
  CHECK(f.scheme->repair_block(3, {}) == DecodeStatus::clean);
}

}  // namespace
}  // namespace codesim::models
