// Replication: comparison with two copies, majority with three (forward and backward), per-block
// decoding, the paper's 2x(5x4) configuration and regeneration from another copy.
#include <doctest/doctest.h>

#include "models/coding/replication_scheme.hpp"
#include "tests/models/coding/scheme_test_support.hpp"

namespace codesim::models {
namespace {

using testing::random_matrix;
using testing::relative_error;

ProductDecode forward_with(const ReplicationScheme& scheme, const Matrix& input,
                           std::vector<int> wrong_nodes) {
  return compute_and_decode(scheme, Direction::forward, input, DecodeOptions{},
                            [&](int node, Matrix& partial) {
                              for (int w : wrong_nodes) {
                                if (w == node) partial(0, 0) += 1.0 + node;
                              }
                              return true;
                            });
}

TEST_CASE("the paper's replication 2x(5x4) has 40 nodes, detects one and corrects none") {
  const SchemeSummary s = summarize_scheme(replication_spec(5, 4, 2));
  CHECK(s.nodes == 40);
  CHECK(s.redundancy == doctest::Approx(2.0));
  CHECK(s.forward.correctable_adversarial == 0);
  CHECK(s.forward.correctable_random == 0);
  CHECK(s.forward.detectable == 1);
  CHECK(s.backward.detectable == 1);
  CHECK(s.forward.recovery_threshold == 5);
  CHECK(s.backward.recovery_threshold == 4);
  const SchemeSummary five = summarize_scheme(replication_spec(5, 4, 5));
  CHECK(five.forward.correctable_adversarial == 2);
  CHECK(five.forward.correctable_random == 3);
  CHECK(five.forward.detectable == 4);
}

TEST_CASE("two copies detect a mismatch and blame both copies of the block row") {
  ReplicationScheme scheme(2, 2, 2, 4, 4);
  const Matrix weights = random_matrix(4, 4, 1);
  scheme.encode(weights);
  const Matrix input = random_matrix(4, 1, 2);
  CHECK(forward_with(scheme, input, {}).status == DecodeStatus::clean);
  const ProductDecode decoded = forward_with(scheme, input, {5});  // copy 1, row 0, column 1
  CHECK(decoded.status == DecodeStatus::detected);
  CHECK(decoded.product.size() == 0);
  CHECK(decoded.blamed_nodes.empty());  // a tie: the decoder cannot tell which copy is wrong
}

TEST_CASE("three copies correct a wrong copy by majority and blame its row") {
  ReplicationScheme scheme(2, 2, 3, 4, 4);
  const Matrix weights = random_matrix(4, 4, 3);
  scheme.encode(weights);
  const Matrix input = random_matrix(4, 2, 4);
  const ProductDecode one = forward_with(scheme, input, {9});  // copy 2, row 0, column 1
  REQUIRE(one.status == DecodeStatus::corrected);
  CHECK(one.blamed_nodes == std::vector<int>{8, 9});
  CHECK(relative_error(one.product, weights * input) < 1e-12);
  // Different block rows decode independently: one wrong copy in each is still corrected.
  const ProductDecode spread = forward_with(scheme, input, {0, 6});
  REQUIRE(spread.status == DecodeStatus::corrected);
  CHECK(relative_error(spread.product, weights * input) < 1e-12);
  // Two wrong copies of the same block row: detected.
  CHECK(forward_with(scheme, input, {1, 5}).status == DecodeStatus::detected);
}

TEST_CASE("three copies outvote one corrupted stored copy in both W x and W^T delta") {
  ReplicationScheme scheme(2, 2, 3, 4, 4);
  const Matrix weights = random_matrix(4, 4, 8);
  scheme.encode(weights);
  // Node 6 holds copy 1 of block (1, 0): grid row 1 of copy 1 forward (nodes 6, 7), grid
  // column 0 of copy 1 backward (nodes 4, 6).
  scheme.stored_blocks(6)[0](0, 0) += 3.0;
  for (Direction dir : {Direction::forward, Direction::backward}) {
    CAPTURE(dir == Direction::forward);
    const Matrix input = random_matrix(4, 2, 9);
    const ProductDecode decoded = compute_and_decode(scheme, dir, input, DecodeOptions{});
    REQUIRE(decoded.status == DecodeStatus::corrected);
    CHECK(decoded.blamed_nodes ==
          (dir == Direction::forward ? std::vector<int>{6, 7} : std::vector<int>{4, 6}));
    const Matrix exact =
        dir == Direction::forward ? Matrix(weights * input) : Matrix(weights.transpose() * input);
    CHECK(relative_error(decoded.product, exact) < 1e-12);
  }
}

TEST_CASE("identical errors in a majority of replicas outvote the correct copy") {
  // The limit of any decoder that corrects: aligned errors look like a valid codeword.
  ReplicationScheme scheme(1, 1, 3, 2, 2);
  const Matrix weights = random_matrix(2, 2, 6);
  scheme.encode(weights);
  const Matrix input = random_matrix(2, 1, 7);
  const ProductDecode decoded = compute_and_decode(scheme, Direction::forward, input,
                                                   DecodeOptions{}, [](int node, Matrix& partial) {
                                                     if (node > 0) partial(0, 0) = 42.0;
                                                     return true;
                                                   });
  CHECK(decoded.status == DecodeStatus::corrected);
  CHECK(decoded.blamed_nodes == std::vector<int>{0});
  CHECK(decoded.product(0, 0) == doctest::Approx(42.0));
}

TEST_CASE("a replica is regenerated by copying another copy of its block") {
  ReplicationScheme scheme(1, 2, 3, 2, 4);
  const Matrix weights = random_matrix(2, 4, 5);
  scheme.encode(weights);
  const std::vector<int> exclude = {1, 3};
  CHECK(scheme.regeneration_sources(1, exclude) == std::vector<int>{5});
  CHECK(scheme.regeneration_sources(1, std::vector<int>{}) == std::vector<int>{3});
  scheme.stored_blocks(1)[0].setZero();
  CHECK_FALSE(scheme.regenerate(1, std::vector<int>{0, 2, 4}));
  REQUIRE(scheme.regenerate(1, std::vector<int>{5}));
  CHECK(scheme.decode_weights() == weights);
}

}  // namespace
}  // namespace codesim::models
