// Network topology: answers routes over the graph of each shape (built in topology_graphs.cpp;
// the spec checks are in topology_validation.cpp).
#include "sim/topology.hpp"

#include <boost/graph/adjacency_list.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <limits>
#include <numeric>
#include <unordered_map>
#include <utility>

#include "sim/check.hpp"
#include "sim/enum_names.hpp"
#include "sim/network_cost_model.hpp"
#include "sim/shortest_paths.hpp"
#include "sim/topology_graphs.hpp"
#include "sim/torus_routes.hpp"

namespace codesim::sim {
namespace {

using detail::all_pairs_graph;
using detail::build_graph;
using detail::Graph;
using detail::Link;
using detail::RouteTree;
using detail::shortest_path_tree;
using detail::torus_dims;
using detail::TorusDims;

// Shortest-path trees kept at once are capped so their vertex entries (20 bytes each) stay
// below this many; evicted trees are recomputed identically when asked for again.
constexpr std::size_t kRouteCacheEntries = std::size_t{1} << 21;
constexpr double kInf = std::numeric_limits<double>::infinity();

using Shape = TopologyShape;

struct PathCost {
  double latency_s = 0.0;
  double bandwidth_Bps = kInf;
};

}  // namespace

// Five routing strategies, chosen by structure, all giving a shortest-latency route:
//  - fully_connected keeps its P(P-1)/2 links implicit (the graph holds only the vertices): the
//    direct link is the unique route with the fewest hops and no longer latency, so routes are
//    answered analytically in O(1) and the topology builds in O(P);
//  - a graph that is a tree (star, fat_tree, and any other shape with links == vertices - 1) has
//    one simple path per pair: it is rooted once at its highest-id vertex by BFS, and a route
//    climbs from both ends to their common ancestor in O(depth), with no per-source work;
//  - ring and torus2d, whose links are all alike, answer in closed form (TorusRoutes): O(1) per
//    cost and per hop of a route, with no per-source state (a bounded cache of per-source trees
//    thrashed once the nodes outnumbered the trees it could hold);
//  - leaf_spine and k_ary_fat_tree (unless a tree) have equal-hop paths through the fabric: the
//    route is the one ECMP's hash of (source, destination) picks, in O(1);
//  - anything else (edge_list) runs Dijkstra lazily per source, with a bounded FIFO cache of
//    shortest-path trees.
struct Topology::Impl {
  Shape shape = Shape::fully_connected;  // as routed: edge_list for a fully_connected overridden
  Shape declared_shape = Shape::fully_connected;
  int nodes = 0;
  Link default_link;
  bool has_overrides = false;  // the spec overrode some links' latency or bandwidth
  Graph graph;
  int links = 0;

  bool is_tree = false;
  std::vector<int> parent;  // tree only: parent vertex (root: itself), depth, link to parent
  std::vector<int> depth;
  std::vector<Link> up_link;

  std::optional<detail::TorusRoutes> torus;  // ring and torus2d
  std::optional<detail::EcmpRoutes> ecmp;    // leaf_spine, k_ary_fat_tree: more than one path

  std::unique_ptr<const NetworkCostModel> cost_model;
  FlowSharing sharing = FlowSharing::max_min;
  SharingLaw law;  // of `sharing`
  CollectiveChoice collectives;
  // Link index of each vertex pair (lower id * vertices + higher id), filled on first use.
  mutable std::unordered_map<std::uint64_t, std::uint32_t> link_index;
  mutable std::vector<TopologyLink> link_list;       // Topology::links(), with link_index
  mutable std::vector<std::uint32_t> up_link_index;  // tree only: index of the link to parent

  mutable std::string simplification;  // note_simplification: the first one
  // Remembered results by the links down (links_down_key) and the caller's key: a link that
  // comes back makes the results of before its failure good again.
  mutable std::unordered_map<std::string, std::vector<double>> memory;
  mutable std::size_t memory_values = 0;
  // The count of links down, then their indices (uint32 each): 4 zero bytes with every link up.
  std::string links_down_key = std::string(sizeof(std::uint32_t), '\0');

  std::string memory_key(const std::string& key) const { return links_down_key + key; }

  std::size_t cache_capacity = 1;
  mutable std::vector<int> cache_slot;  // per source vertex: index into trees, or -1
  mutable std::vector<RouteTree> trees;
  mutable std::deque<int> cached_sources;  // oldest first

  // Link failures: per link (links() order) whether it is down, empty until one first goes down;
  // while any is, the graph of the links up, its links' indices by vertex pair (lower id *
  // vertices + higher id) and the shortest-path trees over it by source vertex.
  std::vector<char> link_down;
  int down_count = 0;
  // Built once, at the first failure: every link with its index (the searches skip the links
  // down), and per vertex pair its first link and each link's next parallel one.
  std::vector<TopologyLink> all_links;  // links(), up or down
  Graph all_graph;
  std::unordered_map<std::uint64_t, std::uint32_t> first_link;
  std::vector<std::uint32_t> next_parallel;            // kNoLink: none
  mutable std::unordered_map<int, RouteTree> detours;  // by source, over the links up

  static constexpr std::uint32_t kNoLink = 0xffffffffU;

  bool detouring() const { return down_count > 0; }

  void index_all_links(std::vector<TopologyLink> links_list) {
    all_links = std::move(links_list);
    const auto n = static_cast<std::uint64_t>(boost::num_vertices(graph));
    all_graph = Graph(n);
    next_parallel.assign(all_links.size(), kNoLink);
    std::unordered_map<std::uint64_t, std::uint32_t> last;
    for (std::uint32_t i = 0; i < all_links.size(); ++i) {
      const TopologyLink& l = all_links[i];
      boost::add_edge(l.a, l.b, Link{l.latency_s, l.bandwidth_Bps, i}, all_graph);
      const std::uint64_t pair = static_cast<std::uint64_t>(l.a) * n + l.b;
      const auto [at, fresh] = last.try_emplace(pair, i);
      if (fresh) {
        first_link.emplace(pair, i);
      } else {
        next_parallel[at->second] = i;
        at->second = i;
      }
    }
  }

  // The first link up joining a and b (a < b), in links() order.
  std::uint32_t surviving_link(int a, int b) const {
    const auto n = static_cast<std::uint64_t>(boost::num_vertices(graph));
    std::uint32_t i = first_link.at(static_cast<std::uint64_t>(a) * n + b);
    while (link_down[i]) i = next_parallel[i];
    return i;
  }

  // A component label per vertex over the links up (union-find: no graph is built).
  std::vector<int> components_over_links_up() const {
    std::vector<int> root(boost::num_vertices(graph));
    std::iota(root.begin(), root.end(), 0);
    const auto find = [&root](int v) {
      while (root[v] != v) v = root[v] = root[root[v]];
      return v;
    };
    for (std::size_t i = 0; i < all_links.size(); ++i) {
      if (link_down[i]) continue;
      const int a = find(all_links[i].a);
      const int b = find(all_links[i].b);
      if (a != b) root[std::max(a, b)] = std::min(a, b);
    }
    for (int& v : root) v = find(v);
    return root;
  }

  const RouteTree& detour_from(int src) const {
    const auto it = detours.find(src);
    if (it != detours.end()) return it->second;
    return detours.emplace(src, shortest_path_tree(all_graph, src, &link_down)).first->second;
  }

  // Whether src -> dst takes a route over the surviving links: while links are down and some
  // path of links up joins them (else the intact network's route is used, see Topology).
  bool takes_detour(int src, int dst) const {
    if (!detouring()) return false;
    const int vertices = static_cast<int>(boost::num_vertices(graph));
    CODESIM_CHECK(src >= 0 && src < vertices && dst >= 0 && dst < vertices,
                  "route endpoint is not a vertex id");
    return detour_from(src).pred[dst] != -1;
  }

  // Whether one of the links of `route` (intact) is down: only such routes change while links
  // are down (Topology::unbroken_route).
  bool crosses_down_link(const std::vector<RouteLink>& route) const {
    for (const RouteLink& link : route)
      if (link_down[static_cast<std::size_t>(link.id / 2)]) return true;
    return false;
  }

  // The vertices of the route src -> dst over the surviving links, src first. Precondition:
  // takes_detour(src, dst).
  std::vector<int> detour_path(int src, int dst) const {
    const RouteTree& tree = detour_from(src);
    std::vector<int> path;
    for (int v = dst; v != src; v = tree.pred[v]) path.push_back(v);
    path.push_back(src);
    std::reverse(path.begin(), path.end());
    return path;
  }

  void root_tree() {
    const int n = static_cast<int>(boost::num_vertices(graph));
    const int root = n - 1;
    parent.assign(n, -1);
    depth.assign(n, 0);
    up_link.assign(n, Link{});
    parent[root] = root;
    std::vector<int> order{root};
    order.reserve(n);
    for (std::size_t i = 0; i < order.size(); ++i) {
      const int u = order[i];
      for (auto [it, end] = boost::out_edges(u, graph); it != end; ++it) {
        const int v = static_cast<int>(boost::target(*it, graph));
        if (parent[v] != -1) continue;
        parent[v] = u;
        depth[v] = depth[u] + 1;
        up_link[v] = graph[*it];
        order.push_back(v);
      }
    }
  }

  // Walks the tree path src -> dst; appends its vertices to `vertices` when given.
  PathCost tree_path(int src, int dst, std::vector<int>* vertices) const {
    PathCost cost;
    std::vector<int> down;  // dst side, collected upwards
    int a = src;
    int b = dst;
    auto climb = [&](int& v) {
      cost.latency_s += up_link[v].latency_s;
      cost.bandwidth_Bps = std::min(cost.bandwidth_Bps, up_link[v].bandwidth_Bps);
      v = parent[v];
    };
    if (vertices) vertices->push_back(a);
    while (a != b) {
      if (depth[a] >= depth[b]) {
        climb(a);
        if (vertices) vertices->push_back(a);
      } else {
        if (vertices) down.push_back(b);
        climb(b);
      }
    }
    if (vertices) vertices->insert(vertices->end(), down.rbegin(), down.rend());
    return cost;
  }

  const RouteTree& tree_from(int src) const {
    if (cache_slot[src] >= 0) return trees[cache_slot[src]];
    int slot = static_cast<int>(trees.size());
    if (trees.size() < cache_capacity) {
      trees.push_back(shortest_path_tree(graph, src));
    } else {
      const int evicted = cached_sources.front();
      cached_sources.pop_front();
      slot = cache_slot[evicted];
      cache_slot[evicted] = -1;
      trees[slot] = shortest_path_tree(graph, src);
    }
    cache_slot[src] = slot;
    cached_sources.push_back(src);
    return trees[slot];
  }

  PathCost cost(int src, int dst) const {
    if (src == dst) return {};
    if (takes_detour(src, dst)) {
      const RouteTree& tree = detour_from(src);
      return {tree.latency_s[dst], tree.bandwidth_Bps[dst]};
    }
    if (shape == Shape::fully_connected)
      return {default_link.latency_s, default_link.bandwidth_Bps};
    if (is_tree) return tree_path(src, dst, nullptr);
    if (torus) return {torus->latency_s(torus->hops(src, dst)), default_link.bandwidth_Bps};
    if (ecmp) return path_cost(detail::ecmp_route(*ecmp, src, dst));
    const RouteTree& tree = tree_from(src);
    return {tree.latency_s[dst], tree.bandwidth_Bps[dst]};
  }

  // Latency and bottleneck of the links joining `vertices` in order (every link up).
  PathCost path_cost(const std::vector<int>& vertices) const {
    PathCost cost;
    for (std::size_t h = 0; h + 1 < vertices.size(); ++h) {
      const Link& link = graph[boost::edge(vertices[h], vertices[h + 1], graph).first];
      cost.latency_s += link.latency_s;
      cost.bandwidth_Bps = std::min(cost.bandwidth_Bps, link.bandwidth_Bps);
    }
    return cost;
  }

  void check_node(int id) const {
    CODESIM_CHECK(id >= 0 && id < nodes, "route endpoint is not a compute-node id");
  }

  // Keeps Topology::links() for route_links: on a tree each vertex's link to its parent, else
  // the index of each vertex pair (lower id * vertices + higher id).
  void index_links(std::vector<TopologyLink> all) const {
    link_list = std::move(all);
    const auto n = static_cast<std::uint64_t>(boost::num_vertices(graph));
    if (is_tree) up_link_index.assign(n, 0);
    for (std::uint32_t i = 0; i < link_list.size(); ++i) {
      const int a = link_list[i].a;
      const int b = link_list[i].b;
      if (is_tree) up_link_index[parent[a] == b ? a : b] = i;
      if (!is_tree) link_index.emplace(static_cast<std::uint64_t>(a) * n + b, i);
    }
  }

  // The directed links of the tree path src -> dst, by tree_path's walk. Either end may be a
  // switch: the walk climbs from any vertex, so a route to a switch is the part of a route
  // between nodes that reaches it, with the same link ids.
  std::vector<RouteLink> tree_route_links(int src, int dst) const {
    const int vertices = static_cast<int>(boost::num_vertices(graph));
    CODESIM_CHECK(src >= 0 && src < vertices && dst >= 0 && dst < vertices,
                  "route endpoint is not a vertex id");
    const auto hop = [this](int from, int to, int child) {
      const std::uint32_t index = up_link_index[child];
      return RouteLink{2 * std::uint64_t{index} + (from < to ? 0 : 1), link_list[index].latency_s,
                       link_list[index].bandwidth_Bps};
    };
    std::vector<RouteLink> out;
    std::vector<RouteLink> down;  // dst side, collected upwards
    for (int a = src, b = dst; a != b;) {
      if (depth[a] >= depth[b]) {
        out.push_back(hop(a, parent[a], a));
        a = parent[a];
      } else {
        down.push_back(hop(parent[b], b, b));
        b = parent[b];
      }
    }
    out.insert(out.end(), down.rbegin(), down.rend());
    return out;
  }
};

Topology::Topology(const TopologySpec& spec) : impl_(std::make_unique<Impl>()) {
  const std::string error = validate_topology(spec);
  CODESIM_CHECK(error.empty(), error.c_str());
  Impl& m = *impl_;
  m.cost_model = make_network_cost_model(spec.model, spec.sharing, spec.full_schedule_work);
  m.sharing = spec.sharing;
  m.law = sharing_law(spec.sharing);
  m.collectives = spec.collectives;
  m.declared_shape = spec.shape;
  m.nodes = spec.nodes;
  m.default_link = Link{spec.latency_s, spec.bandwidth_Bps};
  // Overridden links make a fully connected network's links explicit: Dijkstra routes over them.
  const bool overrides = !spec.link_overrides.empty();
  m.has_overrides = overrides;
  m.shape = overrides && spec.shape == Shape::fully_connected ? Shape::edge_list : spec.shape;
  m.graph = m.shape == spec.shape ? build_graph(spec, m.shape) : all_pairs_graph(spec);
  for (const LinkOverride& o : spec.link_overrides) {
    Link& link = m.graph[boost::edge(o.a, o.b, m.graph).first];
    if (o.latency_s >= 0.0) link.latency_s = o.latency_s;
    if (o.bandwidth_Bps >= 0.0) link.bandwidth_Bps = o.bandwidth_Bps;
  }
  const auto vertices = boost::num_vertices(m.graph);
  if (m.shape == Shape::fully_connected) {
    m.links = static_cast<int>(static_cast<std::int64_t>(spec.nodes) * (spec.nodes - 1) / 2);
  } else {
    m.links = static_cast<int>(boost::num_edges(m.graph));
    m.is_tree = boost::num_edges(m.graph) + 1 == vertices;
  }
  if (m.is_tree) m.root_tree();
  // The closed forms assume uniform links; with overrides, Dijkstra routes.
  if (m.shape == Shape::ring && !overrides) m.torus.emplace(1, spec.nodes, spec.latency_s);
  if (m.shape == Shape::torus2d && !overrides) {
    const TorusDims dims = torus_dims(spec);
    m.torus.emplace(dims.rows, dims.cols, spec.latency_s);
  }
  if (m.shape == Shape::leaf_spine && !m.is_tree) m.ecmp = detail::leaf_spine_of(spec);
  if (m.shape == Shape::k_ary_fat_tree && !m.is_tree) m.ecmp = detail::k_ary_fat_tree_of(spec);
  m.cache_capacity = std::clamp<std::size_t>(kRouteCacheEntries / vertices, 1, vertices);
  m.cache_slot.assign(vertices, -1);  // sources: nodes, and switches for a storage server
}

Topology::~Topology() = default;
Topology::Topology(Topology&&) noexcept = default;
Topology& Topology::operator=(Topology&&) noexcept = default;

int Topology::node_count() const { return impl_->nodes; }
TopologyShape Topology::shape() const { return impl_->declared_shape; }
int Topology::vertex_count() const { return static_cast<int>(boost::num_vertices(impl_->graph)); }
int Topology::link_count() const { return impl_->links; }

std::optional<std::vector<RouteLink>> Topology::unbroken_route(int src, int dst) const {
  std::vector<RouteLink> links = intact_route_links(src, dst);
  if (impl_->crosses_down_link(links)) return std::nullopt;
  return links;
}

bool Topology::detours(int src, int dst) const {
  const Impl& m = *impl_;
  return m.detouring() && !unbroken_route(src, dst) && m.takes_detour(src, dst);
}

std::vector<int> Topology::route(int src, int dst) const {
  const Impl& m = *impl_;
  m.check_node(src);
  m.check_node(dst);
  if (src == dst) return {src};
  if (detours(src, dst)) return m.detour_path(src, dst);
  return intact_route(src, dst);
}

std::vector<int> Topology::intact_route(int src, int dst) const {
  const Impl& m = *impl_;
  if (src == dst) return {src};
  if (m.shape == Shape::fully_connected) return {src, dst};
  std::vector<int> vertices;
  if (m.is_tree) {
    m.tree_path(src, dst, &vertices);
    return vertices;
  }
  // Between a node and a switch (a storage server's place) the shortest-path tree answers.
  if (m.ecmp && src < m.nodes && dst < m.nodes) return detail::ecmp_route(*m.ecmp, src, dst);
  if (m.torus) {
    for (int v = dst; v != src; v = m.torus->predecessor(src, v)) vertices.push_back(v);
  } else {
    const RouteTree& tree = m.tree_from(src);
    for (int v = dst; v != src; v = tree.pred[v]) vertices.push_back(v);
  }
  vertices.push_back(src);
  std::reverse(vertices.begin(), vertices.end());
  return vertices;
}

std::pair<double, double> Topology::route_cost(int src, int dst) const {
  impl_->check_node(src);
  impl_->check_node(dst);
  if (src != dst && impl_->detouring()) {
    if (const auto links = unbroken_route(src, dst)) {
      // Summed from src in route order, as Dijkstra over the surviving links sums them.
      double latency_s = 0.0, bandwidth_Bps = kInf;
      for (const RouteLink& link : *links) {
        latency_s += link.latency_s;
        bandwidth_Bps = std::min(bandwidth_Bps, link.bandwidth_Bps);
      }
      return {latency_s, bandwidth_Bps};
    }
  }
  const PathCost cost = impl_->cost(src, dst);
  return {cost.latency_s, cost.bandwidth_Bps};
}

bool Topology::uniform_links() const { return !impl_->has_overrides && links_down() == 0; }

double Topology::route_latency_s(int src, int dst) const { return route_cost(src, dst).first; }

double Topology::route_bandwidth_Bps(int src, int dst) const { return route_cost(src, dst).second; }

double Topology::transfer_time_s(int src, int dst, double bytes) const {
  CODESIM_CHECK(bytes >= 0.0, "transfer size must be >= 0 bytes");
  if (src == dst) return route_cost(src, dst).first;  // 0, after checking the ids
  const auto [latency_s, bandwidth_Bps] = route_cost(src, dst);
  return lone_flow_time_s(impl_->law, latency_s, bandwidth_Bps, bytes);
}

const NetworkCostModel& Topology::network_cost_model() const { return *impl_->cost_model; }

FlowSharing Topology::sharing() const { return impl_->sharing; }

void Topology::note_simplification(const std::string& what) const {
  if (impl_->simplification.empty()) impl_->simplification = what;
}

const std::string& Topology::simplification() const { return impl_->simplification; }

const CollectiveChoice& Topology::collectives() const { return impl_->collectives; }

std::vector<TopologyLink> Topology::links() const {
  const Impl& m = *impl_;
  std::vector<TopologyLink> out;
  if (m.shape == Shape::fully_connected) {
    out.reserve(static_cast<std::size_t>(m.links));
    for (int a = 0; a < m.nodes; ++a)
      for (int b = a + 1; b < m.nodes; ++b)
        out.push_back({a, b, m.default_link.latency_s, m.default_link.bandwidth_Bps});
    return out;
  }
  out.reserve(boost::num_edges(m.graph));
  for (auto [it, end] = boost::edges(m.graph); it != end; ++it) {
    const int u = static_cast<int>(boost::source(*it, m.graph));
    const int v = static_cast<int>(boost::target(*it, m.graph));
    out.push_back(
        {std::min(u, v), std::max(u, v), m.graph[*it].latency_s, m.graph[*it].bandwidth_Bps});
  }
  return out;
}

std::vector<RouteLink> Topology::route_links(int src, int dst) const {
  if (!detours(src, dst)) return intact_route_links(src, dst);
  return route_links_along(impl_->detour_path(src, dst), true);
}

std::vector<RouteLink> Topology::intact_route_links(int src, int dst) const {
  const Impl& m = *impl_;
  if (m.shape != Shape::fully_connected && m.link_list.empty()) m.index_links(links());
  if (m.is_tree) return m.tree_route_links(src, dst);
  return route_links_along(intact_route(src, dst), false);
}

std::vector<RouteLink> Topology::route_links_along(const std::vector<int>& vertices,
                                                   bool detour) const {
  const Impl& m = *impl_;
  const auto n = static_cast<std::uint64_t>(vertex_count());
  std::vector<RouteLink> out;
  out.reserve(vertices.size() - 1);
  for (std::size_t h = 0; h + 1 < vertices.size(); ++h) {
    const auto [a, b] = std::minmax(vertices[h], vertices[h + 1]);
    const std::uint64_t direction = vertices[h] < vertices[h + 1] ? 0 : 1;
    if (detour) {
      const std::uint32_t index = m.surviving_link(a, b);
      const TopologyLink& link = m.all_links[index];
      out.push_back({2 * std::uint64_t{index} + direction, link.latency_s, link.bandwidth_Bps});
    } else if (m.shape == Shape::fully_connected) {
      // Pairs before row a: a (n - 1) - a (a - 1) / 2; then b - a - 1 within the row.
      const auto ua = static_cast<std::uint64_t>(a);
      const std::uint64_t index = ua * (n - 1) - ua * (ua - 1) / 2 + (b - a - 1);
      out.push_back(
          {2 * index + direction, m.default_link.latency_s, m.default_link.bandwidth_Bps});
    } else {
      const std::uint32_t index = m.link_index.at(static_cast<std::uint64_t>(a) * n + b);
      const TopologyLink& link = m.link_list[index];
      out.push_back({2 * std::uint64_t{index} + direction, link.latency_s, link.bandwidth_Bps});
    }
  }
  return out;
}

void Topology::set_link_up(int link, bool up) {
  Impl& m = *impl_;
  CODESIM_CHECK(link >= 0 && link < m.links, "not a link index");
  if (m.link_down.empty()) m.link_down.assign(static_cast<std::size_t>(m.links), 0);
  if (static_cast<bool>(m.link_down[link]) == !up) return;
  m.link_down[link] = up ? 0 : 1;
  m.down_count += up ? -1 : 1;
  // Remembered results are keyed by the links down: those of the new state are looked up apart.
  m.links_down_key.clear();
  append_to_key(m.links_down_key, static_cast<std::uint32_t>(m.down_count));
  for (int l = 0; m.down_count > 0 && l < m.links; ++l)
    if (m.link_down[l]) append_to_key(m.links_down_key, static_cast<std::uint32_t>(l));
  m.detours.clear();
  if (m.detouring() && m.all_links.empty()) m.index_all_links(links());  // they never change
}

bool Topology::link_up(int link) const {
  CODESIM_CHECK(link >= 0 && link < impl_->links, "not a link index");
  return impl_->link_down.empty() || impl_->link_down[link] == 0;
}

int Topology::links_down() const { return impl_->down_count; }

std::vector<char> Topology::cut_off_nodes() const {
  const Impl& m = *impl_;
  std::vector<char> out(static_cast<std::size_t>(m.nodes), 0);
  if (!m.detouring()) return out;
  std::vector<int> component = m.components_over_links_up();
  std::vector<int> members(component.size(), 0);
  for (int v = 0; v < m.nodes; ++v) ++members[component[v]];
  int main = component[0];
  // In node id order, so that a tie keeps the component holding the lowest id.
  for (int v = 0; v < m.nodes; ++v)
    if (members[component[v]] > members[main]) main = component[v];
  for (int v = 0; v < m.nodes; ++v) out[v] = component[v] != main ? 1 : 0;
  return out;
}

const std::vector<double>* Topology::remembered(const std::string& key) const {
  const auto it = impl_->memory.find(impl_->memory_key(key));
  return it == impl_->memory.end() ? nullptr : &it->second;
}

void Topology::remember(std::string key, std::vector<double> values) const {
  constexpr std::size_t kMaxRememberedValues = std::size_t{1} << 22;
  Impl& m = *impl_;
  // Keys count too (in 8-byte words): a round's key is hundreds of bytes for two values.
  const std::size_t words = values.size() + key.size() / 8 + 1;
  if (m.memory_values + words > kMaxRememberedValues) {
    m.memory.clear();
    m.memory_values = 0;
  }
  m.memory_values += words;
  m.memory.insert_or_assign(m.memory_key(key), std::move(values));
}

std::string_view to_string(NetworkModel model) { return name_of(model, kNetworkModelNames); }

std::string_view to_string(TopologyShape shape) { return name_of(shape, kTopologyShapeNames); }

std::optional<TopologyShape> parse_topology_shape(std::string_view name) {
  return parse_name<TopologyShape>(name, kTopologyShapeNames);
}

}  // namespace codesim::sim
