// MDS (Lee et al.): a row-split code for W X and a column-split code for W^T D, both stored and
// updated at every node and counted in storage.
#include <doctest/doctest.h>

#include "models/coding/mds_scheme.hpp"
#include "tests/models/coding/scheme_test_support.hpp"

namespace codesim::models {
namespace {

using testing::random_matrix;
using testing::relative_error;

TEST_CASE("MDS stores a row-split and a column-split block and counts both") {
  MdsScheme scheme(4, 7, 8, 12);
  scheme.encode(random_matrix(8, 12, 1));
  const auto blocks = scheme.stored_blocks(2);
  REQUIRE(blocks.size() == 2);
  CHECK(blocks[0].rows() == 2);
  CHECK(blocks[0].cols() == 12);
  CHECK(blocks[1].rows() == 8);
  CHECK(blocks[1].cols() == 3);
  const SchemeSummary s = scheme.summary();
  CHECK(s.storage_fraction_per_node == doctest::Approx(0.5));
  CHECK(s.redundancy == doctest::Approx(3.5));
  CHECK(s.forward.recovery_threshold == 4);
  CHECK(s.backward.recovery_threshold == 4);
  CHECK(s.forward.correctable_adversarial == 1);
  CHECK(s.forward.detectable == 3);
  CHECK(s.forward.elements_sent_per_node == doctest::Approx(2));
  CHECK(s.backward.elements_sent_per_node == doctest::Approx(3));
}

TEST_CASE("MDS forward reads only the row-split copy and backward only the column-split copy") {
  MdsScheme scheme(2, 4, 4, 6);
  const Matrix weights = random_matrix(4, 6, 2);
  scheme.encode(weights);
  scheme.stored_blocks(1)[1].array() += 1.0;  // spoil node 1's column-split block only
  const Matrix input = random_matrix(6, 1, 3);
  const ProductDecode forward = compute_and_decode(scheme, Direction::forward, input, {});
  CHECK(forward.status == DecodeStatus::clean);
  CHECK(relative_error(forward.product, weights * input) < 1e-12);
  const Matrix delta = random_matrix(4, 1, 4);
  const ProductDecode backward = compute_and_decode(scheme, Direction::backward, delta, {});
  REQUIRE(backward.status == DecodeStatus::corrected);
  CHECK(backward.blamed_nodes == std::vector<int>{1});
  CHECK(relative_error(backward.product, weights.transpose() * delta) < 1e-10);
}

TEST_CASE(
    "an MDS node regenerates both of its blocks from every healthy other, k of which suffice") {
  MdsScheme scheme(3, 6, 6, 6);
  const Matrix weights = random_matrix(6, 6, 5);
  scheme.encode(weights);
  const std::vector<Matrix> originals = {scheme.stored_blocks(4)[0], scheme.stored_blocks(4)[1]};
  for (BlockRef block : scheme.stored_blocks(4)) block.setZero();
  const std::vector<int> exclude = {4};
  const auto sources = scheme.regeneration_sources(4, exclude);
  CHECK(sources == std::vector<int>{0, 1, 2, 3, 5});
  REQUIRE(scheme.regenerate(4, sources));
  CHECK(relative_error(scheme.stored_blocks(4)[0], originals[0]) < 1e-13);
  CHECK(relative_error(scheme.stored_blocks(4)[1], originals[1]) < 1e-13);
  CHECK_FALSE(scheme.regenerate(4, std::vector<int>{0, 1}));
  CHECK(scheme.regeneration_sources(4, std::vector<int>{0, 1, 2}).empty());  // 2 < k left
}

TEST_CASE("an MDS code with P = k has no redundancy") {
  const SchemeSummary s = summarize_scheme(mds_spec(3, 3));
  CHECK(s.forward.detectable == 0);
  CHECK(s.forward.erasures_tolerated == 0);
  CHECK(s.redundancy == doctest::Approx(2.0));
}

}  // namespace
}  // namespace codesim::models
