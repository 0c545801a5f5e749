// Per-link overrides on every shape: a star with one slow port, a torus and a fully connected
// network routing around a slow or long link, and the overrides that name no link.
#include <doctest/doctest.h>

#include <vector>

#include "sim/topology.hpp"

using namespace codesim::sim;

namespace {

TopologySpec spec_of(TopologyShape shape, int nodes) {
  TopologySpec spec;
  spec.shape = shape;
  spec.nodes = nodes;
  spec.latency_s = 1e-6;
  spec.bandwidth_Bps = 1e9;
  return spec;
}

}  // namespace

TEST_CASE("a star with one slow port slows only the transfers through that port") {
  TopologySpec spec = spec_of(TopologyShape::star, 8);
  spec.link_overrides = {{3, 8, -1.0, 1e8}};  // node 3's link to the switch (vertex 8)
  const Topology topology(spec);
  CHECK(topology.transfer_time_s(3, 0, 1e6) == doctest::Approx(2e-6 + 1e6 / 1e8));
  CHECK(topology.transfer_time_s(0, 3, 1e6) == doctest::Approx(2e-6 + 1e6 / 1e8));
  CHECK(topology.transfer_time_s(1, 0, 1e6) == doctest::Approx(2e-6 + 1e6 / 1e9));
  CHECK(topology.links()[3].bandwidth_Bps == 1e8);
}

TEST_CASE("a torus routes around a long cable once it is overridden") {
  TopologySpec spec = spec_of(TopologyShape::torus2d, 16);  // 4 x 4
  const Topology uniform(spec);
  CHECK(uniform.route(0, 1) == std::vector<int>{0, 1});
  spec.link_overrides = {{0, 1, 1e-3, -1.0}};
  const Topology overridden(spec);
  // 0 -> 1 now goes the other way round the row (0, 3, 2, 1) or through the next row: 3 hops.
  CHECK(overridden.route(0, 1).size() == 4);
  CHECK(overridden.route_latency_s(0, 1) == doctest::Approx(3e-6));
  CHECK(overridden.route_latency_s(0, 4) == doctest::Approx(1e-6));
}

TEST_CASE("a fully connected network with one slow direct link takes a two-hop route instead") {
  TopologySpec spec = spec_of(TopologyShape::fully_connected, 5);
  spec.link_overrides = {{1, 3, 1e-3, -1.0}};
  const Topology topology(spec);
  CHECK(topology.shape() == TopologyShape::fully_connected);
  CHECK(topology.link_count() == 10);
  CHECK(topology.route(1, 3) == std::vector<int>{1, 0, 3});
  CHECK(topology.route(2, 4) == std::vector<int>{2, 4});
  CHECK(topology.links()[5].latency_s == 1e-3);  // pairs in order: (0,1) .. (0,4), (1,2), (1,3)
}

TEST_CASE(
    "an override that names no link, a vertex outside the network or a link twice is refused") {
  TopologySpec spec = spec_of(TopologyShape::star, 4);
  spec.link_overrides = {{0, 1, -1.0, 1e8}};
  auto problem = find_override_problem(spec);
  REQUIRE(problem);
  CHECK(problem->index == 0);
  CHECK(problem->message ==
        "no link joins vertices 0 and 1 in this star (expected the two ends of one of its links)");
  spec.link_overrides = {{0, 4, -1.0, 1e8}, {2, 9, 1e-3, -1.0}};
  problem = find_override_problem(spec);
  REQUIRE(problem);
  CHECK(problem->index == 1);
  CHECK(problem->field == "b");
  spec.link_overrides = {{0, 4, -1.0, 1e8}, {4, 0, 1e-3, -1.0}};
  CHECK(find_override_problem(spec)->message ==
        "the link 4-0 is overridden twice (expected one override per link)");
  spec.link_overrides = {{0, 4, -1.0, 1e8}};
  CHECK_FALSE(find_override_problem(spec));
  CHECK(validate_topology(spec).empty());
}
