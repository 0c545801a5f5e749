// Scheme specs: validation messages, the factory and the compute-then-decode helper's hooks.
#include <doctest/doctest.h>

#include "models/coding/coding_scheme.hpp"
#include "tests/models/scheme_test_support.hpp"

namespace codesim::models {
namespace {

using testing::random_matrix;
using testing::relative_error;

SchemeSpec spec_of(const std::string& kind) {
  SchemeSpec spec;
  spec.kind = kind;
  return spec;
}

TEST_CASE("scheme validation names what is wrong") {
  CHECK(validate_scheme(spec_of("polydot")).find("unknown scheme 'polydot'") == 0);
  SchemeSpec gpd = spec_of("gpd");
  gpd.m = 2;
  gpd.n = 2;
  gpd.nodes = 5;
  CHECK(validate_scheme(gpd) ==
        "nodes = 5 is below the recovery threshold 6 (forward 5, backward 6)");
  gpd.nodes = 6;
  CHECK(validate_scheme(gpd).empty());
  CHECK(validate_scheme(gpd, 10, 7) == "n = 2 does not divide cols = 7");
  CHECK(validate_scheme(gpd, 9, 8) == "m = 2 does not divide rows = 9");
  gpd.m = 0;
  CHECK(validate_scheme(gpd) == "m = 0 must be in [1, 4096]");
  SchemeSpec grid = spec_of("codenet_grid");
  grid.m = 3;
  grid.n = 2;
  grid.grid_rows = 2;
  grid.grid_cols = 4;
  CHECK(validate_scheme(grid) == "grid_rows = 2 must be in [3, 4096]");
  SchemeSpec replication = spec_of("replication");
  replication.copies = 1;
  CHECK(validate_scheme(replication) == "copies = 1 must be in [2, 4096]");
  SchemeSpec mds = spec_of("mds");
  mds.k = 4;
  mds.nodes = 3;
  CHECK(validate_scheme(mds) == "nodes = 3 is below the recovery threshold k = 4");
  mds.nodes = 6;
  CHECK(validate_scheme(mds, 8, 6) == "k = 4 does not divide cols = 6");
  CHECK(validate_scheme(spec_of("uncoded"), -1, 2) == "the matrix shape must not be negative");
}

TEST_CASE("summaries without a shape give traffic as fractions of the product length") {
  SchemeSpec grid = spec_of("codenet_grid");
  grid.m = 5;
  grid.n = 4;
  grid.grid_rows = 7;
  grid.grid_cols = 6;
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
    CHECK(scheme->summary().scheme == config.spec.kind);
    CHECK(scheme->node_count() == summarize_scheme(config.spec).nodes);
  }
}

TEST_CASE("compute_and_decode turns dropped nodes into erasures") {
  SchemeSpec gpd = spec_of("gpd");
  gpd.m = 2;
  gpd.n = 1;
  gpd.nodes = 5;
  const auto scheme = make_scheme(gpd, 4, 3);
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
