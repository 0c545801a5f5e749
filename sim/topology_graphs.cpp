// The Boost.Graph of each topology shape: vertices, links and their latency and bandwidth.
#include "sim/topology_graphs.hpp"

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <vector>

#include "sim/check.hpp"

namespace codesim::sim::detail {

using Shape = TopologyShape;

TorusDims torus_dims(const TopologySpec& spec) {
  TorusDims dims{spec.torus_rows, spec.torus_cols};
  if (dims.rows == 0 && dims.cols == 0) {
    dims.rows = 1;
    for (int r = 1; static_cast<std::int64_t>(r) * r <= spec.nodes; ++r)
      if (spec.nodes % r == 0) dims.rows = r;
    dims.cols = spec.nodes / dims.rows;
  } else if (dims.rows == 0) {
    dims.rows = spec.nodes / dims.cols;
  } else if (dims.cols == 0) {
    dims.cols = spec.nodes / dims.rows;
  }
  return dims;
}

namespace {

// Links first + i * stride for i = 0..count-1 into a cycle; a cycle of two is one link and a
// cycle of one has none, so the graph never holds self loops or parallel links.
void add_cycle(Graph& graph, int first, int count, int stride, const Link& link) {
  for (int i = 0; i + 1 < count; ++i)
    boost::add_edge(first + i * stride, first + (i + 1) * stride, link, graph);
  if (count > 2) boost::add_edge(first + (count - 1) * stride, first, link, graph);
}

Graph build_fat_tree(const TopologySpec& spec) {
  const int k = spec.fat_tree_arity;
  int vertices = spec.nodes;
  for (int width = spec.nodes;;) {
    width = (width + k - 1) / k;
    vertices += width;
    if (width == 1) break;
  }
  Graph graph(vertices);
  std::vector<int> level(spec.nodes);
  std::iota(level.begin(), level.end(), 0);
  Link link{spec.latency_s, spec.bandwidth_Bps};
  int next_id = spec.nodes;
  do {
    std::vector<int> up;
    for (std::size_t first = 0; first < level.size(); first += k) {
      const int sw = next_id++;
      up.push_back(sw);
      const std::size_t last = std::min(level.size(), first + k);
      for (std::size_t j = first; j < last; ++j) boost::add_edge(level[j], sw, link, graph);
    }
    level = std::move(up);
    link.bandwidth_Bps *= 2.0;
  } while (level.size() > 1);
  return graph;
}

Graph build_leaf_spine(const TopologySpec& spec) {
  const LeafSpine layout = leaf_spine_of(spec);
  Graph graph(spec.nodes + layout.leaves + layout.spines);
  const Link host{spec.latency_s, spec.bandwidth_Bps};
  for (int i = 0; i < spec.nodes; ++i) boost::add_edge(i, layout.leaf_vertex(i), host, graph);
  const Link uplink{spec.latency_s, leaf_spine_uplink_Bps(spec)};
  for (int leaf = 0; leaf < layout.leaves; ++leaf)
    for (int spine = 0; spine < layout.spines; ++spine)
      boost::add_edge(spec.nodes + leaf, layout.spine_vertex(spine), uplink, graph);
  return graph;
}

Graph build_k_ary_fat_tree(const TopologySpec& spec) {
  const KaryFatTree tree = k_ary_fat_tree_of(spec);
  const int half = tree.half();
  Graph graph(spec.nodes + tree.switch_count());
  const Link link{spec.latency_s, spec.bandwidth_Bps};
  for (int i = 0; i < spec.nodes; ++i) boost::add_edge(i, tree.edge_vertex(i), link, graph);
  for (int pod = 0; pod < tree.ports; ++pod)
    for (int edge = 0; edge < half; ++edge)
      for (int aggregation = 0; aggregation < half; ++aggregation)
        boost::add_edge(spec.nodes + pod * half + edge, tree.aggregation_vertex(pod, aggregation),
                        link, graph);
  for (int pod = 0; pod < tree.ports; ++pod)
    for (int core = 0; core < half * half; ++core)
      boost::add_edge(tree.aggregation_vertex(pod, core / half), tree.core_vertex(core), link,
                      graph);
  return graph;
}

}  // namespace

KaryFatTree k_ary_fat_tree_of(const TopologySpec& spec) {
  return KaryFatTree{spec.nodes, spec.fat_tree_ports > 0 ? spec.fat_tree_ports
                                                         : fat_tree_ports_to_fit(spec.nodes)};
}

LeafSpine leaf_spine_of(const TopologySpec& spec) {
  const int hosts = spec.hosts_per_leaf;
  const int leaves = spec.leaves > 0 ? spec.leaves : (spec.nodes + hosts - 1) / hosts;
  return LeafSpine{spec.nodes, leaves, spec.spines, hosts};
}

Graph build_graph(const TopologySpec& spec, TopologyShape shape) {
  const int n = spec.nodes;
  const Link link{spec.latency_s, spec.bandwidth_Bps};
  switch (shape) {
    case Shape::fully_connected:
      return Graph(n);  // links stay implicit, see Topology::Impl
    case Shape::star: {
      Graph graph(n + 1);
      for (int i = 0; i < n; ++i) boost::add_edge(i, n, link, graph);
      return graph;
    }
    case Shape::ring: {
      Graph graph(n);
      add_cycle(graph, 0, n, 1, link);
      return graph;
    }
    case Shape::torus2d: {
      const TorusDims dims = torus_dims(spec);
      Graph graph(n);
      for (int r = 0; r < dims.rows; ++r) add_cycle(graph, r * dims.cols, dims.cols, 1, link);
      for (int c = 0; c < dims.cols; ++c) add_cycle(graph, c, dims.rows, dims.cols, link);
      return graph;
    }
    case Shape::fat_tree:
      return build_fat_tree(spec);
    case Shape::leaf_spine:
      return build_leaf_spine(spec);
    case Shape::k_ary_fat_tree:
      return build_k_ary_fat_tree(spec);
    case Shape::edge_list: {
      Graph graph(n + static_cast<int>(spec.switches.size()));
      for (const EdgeSpec& e : spec.edges) {
        const Link own{e.latency_s < 0.0 ? spec.latency_s : e.latency_s,
                       e.bandwidth_Bps < 0.0 ? spec.bandwidth_Bps : e.bandwidth_Bps};
        boost::add_edge(e.a, e.b, own, graph);
      }
      return graph;
    }
  }
  CODESIM_CHECK(false, "unknown topology shape");
  return Graph();
}

Graph all_pairs_graph(const TopologySpec& spec) {
  Graph graph(spec.nodes);
  const Link link{spec.latency_s, spec.bandwidth_Bps};
  for (int a = 0; a < spec.nodes; ++a)
    for (int b = a + 1; b < spec.nodes; ++b) boost::add_edge(a, b, link, graph);
  return graph;
}

}  // namespace codesim::sim::detail
