// The links that never limit a flow: found on small routes worked by hand, and dropping them gives
// the full solve's times (within 1e-12) for every collective on every topology up to 2,048 nodes.
#include "sim/route_pruning.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "sim/collective_schedules.hpp"
#include "sim/topology.hpp"
#include "sim/transfer_schedule.hpp"

using namespace codesim::sim;

namespace {

std::vector<char> may_limit(const std::vector<std::vector<std::uint32_t>>& routes,
                            const std::vector<double>& capacity_Bps) {
  LimitingLinks limiting;
  for (const auto& route : routes) limiting.add_route(route);
  return limiting.may_limit(capacity_Bps);
}

}  // namespace

TEST_CASE("on one route of equal links only the last may limit; a slower link keeps its place") {
  CHECK(may_limit({{0, 1, 2}}, {1.0, 1.0, 1.0}) == std::vector<char>{0, 0, 1});
  CHECK(may_limit({{0, 1, 2}}, {3.0, 1.0, 2.0}) == std::vector<char>{0, 1, 0});
  // A faster link after the slow one is dropped by the slow one before it (strictly smaller).
  CHECK(may_limit({{0, 1}}, {1.0, 2.0}) == std::vector<char>{1, 0});
}

TEST_CASE("links where routes meet or part stay, and so do links no route crossed") {
  // Routes 0->1 and 0->2 part after link 0, which carries both flows.
  CHECK(may_limit({{0, 1}, {0, 2}}, {1.0, 1.0, 1.0}) == std::vector<char>{1, 1, 1});
  // Incast: links 0 and 1 feed link 2, which every flow crosses.
  CHECK(may_limit({{0, 2}, {1, 2}}, {1.0, 1.0, 1.0}) == std::vector<char>{0, 0, 1});
  // A fast link 2 never limits (it carries at most 2 of its 4), but no single link holds both
  // its flows, so the rule keeps it: it keeps what it cannot prove idle.
  CHECK(may_limit({{0, 2}, {1, 2}}, {1.0, 1.0, 4.0}) == std::vector<char>{1, 1, 1});
  CHECK(may_limit({{0}}, {1.0, 1.0}) == std::vector<char>{1, 1});
}

namespace {

// Links of 1.25 GB/s and 1 us; a leaf-spine of 8 hosts per leaf and 4 spines, uplinks 2:1.
TopologySpec spec_of(TopologyShape shape, int nodes) {
  TopologySpec spec;
  spec.shape = shape;
  spec.nodes = nodes;
  spec.bandwidth_Bps = 1.25e9;
  spec.hosts_per_leaf = 8;
  spec.spines = 4;
  spec.oversubscription = 2.0;
  return spec;
}

// splitmix64: a fixed stream of numbers below `bound` for the edge list below.
int next_below(std::uint64_t& state, int bound) {
  std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return static_cast<int>((z ^ (z >> 31)) % static_cast<std::uint64_t>(bound));
}

// A connected edge list: a ring with mixed link speeds and latencies, plus chords.
TopologySpec mixed_edge_list(int nodes, std::uint64_t seed) {
  TopologySpec spec = spec_of(TopologyShape::edge_list, nodes);
  std::set<std::pair<int, int>> linked;
  const auto link = [&](int a, int b, double latency_s, double bandwidth_Bps) {
    if (a != b && linked.insert({std::min(a, b), std::max(a, b)}).second)
      spec.edges.push_back({a, b, latency_s, bandwidth_Bps});
  };
  for (int v = 0; v < nodes; ++v)
    link(v, (v + 1) % nodes, 1e-6 * (1 + next_below(seed, 4)), 1e9 * (1 + next_below(seed, 4)));
  for (int chord = 0; chord < nodes / 2; ++chord)
    link(next_below(seed, nodes), next_below(seed, nodes), 3e-6, 2e9);
  return spec;
}

// Top-of-rack switches of 8 nodes, each linked to two core switches (one nearer, one with slower
// uplinks), plus a direct link between the first two racks: several paths, a switch per rack.
TopologySpec racks_with_switches(int nodes) {
  TopologySpec spec = spec_of(TopologyShape::edge_list, nodes);
  const int racks = (nodes + 7) / 8;
  for (int r = 0; r < racks; ++r) spec.switches.push_back("tor" + std::to_string(r));
  spec.switches.push_back("core0");
  spec.switches.push_back("core1");
  for (int v = 0; v < nodes; ++v) spec.edges.push_back({v, nodes + v / 8});
  for (int r = 0; r < racks; ++r) {
    spec.edges.push_back({nodes + r, nodes + racks, 1e-6, 4e9});
    spec.edges.push_back({nodes + r, nodes + racks + 1, 2e-6, 2e9});
  }
  if (racks > 2) spec.edges.push_back({nodes, nodes + 1, 5e-7, 1e9});
  return spec;
}

// Every shape, with uniform and with heterogeneous links; the mixed edge list only up to
// `edge_list_nodes` (its routes are Dijkstra's and its full solves the slowest).
std::vector<TopologySpec> topologies(int nodes, int edge_list_nodes = 256) {
  std::vector<TopologySpec> specs;
  for (TopologyShape shape : {TopologyShape::fully_connected, TopologyShape::star,
                              TopologyShape::ring, TopologyShape::torus2d, TopologyShape::fat_tree,
                              TopologyShape::leaf_spine, TopologyShape::k_ary_fat_tree})
    specs.push_back(spec_of(shape, nodes));
  TopologySpec binary = spec_of(TopologyShape::fat_tree, nodes);
  binary.fat_tree_arity = 2;
  specs.push_back(binary);
  // Heterogeneous links: a slow port on the star, a slow ring segment, a fast torus link.
  TopologySpec slow_port = spec_of(TopologyShape::star, nodes);
  slow_port.link_overrides.push_back({0, nodes, -1.0, 2e8});
  specs.push_back(slow_port);
  TopologySpec slow_ring = spec_of(TopologyShape::ring, nodes);
  slow_ring.link_overrides.push_back({nodes / 3, nodes / 3 + 1, 5e-6, 3e8});
  specs.push_back(slow_ring);
  TopologySpec fast_torus = spec_of(TopologyShape::torus2d, nodes);
  fast_torus.link_overrides.push_back({0, 1, -1.0, 1e10});
  specs.push_back(fast_torus);
  if (nodes <= edge_list_nodes) {
    specs.push_back(mixed_edge_list(nodes, static_cast<std::uint64_t>(nodes)));
    specs.push_back(racks_with_switches(nodes));
  }
  return specs;
}

using Builder = TransferId (*)(TransferSchedule&, std::span<const int>, double, ScheduleStart);

// Every node sends to node 0 at once, then node 0 broadcasts: the incast of a to_one exchange.
TransferId incast_then_broadcast(TransferSchedule& schedule, std::span<const int> participants,
                                 double bytes, ScheduleStart start) {
  const TransferId gathered = add_gather(schedule, participants, bytes, start);
  return add_broadcast(schedule, participants, bytes, gathered);
}

void check_same_times(const Topology& topology, Builder build, std::span<const int> participants,
                      const std::string& what) {
  TransferSchedule schedule;
  build(schedule, participants, 1e6, std::nullopt);
  const ScheduleTimes full = flow_times(topology, schedule, FlowLinks::all);
  const ScheduleTimes limiting = flow_times(topology, schedule, FlowLinks::limiting);
  REQUIRE(full.completion_s.size() == limiting.completion_s.size());
  double worst = 0.0;
  for (std::size_t i = 0; i < full.completion_s.size(); ++i)
    worst = std::max(worst, std::abs(limiting.completion_s[i] - full.completion_s[i]) /
                                std::max(full.completion_s[i], 1e-300));
  INFO(what);
  CHECK(worst <= 1e-12);
  CHECK(std::isfinite(full.makespan_s));
}

void check_all_topologies(int nodes, const std::vector<std::pair<Builder, std::string>>& builders,
                          int participants_stride) {
  for (const TopologySpec& spec : topologies(nodes)) {
    const Topology topology(spec);
    std::vector<int> participants;
    for (int node = 0; node < nodes; node += participants_stride) participants.push_back(node);
    for (const auto& [build, name] : builders)
      check_same_times(topology, build, participants,
                       name + " on " +
                           std::string(kTopologyShapeNames[static_cast<std::size_t>(spec.shape)]) +
                           " with " + std::to_string(nodes) + " nodes");
  }
}

}  // namespace

TEST_CASE("solving on the limiting links gives the full solve's times for every collective") {
  const std::vector<std::pair<Builder, std::string>> every = {
      {add_broadcast, "broadcast"},
      {add_reduce, "reduce"},
      {add_gather, "gather"},
      {incast_then_broadcast, "incast then broadcast"},
      {add_ring_all_gather, "ring all-gather"},
      {add_bruck_all_gather, "Bruck all-gather"},
      {add_ring_all_reduce, "ring all-reduce"},
      {add_scatter_all_gather_broadcast, "scatter-all-gather broadcast"}};
  for (int nodes : {2, 5, 16, 37, 64}) check_all_topologies(nodes, every, 1);
  check_all_topologies(96, every, 3);  // every third node takes part
}

TEST_CASE("solving on the limiting links gives the full solve's times on 2,048 nodes") {
  check_all_topologies(2048,
                       {{add_broadcast, "broadcast"},
                        {add_reduce, "reduce"},
                        {incast_then_broadcast, "incast then broadcast"}},
                       1);
}

TEST_CASE("solving on the limiting links gives the full solve's times for Bruck on 1,024 nodes") {
  check_all_topologies(1024, {{add_bruck_all_gather, "Bruck all-gather"}}, 1);
}
