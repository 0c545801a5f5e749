// Topology shapes, shortest-latency routes, transfer times, the route cache and spec validation.
#include "sim/topology.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

using codesim::sim::EdgeSpec;
using codesim::sim::Topology;
using codesim::sim::TopologyShape;
using codesim::sim::TopologySpec;
using codesim::sim::validate_topology;
using Route = std::vector<int>;

namespace {
// Links first + i * stride for i = 0..count-1 as a cycle (two positions: one link; one: none).
void add_cycle(std::vector<EdgeSpec>& edges, int first, int count, int stride) {
  for (int i = 0; i + 1 < count; ++i)
    edges.push_back({first + i * stride, first + (i + 1) * stride});
  if (count > 2) edges.push_back({first + (count - 1) * stride, first});
}

// The links of a ring (torus_rows 0) or a torus with torus_rows given, as an edge list, which
// is routed by Dijkstra.
TopologySpec as_edge_list(const TopologySpec& spec) {
  const int rows = spec.shape == TopologyShape::ring ? 1 : spec.torus_rows;
  const int cols = spec.nodes / rows;
  TopologySpec list = spec;
  list.shape = TopologyShape::edge_list;
  list.torus_rows = list.torus_cols = 0;
  for (int r = 0; r < rows; ++r) add_cycle(list.edges, r * cols, cols, 1);
  for (int c = 0; c < cols; ++c) add_cycle(list.edges, c, rows, cols);
  return list;
}

// Exact binary fractions so that latency sums compare exactly.
constexpr double kLatency_s = 0.25;
constexpr double kBandwidth_Bps = 1024.0;

TopologySpec spec_of(TopologyShape shape, int nodes) {
  TopologySpec spec;
  spec.shape = shape;
  spec.nodes = nodes;
  spec.latency_s = kLatency_s;
  spec.bandwidth_Bps = kBandwidth_Bps;
  return spec;
}

bool mentions(const std::string& message, const std::string& part) {
  return message.find(part) != std::string::npos;
}
}  // namespace

TEST_CASE("a fully connected network routes every pair over its direct link") {
  const Topology topology(spec_of(TopologyShape::fully_connected, 6));
  CHECK(topology.node_count() == 6);
  CHECK(topology.vertex_count() == 6);
  CHECK(topology.link_count() == 15);
  CHECK(topology.route(1, 4) == Route{1, 4});
  CHECK(topology.route(4, 1) == Route{4, 1});
  CHECK(topology.route_latency_s(1, 4) == kLatency_s);
  CHECK(topology.route_bandwidth_Bps(1, 4) == kBandwidth_Bps);
}

TEST_CASE("a route from a node to itself is the node alone and costs nothing") {
  for (TopologyShape shape :
       {TopologyShape::fully_connected, TopologyShape::star, TopologyShape::ring,
        TopologyShape::torus2d, TopologyShape::fat_tree}) {
    INFO(to_string(shape));
    const Topology topology(spec_of(shape, 9));
    CHECK(topology.route(3, 3) == Route{3});
    CHECK(topology.route_latency_s(3, 3) == 0.0);
    CHECK(topology.route_bandwidth_Bps(3, 3) == std::numeric_limits<double>::infinity());
    CHECK(topology.transfer_time_s(3, 3, 1e9) == 0.0);
  }
}

TEST_CASE("a star routes through its switch, whose id is the node count") {
  const Topology topology(spec_of(TopologyShape::star, 5));
  CHECK(topology.vertex_count() == 6);
  CHECK(topology.link_count() == 5);
  CHECK(topology.route(0, 4) == Route{0, 5, 4});
  CHECK(topology.route(3, 1) == Route{3, 5, 1});
  CHECK(topology.route_latency_s(0, 4) == 2 * kLatency_s);
  CHECK(topology.route_bandwidth_Bps(0, 4) == kBandwidth_Bps);
}

TEST_CASE("a ring routes the shortest way round and breaks the half-way tie by lower ids") {
  const Topology topology(spec_of(TopologyShape::ring, 8));
  CHECK(topology.vertex_count() == 8);
  CHECK(topology.link_count() == 8);
  CHECK(topology.route(0, 3) == Route{0, 1, 2, 3});
  CHECK(topology.route(0, 6) == Route{0, 7, 6});
  CHECK(topology.route(6, 1) == Route{6, 7, 0, 1});
  CHECK(topology.route(0, 4) == Route{0, 1, 2, 3, 4});
  CHECK(topology.route(4, 0) == Route{4, 3, 2, 1, 0});
  CHECK(topology.route_latency_s(0, 6) == 2 * kLatency_s);
  CHECK(topology.route_latency_s(2, 6) == 4 * kLatency_s);
}

TEST_CASE("rings of one and two nodes have no self loop and no parallel link") {
  CHECK(Topology(spec_of(TopologyShape::ring, 1)).link_count() == 0);
  const Topology two(spec_of(TopologyShape::ring, 2));
  CHECK(two.link_count() == 1);
  CHECK(two.route(1, 0) == Route{1, 0});
}

TEST_CASE("a torus wraps around in both dimensions") {
  TopologySpec spec = spec_of(TopologyShape::torus2d, 12);
  spec.torus_rows = 3;
  spec.torus_cols = 4;
  const Topology topology(spec);
  CHECK(topology.link_count() == 24);
  // Node id = row * cols + col.
  CHECK(topology.route(0, 3) == Route{0, 3});       // along the row, through the wrap link
  CHECK(topology.route(0, 8) == Route{0, 8});       // along the column, through the wrap link
  CHECK(topology.route(0, 11) == Route{0, 3, 11});  // tie between 3 and 8: lower id
  CHECK(topology.route(5, 7) == Route{5, 4, 7});    // tie between 4 and 6: lower id
  CHECK(topology.route_latency_s(0, 10) == 3 * kLatency_s);
}

TEST_CASE("a torus without dimensions takes the most square factorization") {
  CHECK(Topology(spec_of(TopologyShape::torus2d, 12)).link_count() == 24);  // 3 x 4
  CHECK(Topology(spec_of(TopologyShape::torus2d, 16)).link_count() == 32);  // 4 x 4
  const Topology prime(spec_of(TopologyShape::torus2d, 7));                 // 1 x 7: a ring
  CHECK(prime.link_count() == 7);
  CHECK(prime.route(0, 5) == Route{0, 6, 5});
  // In 3 x 4, node 6 is (1, 2): one row and two columns from node 0.
  const Topology auto_dims(spec_of(TopologyShape::torus2d, 12));
  CHECK(auto_dims.route_latency_s(0, 6) == 3 * kLatency_s);
  CHECK(auto_dims.route(0, 6) == Route{0, 1, 2, 6});
  TopologySpec given_rows = spec_of(TopologyShape::torus2d, 12);
  given_rows.torus_rows = 2;  // 2 x 6: the column cycles of two are single links
  const Topology two_by_six(given_rows);
  CHECK(two_by_six.link_count() == 18);
  CHECK(two_by_six.route(0, 9) == Route{0, 1, 2, 3, 9});
}

TEST_CASE("a fat tree climbs to the common ancestor of the two nodes") {
  TopologySpec spec = spec_of(TopologyShape::fat_tree, 16);
  spec.fat_tree_arity = 4;
  const Topology topology(spec);
  // Edge switches 16..19 (nodes 4j..4j+3 under switch 16+j), root 20.
  CHECK(topology.vertex_count() == 21);
  CHECK(topology.link_count() == 20);
  CHECK(topology.route(0, 3) == Route{0, 16, 3});
  CHECK(topology.route(0, 5) == Route{0, 16, 20, 17, 5});
  CHECK(topology.route(15, 4) == Route{15, 19, 20, 17, 4});
  CHECK(topology.route_latency_s(0, 5) == 4 * kLatency_s);
  CHECK(topology.route_bandwidth_Bps(0, 5) == kBandwidth_Bps);  // the leaf links are narrowest
}

TEST_CASE("a fat tree over a node count that is not a power of the arity fills groups in order") {
  TopologySpec spec = spec_of(TopologyShape::fat_tree, 10);
  spec.fat_tree_arity = 4;
  const Topology topology(spec);
  // Level 1: 10 (nodes 0-3), 11 (4-7), 12 (8-9); level 2: root 13.
  CHECK(topology.vertex_count() == 14);
  CHECK(topology.link_count() == 13);
  CHECK(topology.route(8, 9) == Route{8, 12, 9});
  CHECK(topology.route(9, 0) == Route{9, 12, 13, 10, 0});

  TopologySpec binary = spec_of(TopologyShape::fat_tree, 5);
  binary.fat_tree_arity = 2;
  const Topology deep(binary);
  // Level 1: 5 (0,1), 6 (2,3), 7 (4); level 2: 8 (5,6), 9 (7); level 3: root 10.
  CHECK(deep.vertex_count() == 11);
  CHECK(deep.route(4, 0) == Route{4, 7, 9, 10, 8, 5, 0});
  CHECK(deep.route(1, 3) == Route{1, 5, 8, 6, 3});

  TopologySpec single = spec_of(TopologyShape::fat_tree, 1);
  CHECK(Topology(single).vertex_count() == 2);  // always at least one switch
}

TEST_CASE("transfer time is route latency plus bytes over the bottleneck bandwidth") {
  const Topology topology(spec_of(TopologyShape::ring, 8));
  CHECK(topology.transfer_time_s(0, 3, 0.0) == 3 * kLatency_s);
  CHECK(topology.transfer_time_s(0, 3, 2048.0) == doctest::Approx(3 * kLatency_s + 2.0));
  CHECK(topology.transfer_time_s(3, 0, 512.0) == doctest::Approx(3 * kLatency_s + 0.5));
}

TEST_CASE("an edge list uses per-edge overrides and prefers lower latency over fewer hops") {
  TopologySpec spec = spec_of(TopologyShape::edge_list, 5);
  spec.edges = {
      {0, 1, -1.0, -1.0},   // defaults
      {1, 2, -1.0, 256.0},  // narrow
      {2, 3, -1.0, -1.0},   //
      {0, 3, 1.0, 4096.0},  // direct and wide, but slower than 0-1-2-3
      {3, 4, 0.5, -1.0},    //
      {0, 4, 1.25, -1.0},   // direct, exactly as slow as 0-1-2-3-4
  };
  const Topology topology(spec);
  CHECK(topology.link_count() == 6);
  CHECK(topology.route(0, 3) == Route{0, 1, 2, 3});
  CHECK(topology.route_latency_s(0, 3) == 3 * kLatency_s);
  CHECK(topology.route_bandwidth_Bps(0, 3) == 256.0);
  CHECK(topology.transfer_time_s(0, 3, 512.0) == doctest::Approx(0.75 + 2.0));
  // 0-4 directly is 1.25 s, the same as 0-1-2-3-4; the tie goes to fewer hops.
  CHECK(topology.route(0, 4) == Route{0, 4});
  CHECK(topology.route_latency_s(0, 4) == 1.25);
  CHECK(topology.route_bandwidth_Bps(0, 4) == kBandwidth_Bps);
  CHECK(topology.route(3, 4) == Route{3, 4});
  CHECK(topology.route_latency_s(3, 4) == 0.5);
}

TEST_CASE("an equal-latency tie goes to the lower-id predecessor even if it is settled later") {
  TopologySpec spec = spec_of(TopologyShape::edge_list, 4);
  // 0-2-3 and 0-1-3 both take 1 s in two hops; node 2 is reached first, node 1 has the lower id.
  spec.edges = {{0, 2, 0.25, -1.0}, {2, 3, 0.75, -1.0}, {0, 1, 0.5, -1.0}, {1, 3, 0.5, -1.0}};
  const Topology topology(spec);
  CHECK(topology.route(0, 3) == Route{0, 1, 3});
  CHECK(topology.route_latency_s(0, 3) == 1.0);
}

TEST_CASE("ties are broken at the destination end, so the way back may differ") {
  // Two equal two-hop detours between 0 and 5: 0-4-1-5 (narrow) and 0-2-3-5.
  TopologySpec spec = spec_of(TopologyShape::edge_list, 6);
  spec.edges = {{0, 4}, {4, 1}, {1, 5, -1.0, 64.0}, {0, 2}, {2, 3}, {3, 5}};
  const Topology topology(spec);
  CHECK(topology.route(0, 5) == Route{0, 4, 1, 5});  // predecessor of 5: 1 < 3
  CHECK(topology.route(5, 0) == Route{5, 3, 2, 0});  // predecessor of 0: 2 < 4
  CHECK(topology.route_latency_s(0, 5) == topology.route_latency_s(5, 0));
  CHECK(topology.route_bandwidth_Bps(0, 5) == 64.0);
  CHECK(topology.route_bandwidth_Bps(5, 0) == kBandwidth_Bps);
}

TEST_CASE("a tree-shaped edge list routes along its only path") {
  TopologySpec spec = spec_of(TopologyShape::edge_list, 5);
  spec.edges = {{0, 1, 0.5, 100.0}, {1, 2}, {1, 3}, {3, 4, -1.0, 50.0}};
  const Topology topology(spec);
  CHECK(topology.route(2, 4) == Route{2, 1, 3, 4});
  CHECK(topology.route(4, 0) == Route{4, 3, 1, 0});
  CHECK(topology.route_latency_s(4, 0) == 1.0);
  CHECK(topology.route_bandwidth_Bps(4, 0) == 50.0);
  CHECK(topology.route_bandwidth_Bps(2, 0) == 100.0);
}

TEST_CASE("cached routes give the same answers in any query order") {
  TopologySpec spec = spec_of(TopologyShape::torus2d, 30);
  const Topology first(spec);
  const Topology second(spec);
  std::vector<Route> forward;
  for (int s = 0; s < 30; ++s)
    for (int d = 0; d < 30; ++d) forward.push_back(first.route(s, d));
  for (int s = 29; s >= 0; --s)
    for (int d = 29; d >= 0; --d) {
      CHECK(second.route(s, d) == forward[s * 30 + d]);
      CHECK(first.route(s, d) == forward[s * 30 + d]);
      CHECK(first.route_latency_s(s, d) == second.route_latency_s(s, d));
    }
}

TEST_CASE("routes recomputed after eviction from the cache are identical") {
  // 20000 vertices allow about a hundred cached source trees; query more than that. (Only edge
  // lists use the cache: a generated ring has closed-form routes.)
  const Topology topology(as_edge_list(spec_of(TopologyShape::ring, 20000)));
  const Route first = topology.route(0, 9999);
  const double first_s = topology.route_latency_s(0, 9999);
  for (int s = 1; s <= 150; ++s) CHECK(topology.route(s, s + 2).size() == 3);
  CHECK(topology.route(0, 9999) == first);
  CHECK(topology.route_latency_s(0, 9999) == first_s);
  CHECK(first.size() == 10000);
  CHECK(first_s == 9999 * kLatency_s);
}

TEST_CASE("ring and torus routes equal Dijkstra's on the same links given as an edge list") {
  struct Case {
    TopologyShape shape;
    int nodes;
    int rows;
  };
  const std::vector<Case> cases = {{TopologyShape::ring, 1, 0},     {TopologyShape::ring, 2, 0},
                                   {TopologyShape::ring, 3, 0},     {TopologyShape::ring, 10, 0},
                                   {TopologyShape::ring, 11, 0},    {TopologyShape::torus2d, 4, 2},
                                   {TopologyShape::torus2d, 6, 2},  {TopologyShape::torus2d, 7, 1},
                                   {TopologyShape::torus2d, 30, 5}, {TopologyShape::torus2d, 36, 6},
                                   {TopologyShape::torus2d, 35, 7}};
  // Exact, inexact, zero, denormal and overflowing sums of link latencies.
  for (double latency_s : {0.25, 0.1, 0.0, 5e-324, 1e308}) {
    for (const Case& c : cases) {
      TopologySpec spec = spec_of(c.shape, c.nodes);
      spec.latency_s = latency_s;
      spec.torus_rows = c.rows;
      INFO(to_string(c.shape), " ", c.nodes, " nodes, ", c.rows, " rows, latency ", latency_s);
      const Topology closed(spec);
      const Topology dijkstra(as_edge_list(spec));
      for (int s = 0; s < c.nodes; ++s) {
        for (int d = 0; d < c.nodes; ++d) {
          CHECK(closed.route(s, d) == dijkstra.route(s, d));
          CHECK(closed.route_bandwidth_Bps(s, d) == dijkstra.route_bandwidth_Bps(s, d));
          const double closed_s = closed.route_latency_s(s, d);
          const double dijkstra_s = dijkstra.route_latency_s(s, d);
          CHECK(std::memcmp(&closed_s, &dijkstra_s, sizeof(double)) == 0);
        }
      }
    }
  }
}

TEST_CASE("every node of 20000-node rings and tori reaches its neighbour and antipode") {
  // All-gathers ask for routes from every source: the cache of per-source trees that rings and
  // tori once used held about a hundred of 20000 sources and thrashed, one Dijkstra per query.
  for (TopologyShape shape : {TopologyShape::ring, TopologyShape::torus2d}) {
    INFO(to_string(shape));
    const int n = 20000;
    const Topology topology(spec_of(shape, n));
    double total_s = 0.0;
    for (int i = 0; i < n; ++i) {
      total_s += topology.transfer_time_s(i, (i + 1) % n, 0.0);
      total_s += topology.transfer_time_s(i, (i + n / 2) % n, 0.0);
    }
    CHECK(total_s > 0.0);
    CHECK(topology.route(n / 2, 0).size() > 1);
  }
}

TEST_CASE("route links are the links between consecutive route vertices, with their direction") {
  TopologySpec fat_tree = spec_of(TopologyShape::fat_tree, 37);
  fat_tree.fat_tree_arity = 3;
  TopologySpec tree_list = spec_of(TopologyShape::edge_list, 7);
  tree_list.edges = {{0, 3}, {1, 3}, {2, 3, 1e-6, 2e9}, {3, 4}, {4, 5}, {4, 6}};
  TopologySpec torus = spec_of(TopologyShape::torus2d, 12);
  torus.torus_rows = 3;
  for (const TopologySpec& spec :
       {spec_of(TopologyShape::fully_connected, 6), spec_of(TopologyShape::star, 9),
        spec_of(TopologyShape::ring, 7), torus, fat_tree, tree_list, as_edge_list(torus)}) {
    const Topology topology(spec);
    const auto links = topology.links();
    for (int src = 0; src < spec.nodes; ++src) {
      for (int dst = 0; dst < spec.nodes; ++dst) {
        const Route route = topology.route(src, dst);
        const auto route_links = topology.route_links(src, dst);
        INFO(codesim::sim::to_string(spec.shape) << " " << src << " -> " << dst);
        REQUIRE(route_links.size() + 1 == route.size());
        for (std::size_t h = 0; h < route_links.size(); ++h) {
          const std::uint64_t index = route_links[h].id / 2;
          REQUIRE(index < links.size());
          const auto& link = links[index];
          CHECK(link.a == std::min(route[h], route[h + 1]));
          CHECK(link.b == std::max(route[h], route[h + 1]));
          CHECK(route_links[h].id % 2 == (route[h] < route[h + 1] ? 0u : 1u));
          CHECK(route_links[h].latency_s == link.latency_s);
          CHECK(route_links[h].bandwidth_Bps == link.bandwidth_Bps);
        }
      }
    }
  }
}

TEST_CASE("a route to or from a switch is the part of a route between nodes that reaches it") {
  // 2-ary fat tree of 8 nodes: level 1 switches 8..11, level 2 switches 12 and 13, root 14.
  TopologySpec spec = spec_of(TopologyShape::fat_tree, 8);
  spec.fat_tree_arity = 2;
  const Topology tree(spec);
  REQUIRE(tree.vertex_count() == 15);
  const auto part = [](const std::vector<codesim::sim::RouteLink>& links, std::size_t first,
                       std::size_t count) {
    REQUIRE(first + count <= links.size());
    std::vector<std::uint64_t> ids;
    for (std::size_t h = first; h < first + count; ++h) ids.push_back(links[h].id);
    return ids;
  };
  const auto across = tree.route_links(0, 7);  // 0, 8, 12, 14, 13, 11, 7
  REQUIRE(across.size() == 6);
  const auto up = tree.route_links(0, 14);
  CHECK(up.size() == 3);
  CHECK(part(up, 0, 3) == part(across, 0, 3));
  CHECK(up[2].bandwidth_Bps == 4 * kBandwidth_Bps);  // the link into level 3
  const auto down = tree.route_links(14, 7);
  CHECK(down.size() == 3);
  CHECK(part(down, 0, 3) == part(across, 3, 3));
  const auto from_3 = tree.route_links(3, 4);  // 3, 9, 12, 14, 13, 10, 4
  CHECK(part(tree.route_links(3, 12), 0, 2) == part(from_3, 0, 2));
  CHECK(tree.route_links(14, 14).empty());
  // A star's switch is vertex `nodes`: one hop from every node.
  const Topology star(spec_of(TopologyShape::star, 4));
  CHECK(part(star.route_links(2, 4), 0, 1) == part(star.route_links(2, 0), 0, 1));
  CHECK(part(star.route_links(4, 1), 0, 1) == part(star.route_links(3, 1), 1, 1));
}

TEST_CASE("a moved topology keeps answering routes") {
  Topology original(spec_of(TopologyShape::ring, 6));
  const Route before = original.route(0, 4);
  Topology moved(std::move(original));
  CHECK(moved.route(0, 4) == before);
  Topology assigned(spec_of(TopologyShape::star, 2));
  assigned = std::move(moved);
  CHECK(assigned.route(0, 4) == before);
}

TEST_CASE("a 20000-node star builds and answers routes") {
  const Topology topology(spec_of(TopologyShape::star, 20000));
  CHECK(topology.route(17, 19999) == Route{17, 20000, 19999});
  double total_s = 0.0;
  for (int i = 0; i + 1 < 20000; ++i) total_s += topology.transfer_time_s(i, i + 1, 1024.0);
  CHECK(total_s == doctest::Approx(19999 * (2 * kLatency_s + 1.0)));
}

TEST_CASE("20000-node networks of every generated shape build and route") {
  for (TopologyShape shape : {TopologyShape::fully_connected, TopologyShape::ring,
                              TopologyShape::torus2d, TopologyShape::fat_tree}) {
    INFO(to_string(shape));
    const Topology topology(spec_of(shape, 20000));
    CHECK(topology.route_latency_s(0, 19999) > 0.0);
  }
  const Topology torus(spec_of(TopologyShape::torus2d, 20000));  // 125 x 160
  CHECK(torus.link_count() == 40000);
  CHECK(torus.route(0, 159) == Route{0, 159});
  CHECK(torus.route(0, 124 * 160) == Route{0, 124 * 160});
  CHECK(Topology(spec_of(TopologyShape::fully_connected, 20000)).link_count() == 199990000);
}

TEST_CASE("a valid spec of every shape passes validation") {
  for (TopologyShape shape : {TopologyShape::fully_connected, TopologyShape::star,
                              TopologyShape::ring, TopologyShape::torus2d, TopologyShape::fat_tree})
    CHECK(validate_topology(spec_of(shape, 10)) == "");
  TopologySpec edges = spec_of(TopologyShape::edge_list, 3);
  edges.edges = {{0, 1}, {2, 1}};
  CHECK(validate_topology(edges) == "");
  CHECK(validate_topology(spec_of(TopologyShape::edge_list, 1)) == "");
  CHECK(validate_topology(TopologySpec{}) == "");
}

TEST_CASE("validation rejects bad node counts, latencies, bandwidths and shapes") {
  TopologySpec spec = spec_of(TopologyShape::ring, 0);
  CHECK(mentions(validate_topology(spec), "nodes must be between 1 and"));
  CHECK(mentions(validate_topology(spec), "(got 0)"));

  spec = spec_of(TopologyShape::ring, 4);
  spec.latency_s = -1e-6;
  CHECK(mentions(validate_topology(spec), "latency_s must be finite and >= 0"));
  spec.latency_s = std::numeric_limits<double>::infinity();
  CHECK(mentions(validate_topology(spec), "latency_s must be finite and >= 0 (got inf)"));
  spec.latency_s = std::nan("");
  CHECK(mentions(validate_topology(spec), "latency_s must be finite"));

  spec = spec_of(TopologyShape::ring, 4);
  spec.bandwidth_Bps = 0.0;
  CHECK(validate_topology(spec) == "bandwidth_Bps must be finite and > 0 (got 0)");
  spec.bandwidth_Bps = std::numeric_limits<double>::infinity();
  CHECK(mentions(validate_topology(spec), "bandwidth_Bps must be finite and > 0"));

  CHECK(codesim::sim::parse_topology_shape("mesh") == std::nullopt);
  CHECK(codesim::sim::parse_topology_shape("torus2d") == TopologyShape::torus2d);
  CHECK(to_string(TopologyShape::edge_list) == "edge_list");

  spec = spec_of(TopologyShape::fully_connected, 70000);
  CHECK(mentions(validate_topology(spec), "fully_connected allows at most 65536 nodes"));
}

TEST_CASE("validation rejects a fat tree arity below two") {
  TopologySpec spec = spec_of(TopologyShape::fat_tree, 8);
  spec.fat_tree_arity = 1;
  CHECK(validate_topology(spec) == "fat_tree_arity must be >= 2 (got 1)");
  spec.shape = TopologyShape::ring;  // the arity only matters for fat trees
  CHECK(validate_topology(spec) == "");
}

TEST_CASE("validation rejects torus dimensions that do not match the node count") {
  TopologySpec spec = spec_of(TopologyShape::torus2d, 10);
  spec.torus_rows = 3;
  spec.torus_cols = 4;
  CHECK(validate_topology(spec) ==
        "torus2d needs torus_rows * torus_cols == nodes (got 3 x 4 for 10 nodes)");
  spec.torus_cols = 0;
  CHECK(validate_topology(spec) == "torus2d needs torus_rows to divide nodes (got 3 for 10 nodes)");
  spec.torus_rows = 0;
  spec.torus_cols = 4;
  CHECK(validate_topology(spec) == "torus2d needs torus_cols to divide nodes (got 4 for 10 nodes)");
  spec.torus_rows = -2;
  spec.torus_cols = -5;
  CHECK(mentions(validate_topology(spec), "torus2d needs torus_rows and torus_cols >= 0"));
  spec.torus_rows = 5;
  spec.torus_cols = 0;
  CHECK(validate_topology(spec) == "");
}

TEST_CASE("validation rejects bad edge lists") {
  TopologySpec spec = spec_of(TopologyShape::edge_list, 5);
  spec.edges = {{0, 1}, {1, 2}, {2, 3}, {7, 2}};
  CHECK(validate_topology(spec) == "edge 3 (7-2) needs node ids in 0..4");
  spec.edges = {{0, 1}, {-1, 2}};
  CHECK(validate_topology(spec) == "edge 1 (-1-2) needs node ids in 0..4");
  spec.edges = {{0, 1}, {1, 2}, {3, 3}};
  CHECK(mentions(validate_topology(spec), "edge 2 (3-3) is a self loop"));
  spec.edges = {{0, 1}, {1, 2}, {2, 3}, {3, 4}, {2, 1}};
  CHECK(validate_topology(spec) ==
        "edges 1 and 4 both link nodes 1 and 2; at most one link per pair");
  spec.edges = {{0, 1}, {1, 2, std::numeric_limits<double>::infinity(), -1.0}};
  CHECK(mentions(validate_topology(spec), "edge 1 latency_s must be finite"));
  spec.edges = {{0, 1, -1.0, 0.0}};
  CHECK(mentions(validate_topology(spec), "edge 0 bandwidth_Bps must be finite and > 0"));
  spec.edges = {{0, 1}, {1, 2}, {3, 4}};
  CHECK(validate_topology(spec) ==
        "edge_list does not connect all nodes (node 3 is unreachable from node 0)");
  spec.edges = {};
  CHECK(mentions(validate_topology(spec), "node 1 is unreachable from node 0"));
}

TEST_CASE("validation rejects edges given to a generated shape") {
  TopologySpec spec = spec_of(TopologyShape::ring, 4);
  spec.edges = {{0, 2}};
  CHECK(
      validate_topology(spec) ==
      "edges and switches are only used by shape edge_list (got 1 edges and 0 switches for ring)");
}
