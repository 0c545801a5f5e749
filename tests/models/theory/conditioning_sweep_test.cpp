// The conditioning sweep: the decoding guard's flag against real float64 decodes as P grows.
#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include "models/coding/conditioning.hpp"
#include "models/theory/conditioning_sweep.hpp"

TEST_CASE("the conditioning splits are s x s and s x (s + 1)") {
  const auto splits = codesim::models::conditioning_splits(3);
  REQUIRE(splits.size() == 5);
  CHECK(splits[1] == std::pair{1, 2});
  CHECK(splits[4] == std::pair{3, 3});
}

TEST_CASE("every decode the guard leaves unflagged keeps the target accuracy") {
  const auto points =
      codesim::models::conditioning_sweep(codesim::models::conditioning_splits(4), 3);
  REQUIRE(points.size() == 21);
  double first_gpd = 0.0;
  double last_gpd = 0.0;
  for (const auto& p : points) {
    CAPTURE(p.scheme);
    CAPTURE(p.nodes);
    CHECK(p.nodes <= 3 * p.m * p.n);
    for (const auto* d : {&p.forward, &p.backward}) {
      CHECK(d->worst_condition >= 1.0);
      CHECK(d->flagged == codesim::models::may_lose_accuracy(d->worst_condition));
      if (!d->flagged) {
        CHECK(d->accurate);
        CHECK(d->subset_relative_error < codesim::models::kDecodeRelativeAccuracyTarget);
      }
      if (d->accurate) CHECK(d->all_clean);
    }
    if (p.scheme == "gpd") {
      if (first_gpd == 0.0) first_gpd = p.backward.worst_condition;
      last_gpd = p.backward.worst_condition;
    }
    // The Gaussian systematic codes stay well conditioned at these sizes.
    if (p.scheme != "gpd") CHECK(p.forward.accurate);
  }
  CHECK(last_gpd > 1e3 * first_gpd);  // real polynomial codes: conditioning grows with K
}
