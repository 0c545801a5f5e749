// Uncoded: no redundancy, so only non-finite or absurd results and missing nodes are noticed.
#include <doctest/doctest.h>

#include "models/coding/linear_code.hpp"
#include "models/coding/scheme_support.hpp"
#include "models/coding/uncoded_scheme.hpp"
#include "tests/models/coding/scheme_test_support.hpp"

namespace codesim::models {
namespace {

using testing::random_matrix;
using testing::relative_error;

TEST_CASE("the uncoded summary has no redundancy and tolerates nothing") {
  const SchemeSummary s = summarize_scheme(uncoded_spec(5, 8), 100, 80);
  CHECK(s.nodes == 40);
  CHECK(s.redundancy == doctest::Approx(1.0));
  CHECK(s.storage_fraction_per_node == doctest::Approx(1.0 / 40));
  CHECK(s.forward.detectable == 0);
  CHECK(s.forward.correctable_adversarial == 0);
  CHECK(s.backward.erasures_tolerated == 0);
  CHECK(s.forward.elements_sent_per_node == doctest::Approx(20));
  CHECK(s.forward.elements_received_per_node == doctest::Approx(100));
}

TEST_CASE("an uncoded product silently accepts a plausible wrong value") {
  UncodedScheme scheme(2, 2, 4, 4);
  const Matrix weights = random_matrix(4, 4, 1);
  scheme.encode(weights);
  const Matrix input = random_matrix(4, 1, 2);
  const ProductDecode decoded = compute_and_decode(scheme, Direction::forward, input,
                                                   DecodeOptions{}, [](int node, Matrix& partial) {
                                                     if (node == 2) partial(1, 0) += 0.5;
                                                     return true;
                                                   });
  CHECK(decoded.status == DecodeStatus::clean);
  CHECK(relative_error(decoded.product, weights * input) > 1e-3);
}

TEST_CASE("an uncoded product detects NaN, Inf, absurd values and missing nodes") {
  UncodedScheme scheme(2, 2, 4, 4);
  scheme.encode(random_matrix(4, 4, 3));
  const Matrix delta = random_matrix(4, 2, 4);
  for (double bad :
       {std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity(), 1e300}) {
    const ProductDecode decoded = compute_and_decode(
        scheme, Direction::backward, delta, DecodeOptions{}, [bad](int node, Matrix& partial) {
          if (node == 3) partial(0, 1) = bad;
          return true;
        });
    CHECK(decoded.status == DecodeStatus::detected);
    CHECK(decoded.blamed_nodes == std::vector<int>{1, 3});  // grid column 1
  }
  const ProductDecode missing =
      compute_and_decode(scheme, Direction::backward, delta, DecodeOptions{},
                         [](int node, Matrix&) { return node != 0; });
  CHECK(missing.status == DecodeStatus::detected);
}

// The uncoded decode skips the (1, 1) repetition decode of each block when every symbol is
// present and finite; this holds it to that decode's product, bit for bit, status and condition.
TEST_CASE("an uncoded decode stacks the symbols exactly as the one-copy repetition decode") {
  for (const Arithmetic arithmetic : available_arithmetics()) {
    const UncodedScheme scheme(3, 2, 6, 4, arithmetic);
    const LinearCode one_copy(Matrix::Ones(1, 1), arithmetic);
    for (const Direction dir : {Direction::forward, Direction::backward}) {
      const int blocks = dir == Direction::forward ? 3 : 2;
      const Eigen::Index height = 2;  // 6 / 3 rows forward, 4 / 2 columns backward
      std::vector<std::optional<Matrix>> symbols;
      for (int b = 0; b < blocks; ++b) symbols.emplace_back(random_matrix(height, 3, 10 + b));
      const ProductDecode fast = scheme.decode(dir, symbols, DecodeOptions{});
      Matrix expected(blocks * height, 3);
      for (int b = 0; b < blocks; ++b) {
        int rows = 0;
        int cols = 0;
        const std::optional<Matrix> codeword[] = {symbols[static_cast<std::size_t>(b)]};
        DecodeOptions options;
        options.inner_dimension = dir == Direction::forward ? 5 : 7;  // input length + 1
        const CodeDecodeResult one =
            detail::decode_codeword(one_copy, codeword, options, &rows, &cols);
        REQUIRE(one.status == DecodeStatus::clean);
        CHECK(one.condition_number == fast.condition_number);
        expected.middleRows(b * height, height) = detail::message_block(one, 0, rows, cols);
      }
      CHECK(fast.status == DecodeStatus::clean);
      CHECK(fast.blamed_nodes.empty());
      CHECK(fast.product.cwiseEqual(expected).all());
    }
  }
}

TEST_CASE("an uncoded block cannot be regenerated") {
  UncodedScheme scheme(2, 1, 4, 4);
  scheme.encode(random_matrix(4, 4, 5));
  CHECK(scheme.regeneration_sources(0, std::vector<int>{}).empty());
  CHECK_FALSE(scheme.regenerate(0, std::vector<int>{1}));
  CHECK(scheme.summary().scheme == "uncoded");
}

}  // namespace
}  // namespace codesim::models
