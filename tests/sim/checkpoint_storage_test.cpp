// Shared checkpoint storage: every node's write crosses the server's link, and under the flow model
// the writes share it; the server hangs off a compute node or a switch.
#include "sim/checkpoint_storage.hpp"

#include <doctest/doctest.h>

#include "sim/topology.hpp"

using namespace codesim::sim;

namespace {
Topology star(int nodes, NetworkModel model) {
  TopologySpec spec;
  spec.model = model;
  spec.shape = TopologyShape::star;
  spec.nodes = nodes;
  spec.latency_s = 1e-6;
  spec.bandwidth_Bps = 1e9;
  return Topology(spec);
}

/// 1 us, 1e9 B/s leaf links; links into level l have 1e9 * 2^(l-1) B/s.
Topology fat_tree(int nodes, int arity, NetworkModel model) {
  TopologySpec spec;
  spec.model = model;
  spec.shape = TopologyShape::fat_tree;
  spec.fat_tree_arity = arity;
  spec.nodes = nodes;
  spec.latency_s = 1e-6;
  spec.bandwidth_Bps = 1e9;
  return Topology(spec);
}

StorageSpec server_on_node(int node) {
  StorageSpec storage;
  storage.kind = StorageKind::shared;
  storage.attach_vertex = node;
  storage.latency_s = 1e-5;
  storage.bandwidth_Bps = 5e8;
  return storage;
}

StorageSpec server_on_switch(int vertex, double bandwidth_Bps) {
  StorageSpec storage = server_on_node(vertex);
  storage.attach_to_switch = true;
  storage.bandwidth_Bps = bandwidth_Bps;
  return storage;
}
}  // namespace

TEST_CASE("a global checkpoint's writes share the storage server's link under the flow model") {
  // Four nodes write 1e6 bytes each to a server hanging off node 0 by a 5e8 B/s link: all four
  // flows cross it, so it moves 4e6 bytes at 5e8 B/s after the longest route latency (two star
  // links and the server link).
  const StorageSpec storage = server_on_node(0);
  const Topology flow = star(4, NetworkModel::flow);
  CHECK(storage_transfer_time_s(flow, storage, 4, 1e6, true) ==
        doctest::Approx(2e-6 + 1e-5 + 4e6 / 5e8));
  // Reads go the other way and share the same link's other direction.
  CHECK(storage_transfer_time_s(flow, storage, 4, 1e6, false) ==
        doctest::Approx(2e-6 + 1e-5 + 4e6 / 5e8));
  // Without contention each write is alone: the slowest one.
  const Topology analytic = star(4, NetworkModel::analytic);
  CHECK(storage_transfer_time_s(analytic, storage, 4, 1e6, true) ==
        doctest::Approx(2e-6 + 1e-5 + 1e6 / 5e8));
}

TEST_CASE("a checkpoint to a server at a 2-ary fat tree's root is limited by the server link") {
  // 8 nodes: level 1 switches 8..11 (1e9 B/s links from the nodes), level 2 switches 12, 13
  // (2e9 B/s links), root 14 (4e9 B/s links). Every node's route to the root climbs three links
  // and each level's links give every flow 1e9 B/s, but the 2e9 B/s server link carries all eight
  // flows: 8 x 1e6 B / 2e9 B/s after the route latency, three links and the server's.
  const Topology tree = fat_tree(8, 2, NetworkModel::flow);
  REQUIRE(tree.vertex_count() == 15);
  const StorageSpec root = server_on_switch(14, 2e9);
  const double expected_s = 3e-6 + 1e-5 + 8 * 1e6 / 2e9;  // 0.004013 s
  CHECK(storage_transfer_time_s(tree, root, 8, 1e6, true) == doctest::Approx(expected_s));
  CHECK(storage_transfer_time_s(tree, root, 8, 1e6, false) == doctest::Approx(expected_s));
  // Alone, a transfer moves at its leaf link's 1e9 B/s.
  const Topology analytic = fat_tree(8, 2, NetworkModel::analytic);
  CHECK(storage_transfer_time_s(analytic, root, 8, 1e6, true) ==
        doctest::Approx(3e-6 + 1e-5 + 1e6 / 1e9));
}

TEST_CASE("a checkpoint to a server at a 4-ary fat tree's root is limited by the root's links") {
  // 8 nodes: level 1 switches 8 (nodes 0-3) and 9 (nodes 4-7), root 10. Each 2e9 B/s link into
  // the root carries the four flows of its switch's nodes, 5e8 B/s each; the 1e10 B/s server link
  // would give each of the eight 1.25e9 B/s, and the leaf links 1e9 B/s.
  const Topology tree = fat_tree(8, 4, NetworkModel::flow);
  REQUIRE(tree.vertex_count() == 11);
  const StorageSpec root = server_on_switch(10, 1e10);
  const double expected_s = 2e-6 + 1e-5 + 4 * 1e6 / 2e9;  // 0.002012 s
  CHECK(storage_transfer_time_s(tree, root, 8, 1e6, true) == doctest::Approx(expected_s));
  CHECK(storage_transfer_time_s(tree, root, 8, 1e6, false) == doctest::Approx(expected_s));
}

TEST_CASE("a server at a star's switch is one hop from every node, and the place is remembered") {
  // Four nodes, one star link each to switch 4, then the 5e8 B/s server link shared by four.
  const Topology flow = star(4, NetworkModel::flow);
  const StorageSpec on_switch = server_on_switch(4, 5e8);
  CHECK(storage_transfer_time_s(flow, on_switch, 4, 1e6, true) ==
        doctest::Approx(1e-6 + 1e-5 + 4e6 / 5e8));
  // The same spec at node 0 on the same topology is another result (the memo key has the place):
  // the other nodes' routes cross two star links.
  CHECK(storage_transfer_time_s(flow, server_on_node(0), 4, 1e6, true) ==
        doctest::Approx(2e-6 + 1e-5 + 4e6 / 5e8));
  CHECK(storage_transfer_time_s(flow, on_switch, 4, 1e6, true) ==
        doctest::Approx(1e-6 + 1e-5 + 4e6 / 5e8));
}

TEST_CASE("a route to the server is the topology's route to its place, then the server link") {
  const Topology tree = fat_tree(8, 2, NetworkModel::flow);
  const StorageSpec root = server_on_switch(14, 2e9);
  const auto write = storage_route_links(tree, root, 5, true);
  const auto climb = tree.route_links(5, 14);
  REQUIRE(write.size() == climb.size() + 1);
  for (std::size_t h = 0; h < climb.size(); ++h) CHECK(write[h].id == climb[h].id);
  CHECK(write.back().id == 2 * static_cast<std::uint64_t>(tree.link_count()));
  const auto read = storage_route_links(tree, root, 5, false);
  REQUIRE(read.size() == write.size());
  CHECK(read.front().id == 2 * static_cast<std::uint64_t>(tree.link_count()) + 1);
  CHECK(read.back().id == tree.route_links(14, 5).back().id);
}

TEST_CASE("local storage moves nothing and a server must hang off an existing node or switch") {
  const Topology four = star(4, NetworkModel::flow);
  CHECK(storage_transfer_time_s(four, StorageSpec{}, 4, 1e6, true) == 0.0);
  CHECK(validate_storage(StorageSpec{}, four).empty());
  CHECK(validate_storage(server_on_node(3), four).empty());
  CHECK(validate_storage(server_on_node(4), four) ==
        "4 is not a compute node's id (expected a node id in 0..3)");
  CHECK(validate_storage(server_on_switch(4, 1e9), four).empty());
  CHECK(validate_storage(server_on_switch(5, 1e9), four) ==
        "5 is not a vertex of this star (expected its only switch, 4)");
  const Topology tree = fat_tree(8, 2, NetworkModel::flow);
  CHECK(validate_storage(server_on_switch(8, 1e9), tree).empty());
  CHECK(validate_storage(server_on_switch(3, 1e9), tree) ==
        "3 is a compute node's id, not a switch's (expected a switch id in 8..14, the root being "
        "14)");
  CHECK(validate_storage(server_on_switch(-1, 1e9), tree) ==
        "-1 is not a vertex of this fat_tree (expected a switch id in 8..14, the root being 14)");
  TopologySpec ring;
  ring.shape = TopologyShape::ring;
  ring.nodes = 4;
  CHECK(validate_storage(server_on_switch(3, 1e9), Topology(ring)) ==
        "topology ring has no switches (expected a topology with switches: star, fat_tree, "
        "leaf_spine, k_ary_fat_tree or an edge_list with switches; or attach_node for a "
        "compute node)");
}
