// Coded training under failure domains: a domain that downs no more nodes than the code
// tolerates is a set of erasures (decoded around, regenerated after the repair); one that downs
// more rolls back. Either way the run ends with plain SGD's parameters.
// A node cut off from the network by a failed link is such an erasure too.
#include <doctest/doctest.h>

#include <utility>
#include <vector>

#include "tests/models/training/coded_training_test_support.hpp"

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

namespace {
// The 16 nodes on a star (fat_tree of arity 16: one switch): a link that fails cuts its node off,
// an erasure for the code until the link is back. Each link fails every 2 ms on average and is
// down for 50 microseconds, so that one is down at a time mostly.
codesim::sim::ClusterSpec cluster_with_link_failures(codesim::sim::FailureLaw failure) {
  codesim::sim::ClusterSpec c = cluster(16);
  c.network.shape = codesim::sim::TopologyShape::fat_tree;
  c.network.fat_tree_arity = 16;
  c.shared_failures.links = codesim::sim::LinkFailureSpec{failure, FixedLaw{5e-5}};
  return c;
}
}  // namespace

TEST_CASE("a node cut off by a link failure is an erasure, regenerated once the link is back") {
  const TrainingSpec spec = training("gpd", 40);
  const TrainingResult r =
      train(spec, no_faults(), every(5), cluster_with_link_failures(ExponentialLaw{2e-3}));
  CHECK(r.metrics.get("completed") == 1.0);
  // The nodes never crash by themselves: every crash is a node cut off.
  CHECK(r.metrics.get("crashes") >= 2.0);
  CHECK(r.metrics.get("regenerations") > 0.0);
  CHECK(r.metrics.get("decodes") > 0.0);
  CHECK(max_difference(r.parameters, reference(spec, 40, 3)) < 1e-9);
}

TEST_CASE("link failures that never happen leave a training run exactly as without them") {
  const TrainingSpec spec = training("gpd", 40);
  codesim::sim::ClusterSpec without = cluster_with_link_failures(ExponentialLaw{});
  without.shared_failures.links.reset();
  for (codesim::sim::CrashSpec& c : without.crashes) c = codesim::sim::exponential_crashes(3e-4);
  codesim::sim::ClusterSpec with = without;
  with.shared_failures.links = codesim::sim::LinkFailureSpec{ExponentialLaw{}, FixedLaw{1.0}};
  const TrainingResult a = train(spec, no_faults(), every(5), without);
  const TrainingResult b = train(spec, no_faults(), every(5), with);
  CHECK(a.metrics.get("crashes") > 0.0);
  CHECK(a.metrics.scalars() == b.metrics.scalars());
  CHECK(max_difference(a.parameters, b.parameters) == 0.0);
}
