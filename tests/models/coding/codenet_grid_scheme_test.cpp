// The CodeNet grid: node numbering, systematic seeded generators, grid-row and grid-column
// symbols, whole-row blame, regeneration along a column or a row, and the paper's configuration.
#include <doctest/doctest.h>

#include "models/coding/codenet_grid_scheme.hpp"
#include "tests/models/coding/scheme_test_support.hpp"

namespace codesim::models {
namespace {

using testing::exact_product;
using testing::random_matrix;
using testing::relative_error;

TEST_CASE("the paper's CodeNet grid 7x6/(5,4) has 38 nodes and corrects one and detects two") {
  const SchemeSummary s = summarize_scheme(codenet_grid_spec(5, 4, 7, 6));
  CHECK(s.nodes == 38);
  CHECK(s.redundancy == doctest::Approx(1.9));
  CHECK(s.storage_fraction_per_node == doctest::Approx(0.05));
  for (const DirectionCapability* d : {&s.forward, &s.backward}) {
    CHECK(d->correctable_adversarial == 1);
    CHECK(d->correctable_random == 1);
    CHECK(d->detectable == 2);
    CHECK(d->erasures_tolerated == 2);
  }
  CHECK(s.forward.recovery_threshold == 5);
  CHECK(s.backward.recovery_threshold == 4);
  CHECK(s.forward.elements_received_per_node == doctest::Approx(7.0 / 5.0));
  CHECK(s.backward.elements_received_per_node == doctest::Approx(6.0 / 4.0));
}

TEST_CASE("CodeNet nodes are numbered row-major over the grid without the corner") {
  CodenetGridScheme scheme(2, 2, 4, 3, 1, 4, 4);
  CHECK(scheme.node_count() == 2 * 3 + 2 * 2);
  CHECK(scheme.node_at(0, 2) == 2);
  CHECK(scheme.node_at(1, 0) == 3);
  CHECK(scheme.node_at(2, 0) == 6);
  CHECK(scheme.node_at(3, 1) == 9);
  CHECK(scheme.node_at(2, 2) == -1);
  CHECK(scheme.node_at(3, 2) == -1);
  for (int node = 0; node < scheme.node_count(); ++node) {
    const auto [r, c] = scheme.position(node);
    CHECK(scheme.node_at(r, c) == node);
  }
  CHECK(scheme.participants(Direction::forward) == std::vector<int>{0, 1, 3, 4, 6, 7, 8, 9});
  CHECK(scheme.participants(Direction::backward) == std::vector<int>{0, 1, 2, 3, 4, 5});
  CHECK(scheme.symbol_members(Direction::forward, 3) == std::vector<int>{8, 9});
  CHECK(scheme.symbol_members(Direction::backward, 2) == std::vector<int>{2, 5});
}

TEST_CASE("CodeNet generators are systematic and drawn from the seed") {
  const CodenetGridScheme a(3, 2, 5, 4, 9, 6, 4);
  const CodenetGridScheme b(3, 2, 5, 4, 9, 6, 4);
  const CodenetGridScheme c(3, 2, 5, 4, 10, 6, 4);
  CHECK(a.row_generator().topRows(3).isIdentity());
  CHECK(a.column_generator().topRows(2).isIdentity());
  CHECK(a.row_generator() == b.row_generator());
  CHECK(a.column_generator() == b.column_generator());
  CHECK(a.row_generator() != c.row_generator());
  CHECK(a.row_generator().bottomRows(2) != a.column_generator().bottomRows(2).leftCols(2));
}

TEST_CASE("CodeNet parity nodes store generator combinations and systematic nodes store W") {
  CodenetGridScheme scheme(2, 2, 3, 3, 4, 4, 6);
  const Matrix weights = random_matrix(4, 6, 2);
  scheme.encode(weights);
  const Matrix& g_r = scheme.row_generator();
  const Matrix& g_c = scheme.column_generator();
  const auto block = [&](int i, int j) { return Matrix(weights.block(2 * i, 3 * j, 2, 3)); };
  CHECK(relative_error(scheme.stored_blocks(scheme.node_at(1, 0))[0], block(1, 0)) == 0.0);
  const Matrix column_parity = g_r(2, 0) * block(0, 1) + g_r(2, 1) * block(1, 1);
  CHECK(relative_error(scheme.stored_blocks(scheme.node_at(2, 1))[0], column_parity) < 1e-15);
  const Matrix row_parity = g_c(2, 0) * block(1, 0) + g_c(2, 1) * block(1, 1);
  CHECK(relative_error(scheme.stored_blocks(scheme.node_at(1, 2))[0], row_parity) < 1e-15);
  CHECK(scheme.decode_weights() == weights);
}

TEST_CASE(
    "errors at several nodes of one grid row are one symbol error, corrected with the row blamed") {
  CodenetGridScheme scheme(3, 2, 5, 4, 3, 6, 4);
  const Matrix weights = random_matrix(6, 4, 4);
  scheme.encode(weights);
  const Matrix input = random_matrix(4, 2, 5);
  const int first = scheme.node_at(3, 0);
  const int second = scheme.node_at(3, 1);
  const auto faulty = [&](int node, Matrix& partial) {
    if (node == first) partial(0, 0) = std::numeric_limits<double>::quiet_NaN();
    if (node == second) partial.array() += 3.0;
    return true;
  };
  const ProductDecode decoded =
      compute_and_decode(scheme, Direction::forward, input, DecodeOptions{}, faulty);
  REQUIRE(decoded.status == DecodeStatus::corrected);
  CHECK(decoded.blamed_nodes == std::vector<int>{first, second});
  CHECK(relative_error(decoded.product, weights * input) < 1e-10);

  // Two grid rows wrong: detected (P_r - m = 2), never a wrong product.
  const int other = scheme.node_at(0, 1);
  const ProductDecode two_rows = compute_and_decode(
      scheme, Direction::forward, input, DecodeOptions{}, [&](int node, Matrix& partial) {
        faulty(node, partial);
        if (node == other) partial(1, 1) -= 0.25;
        return true;
      });
  CHECK(two_rows.status == DecodeStatus::detected);
}

TEST_CASE("a grid column is the backward symbol: one bad column is corrected and blamed") {
  CodenetGridScheme scheme(2, 2, 4, 5, 8, 4, 6);
  const Matrix weights = random_matrix(4, 6, 6);
  scheme.encode(weights);
  const Matrix delta = random_matrix(4, 3, 7);
  const int bad = scheme.node_at(1, 4);
  const ProductDecode decoded = compute_and_decode(scheme, Direction::backward, delta,
                                                   DecodeOptions{}, [&](int node, Matrix& partial) {
                                                     if (node == bad) partial *= -1.0;
                                                     return true;
                                                   });
  REQUIRE(decoded.status == DecodeStatus::corrected);
  CHECK(decoded.blamed_nodes == scheme.symbol_members(Direction::backward, 4));
  CHECK(relative_error(decoded.product, exact_product(weights, Direction::backward, delta)) <
        1e-10);
}

TEST_CASE("a CodeNet node is regenerated along its column, or along its row when it must be") {
  CodenetGridScheme scheme(2, 2, 4, 4, 5, 4, 4);
  scheme.encode(random_matrix(4, 4, 9));
  // (1, 3) is a row-parity node: its column holds only the m systematic rows, so it uses its row.
  const int row_parity = scheme.node_at(1, 3);
  std::vector<int> exclude = {row_parity};
  auto sources = scheme.regeneration_sources(row_parity, exclude);
  CHECK(sources == std::vector<int>{scheme.node_at(1, 0), scheme.node_at(1, 1)});
  const Matrix original = scheme.stored_blocks(row_parity)[0];
  scheme.stored_blocks(row_parity)[0].setZero();
  REQUIRE(scheme.regenerate(row_parity, sources));
  CHECK(relative_error(scheme.stored_blocks(row_parity)[0], original) < 1e-13);

  // A systematic node uses its column first, and its row when the column lacks healthy nodes.
  const int systematic = scheme.node_at(0, 1);
  exclude = {systematic};
  CHECK(scheme.regeneration_sources(systematic, exclude) ==
        std::vector<int>{scheme.node_at(1, 1), scheme.node_at(2, 1)});
  exclude = {systematic, scheme.node_at(1, 1), scheme.node_at(2, 1)};
  sources = scheme.regeneration_sources(systematic, exclude);
  CHECK(sources == std::vector<int>{scheme.node_at(0, 0), scheme.node_at(0, 2)});
  const Matrix systematic_original = scheme.stored_blocks(systematic)[0];
  scheme.stored_blocks(systematic)[0].array() += 1.0;
  REQUIRE(scheme.regenerate(systematic, sources));
  CHECK(relative_error(scheme.stored_blocks(systematic)[0], systematic_original) < 1e-13);

  // Nothing healthy: no regeneration.
  CHECK_FALSE(scheme.regenerate(systematic, std::vector<int>{}));
}

}  // namespace
}  // namespace codesim::models
