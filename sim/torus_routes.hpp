// Closed-form shortest routes on a ring or a 2-D torus whose links are all alike.
#pragma once

#include <vector>

namespace codesim::sim::detail {

/// Routes on a rows x cols torus with wrap-around (node r * cols + c; a ring of n nodes is
/// 1 x n), every link of latency `link_latency_s`. With equal links a route of h hops has the
/// latency of any other route of h hops, so the shortest-latency route (latency, then hops,
/// then the lowest-id predecessor at each vertex) is a fewest-hop route whose predecessor at
/// each vertex is its lowest-id neighbour one hop closer to the source: exactly what Dijkstra
/// finds on the same graph, in O(1) per hop and no per-source state.
class TorusRoutes {
 public:
  TorusRoutes(int rows, int cols, double link_latency_s);

  /// Links on a fewest-hop route between nodes `a` and `b`.
  int hops(int a, int b) const;
  /// The vertex before `v` (!= src) on the route from `src`.
  int predecessor(int src, int v) const;
  /// Latency of a route of `hops` links: the link latency added once per hop, in the order
  /// Dijkstra adds it, so the sums (and their overflow to infinity) match bit for bit.
  double latency_s(int hops) const { return latency_after_[static_cast<std::size_t>(hops)]; }

 private:
  int rows_;
  int cols_;
  std::vector<int> row_;  // per node: its row and column (lookups rather than divisions)
  std::vector<int> col_;
  std::vector<double> latency_after_;  // index: hops, up to the diameter
};

}  // namespace codesim::sim::detail
