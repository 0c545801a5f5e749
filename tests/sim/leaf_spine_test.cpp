// The leaf-spine shape: its links and oversubscribed uplinks, ECMP routes that spread the
// spines and repeat exactly, and what oversubscription costs the traffic between leaves.
#include <doctest/doctest.h>

#include <set>
#include <vector>

#include "sim/leaf_spine.hpp"
#include "sim/topology.hpp"
#include "sim/topology_graphs.hpp"
#include "sim/transfer_schedule.hpp"

using namespace codesim::sim;

namespace {

// 2 leaves of 4 hosts (vertices 8 and 9), 2 spines (10 and 11).
TopologySpec leaf_spine(double oversubscription) {
  TopologySpec spec;
  spec.shape = TopologyShape::leaf_spine;
  spec.nodes = 8;
  spec.hosts_per_leaf = 4;
  spec.spines = 2;
  spec.oversubscription = oversubscription;
  spec.latency_s = 1e-6;
  spec.bandwidth_Bps = 1e9;
  return spec;
}

}  // namespace

TEST_CASE("a leaf-spine links hosts to their leaf and every leaf to every spine") {
  const Topology topology(leaf_spine(2.0));
  CHECK(topology.vertex_count() == 12);
  CHECK(topology.link_count() == 8 + 2 * 2);
  // Uplinks: 4 hosts x 1e9 / (2 spines x 2) = 1e9 B/s each.
  for (const TopologyLink& link : topology.links()) {
    if (link.a >= 8) CHECK(link.bandwidth_Bps == 1e9);
  }
  CHECK(topology.route(0, 3) == std::vector<int>{0, 8, 3});
  const std::vector<int> across = topology.route(1, 6);
  REQUIRE(across.size() == 5);
  CHECK(across[1] == 8);
  CHECK(across[3] == 9);
  CHECK(across[2] == 10 + detail::leaf_spine_of(leaf_spine(2.0)).spine_for(1, 6));
  CHECK(topology.route_latency_s(1, 6) == doctest::Approx(4e-6));
}

TEST_CASE("ECMP spreads the flows between leaves over every spine, the same way every time") {
  TopologySpec spec = leaf_spine(1.0);
  spec.nodes = 64;
  spec.hosts_per_leaf = 8;
  spec.spines = 4;
  const Topology a(spec);
  const Topology b(spec);
  std::vector<int> per_spine(4, 0);
  for (int src = 0; src < 64; ++src) {
    for (int dst = 0; dst < 64; ++dst) {
      if (src / 8 == dst / 8) continue;
      const std::vector<int> route = a.route(src, dst);
      CHECK(route == b.route(src, dst));
      ++per_spine[static_cast<std::size_t>(route[2] - 64 - 8)];
    }
  }
  // 3584 flows: each spine within 10% of a quarter.
  for (int count : per_spine) CHECK(count == doctest::Approx(896).epsilon(0.1));
}

TEST_CASE("an oversubscription of 4 makes traffic between leaves 4 times slower than of 1") {
  TransferSchedule cross;
  for (int i = 0; i < 4; ++i) cross.add(i, i + 4, 1e6);
  const double full_s = run_schedule(Topology(leaf_spine(1.0)), cross).makespan_s;
  const double over_s = run_schedule(Topology(leaf_spine(4.0)), cross).makespan_s;
  // Whatever spines ECMP picks, at least two flows share one; the busiest uplink sets the pace.
  CHECK((over_s - 4e-6) / (full_s - 4e-6) == doctest::Approx(4.0).epsilon(1e-9));
}

TEST_CASE(
    "a leaf-spine whose leaves cannot hold the nodes, or with no oversubscription, is refused") {
  TopologySpec spec = leaf_spine(1.0);
  spec.leaves = 1;
  CHECK(validate_topology(spec) ==
        "leaf_spine with 1 leaves of 4 hosts holds 4 hosts, not the 8 nodes (expected leaves x "
        "hosts_per_leaf >= nodes, or leaves 0 to fit them)");
  spec.leaves = 0;
  spec.oversubscription = 0.0;
  CHECK(validate_topology(spec) == "oversubscription must be finite and > 0 (got 0)");
  // Every leaf links to every spine: 2^24 uplinks at most (a build, not a crash, stops there).
  spec.oversubscription = 1.0;
  spec.leaves = 65536;
  spec.spines = 65536;
  CHECK(validate_topology(spec) ==
        "leaf_spine with 65536 leaves and 65536 spines has 4294967296 uplinks (expected at most "
        "16777216 uplinks and switches)");
}
