// The multi-rooted k-ary fat tree (Al-Fares et al., SIGCOMM 2008): its pods, tiers and links,
// ECMP routes that are shortest, spread over every core switch and repeat exactly, and the full
// bisection bandwidth that sets it apart from the single-rooted fat_tree.
#include <doctest/doctest.h>

#include <algorithm>
#include <queue>
#include <set>
#include <tuple>
#include <vector>

#include "sim/clos_routes.hpp"
#include "sim/topology.hpp"
#include "sim/transfer_schedule.hpp"

using namespace codesim::sim;

namespace {

TopologySpec fat_tree_of(int nodes, int ports) {
  TopologySpec spec;
  spec.shape = TopologyShape::k_ary_fat_tree;
  spec.nodes = nodes;
  spec.fat_tree_ports = ports;
  spec.latency_s = 1e-6;
  spec.bandwidth_Bps = 1e9;
  return spec;
}

// Hops of the shortest path between two vertices (breadth-first over the links).
int fewest_hops(const std::vector<TopologyLink>& links, int vertices, int src, int dst) {
  std::vector<std::vector<int>> next(static_cast<std::size_t>(vertices));
  for (const TopologyLink& link : links) {
    next[link.a].push_back(link.b);
    next[link.b].push_back(link.a);
  }
  std::vector<int> hops(static_cast<std::size_t>(vertices), -1);
  std::queue<int> open;
  hops[src] = 0;
  open.push(src);
  while (!open.empty()) {
    const int v = open.front();
    open.pop();
    for (int w : next[v])
      if (hops[w] < 0) {
        hops[w] = hops[v] + 1;
        open.push(w);
      }
  }
  return hops[dst];
}

}  // namespace

TEST_CASE("a fat tree of 4-port switches has 4 pods, 20 switches and 48 links for 16 hosts") {
  const Topology topology(fat_tree_of(16, 4));
  CHECK(topology.vertex_count() == 16 + 8 + 8 + 4);
  CHECK(topology.link_count() == 16 + 4 * 2 * 2 + 4 * 4);
  // Every switch uses all 4 of its ports; every host 1.
  std::vector<int> degree(36, 0);
  for (const TopologyLink& link : topology.links()) {
    ++degree[link.a];
    ++degree[link.b];
    CHECK(link.bandwidth_Bps == 1e9);
  }
  for (int v = 0; v < 16; ++v) CHECK(degree[v] == 1);
  for (int v = 16; v < 32; ++v) CHECK(degree[v] == 4);
  for (int v = 32; v < 36; ++v) CHECK(degree[v] == 4);  // core: one link per pod
  // Hosts 0 and 1 share edge switch 16; 0 and 2 a pod; 0 and 4 only the core.
  CHECK(topology.route(0, 1) == std::vector<int>{0, 16, 1});
  CHECK(topology.route(0, 2).size() == 5);
  const std::vector<int> across = topology.route(0, 4);
  REQUIRE(across.size() == 7);
  CHECK(across[3] >= 32);
  CHECK(topology.route_latency_s(0, 4) == doctest::Approx(6e-6));
}

TEST_CASE("every fat-tree route is a shortest path of links that exist") {
  const Topology topology(fat_tree_of(54, 6));
  const std::vector<TopologyLink> links = topology.links();
  std::set<std::pair<int, int>> linked;
  for (const TopologyLink& link : links) linked.insert({link.a, link.b});
  for (int src = 0; src < 54; ++src) {
    for (int dst = 0; dst < 54; ++dst) {
      const std::vector<int> route = topology.route(src, dst);
      REQUIRE(route.front() == src);
      REQUIRE(route.back() == dst);
      for (std::size_t h = 0; h + 1 < route.size(); ++h)
        CHECK(linked.count(std::minmax(route[h], route[h + 1])) == 1);
      CHECK(static_cast<int>(route.size()) - 1 ==
            fewest_hops(links, topology.vertex_count(), src, dst));
      CHECK(topology.route_links(src, dst).size() == route.size() - 1);
    }
  }
}

TEST_CASE("ECMP spreads the flows between pods over every core switch, the same way every time") {
  const TopologySpec spec = fat_tree_of(128, 8);  // 8 pods of 16 hosts, 16 core switches
  const Topology a(spec);
  const Topology b(spec);
  std::vector<int> per_core(16, 0);
  for (int src = 0; src < 128; ++src)
    for (int dst = 0; dst < 128; ++dst) {
      if (src / 16 == dst / 16) continue;
      const std::vector<int> route = a.route(src, dst);
      CHECK(route == b.route(src, dst));
      ++per_core[static_cast<std::size_t>(route[3] - (128 + 64))];
    }
  // 14,336 flows: each core switch within 10% of a sixteenth.
  for (int count : per_core) CHECK(count == doctest::Approx(896).epsilon(0.1));
}

TEST_CASE("a fat tree's pods exchange at full bisection, where a single-rooted tree cannot") {
  // Every host of pod 0 sends to its partner in pod 1 (16 hosts of a k = 8 tree, 1 MB each).
  TransferSchedule across;
  for (int i = 0; i < 16; ++i) across.add(i, 16 + i, 1e6);
  const double lone_s = 6e-6 + 1e6 / 1e9;
  const double clos_s = run_schedule(Topology(fat_tree_of(128, 8)), across).makespan_s;
  // ECMP hashes collide on some uplinks (as in datacenters): slower than alone, but within the
  // 4 flows per link a few collisions make; the single-rooted 4-ary tree's root links carry 16.
  CHECK(clos_s >= lone_s);
  CHECK(clos_s <= 4.0 * lone_s);
  TopologySpec single;
  single.shape = TopologyShape::fat_tree;
  single.nodes = 128;
  single.latency_s = 1e-6;
  single.bandwidth_Bps = 1e9;
  CHECK(run_schedule(Topology(single), across).makespan_s > clos_s);
}

TEST_CASE("the ports default to the least even k that holds the nodes") {
  CHECK(fat_tree_ports_to_fit(1) == 2);
  CHECK(fat_tree_ports_to_fit(2) == 2);
  CHECK(fat_tree_ports_to_fit(3) == 4);
  CHECK(fat_tree_ports_to_fit(16) == 4);
  CHECK(fat_tree_ports_to_fit(17) == 6);
  CHECK(fat_tree_ports_to_fit(27648) == 48);
  const Topology fitted(fat_tree_of(100, 0));  // k = 8: 128 host places, 80 switches
  CHECK(fitted.vertex_count() == 100 + 80);
}

TEST_CASE("a fat tree too small for its nodes, or of odd ports, is refused") {
  CHECK(validate_topology(fat_tree_of(16, 4)).empty());
  CHECK(validate_topology(fat_tree_of(17, 4)).find("holds 16 hosts, not the 17 nodes") !=
        std::string::npos);
  CHECK(validate_topology(fat_tree_of(8, 3)).find("even") != std::string::npos);
  CHECK(validate_topology(fat_tree_of(8, -2)).find("even") != std::string::npos);
  // Beyond 160 ports the fabric alone would take gigabytes: refused, given or fitted.
  CHECK(validate_topology(fat_tree_of(8, 162)).find("2..160") != std::string::npos);
  CHECK(validate_topology(fat_tree_of(1'024'000, 0)).empty());
  CHECK(validate_topology(fat_tree_of(1'024'001, 0)).find("1024001 nodes need 162") !=
        std::string::npos);
}

TEST_CASE("a storage server on a core or spine switch is reached along a shortest path") {
  const Topology tree(fat_tree_of(16, 4));
  TopologySpec leaf_spine;
  leaf_spine.shape = TopologyShape::leaf_spine;
  leaf_spine.nodes = 8;
  leaf_spine.hosts_per_leaf = 4;
  leaf_spine.spines = 2;
  const Topology clos(leaf_spine);
  // Core switch 35 of the tree (4 hops from every node), spine 11 of the leaf-spine (2 hops).
  for (const auto& [topology, server, hops] :
       {std::tuple{&tree, 35, std::size_t{3}}, std::tuple{&clos, 11, std::size_t{2}}}) {
    for (int node = 0; node < topology->node_count(); ++node) {
      const std::vector<RouteLink> up = topology->route_links(node, server);
      const std::vector<RouteLink> down = topology->route_links(server, node);
      REQUIRE(up.size() == hops);
      REQUIRE(down.size() == hops);
      CHECK(up.front().id / 2 == down.back().id / 2);  // the node's own link, both ways
      CHECK(topology->route(node, node).size() == 1);
    }
  }
}
