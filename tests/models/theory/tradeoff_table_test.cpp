// The trade-off table (thresholds in nodes and traffic per node at equal storage) against the
// derivations of docs/reproduction.md and against real decodes from node subsets; T3 over many
// splits.
#include <doctest/doctest.h>

#include <algorithm>
#include <numeric>
#include <vector>

#include "models/coding/coding_scheme.hpp"
#include "models/theory/decode_trials.hpp"
#include "models/theory/tradeoff_table.hpp"
#include "sim/random_stream.hpp"

namespace {

using codesim::models::Direction;
using codesim::models::Matrix;

const codesim::models::TradeoffRow& find_row(const std::vector<codesim::models::TradeoffRow>& rows,
                                             int m, int n, const std::string& scheme) {
  const auto it = std::find_if(rows.begin(), rows.end(), [&](const auto& r) {
    return r.m == m && r.n == n && r.scheme == scheme;
  });
  REQUIRE(it != rows.end());
  return *it;
}

Matrix gaussian(Eigen::Index rows, Eigen::Index cols, codesim::sim::RandomStream& stream) {
  Matrix out(rows, cols);
  for (Eigen::Index j = 0; j < cols; ++j)
    for (Eigen::Index i = 0; i < rows; ++i) out(i, j) = stream.normal(0.0, 1.0);
  return out;
}

// Visits every `size`-subset of `items` (lexicographic) until `visit` returns false.
template <typename Visit>
void for_each_subset(const std::vector<int>& items, int size, Visit visit) {
  std::vector<int> index(static_cast<std::size_t>(size));
  std::iota(index.begin(), index.end(), 0);
  const int total = static_cast<int>(items.size());
  while (true) {
    std::vector<int> subset;
    for (int i : index) subset.push_back(items[static_cast<std::size_t>(i)]);
    if (!visit(subset)) return;
    int i = size - 1;
    while (i >= 0 && index[static_cast<std::size_t>(i)] == total - size + i) --i;
    if (i < 0) return;
    ++index[static_cast<std::size_t>(i)];
    for (int j = i + 1; j < size; ++j) {
      index[static_cast<std::size_t>(j)] = index[static_cast<std::size_t>(j - 1)] + 1;
    }
  }
}

// Whether the product decodes exactly when only `alive` nodes compute.
bool decodes_from(const codesim::models::CodingScheme& scheme, Direction dir, const Matrix& weights,
                  const Matrix& input, const std::vector<int>& alive) {
  codesim::models::DecodeOptions options;
  const bool forward = dir == Direction::forward;
  options.inner_dimension = static_cast<int>(forward ? weights.cols() : weights.rows());
  const auto decoded =
      codesim::models::compute_and_decode(scheme, dir, input, options, [&alive](int node, Matrix&) {
        return std::find(alive.begin(), alive.end(), node) != alive.end();
      });
  if (decoded.status == codesim::models::DecodeStatus::detected) return false;
  const Matrix exact = forward ? Matrix(weights * input) : Matrix(weights.transpose() * input);
  return (decoded.product - exact).cwiseAbs().maxCoeff() < 1e-8 * exact.cwiseAbs().maxCoeff();
}

}  // namespace

TEST_CASE("the trade-off's thresholds and traffic follow each scheme's structure") {
  const auto rows = codesim::models::tradeoff_table(4, 4, 3);
  REQUIRE(rows.size() == 64);
  for (int m = 1; m <= 4; ++m) {
    for (int n = 1; n <= 4; ++n) {
      CAPTURE(m);
      CAPTURE(n);
      const int mn = m * n;
      const auto& gpd = find_row(rows, m, n, "gpd");
      CHECK(gpd.forward.threshold_nodes == mn + n - 1);
      CHECK(gpd.backward.threshold_nodes == 2 * mn - n);
      CHECK(gpd.forward.sent_per_node == doctest::Approx(1.0 / m));
      CHECK(gpd.backward.sent_per_node == doctest::Approx(1.0 / n));
      const auto& mds = find_row(rows, m, n, "mds");
      CHECK(mds.forward.threshold_nodes == 2 * mn);
      CHECK(mds.backward.threshold_nodes == 2 * mn);
      CHECK(mds.forward.sent_per_node == doctest::Approx(1.0 / (2 * mn)));
      const auto& replication = find_row(rows, m, n, "replication");
      CHECK(replication.forward.threshold_nodes == 3 * mn - 2);  // all 3 copies of one block lost
      CHECK(replication.forward.sent_per_node == doctest::Approx(1.0 / m));
      const auto& grid = find_row(rows, m, n, "codenet_grid");
      const int t = (3 * mn - mn) / (2 * (m + n));
      CHECK(grid.forward.participants == (m + 2 * t) * n);  // the column parities sit out
      CHECK(grid.forward.threshold_nodes == (m + 2 * t) * n - 2 * t);
      CHECK(grid.backward.threshold_nodes == m * (n + 2 * t) - 2 * t);
      for (const auto* row : {&gpd, &mds, &replication, &grid}) {
        CHECK(row->storage_fraction_per_node == doctest::Approx(1.0 / mn));
        CHECK(row->nodes <= 3 * mn);
      }
    }
  }
}

TEST_CASE("every set of K nodes decodes and some set of K - 1 does not, for each scheme") {
  const auto rows = codesim::models::tradeoff_table(2, 2, 3);
  codesim::sim::RandomStream stream({5, 0, "tradeoff_test", 0});
  for (const auto& row : rows) {
    if (row.m != 2 || row.n != 2) continue;
    CAPTURE(row.scheme);
    codesim::models::SchemeSpec spec = codesim::models::gpd_spec(2, 2, 12);
    if (row.scheme == "mds") spec = codesim::models::mds_spec(8, 12);
    if (row.scheme == "replication") spec = codesim::models::replication_spec(2, 2, 3);
    if (row.scheme == "codenet_grid") spec = codesim::models::codenet_grid_spec(2, 2, 4, 4);
    const auto scheme = codesim::models::make_trial_scheme(spec);
    const auto [row_blocks, col_blocks] = codesim::models::block_grid(spec);
    const Matrix weights = gaussian(4 * row_blocks, 4 * col_blocks, stream);
    scheme->encode(weights);
    for (const Direction dir : {Direction::forward, Direction::backward}) {
      const auto& expected = dir == Direction::forward ? row.forward : row.backward;
      const bool forward = dir == Direction::forward;
      const Matrix input = gaussian(forward ? weights.cols() : weights.rows(), 2, stream);
      const std::vector<int>& nodes = scheme->participants(dir);
      REQUIRE(static_cast<int>(nodes.size()) == expected.participants);
      int failed = 0;
      for_each_subset(nodes, expected.threshold_nodes, [&](const std::vector<int>& alive) {
        failed += decodes_from(*scheme, dir, weights, input, alive) ? 0 : 1;
        return true;
      });
      CHECK(failed == 0);
      bool one_fails = false;
      for_each_subset(nodes, expected.threshold_nodes - 1, [&](const std::vector<int>& alive) {
        one_fails = !decodes_from(*scheme, dir, weights, input, alive);
        return !one_fails;
      });
      CHECK(one_fails);
    }
  }
}

TEST_CASE("T3 over many splits has MDS at every point and GPD ahead of every baseline") {
  const auto rows = codesim::models::tolerance_grid(4, 4);
  int points = 0;
  for (int m = 1; m <= 4; ++m)
    for (int n = 1; n <= 4; ++n) points += 2 * m * n + 1;  // P = 2mn .. 4mn
  REQUIRE(static_cast<int>(rows.size()) == points);
  for (const auto& r : rows) {
    CAPTURE(r.m);
    CAPTURE(r.n);
    CAPTURE(r.tolerance.nodes);
    REQUIRE(r.tolerance.mds.has_value());
    REQUIRE(r.tolerance.gpd_forward.has_value());
    REQUIRE(r.tolerance.gpd_backward.has_value());
    CHECK(*r.tolerance.mds == (r.tolerance.nodes - 2 * r.m * r.n) / 2);
    CHECK(*r.tolerance.gpd_forward >= *r.tolerance.mds);
    CHECK(*r.tolerance.gpd_backward >= *r.tolerance.mds);
    CHECK(*r.tolerance.gpd_forward >= *r.tolerance.codenet);
    CHECK(*r.tolerance.gpd_forward >= *r.tolerance.replication_correctable);
  }
  // Where the CodeNet grid only equals replication: m = n = 2 at P = 12..16, one error each.
  for (const auto& r : rows) {
    if (r.m == 2 && r.n == 2 && r.tolerance.nodes >= 12) {
      CHECK(r.tolerance.codenet == 1);
      CHECK(r.tolerance.replication_correctable == 1);
    }
  }
}
