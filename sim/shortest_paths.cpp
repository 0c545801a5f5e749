// Dijkstra over a link graph with a heap-independent tie rule.
#include "sim/shortest_paths.hpp"

#include <algorithm>
#include <functional>
#include <limits>
#include <queue>
#include <tuple>

namespace codesim::sim::detail {
namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();
}  // namespace

// Dijkstra on the key (latency, hops). Boost's dijkstra_shortest_paths leaves equal-key ties to
// heap order; here a tie takes the lower-id predecessor, which is settled before v because its
// key is strictly smaller (hops grow along every link), so the answer is heap-independent.
RouteTree shortest_path_tree(const Graph& graph, int source, const std::vector<char>* down) {
  const auto n = boost::num_vertices(graph);
  RouteTree tree{std::vector<int>(n, -1), std::vector<double>(n, kInf),
                 std::vector<double>(n, 0.0)};
  std::vector<int> hops(n, std::numeric_limits<int>::max());
  std::vector<char> settled(n, 0);
  using Entry = std::tuple<double, int, int>;  // latency, hops, vertex
  std::priority_queue<Entry, std::vector<Entry>, std::greater<>> frontier;
  tree.pred[source] = source;
  tree.latency_s[source] = 0.0;
  tree.bandwidth_Bps[source] = kInf;
  hops[source] = 0;
  frontier.emplace(0.0, 0, source);
  while (!frontier.empty()) {
    const auto [latency_s, hop, u] = frontier.top();
    frontier.pop();
    if (settled[u]) continue;
    settled[u] = 1;
    for (auto [it, end] = boost::out_edges(u, graph); it != end; ++it) {
      const int v = static_cast<int>(boost::target(*it, graph));
      if (settled[v]) continue;
      const Link& link = graph[*it];
      if (down && (*down)[link.index]) continue;
      const double candidate_s = latency_s + link.latency_s;
      const int candidate_hops = hop + 1;
      const bool better =
          std::tie(candidate_s, candidate_hops) < std::tie(tree.latency_s[v], hops[v]);
      const bool tie_to_lower_id =
          candidate_s == tree.latency_s[v] && candidate_hops == hops[v] && u < tree.pred[v];
      if (!better && !tie_to_lower_id) continue;
      tree.pred[v] = u;
      tree.latency_s[v] = candidate_s;
      tree.bandwidth_Bps[v] = std::min(tree.bandwidth_Bps[u], link.bandwidth_Bps);
      hops[v] = candidate_hops;
      if (better) frontier.emplace(candidate_s, candidate_hops, v);
    }
  }
  return tree;
}

}  // namespace codesim::sim::detail
