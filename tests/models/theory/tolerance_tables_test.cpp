// T1 and T3 tables: GPD thresholds per orientation, tolerance versus nodes, the unbounded ratio.
#include <doctest/doctest.h>
#include <algorithm>

#include "models/theory/tolerance_tables.hpp"

TEST_CASE("T1 lists the GPD thresholds of both orientations for m, n in 1..4") {
  const auto rows = codesim::models::gpd_threshold_table();
  REQUIRE(rows.size() == 16);
  for (const auto& row : rows) {
    CAPTURE(row.m);
    CAPTURE(row.n);
    const int mn = row.m * row.n;
    CHECK(row.forward == mn + row.n - 1);
    CHECK(row.backward == 2 * mn - row.n);
    CHECK(row.mirrored_forward == 2 * mn - row.m);
    CHECK(row.mirrored_backward == mn + row.m - 1);
    if (row.n == 1) CHECK(row.forward == row.m);          // polynomial / MDS row split
    if (row.m == 1) CHECK(row.forward == 2 * row.n - 1);  // MatDot
  }
  CHECK(rows[5].m == 2);
  CHECK(rows[5].n == 2);
  CHECK(rows[5].forward == 5);
  CHECK(rows[5].backward == 6);
}

TEST_CASE("T3 counts errors tolerated versus nodes for the CodeNet split") {
  const auto rows = codesim::models::tolerance_table(5, 4);
  REQUIRE(rows.front().nodes == 23);  // K_ff = 20 + 4 - 1
  REQUIRE(rows.back().nodes == 80);
  const auto at = [&rows](int p) { return rows[static_cast<std::size_t>(p - 23)]; };
  CHECK_FALSE(at(23).gpd_backward.has_value());  // K_bp = 36
  CHECK(at(23).gpd_forward == 0);
  CHECK(at(30).gpd_forward == 3);
  CHECK(at(30).gpd_forward_random == 6);
  CHECK(at(38).codenet == 1);  // the paper's 7 x 6 grid
  CHECK(at(38).codenet_nodes == 38);
  CHECK(at(37).codenet == 0);
  CHECK(at(40).replication_copies == 2);
  CHECK(at(40).replication_correctable == 0);
  CHECK(at(40).replication_detectable == 1);
  CHECK(at(40).mds == 0);  // k = 2mn = 40
  CHECK_FALSE(at(39).mds.has_value());
  CHECK(at(39).replication_copies == 1);  // uncoded
  CHECK(at(39).replication_detectable == 0);
  CHECK(at(60).replication_correctable == 1);
  CHECK(at(60).gpd_forward == 18);
  CHECK(at(60).gpd_backward == 12);
  CHECK(at(80).codenet == 3);
  // GPD never tolerates fewer than replication at equal storage.
  for (const auto& row : rows) {
    if (row.gpd_forward && row.replication_correctable) {
      CHECK(*row.gpd_forward >= *row.replication_correctable);
    }
  }
}

TEST_CASE("the GPD / replication ratio grows with mn") {
  const auto rows = codesim::models::gpd_replication_ratio_table(8);
  REQUIRE(rows.size() == 8);
  for (const auto& row : rows) {
    const int mn = row.m * row.n;
    CHECK(row.replication_detectable_at_2mn == 1);
    // The adversarial bound floor((P - K) / 2) (Generalized PolyDot, arXiv 1811.10751, abstract)
    // at P = 2mn, K = mn + n - 1: floor((mn - n + 1) / 2) (docs/reproduction.md).
    CHECK(row.gpd_at_2mn == (mn - row.n + 1) / 2);
    CHECK(row.detection_ratio_at_2mn == doctest::Approx(mn - row.n + 1));
    CHECK(row.replication_at_3mn == 1);
    CHECK(row.ratio_at_3mn == doctest::Approx((2 * mn - row.n + 1) / 2));
    // Backward threshold 2mn - n: floor((mn + n) / 2) at P = 3mn, and training takes the smaller.
    CHECK(row.gpd_backward_at_3mn == (mn + row.n) / 2);
    CHECK(row.training_ratio_at_3mn ==
          doctest::Approx(std::min((2 * mn - row.n + 1) / 2, (mn + row.n) / 2)));
  }
  CHECK(rows.back().ratio_at_3mn > 50.0);
}
