// Scheme specs: validation messages, the factory and the compute-then-decode helper's hooks.
#include <doctest/doctest.h>

#include "models/coding/coding_scheme.hpp"
#include "tests/models/coding/scheme_test_support.hpp"

namespace codesim::models {
namespace {

using testing::random_matrix;
using testing::relative_error;

TEST_CASE("scheme validation names the field at fault and what is wrong") {
  CHECK(find_scheme("polydot") == nullptr);
  const auto problem = [](const SchemeSpec& spec, int rows = 0, int cols = 0) {
    const SchemeProblem p = validate_scheme(spec, rows, cols);
    return p.field + ": " + p.message;
  };
  CHECK(problem(gpd_spec(2, 2, 5)) ==
        "nodes: nodes = 5 is below the recovery threshold 6 (forward 5, backward 6)");
  const SchemeSpec gpd = gpd_spec(2, 2, 6);
  CHECK(validate_scheme(gpd).empty());
  CHECK(problem(gpd, 10, 7) == "n: n = 2 does not divide cols = 7");
  CHECK(problem(gpd, 9, 8) == "m: m = 2 does not divide rows = 9");
  CHECK(problem(gpd_spec(0, 2, 6)) == "m: m = 0 must be in [1, 4096]");
  CHECK(problem(codenet_grid_spec(3, 2, 2, 4)) == "grid_rows: grid_rows = 2 must be in [3, 4096]");
  CHECK(problem(replication_spec(1, 1, 1)) == "copies: copies = 1 must be in [2, 4096]");
  CHECK(problem(mds_spec(4, 3)) == "nodes: nodes = 3 is below the recovery threshold k = 4");
  CHECK(problem(mds_spec(4, 6), 8, 6) == "k: k = 4 does not divide cols = 6");
  CHECK(problem(uncoded_spec(1, 1), -1, 2) == ": the matrix shape must not be negative");
}

TEST_CASE("summaries without a shape give traffic as fractions of the product length") {
  const SchemeSpec grid = codenet_grid_spec(5, 4, 7, 6);
  const SchemeSummary fractions = summarize_scheme(grid);
  const SchemeSummary counts = summarize_scheme(grid, 1000, 800);
  CHECK(fractions.forward.elements_sent_per_node == doctest::Approx(0.2));
  CHECK(counts.forward.elements_sent_per_node == doctest::Approx(200));
  CHECK(counts.backward.elements_sent_per_node == doctest::Approx(200));
  CHECK(counts.backward.elements_received_per_node == doctest::Approx(1200));
}

TEST_CASE("make_scheme builds the kind the spec names") {
  for (const auto& config : testing::small_configs()) {
    const auto scheme = make_scheme(config.spec, config.rows, config.cols);
    CHECK(scheme->summary().scheme == scheme_name(config.spec));
    CHECK(scheme->node_count() == summarize_scheme(config.spec).nodes);
  }
}

TEST_CASE("slice encodings are read in place with the same bits as their copies") {
  const Matrix weights = random_matrix(12, 8, 3);
  for (const SchemeSpec& spec : {uncoded_spec(2, 2), replication_spec(3, 2, 2), mds_spec(2, 4),
                                 gpd_spec(2, 2, 7), codenet_grid_spec(3, 2, 4, 4)}) {
    CAPTURE(scheme_name(spec));
    const std::unique_ptr<CodingScheme> scheme = make_scheme(spec, 12, 8);
    scheme->encode(weights);
    const bool slices =
        !std::holds_alternative<MdsSpec>(spec) && !std::holds_alternative<GpdSpec>(spec);
    for (Direction dir : {Direction::forward, Direction::backward}) {
      const Matrix input = random_matrix(dir == Direction::forward ? 8 : 12, 3, 4);
      for (int node : scheme->participants(dir)) {
        const std::optional<RowSlice> slice = scheme->input_slice(node, dir);
        CHECK(slice.has_value() == slices);
        const Matrix encoded = scheme->encode_input(node, dir, input);
        if (slice) CHECK(encoded == input.middleRows(slice->first, slice->count));
        CHECK(multiply_input(*scheme, node, dir, input) == scheme->multiply(node, dir, encoded));
      }
    }
  }
}

TEST_CASE("compute_and_decode turns dropped nodes into erasures") {
  const auto scheme = make_scheme(gpd_spec(2, 1, 5), 4, 3);
  const Matrix weights = random_matrix(4, 3, 1);
  scheme->encode(weights);
  const Matrix input = random_matrix(3, 1, 2);
  int calls = 0;
  const auto drop = [&](int dropped) {
    return [&calls, dropped](int node, Matrix&) {
      ++calls;
      return node < dropped;
    };
  };
  // Forward K = mn + n - 1 = 2: two results suffice, one does not.
  const ProductDecode two = compute_and_decode(*scheme, Direction::forward, input, {}, drop(2));
  CHECK(calls == 5);
  CHECK(two.status == DecodeStatus::clean);
  CHECK(relative_error(two.product, weights * input) < 1e-12);
  const ProductDecode one = compute_and_decode(*scheme, Direction::forward, input, {}, drop(1));
  CHECK(one.status == DecodeStatus::detected);
}

}  // namespace
}  // namespace codesim::models
