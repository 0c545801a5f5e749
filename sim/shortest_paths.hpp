// Shortest-latency routes over a graph of links: the Dijkstra that Topology uses on edge lists
// and, while links are down, on the links that survive.
#pragma once

#include <boost/graph/adjacency_list.hpp>
#include <cstdint>
#include <vector>

namespace codesim::sim::detail {

struct Link {
  double latency_s = 0.0;
  double bandwidth_Bps = 0.0;
  std::uint32_t index = 0;  ///< in Topology::links() (where a search may skip the links down)
};

using Graph =
    boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS, boost::no_property, Link>;

/// One source's shortest-path tree: predecessor (-1: unreachable), route latency and bottleneck
/// bandwidth per vertex.
struct RouteTree {
  std::vector<int> pred;
  std::vector<double> latency_s;
  std::vector<double> bandwidth_Bps;
};

/// Dijkstra on the key (latency, hops); ties take the lower-id predecessor (shortest_paths.cpp).
/// With `down` (per Link::index, nonzero: down), the links down are left out.
RouteTree shortest_path_tree(const Graph& graph, int source,
                             const std::vector<char>* down = nullptr);

}  // namespace codesim::sim::detail
