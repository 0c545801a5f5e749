// Decoding accuracy to P = 64: every scheme decodes to kDecodeRelativeAccuracyTarget from first,
// last and random K-subsets and with correctable errors, unless the accuracy predicate flags the
// system it solved; ill-conditioned configurations are flagged.
#include <doctest/doctest.h>

#include <algorithm>
#include <boost/random/mersenne_twister.hpp>
#include <boost/random/uniform_int_distribution.hpp>
#include <memory>
#include <numeric>
#include <string>

#include "models/coding/conditioning.hpp"
#include "models/coding/gpd_scheme.hpp"
#include "tests/models/coding/scheme_test_support.hpp"

namespace codesim::models {
namespace {

using testing::clean_symbols;
using testing::exact_product;
using testing::random_matrix;

// max|decoded - exact| / max|exact|; +Inf when the shapes differ (e.g. a detected decode).
double max_relative_error(const Matrix& decoded, const Matrix& exact) {
  if (decoded.rows() != exact.rows() || decoded.cols() != exact.cols()) {
    return std::numeric_limits<double>::infinity();
  }
  return (decoded - exact).cwiseAbs().maxCoeff() / exact.cwiseAbs().maxCoeff();
}

struct Config {
  SchemeSpec spec;
  int rows = 0;
  int cols = 0;
};

Config gpd(int m, int n, int nodes, bool mirrored = false) {
  return {gpd_spec(m, n, nodes, mirrored), 2 * m, 2 * n};
}

Config mds(int k, int nodes) { return {mds_spec(k, nodes), 2 * k, 2 * k}; }

Config grid(int m, int n, int grid_rows, int grid_cols) {
  return {codenet_grid_spec(m, n, grid_rows, grid_cols, 11), 2 * m, 2 * n};
}

std::string describe(const Config& c, Direction dir) {
  std::string text(scheme_name(c.spec));
  for (int value : descriptor_of(c.spec).values(c.spec)) {
    text += ' ';
    text += std::to_string(value);
  }
  return text + (dir == Direction::forward ? " forward" : " backward");
}

// First K, last K and `random` seeded random K-subsets of S symbols.
std::vector<std::vector<int>> test_subsets(int symbols, int k, int random, std::uint64_t seed) {
  std::vector<int> all(static_cast<std::size_t>(symbols));
  std::iota(all.begin(), all.end(), 0);
  std::vector<std::vector<int>> subsets = {{all.begin(), all.begin() + k},
                                           {all.end() - k, all.end()}};
  boost::random::mt19937_64 engine(seed);
  for (int t = 0; t < random; ++t) {
    std::vector<int> shuffled = all;
    for (int i = 0; i < k; ++i) {
      std::swap(shuffled[static_cast<std::size_t>(i)],
                shuffled[static_cast<std::size_t>(
                    boost::random::uniform_int_distribution<int>(i, symbols - 1)(engine))]);
    }
    shuffled.resize(static_cast<std::size_t>(k));
    std::sort(shuffled.begin(), shuffled.end());
    subsets.push_back(shuffled);
  }
  return subsets;
}

struct Tally {
  int accurate = 0;  // decodes within the target
  int flagged = 0;   // decodes beyond it, every one flagged by the predicate
};

// Decodes W X (W^T D) from each test subset; each is within the target or its system is flagged.
void check_subsets(const Config& c, int random, Tally& tally) {
  const std::unique_ptr<CodingScheme> scheme = make_scheme(c.spec, c.rows, c.cols);
  const Matrix weights = random_matrix(c.rows, c.cols, 21);
  scheme->encode(weights);
  for (Direction dir : {Direction::forward, Direction::backward}) {
    CAPTURE(describe(c, dir));
    const bool forward = dir == Direction::forward;
    const Matrix input = random_matrix(forward ? c.cols : c.rows, 2, 22);
    const Matrix exact = exact_product(weights, dir, input);
    const auto symbols = clean_symbols(*scheme, dir, input);
    const SchemeSummary summary = scheme->summary();
    const int k =
        forward ? summary.forward.recovery_threshold : summary.backward.recovery_threshold;
    for (const std::vector<int>& subset : test_subsets(scheme->symbol_count(dir), k, random, 23)) {
      std::vector<std::optional<Matrix>> present(symbols.size());
      for (int s : subset) present[static_cast<std::size_t>(s)] = symbols[s];
      const ProductDecode decoded = scheme->decode(dir, present, DecodeOptions{});
      const double error = max_relative_error(decoded.product, exact);
      if (error <= kDecodeRelativeAccuracyTarget) {
        ++tally.accurate;
        continue;
      }
      CAPTURE(error);
      CAPTURE(subset.front());
      CHECK(may_lose_accuracy(subset_condition(c.spec, dir, subset)));
      ++tally.flagged;
    }
  }
}

TEST_CASE("MDS codes to P = 64 decode to 1e-8 from first, last and random K-subsets") {
  Tally tally;
  for (int nodes : {8, 16, 32, 48, 64}) {
    for (int k : {1, 3, 8, 16, 24, 32, 48, 64}) {
      if (k <= nodes) check_subsets(mds(k, nodes), 4, tally);
    }
  }
  CHECK(tally.flagged == 0);
  CHECK(tally.accurate > 200);
}

TEST_CASE("CodeNet grids to 8x8 decode to 1e-8 from first, last and random K-subsets") {
  Tally tally;
  for (const Config& c : {grid(4, 4, 8, 8), grid(7, 7, 8, 8), grid(1, 1, 8, 8), grid(5, 4, 7, 6),
                          grid(2, 2, 5, 4), grid(6, 2, 8, 3), grid(8, 8, 8, 8)}) {
    check_subsets(c, 4, tally);
  }
  CHECK(tally.flagged == 0);
}

TEST_CASE("GPD to P = 64 decodes to 1e-8 from first, last and random K-subsets or is flagged") {
  Tally tally;
  Tally small;  // P <= 16: never flagged
  for (int nodes : {8, 16, 32, 48, 64}) {
    for (int m : {1, 2, 3, 4, 8}) {
      for (int n : {1, 2, 3, 4, 8}) {
        const GpdExponents e = gpd_exponents(m, n, false);
        if (std::max(e.forward_threshold, e.backward_threshold) > nodes) continue;
        check_subsets(gpd(m, n, nodes), 2, nodes <= 16 ? small : tally);
        if (nodes == 16) check_subsets(gpd(m, n, nodes, true), 2, small);
      }
    }
  }
  CHECK(small.flagged == 0);
  CHECK(small.accurate > 100);
  // Beyond P = 16 some large-K systems are flagged (monomial coefficients from real points:
  // cond grows like (1 + sqrt 2)^K), and many decodes still meet the target.
  CHECK(tally.flagged > 0);
  CHECK(tally.accurate > 100);
}

TEST_CASE("correctable errors are corrected to 1e-8 relative") {
  for (const Config& c : {mds(16, 32), mds(4, 12), grid(4, 4, 8, 8), grid(5, 4, 7, 6),
                          gpd(2, 2, 16), gpd(2, 1, 12, true), gpd(1, 3, 16)}) {
    const std::unique_ptr<CodingScheme> scheme = make_scheme(c.spec, c.rows, c.cols);
    const Matrix weights = random_matrix(c.rows, c.cols, 31);
    scheme->encode(weights);
    for (Direction dir : {Direction::forward, Direction::backward}) {
      CAPTURE(describe(c, dir));
      const bool forward = dir == Direction::forward;
      const Matrix input = random_matrix(forward ? c.cols : c.rows, 2, 32);
      auto symbols = clean_symbols(*scheme, dir, input);
      const SchemeSummary summary = scheme->summary();
      const int errors = forward ? summary.forward.correctable_adversarial
                                 : summary.backward.correctable_adversarial;
      REQUIRE(errors >= 1);
      // Corrupt `errors` symbols spread over the codeword.
      const std::vector<std::vector<int>> chosen =
          test_subsets(static_cast<int>(symbols.size()), errors, 1, 33);
      const std::vector<int>& bad = chosen.back();
      for (std::size_t i = 0; i < bad.size(); ++i) {
        Matrix& symbol = *symbols[static_cast<std::size_t>(bad[i])];
        symbol += 10.0 * random_matrix(static_cast<int>(symbol.rows()),
                                       static_cast<int>(symbol.cols()), 40 + i);
      }
      const ProductDecode decoded = scheme->decode(dir, symbols, DecodeOptions{});
      REQUIRE(decoded.status == DecodeStatus::corrected);
      CHECK(max_relative_error(decoded.product, exact_product(weights, dir, input)) <=
            kDecodeRelativeAccuracyTarget);
      CHECK_FALSE(may_lose_accuracy(decoded.condition_number));
    }
  }
}

TEST_CASE("an ill-conditioned code is flagged, and it does lose the target accuracy") {
  // Monomials on equally spaced points: cond grows like 2^K, far beyond Chebyshev points.
  const int dimension = 24;
  std::vector<double> points(dimension);
  for (int p = 0; p < dimension; ++p) points[p] = -1.0 + 2.0 * p / (dimension - 1);
  const LinearCode code(vandermonde(points, dimension));
  const Matrix message = random_matrix(dimension, 3, 51);
  const Matrix encoded = code.encode(message);
  std::vector<std::optional<Eigen::RowVectorXd>> received(dimension);
  for (int s = 0; s < dimension; ++s) received[s] = encoded.row(s);
  DecodeOptions options;
  options.tolerance_factor = 1.0;  // exactly K symbols: solved unchecked unless cond u >= 1
  const CodeDecodeResult result = code.decode(received, options);
  REQUIRE(result.status == DecodeStatus::clean);
  CHECK(may_lose_accuracy(result.condition_number));
  CHECK(max_relative_error(result.message, message) > kDecodeRelativeAccuracyTarget);

  // GPD (4, 8) on P = 64 (K = 39 forward, 56 backward): flagged in both directions.
  const DecodingConditioning large = decoding_conditioning(gpd(4, 8, 64).spec, 8, 16);
  CHECK(may_lose_accuracy(large.forward.worst_condition));
  CHECK(may_lose_accuracy(large.backward.worst_condition));
}

}  // namespace
}  // namespace codesim::models
