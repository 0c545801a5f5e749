// Edge lists with named switches: switches route traffic like the standard shapes' switches, run
// no tasks, can hold a storage server, and must be linked into the network.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "sim/checkpoint_storage.hpp"
#include "sim/topology.hpp"
#include "sim/transfer_schedule.hpp"

using namespace codesim::sim;

namespace {

// `nodes` hosts on one switch (vertex `nodes`), written out as an edge list.
TopologySpec star_as_edge_list(int nodes) {
  TopologySpec spec;
  spec.shape = TopologyShape::edge_list;
  spec.nodes = nodes;
  spec.switches = {"crossbar"};
  for (int i = 0; i < nodes; ++i) spec.edges.push_back({i, nodes});
  return spec;
}

// Two racks of 4 hosts (top-of-rack switches 8 and 9) joined by two core switches (10, 11): the
// first core is nearer (1 us links), the second slower to reach but a second path.
TopologySpec two_racks() {
  TopologySpec spec;
  spec.shape = TopologyShape::edge_list;
  spec.nodes = 8;
  spec.switches = {"tor0", "tor1", "core0", "core1"};
  for (int i = 0; i < 8; ++i) spec.edges.push_back({i, 8 + i / 4});
  for (int tor : {8, 9}) {
    spec.edges.push_back({tor, 10, 1e-6, 2e9});
    spec.edges.push_back({tor, 11, 5e-6, 2e9});
  }
  return spec;
}

}  // namespace

TEST_CASE("a star written as an edge list with one switch routes and times as the star does") {
  TopologySpec star;
  star.shape = TopologyShape::star;
  star.nodes = 16;
  const Topology shape(star);
  const Topology listed(star_as_edge_list(16));
  CHECK(listed.vertex_count() == 17);
  CHECK(listed.node_count() == 16);
  TransferSchedule incast;
  for (int i = 1; i < 16; ++i) incast.add(i, 0, 1e6);
  for (int src = 0; src < 16; ++src)
    for (int dst = 0; dst < 16; ++dst) {
      CHECK(listed.route(src, dst) == shape.route(src, dst));
      CHECK(listed.route_latency_s(src, dst) == shape.route_latency_s(src, dst));
    }
  CHECK(run_schedule(listed, incast).makespan_s == run_schedule(shape, incast).makespan_s);
}

TEST_CASE("traffic between racks crosses the nearer core switch, and shares its links") {
  const Topology topology(two_racks());
  CHECK(topology.route(0, 5) == std::vector<int>{0, 8, 10, 9, 5});
  CHECK(topology.route(0, 1) == std::vector<int>{0, 8, 1});
  CHECK(topology.route_latency_s(0, 5) == doctest::Approx(4e-6));
  // Four flows rack to rack share tor0's 2 GB/s uplink: 0.5 GB/s each.
  TransferSchedule across;
  for (int i = 0; i < 4; ++i) across.add(i, 4 + i, 1e6);
  CHECK(run_schedule(topology, across).makespan_s == doctest::Approx(4e-6 + 1e6 / 5e8));
}

TEST_CASE("a storage server can hang off an edge list's switch") {
  const Topology topology(two_racks());
  StorageSpec storage;
  storage.kind = StorageKind::shared;
  storage.attach_to_switch = true;
  storage.attach_vertex = 11;  // core1
  storage.bandwidth_Bps = 1e10;
  CHECK(validate_storage(storage, topology).empty());
  // Node 6 -> tor1 -> core1 -> server, and back the same links the other way.
  const std::vector<RouteLink> write = storage_route_links(topology, storage, 6, true);
  const std::vector<RouteLink> read = storage_route_links(topology, storage, 6, false);
  REQUIRE(write.size() == 3);
  REQUIRE(read.size() == 3);
  CHECK(write[1].latency_s == 5e-6);
  CHECK(write[0].id / 2 == read[2].id / 2);
  CHECK(write[0].id % 2 != read[2].id % 2);
  CHECK(storage_transfer_time_s(topology, storage, 8, 1e6, true) > 0.0);
}

TEST_CASE("an edge list's switches must be linked, named once, and its links must name them") {
  CHECK(validate_topology(two_racks()).empty());
  TopologySpec loose = two_racks();
  loose.switches.push_back("spare");
  CHECK(validate_topology(loose).find("does not connect all switches (switch 4") !=
        std::string::npos);
  TopologySpec twice = two_racks();
  twice.switches[3] = "tor0";
  CHECK(validate_topology(twice).find("\"tor0\" is given twice") != std::string::npos);
  TopologySpec beyond = two_racks();
  beyond.edges.push_back({0, 12});
  CHECK(validate_topology(beyond).find("needs vertex ids in 0..11") != std::string::npos);
  TopologySpec ring;
  ring.shape = TopologyShape::ring;
  ring.nodes = 4;
  ring.switches = {"s"};
  CHECK(validate_topology(ring).find("only used by shape edge_list") != std::string::npos);
}
