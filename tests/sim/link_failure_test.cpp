// Link failures: routes go around a link that is down and come back with it (a node no path
// reaches keeps its intact route), a link whose loss cuts nodes off from the main part of the
// network takes them down (as crashes) until it is repaired, and link failures that never happen
// change nothing.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <tuple>
#include <utility>
#include <vector>

#include "sim/crash_process.hpp"
#include "sim/shortest_paths.hpp"
#include "sim/topology.hpp"
#include "tests/sim/crash_test_support.hpp"

using namespace codesim::sim;
using codesim::sim::testing::make_nodes;

namespace {

int link_between(const Topology& topology, int a, int b) {
  const std::vector<TopologyLink> links = topology.links();
  for (std::size_t i = 0; i < links.size(); ++i)
    if (links[i].a == std::min(a, b) && links[i].b == std::max(a, b)) return static_cast<int>(i);
  FAIL("no such link");
  return -1;
}

TopologySpec shape(TopologyShape s, int nodes, int arity = 4) {
  TopologySpec spec;
  spec.shape = s;
  spec.nodes = nodes;
  spec.latency_s = 1e-6;
  spec.fat_tree_arity = arity;
  return spec;
}

}  // namespace

TEST_CASE("a link failure on a ring reroutes the other way and the route comes back after repair") {
  Topology ring(shape(TopologyShape::ring, 6));
  CHECK(ring.route(0, 1) == std::vector<int>{0, 1});
  const int link = link_between(ring, 0, 1);
  ring.set_link_up(link, false);
  CHECK_FALSE(ring.link_up(link));
  CHECK(ring.links_down() == 1);
  CHECK(ring.route(0, 1) == std::vector<int>{0, 5, 4, 3, 2, 1});
  CHECK(ring.route_latency_s(0, 1) == doctest::Approx(5e-6));
  CHECK(ring.transfer_time_s(0, 1, 1.25e3) == doctest::Approx(5e-6 + 1e-6));
  for (const RouteLink& hop : ring.route_links(0, 1)) CHECK(hop.id / 2 != std::uint64_t(link));
  CHECK(ring.route_links(0, 1).size() == 5);
  // The way back is the reversed route, over the same links in the other direction.
  CHECK(ring.route(1, 0) == std::vector<int>{1, 2, 3, 4, 5, 0});
  // Nobody is cut off by one failed link of a ring.
  CHECK(ring.cut_off_nodes() == std::vector<char>(6, 0));
  ring.set_link_up(link, true);
  CHECK(ring.links_down() == 0);
  CHECK(ring.route(0, 1) == std::vector<int>{0, 1});
  CHECK(ring.route_latency_s(0, 1) == doctest::Approx(1e-6));
  REQUIRE(ring.route_links(0, 1).size() == 1);
  CHECK(ring.route_links(0, 1)[0].id == 2 * std::uint64_t(link));
}

TEST_CASE("rerouted routes are the shortest over the surviving links, on every shape") {
  for (const TopologyShape s : {TopologyShape::fully_connected, TopologyShape::torus2d}) {
    CAPTURE(to_string(s));
    Topology topology(shape(s, 9));
    const Topology intact(shape(s, 9));
    topology.set_link_up(link_between(topology, 0, 1), false);
    CHECK(topology.route(0, 1).size() == 3);  // two hops around the link
    CHECK(topology.route_latency_s(0, 1) == doctest::Approx(2e-6));
    // Routes that did not use the link keep their cost.
    CHECK(topology.route_latency_s(3, 5) == intact.route_latency_s(3, 5));
    CHECK(topology.route_latency_s(2, 7) == intact.route_latency_s(2, 7));
  }
}

TEST_CASE("a fat-tree leaf link failure cuts its node off, an uplink its whole subtree") {
  // 8 nodes, arity 4: leaf switches 8 (nodes 0-3) and 9 (nodes 4-7), root 10.
  Topology tree(shape(TopologyShape::fat_tree, 8));
  const int leaf = link_between(tree, 5, 9);
  tree.set_link_up(leaf, false);
  std::vector<char> expected(8, 0);
  expected[5] = 1;
  CHECK(tree.cut_off_nodes() == expected);
  CHECK(tree.route(4, 6) == std::vector<int>{4, 9, 6});
  // No surviving path reaches node 5: its route stays that of the intact network.
  CHECK(tree.route(4, 5) == std::vector<int>{4, 9, 5});
  CHECK(tree.route_links(5, 9).size() == 1);
  tree.set_link_up(leaf, true);
  CHECK(tree.cut_off_nodes() == std::vector<char>(8, 0));
  CHECK(tree.route(4, 5) == std::vector<int>{4, 9, 5});
  // Both halves then hold 4 nodes: the one with node 0 is the main part.
  tree.set_link_up(link_between(tree, 8, 10), false);
  CHECK(tree.cut_off_nodes() == std::vector<char>{0, 0, 0, 0, 1, 1, 1, 1});
  tree.set_link_up(link_between(tree, 1, 8), false);  // node 1 alone: 3 against 4
  CHECK(tree.cut_off_nodes() == std::vector<char>{1, 1, 1, 1, 0, 0, 0, 0});
}

TEST_CASE("a cut-off node goes down at its link's failure and up at the link's repair") {
  Engine engine;
  std::vector<Node> nodes = make_nodes(8);
  Topology tree(shape(TopologyShape::fat_tree, 8));
  SharedFailures shared;
  shared.links = LinkFailureSpec{ExponentialLaw{200.0}, FixedLaw{7.0}};
  CrashProcess process(engine, nodes, std::vector<CrashSpec>(8), 3, 0, shared, &tree);
  using Event = std::tuple<double, int, bool>;  // time, node or link, up
  std::vector<Event> link_events;
  std::vector<Event> node_events;
  int checks = 0;
  process.on_link([&](int link, bool up) {
    link_events.emplace_back(engine.now(), link, up);
    // Once the process has taken down or brought back whom the link cuts off or reconnects, the
    // nodes down are exactly those cut off.
    engine.schedule_in(0.0, [&] {
      const std::vector<char> cut_off = tree.cut_off_nodes();
      for (int i = 0; i < 8; ++i) CHECK(nodes[i].is_up() == !cut_off[i]);
      ++checks;
    });
  });
  process.on_crash([&](int id, bool) { node_events.emplace_back(engine.now(), id, false); });
  process.on_repair([&](int id) { node_events.emplace_back(engine.now(), id, true); });
  process.start();
  engine.run_until(3000.0);
  CHECK(checks == static_cast<int>(link_events.size()));
  CHECK(process.crashes() > 0);
  // Each leaf link failing while every other link is up downs its node at that instant, and the
  // node is back at the instant the link is.
  const std::vector<TopologyLink> links = tree.links();
  int isolated = 0;
  int down = 0;
  for (std::size_t e = 0; e < link_events.size(); ++e) {
    const auto [t, link, up] = link_events[e];
    down += up ? -1 : 1;
    const int node = std::min(links[link].a, links[link].b);
    if (up || down != 1 || node >= 8 || e + 1 == link_events.size()) continue;
    const auto [back_s, back_link, back_up] = link_events[e + 1];
    if (back_link != link) continue;  // another link failed meanwhile
    ++isolated;
    CHECK(std::count(node_events.begin(), node_events.end(), Event{t, node, false}) == 1);
    CHECK(std::count(node_events.begin(), node_events.end(), Event{back_s, node, true}) == 1);
    CHECK(back_s == doctest::Approx(t + 7.0));
  }
  CHECK(isolated > 0);
}

TEST_CASE("link failures that never happen take no node down and draw nothing") {
  Engine engine;
  std::vector<Node> nodes = make_nodes(4);
  Topology ring(shape(TopologyShape::ring, 4));
  SharedFailures shared;
  shared.links = LinkFailureSpec{ExponentialLaw{}, FixedLaw{1.0}};
  CrashProcess process(engine, nodes, std::vector<CrashSpec>(4), 3, 0, shared, &ring);
  process.start();
  CHECK(engine.empty());
  CHECK(ring.links_down() == 0);
}

namespace {

// Every node pair of `topology` (links down) against Dijkstra over its surviving links, the
// rule the routes followed before only the routes crossing a failed link were recomputed: the
// same vertices, links, latency and bandwidth, bit for bit.
void check_against_dijkstra(const Topology& topology, const Topology& intact) {
  using codesim::sim::detail::Graph;
  const std::vector<TopologyLink> links = topology.links();
  Graph surviving(static_cast<std::size_t>(topology.vertex_count()));
  for (std::size_t i = 0; i < links.size(); ++i)
    if (topology.link_up(static_cast<int>(i)))
      boost::add_edge(links[i].a, links[i].b,
                      codesim::sim::detail::Link{links[i].latency_s, links[i].bandwidth_Bps},
                      surviving);
  for (int src = 0; src < topology.node_count(); ++src) {
    const auto tree = codesim::sim::detail::shortest_path_tree(surviving, src);
    for (int dst = 0; dst < topology.node_count(); ++dst) {
      if (src == dst) continue;
      CAPTURE(src);
      CAPTURE(dst);
      if (tree.pred[dst] == -1) {  // cut off: the intact route
        CHECK(topology.route(src, dst) == intact.route(src, dst));
        continue;
      }
      std::vector<int> path;
      for (int v = dst; v != src; v = tree.pred[v]) path.push_back(v);
      path.push_back(src);
      std::reverse(path.begin(), path.end());
      CHECK(topology.route(src, dst) == path);
      CHECK(topology.route_latency_s(src, dst) == tree.latency_s[dst]);
      CHECK(topology.route_bandwidth_Bps(src, dst) == tree.bandwidth_Bps[dst]);
      const std::vector<RouteLink> hops = topology.route_links(src, dst);
      REQUIRE(hops.size() + 1 == path.size());
      for (std::size_t h = 0; h < hops.size(); ++h) {
        const TopologyLink& link = links[hops[h].id / 2];
        CHECK(std::min(path[h], path[h + 1]) == link.a);
        CHECK(std::max(path[h], path[h + 1]) == link.b);
        CHECK(topology.link_up(static_cast<int>(hops[h].id / 2)));
      }
    }
  }
}

}  // namespace

TEST_CASE("only the routes that crossed a failed link change, to Dijkstra's over the rest") {
  // Latencies that are not all alike, so that sums and ties are exercised: an edge list with
  // mixed links, and the regular shapes.
  TopologySpec mixed = shape(TopologyShape::edge_list, 8);
  for (int a = 0; a < 8; ++a) {
    mixed.edges.push_back({a, (a + 1) % 8, 1e-6 * (1 + a % 3), 1e9 * (1 + a % 2)});
    mixed.edges.push_back({a, (a + 3) % 8, 2.5e-6, 2e9});
  }
  std::vector<TopologySpec> specs = {shape(TopologyShape::fully_connected, 9),
                                     shape(TopologyShape::ring, 9),
                                     shape(TopologyShape::torus2d, 16),
                                     shape(TopologyShape::fat_tree, 16, 2),
                                     shape(TopologyShape::star, 6),
                                     mixed};
  std::uint64_t state = 12345;
  const auto next = [&state](std::uint64_t bound) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (state >> 33) % bound;
  };
  for (const TopologySpec& spec : specs) {
    CAPTURE(to_string(spec.shape));
    const Topology intact(spec);
    Topology topology(spec);
    const int links = topology.link_count();
    for (int round = 0; round < 6; ++round) {
      // Take one to three links down, bring one back now and then.
      const int changes = 1 + static_cast<int>(next(3));
      for (int c = 0; c < changes; ++c)
        topology.set_link_up(static_cast<int>(next(static_cast<std::uint64_t>(links))), false);
      if (round % 2 == 1)
        topology.set_link_up(static_cast<int>(next(static_cast<std::uint64_t>(links))), true);
      if (topology.links_down() == 0) continue;
      check_against_dijkstra(topology, intact);
    }
  }
}
