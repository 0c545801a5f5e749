// Conditioning of the decoding systems: spread evaluation points, the worst condition number over
// the examined K-subsets, its agreement with the decoder and the accuracy predicate.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <numeric>

#include "models/coding/conditioning.hpp"
#include "tests/models/coding/scheme_test_support.hpp"

namespace codesim::models {
namespace {

using testing::clean_symbols;
using testing::random_matrix;

TEST_CASE("spread_order is the pruned bit-reversal permutation") {
  CHECK(spread_order(8) == std::vector<int>{0, 4, 2, 6, 1, 5, 3, 7});
  CHECK(spread_order(5) == std::vector<int>{0, 4, 2, 1, 3});
  CHECK(spread_order(1) == std::vector<int>{0});
  for (int count = 1; count <= 70; ++count) {
    std::vector<int> sorted = spread_order(count);
    std::sort(sorted.begin(), sorted.end());
    std::vector<int> identity(static_cast<std::size_t>(count));
    std::iota(identity.begin(), identity.end(), 0);
    CHECK(sorted == identity);
  }
}

TEST_CASE("chebyshev points come in spread order, so the first and last few cover (-1, 1)") {
  const std::vector<double> points = chebyshev_points(64);
  const std::vector<int> order = spread_order(64);
  for (std::size_t p = 0; p < points.size(); ++p) {
    CHECK(points[p] == std::cos((2.0 * order[p] + 1.0) * std::numbers::pi / 128.0));
  }
  for (const auto& [begin, end] :
       {std::pair{points.begin(), points.begin() + 4}, std::pair{points.end() - 4, points.end()}}) {
    CHECK(*std::min_element(begin, end) < -0.5);
    CHECK(*std::max_element(begin, end) > 0.5);
  }
}

TEST_CASE("schemes that compare copies have no code and condition one") {
  const DecodingConditioning replication = decoding_conditioning(replication_spec(2, 2, 3), 4, 4);
  CHECK(replication.forward.dimension == 0);
  CHECK(replication.forward.worst_condition == 1.0);
  CHECK(replication.backward.worst_subset.empty());
  const SchemeSpec uncoded = uncoded_spec(2, 2);
  CHECK(decoding_conditioning(uncoded, 4, 4).backward.worst_condition == 1.0);
  CHECK(subset_condition(uncoded, Direction::forward, {0}) == 1.0);
  CHECK_FALSE(may_lose_accuracy(1.0));
}

TEST_CASE("the examined subsets are the first, last, spread and seeded random K-subsets") {
  const DecodingConditioning c = decoding_conditioning(mds_spec(16, 64), 32, 32);
  CHECK(c.forward.symbols == 64);
  CHECK(c.forward.dimension == 16);
  CHECK(c.forward.subsets == 3 + kConditioningRandomSubsets);
  REQUIRE(c.forward.worst_subset.size() == 16);
  CHECK(std::is_sorted(c.forward.worst_subset.begin(), c.forward.worst_subset.end()));
  // The systematic first K rows are the identity; some other subset is worse.
  std::vector<int> first(16);
  std::iota(first.begin(), first.end(), 0);
  CHECK(subset_condition(mds_spec(16, 64), Direction::forward, first) == doctest::Approx(1.0));
  CHECK(c.forward.worst_condition > 1.0);
  CHECK(c.forward.worst_condition ==
        subset_condition(mds_spec(16, 64), Direction::forward, c.forward.worst_subset));
  // MDS with P = K has a single K-subset.
  CHECK(decoding_conditioning(mds_spec(4, 4), 4, 4).forward.subsets == 1);
}

TEST_CASE("decoding conditioning is deterministic and independent of the shape of W") {
  const DecodingConditioning a = decoding_conditioning(gpd_spec(3, 2, 20), 6, 4);
  const DecodingConditioning b = decoding_conditioning(gpd_spec(3, 2, 20), 300, 200);
  CHECK(a.forward.worst_condition == b.forward.worst_condition);
  CHECK(a.backward.worst_condition == b.backward.worst_condition);
  CHECK(a.forward.worst_subset == b.forward.worst_subset);
  CHECK(a.backward.dimension == 10);  // 2mn - n
}

TEST_CASE("the worst condition is the one a decode from that subset reports") {
  for (const SchemeSpec& spec : {gpd_spec(2, 2, 16), gpd_spec(2, 3, 20, true), mds_spec(8, 32),
                                 codenet_grid_spec(4, 3, 8, 6, 7)}) {
    const bool mds = std::holds_alternative<MdsSpec>(spec);
    const int rows = mds ? 16 : 2 * block_grid(spec).first;
    const int cols = mds ? 16 : 2 * block_grid(spec).second;
    const std::unique_ptr<CodingScheme> scheme = make_scheme(spec, rows, cols);
    scheme->encode(random_matrix(rows, cols, 3));
    const DecodingConditioning c = decoding_conditioning(spec, rows, cols);
    for (Direction dir : {Direction::forward, Direction::backward}) {
      const bool forward = dir == Direction::forward;
      const DirectionConditioning& d = forward ? c.forward : c.backward;
      CAPTURE(scheme_name(spec));
      CAPTURE(forward);
      const auto symbols = clean_symbols(*scheme, dir, random_matrix(forward ? cols : rows, 2, 4));
      std::vector<std::optional<Matrix>> present(symbols.size());
      for (int s : d.worst_subset) present[static_cast<std::size_t>(s)] = symbols[s];
      const ProductDecode decoded = scheme->decode(dir, present, DecodeOptions{});
      REQUIRE(decoded.status == DecodeStatus::clean);
      CHECK(decoded.condition_number == doctest::Approx(d.worst_condition).epsilon(1e-9));
    }
  }
}

TEST_CASE("a rank-deficient subset has an infinite condition number and is flagged") {
  const double condition = subset_condition(mds_spec(2, 6), Direction::forward, {3, 3});
  CHECK(std::isinf(condition));
  CHECK(may_lose_accuracy(condition));
  CHECK(may_lose_accuracy(std::numeric_limits<double>::quiet_NaN()));
}

TEST_CASE("the accuracy predicate flags condition numbers above target / (u c)") {
  const double limit = kDecodeRelativeAccuracyTarget /
                       (std::numeric_limits<double>::epsilon() / 2.0 * kConditioningSafetyFactor);
  CHECK(limit > 1e6);
  CHECK_FALSE(may_lose_accuracy(0.99 * limit));
  CHECK(may_lose_accuracy(1.01 * limit));
  CHECK(may_lose_accuracy(1e12));
}

TEST_CASE("small GPD codes are well conditioned and GPD near P = 64 is flagged") {
  const DecodingConditioning small = decoding_conditioning(gpd_spec(2, 2, 8), 4, 4);
  CHECK_FALSE(may_lose_accuracy(small.forward.worst_condition));
  CHECK_FALSE(may_lose_accuracy(small.backward.worst_condition));
  const DecodingConditioning large = decoding_conditioning(gpd_spec(4, 8, 64), 8, 16);
  CHECK(large.forward.dimension == 39);
  CHECK(large.backward.dimension == 56);
  CHECK(may_lose_accuracy(large.backward.worst_condition));
  CHECK(may_lose_accuracy(large.forward.worst_condition));
  CHECK(large.forward.worst_condition > 1e10);
}

TEST_CASE("MDS and CodeNet codes to P = 64 are not flagged") {
  for (int nodes : {8, 16, 32, 48, 64}) {
    for (int k : {1, 4, 8, 16, 24, 32, 48, 64}) {
      if (k > nodes) continue;
      CAPTURE(nodes);
      CAPTURE(k);
      const DecodingConditioning c = decoding_conditioning(mds_spec(k, nodes), k, k);
      CHECK_FALSE(may_lose_accuracy(c.forward.worst_condition));
    }
  }
  const DecodingConditioning c = decoding_conditioning(codenet_grid_spec(4, 4, 8, 8, 7), 4, 4);
  CHECK_FALSE(may_lose_accuracy(c.forward.worst_condition));
  CHECK_FALSE(may_lose_accuracy(c.backward.worst_condition));
}

}  // namespace
}  // namespace codesim::models
