// Generalized PolyDot: thresholds from the polynomial degrees, the stored polynomial, decoding
// from random K-subsets for many shapes, summary numbers and regeneration sources.
#include <doctest/doctest.h>

#include <algorithm>
#include <boost/random/uniform_int_distribution.hpp>

#include "models/coding/gpd_scheme.hpp"
#include "tests/models/coding/scheme_test_support.hpp"

namespace codesim::models {
namespace {

using testing::clean_symbols;
using testing::exact_product;
using testing::random_matrix;
using testing::relative_error;

TEST_CASE("GPD thresholds are mn + n - 1 forward and 2mn - n backward for every shape to 4x4") {
  for (int m = 1; m <= 4; ++m) {
    for (int n = 1; n <= 4; ++n) {
      CAPTURE(m);
      CAPTURE(n);
      const GpdExponents e = gpd_exponents(m, n, false);
      CHECK(e.forward_threshold == m * n + n - 1);
      CHECK(e.backward_threshold == 2 * m * n - n);
      const GpdExponents mirrored = gpd_exponents(m, n, true);
      CHECK(mirrored.forward_threshold == 2 * m * n - m);
      CHECK(mirrored.backward_threshold == m * n + m - 1);
      // s_i sits at i n + n - 1 and c_j at n (m - 1) + j in the default orientation.
      for (int i = 0; i < m; ++i) CHECK(e.forward_wanted[i] == i * n + n - 1);
      for (int j = 0; j < n; ++j) CHECK(e.backward_wanted[j] == n * (m - 1) + j);
    }
  }
}

TEST_CASE("GPD with n = 1 is a polynomial code and with m = 1 is MatDot") {
  CHECK(gpd_exponents(5, 1, false).forward_threshold == 5);
  CHECK(gpd_exponents(1, 5, false).forward_threshold == 9);
  CHECK(gpd_exponents(1, 5, false).backward_threshold == 5);
}

TEST_CASE("a GPD node stores its blocks' polynomial at its Chebyshev point") {
  GpdScheme scheme(2, 3, 12, false, 4, 9);
  const Matrix weights = random_matrix(4, 9, 1);
  scheme.encode(weights);
  const auto points = chebyshev_points(12);
  for (int p = 0; p < 12; ++p) {
    CHECK(scheme.point(p) == points[p]);
    Matrix expected = Matrix::Zero(2, 3);
    for (int i = 0; i < 2; ++i) {
      for (int j = 0; j < 3; ++j) {
        expected += std::pow(points[p], i * 3 + j) * weights.block(2 * i, 3 * j, 2, 3);
      }
    }
    CHECK(relative_error(scheme.stored_blocks(p)[0], expected) < 1e-14);
  }
}

TEST_CASE("GPD decodes from random K-subsets and detects K-1 for every shape to 3x3") {
  boost::random::mt19937_64 engine(5);
  for (bool mirrored : {false, true}) {
    for (int m = 1; m <= 3; ++m) {
      for (int n = 1; n <= 3; ++n) {
        const GpdExponents e = gpd_exponents(m, n, mirrored);
        const int nodes = std::max(e.forward_threshold, e.backward_threshold) + 3;
        GpdScheme scheme(m, n, nodes, mirrored, 2 * m, 3 * n);
        const Matrix weights = random_matrix(2 * m, 3 * n, engine());
        scheme.encode(weights);
        for (Direction dir : {Direction::forward, Direction::backward}) {
          CAPTURE(m);
          CAPTURE(n);
          CAPTURE(mirrored);
          const bool forward = dir == Direction::forward;
          const int needed = forward ? e.forward_threshold : e.backward_threshold;
          const Matrix input = random_matrix(forward ? 3 * n : 2 * m, 2, engine());
          const Matrix expected = exact_product(weights, dir, input);
          const auto symbols = clean_symbols(scheme, dir, input);
          for (int trial = 0; trial < 10; ++trial) {
            std::vector<int> order(nodes);
            for (int p = 0; p < nodes; ++p) order[p] = p;
            for (int i = 0; i < nodes; ++i) {
              std::swap(order[i],
                        order[boost::random::uniform_int_distribution<int>(i, nodes - 1)(engine)]);
            }
            std::vector<std::optional<Matrix>> present(nodes);
            for (int i = 0; i < needed; ++i) present[order[i]] = symbols[order[i]];
            const ProductDecode decoded = scheme.decode(dir, present, DecodeOptions{});
            REQUIRE(decoded.status == DecodeStatus::clean);
            CHECK(relative_error(decoded.product, expected) < 1e-9);
            present[order[needed - 1]].reset();
            CHECK(scheme.decode(dir, present, DecodeOptions{}).status == DecodeStatus::detected);
          }
        }
      }
    }
  }
}

TEST_CASE("the GPD summary counts thresholds, tolerances, storage and traffic") {
  const SchemeSummary s = summarize_scheme(gpd_spec(2, 2, 10), 400, 600);
  CHECK(s.nodes == 10);
  CHECK(s.storage_fraction_per_node == doctest::Approx(0.25));
  CHECK(s.redundancy == doctest::Approx(2.5));
  CHECK(s.forward.recovery_threshold == 5);
  CHECK(s.backward.recovery_threshold == 6);
  CHECK(s.forward.correctable_adversarial == 2);
  CHECK(s.backward.correctable_adversarial == 2);
  CHECK(s.forward.correctable_random == 4);
  CHECK(s.backward.correctable_random == 3);
  CHECK(s.forward.detectable == 5);
  CHECK(s.backward.erasures_tolerated == 4);
  CHECK(s.forward.elements_sent_per_node == doctest::Approx(200));
  CHECK(s.forward.elements_received_per_node == doctest::Approx(2000));
  CHECK(s.backward.elements_sent_per_node == doctest::Approx(300));
  const SchemeSummary mirrored = summarize_scheme(gpd_spec(2, 2, 10, true));
  CHECK(mirrored.forward.recovery_threshold == 6);
  CHECK(mirrored.backward.recovery_threshold == 5);
  CHECK(mirrored.forward.elements_sent_per_node == doctest::Approx(0.5));
}

TEST_CASE("GPD regeneration reads mn spread nodes and needs mn of them") {
  GpdScheme scheme(2, 2, 12, false, 4, 4);
  scheme.encode(random_matrix(4, 4, 3));
  const std::vector<int> exclude = {3, 4, 5};
  const auto sources = scheme.regeneration_sources(3, exclude);
  REQUIRE(sources.size() == 4);
  CHECK(sources.front() == 0);
  CHECK(sources.back() == 11);
  for (int p : sources) CHECK(std::find(exclude.begin(), exclude.end(), p) == exclude.end());
  const std::vector<int> eight_excluded = {0, 1, 2, 4, 5, 6, 7, 8, 9};
  CHECK(scheme.regeneration_sources(3, eight_excluded).empty());
  const Matrix original = scheme.stored_blocks(3)[0];
  scheme.stored_blocks(3)[0].setConstant(1e300);
  const std::vector<int> three = {0, 1, 2};
  CHECK_FALSE(scheme.regenerate(3, three));
  REQUIRE(scheme.regenerate(3, sources));
  CHECK(relative_error(scheme.stored_blocks(3)[0], original) < 1e-13);
}

TEST_CASE("a corrupted GPD node is blamed and corrected, and the decode reports its conditioning") {
  GpdScheme scheme(2, 2, 9, false, 4, 6);
  const Matrix weights = random_matrix(4, 6, 8);
  scheme.encode(weights);
  const Matrix input = random_matrix(6, 1, 9);
  const ProductDecode decoded = compute_and_decode(scheme, Direction::forward, input,
                                                   DecodeOptions{}, [](int node, Matrix& partial) {
                                                     if (node == 6) partial(1, 0) += 0.5;
                                                     return true;
                                                   });
  REQUIRE(decoded.status == DecodeStatus::corrected);
  CHECK(decoded.blamed_nodes == std::vector<int>{6});
  CHECK(relative_error(decoded.product, weights * input) < 1e-10);
  CHECK(decoded.condition_number >= 1.0);
  CHECK(decoded.condition_number < 1e4);
}

}  // namespace
}  // namespace codesim::models
