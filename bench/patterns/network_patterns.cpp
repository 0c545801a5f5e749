// The shared communication patterns: platforms and transfer schedules built from sim's pieces.
#include "bench/patterns/network_patterns.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <numeric>
#include <optional>
#include <stdexcept>
#include <string>

#include "models/coding/coding_scheme.hpp"
#include "models/training/protocol/round_costs.hpp"
#include "sim/collective_schedules.hpp"
#include "sim/random_stream.hpp"

namespace codesim::bench {
namespace {

constexpr double kLatency_s = 1e-6;
constexpr double kBandwidth_Bps = 1.25e9;
constexpr double kBytes = 1e6;

std::vector<int> first_nodes(int count) {
  std::vector<int> ids(static_cast<std::size_t>(count));
  std::iota(ids.begin(), ids.end(), 0);
  return ids;
}

// About kBytes, cut into `pieces` whole bytes each (SimGrid moves whole bytes only).
double whole_pieces(int pieces) { return std::round(kBytes / pieces) * pieces; }

void add_pattern(sim::TransferSchedule& s, std::string_view pattern, int nodes) {
  const std::vector<int> all = first_nodes(nodes);
  if (pattern == "one_transfer") {
    s.add(0, nodes - 1, kBytes);
  } else if (pattern == "two_flows") {
    s.add(0, nodes - 1, kBytes);
    s.add(1, nodes - 1, kBytes / 2);
  } else if (pattern == "incast_16") {
    if (nodes < 17) throw std::invalid_argument("incast_16 needs at least 17 nodes");
    for (int v = 1; v <= 16; ++v) s.add(v, 0, kBytes);
  } else if (pattern == "all_to_all") {
    for (int a = 0; a < nodes; ++a)
      for (int b = 0; b < nodes; ++b)
        if (a != b) s.add(a, b, kBytes);
  } else if (pattern == "permutation") {
    std::vector<int> target = all;
    sim::RandomStream random(sim::StreamKey{18, 0, "permutation", 0});
    for (int i = nodes - 1; i > 0; --i)
      std::swap(target[static_cast<std::size_t>(i)],
                target[static_cast<std::size_t>(random.uniform_int(0, i))]);
    for (int a = 0; a < nodes; ++a)
      if (target[static_cast<std::size_t>(a)] != a)
        s.add(a, target[static_cast<std::size_t>(a)], kBytes);
  } else if (pattern == "ring_all_gather") {
    sim::add_ring_all_gather(s, all, kBytes, std::nullopt);
  } else if (pattern == "bruck_all_gather") {
    sim::add_bruck_all_gather(s, all, kBytes, std::nullopt);
  } else if (pattern == "broadcast") {
    sim::add_broadcast(s, all, kBytes, std::nullopt);
  } else if (pattern == "scatter_all_gather_broadcast") {
    sim::add_scatter_all_gather_broadcast(s, all, whole_pieces(nodes), std::nullopt);
  } else if (pattern == "ring_all_reduce") {
    sim::add_ring_all_reduce(s, all, whole_pieces(nodes), std::nullopt);
  } else if (pattern == "gather") {
    sim::add_gather(s, all, kBytes, std::nullopt);
  } else {
    throw std::invalid_argument("unknown pattern '" + std::string(pattern) + "'");
  }
}

// The forward round of a 10000 x 784 layer (the paper's first) under CodeNet 7x6 with
// (m, n) = (5, 4), batch 1, every symbol present, decentralized, with the all-gather algorithm the
// simulator picks for it on this platform (models/training/protocol/round_costs).
void add_codenet_round(sim::TransferSchedule& s, const sim::TopologySpec& platform) {
  const models::SchemeSpec spec = models::CodenetGridSpec{5, 4, 7, 6, 0};
  const auto [rows, cols] = models::block_grid(spec);
  const std::unique_ptr<models::CodingScheme> scheme = models::make_scheme(spec, rows, cols);
  scheme->encode(models::Matrix::Zero(rows, cols));
  if (scheme->node_count() > platform.nodes)
    throw std::invalid_argument("codenet_round needs at least " +
                                std::to_string(scheme->node_count()) + " nodes");
  const models::RoundShape shape =
      models::layer_shape(spec, *scheme, rows, cols, 10000, 784).dir[0];
  const std::vector<char> present(shape.members.size(), 1);
  const std::vector<int> live = first_nodes(scheme->node_count());
  const double symbol_bytes = shape.partial_rows * models::kBytesPerValue;
  const sim::Topology topology(platform);
  double fastest_s = std::numeric_limits<double>::infinity();
  for (bool bruck : {false, true}) {
    sim::TransferSchedule round;
    sim::CollectiveChoice algorithms;
    algorithms.all_gather = bruck ? sim::AllGatherAlgorithm::bruck : sim::AllGatherAlgorithm::ring;
    models::add_round_communication(round, shape, present, live, symbol_bytes, 0.0, true,
                                    algorithms);
    const double time_s = sim::run_schedule(topology, round).makespan_s;
    if (time_s < fastest_s) {
      fastest_s = time_s;
      s = std::move(round);
    }
  }
}

}  // namespace

sim::TopologySpec make_network_platform(std::string_view platform, int nodes) {
  sim::TopologySpec spec;
  spec.model = sim::NetworkModel::flow;
  spec.nodes = nodes;
  spec.latency_s = kLatency_s;
  spec.bandwidth_Bps = kBandwidth_Bps;
  if (platform == "star") {
    spec.shape = sim::TopologyShape::star;
  } else if (platform == "star_slow_port") {
    // Node 1's port at a tenth of the others' bandwidth and five times their latency.
    spec.shape = sim::TopologyShape::star;
    spec.link_overrides = {{1, nodes, 5 * kLatency_s, kBandwidth_Bps / 10}};
  } else if (platform == "leaf_spine") {
    // 8 hosts per leaf (38 nodes: 5 leaves), 4 spines, uplinks oversubscribed 2:1.
    spec.shape = sim::TopologyShape::leaf_spine;
    spec.hosts_per_leaf = 8;
    spec.spines = 4;
    spec.oversubscription = 2.0;
  } else if (platform == "k_ary_fat_tree") {
    // The least k that holds the nodes (38 nodes: k = 6, 54 host places, 45 switches).
    spec.shape = sim::TopologyShape::k_ary_fat_tree;
  } else if (platform == "switched_racks") {
    // An edge list of top-of-rack switches of 8 nodes, each linked to two core switches: the
    // first at 4 x the host links' bandwidth, the second at 2 x and twice the latency.
    spec.shape = sim::TopologyShape::edge_list;
    const int racks = (nodes + 7) / 8;
    for (int r = 0; r < racks; ++r) spec.switches.push_back("tor" + std::to_string(r));
    spec.switches.push_back("core0");
    spec.switches.push_back("core1");
    for (int v = 0; v < nodes; ++v) spec.edges.push_back({v, nodes + v / 8});
    for (int r = 0; r < racks; ++r) {
      spec.edges.push_back({nodes + r, nodes + racks, kLatency_s, 4 * kBandwidth_Bps});
      spec.edges.push_back({nodes + r, nodes + racks + 1, 2 * kLatency_s, 2 * kBandwidth_Bps});
    }
  } else if (platform == "fat_tree") {
    spec.shape = sim::TopologyShape::fat_tree;
    spec.fat_tree_arity = 4;
  } else if (platform == "torus2d") {
    spec.shape = sim::TopologyShape::torus2d;
  } else if (platform == "dumbbell") {
    if (nodes < 4) throw std::invalid_argument("dumbbell needs at least 4 nodes");
    spec.shape = sim::TopologyShape::edge_list;
    const int half = nodes / 2;
    for (int v = 1; v < nodes; ++v)
      if (v != half) spec.edges.push_back({v < half ? 0 : half, v});
    spec.edges.push_back({0, half, -1.0, kBandwidth_Bps / 10});
  } else {
    throw std::invalid_argument("unknown platform '" + std::string(platform) + "'");
  }
  const std::string problem = sim::validate_topology(spec);
  if (!problem.empty()) throw std::invalid_argument(problem);
  return spec;
}

NetworkPattern make_network_pattern(std::string_view pattern, std::string_view platform,
                                    int nodes) {
  if (nodes < 2) throw std::invalid_argument("a pattern needs at least 2 nodes");
  NetworkPattern p;
  p.platform = make_network_platform(platform, nodes);
  if (pattern == "codenet_round") {
    add_codenet_round(p.schedule, p.platform);
  } else {
    add_pattern(p.schedule, pattern, nodes);
  }
  return p;
}

std::vector<std::string> network_pattern_names() {
  return {"one_transfer",     "two_flows",   "incast_16",
          "all_to_all",       "permutation", "ring_all_gather",
          "bruck_all_gather", "broadcast",   "scatter_all_gather_broadcast",
          "ring_all_reduce",  "gather",      "codenet_round"};
}

std::vector<std::string> network_platform_names() {
  return {"star", "fat_tree", "torus2d", "dumbbell"};
}

}  // namespace codesim::bench
