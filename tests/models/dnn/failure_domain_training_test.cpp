// Coded training under failure domains: a domain that downs no more nodes than the code
// tolerates is a set of erasures (decoded around, regenerated after the repair); one that downs
// more rolls back. Either way the run ends with plain SGD's parameters.
#include <doctest/doctest.h>

#include <utility>
#include <vector>

#include "tests/models/dnn/coded_training_test_support.hpp"

using namespace codesim::models;
using namespace codesim::models::testing;
using codesim::sim::ExponentialLaw;
using codesim::sim::FixedLaw;

namespace {
// GPD on 8 of the 16 nodes (K forward 5, backward 6): two erasures at once are within its
// tolerance, four are not. One iteration takes about 15 microseconds here; the domain fails
// every 100 microseconds on average and stays down 50.
codesim::sim::ClusterSpec cluster_with_domain(std::vector<int> members) {
  codesim::sim::ClusterSpec c = cluster(16);
  c.shared_failures.domains.push_back(
      {"rack", std::move(members), ExponentialLaw{1e-4}, FixedLaw{5e-5}});
  return c;
}
}  // namespace

TEST_CASE("a domain within the code's tolerance is handled as erasures and regenerated") {
  const TrainingSpec spec = training("gpd", 40);
  const TrainingResult r = train(spec, no_faults(), {}, cluster_with_domain({4, 5}));
  CHECK(r.metrics.get("completed") == 1.0);
  // Each domain failure crashes both members at one instant.
  CHECK(r.metrics.get("crashes") >= 2.0);
  CHECK(static_cast<int>(r.metrics.get("crashes")) % 2 == 0);
  CHECK(r.metrics.get("regenerations") > 0.0);
  CHECK(r.metrics.get("rollbacks") == 0.0);
  CHECK(max_difference(r.parameters, reference(spec, 40, 3)) < 1e-9);
}

TEST_CASE("a domain downing more nodes than the code tolerates rolls back and waits for it") {
  const TrainingSpec spec = training("gpd", 40);
  const TrainingResult r = train(spec, no_faults(), every(5), cluster_with_domain({0, 1, 2, 3}));
  CHECK(r.metrics.get("completed") == 1.0);
  CHECK(r.metrics.get("crashes") >= 4.0);
  CHECK(r.metrics.get("rollbacks") > 0.0);
  CHECK(r.metrics.get("time_restart_s") > 0.0);
  CHECK(max_difference(r.parameters, reference(spec, 40, 3)) < 1e-9);
}
