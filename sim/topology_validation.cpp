// Topology specs: the checks of validate_topology, kept apart from building and routing.
#include "sim/topology.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <map>
#include <numeric>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sim/topology_graphs.hpp"

namespace codesim::sim {
namespace {

constexpr int kMaxNodes = 1 << 24;
constexpr int kMaxFullyConnectedNodes = 65536;  // 65536 * 65535 / 2 links still fit an int

using Shape = TopologyShape;

template <typename... Args>
std::string concat(const Args&... args) {
  std::ostringstream out;
  (out << ... << args);
  return out.str();
}

std::string validate_torus(const TopologySpec& spec) {
  const int rows = spec.torus_rows;
  const int cols = spec.torus_cols;
  if (rows < 0 || cols < 0)
    return concat("torus2d needs torus_rows and torus_cols >= 0, 0 = choose (got ", rows, " x ",
                  cols, ")");
  if (rows > 0 && cols > 0 && static_cast<std::int64_t>(rows) * cols != spec.nodes)
    return concat("torus2d needs torus_rows * torus_cols == nodes (got ", rows, " x ", cols,
                  " for ", spec.nodes, " nodes)");
  if (rows > 0 && cols == 0 && spec.nodes % rows != 0)
    return concat("torus2d needs torus_rows to divide nodes (got ", rows, " for ", spec.nodes,
                  " nodes)");
  if (cols > 0 && rows == 0 && spec.nodes % cols != 0)
    return concat("torus2d needs torus_cols to divide nodes (got ", cols, " for ", spec.nodes,
                  " nodes)");
  return "";
}

int find_root(std::vector<int>& parent, int v) {
  while (parent[v] != v) v = parent[v] = parent[parent[v]];
  return v;
}

std::string validate_leaf_spine(const TopologySpec& spec) {
  if (spec.hosts_per_leaf < 1)
    return concat("hosts_per_leaf must be >= 1 (got ", spec.hosts_per_leaf, ")");
  if (spec.spines < 1) return concat("spines must be >= 1 (got ", spec.spines, ")");
  if (spec.leaves < 0)
    return concat("leaves must be >= 0, 0 to fit the nodes (got ", spec.leaves, ")");
  if (!(std::isfinite(spec.oversubscription) && spec.oversubscription > 0.0))
    return concat("oversubscription must be finite and > 0 (got ", spec.oversubscription, ")");
  if (const double uplink = leaf_spine_uplink_Bps(spec); !(std::isfinite(uplink) && uplink > 0.0))
    return concat("oversubscription ", spec.oversubscription,
                  " makes the uplinks' bandwidth hosts_per_leaf x bandwidth_Bps / (spines x "
                  "oversubscription) = ",
                  uplink, " B/s (expected a finite, positive bandwidth)");
  const std::int64_t room = std::int64_t{spec.leaves} * spec.hosts_per_leaf;
  if (spec.leaves > 0 && room < spec.nodes)
    return concat("leaf_spine with ", spec.leaves, " leaves of ", spec.hosts_per_leaf,
                  " hosts holds ", room, " hosts, not the ", spec.nodes,
                  " nodes (expected leaves x hosts_per_leaf >= nodes, or leaves 0 to fit them)");
  const std::int64_t leaves =
      spec.leaves > 0 ? spec.leaves
                      : (std::int64_t{spec.nodes} + spec.hosts_per_leaf - 1) / spec.hosts_per_leaf;
  if (std::int64_t{spec.nodes} + leaves + spec.spines > kMaxNodes ||
      leaves * spec.spines > kMaxNodes)
    return concat("leaf_spine with ", leaves, " leaves and ", spec.spines, " spines has ",
                  leaves * spec.spines, " uplinks (expected at most ", kMaxNodes,
                  " uplinks and switches)");
  return "";
}

std::string validate_k_ary_fat_tree(const TopologySpec& spec) {
  const int k = spec.fat_tree_ports > 0 ? spec.fat_tree_ports : fat_tree_ports_to_fit(spec.nodes);
  if (spec.fat_tree_ports < 0 || k % 2 != 0 || k > kMaxFatTreePorts)
    return concat("fat_tree_ports must be an even number in 2..", kMaxFatTreePorts,
                  ", or 0 for the least that fits the nodes (got ", spec.fat_tree_ports,
                  spec.fat_tree_ports == 0 ? concat(": ", spec.nodes, " nodes need ", k) : "", ")");
  const std::int64_t hosts = std::int64_t{k} * k * k / 4;
  if (hosts < spec.nodes)
    return concat("k_ary_fat_tree of ", k, "-port switches holds ", hosts, " hosts, not the ",
                  spec.nodes,
                  " nodes (expected fat_tree_ports k with k^3 / 4 >= nodes, or 0 to fit them)");
  return "";
}

std::string validate_edges(const TopologySpec& spec) {
  if (spec.switches.size() > static_cast<std::size_t>(kMaxNodes - spec.nodes))
    return concat("edge_list has ", spec.switches.size(), " switches (expected at most ",
                  kMaxNodes - spec.nodes, ")");
  const int vertices = spec.nodes + static_cast<int>(spec.switches.size());
  std::set<std::string_view> names;
  for (const std::string& name : spec.switches)
    if (name.empty() || !names.insert(name).second)
      return concat("edge_list switch name \"", name, "\" is ",
                    name.empty() ? "empty" : "given twice", " (expected unique names)");
  std::map<std::pair<int, int>, std::size_t> first_edge_of_pair;
  std::vector<int> parent(vertices);
  std::iota(parent.begin(), parent.end(), 0);
  for (std::size_t i = 0; i < spec.edges.size(); ++i) {
    const EdgeSpec& e = spec.edges[i];
    if (e.a < 0 || e.a >= vertices || e.b < 0 || e.b >= vertices)
      return concat("edge ", i, " (", e.a, "-", e.b, ") needs ",
                    spec.switches.empty() ? "node" : "vertex", " ids in 0..", vertices - 1,
                    spec.switches.empty() ? "" : " (nodes, then switches)");
    if (e.a == e.b)
      return concat("edge ", i, " (", e.a, "-", e.b,
                    ") is a self loop; a link must join two different nodes");
    if (!(e.latency_s < 0.0) && !std::isfinite(e.latency_s))
      return concat("edge ", i, " latency_s must be finite, or negative for the default (got ",
                    e.latency_s, ")");
    if (!(e.bandwidth_Bps < 0.0) && !(std::isfinite(e.bandwidth_Bps) && e.bandwidth_Bps > 0.0))
      return concat("edge ", i,
                    " bandwidth_Bps must be finite and > 0, or negative for the default (got ",
                    e.bandwidth_Bps, ")");
    const auto pair = std::minmax(e.a, e.b);
    const auto [it, inserted] = first_edge_of_pair.emplace(pair, i);
    if (!inserted)
      return concat("edges ", it->second, " and ", i, " both link nodes ", pair.first, " and ",
                    pair.second, "; at most one link per pair");
    parent[find_root(parent, e.a)] = find_root(parent, e.b);
  }
  for (int v = 1; v < vertices; ++v)
    if (find_root(parent, v) != find_root(parent, 0))
      return concat("edge_list does not connect all ",
                    v < spec.nodes ? "nodes (node " : "switches (switch ",
                    v < spec.nodes ? v : v - spec.nodes, " is unreachable from node 0)");
  return "";
}

}  // namespace

std::string validate_topology(const TopologySpec& spec) {
  const Shape shape = spec.shape;
  if (static_cast<std::size_t>(shape) >= kTopologyShapeNames.size())
    return concat("unknown shape ", static_cast<int>(shape));
  if (spec.nodes < 1 || spec.nodes > kMaxNodes)
    return concat("nodes must be between 1 and ", kMaxNodes, " (got ", spec.nodes, ")");
  if (!(std::isfinite(spec.latency_s) && spec.latency_s >= 0.0))
    return concat("latency_s must be finite and >= 0 (got ", spec.latency_s, ")");
  if (!(std::isfinite(spec.bandwidth_Bps) && spec.bandwidth_Bps > 0.0))
    return concat("bandwidth_Bps must be finite and > 0 (got ", spec.bandwidth_Bps, ")");
  if (shape != Shape::edge_list && (!spec.edges.empty() || !spec.switches.empty()))
    return concat("edges and switches are only used by shape edge_list (got ", spec.edges.size(),
                  " edges and ", spec.switches.size(), " switches for ", to_string(spec.shape),
                  ")");
  if (!spec.link_overrides.empty()) {
    TopologySpec plain = spec;
    plain.link_overrides.clear();
    if (std::string problem = validate_topology(plain); !problem.empty()) return problem;
    if (const auto problem = find_override_problem(spec))
      return concat("link_overrides ", problem->index, " ", problem->field, ": ", problem->message);
    return "";
  }
  if (spec.model != NetworkModel::flow && spec.sharing != FlowSharing::max_min)
    return concat("sharing ", to_string(spec.sharing), " applies to the flow model (got model ",
                  to_string(spec.model), "; expected model flow, or sharing max_min)");
  switch (shape) {
    case Shape::fully_connected:
      if (spec.nodes > kMaxFullyConnectedNodes)
        return concat("fully_connected allows at most ", kMaxFullyConnectedNodes, " nodes (got ",
                      spec.nodes, "); use star for a large single switch");
      return "";
    case Shape::torus2d:
      return validate_torus(spec);
    case Shape::fat_tree:
      if (spec.fat_tree_arity < 2)
        return concat("fat_tree_arity must be >= 2 (got ", spec.fat_tree_arity, ")");
      return "";
    case Shape::edge_list:
      return validate_edges(spec);
    case Shape::leaf_spine:
      return validate_leaf_spine(spec);
    case Shape::k_ary_fat_tree:
      return validate_k_ary_fat_tree(spec);
    case Shape::star:
    case Shape::ring:
      return "";
  }
  return "";
}

std::optional<OverrideProblem> find_override_problem(const TopologySpec& spec) {
  if (spec.link_overrides.empty()) return std::nullopt;
  const detail::Graph graph = detail::build_graph(spec, spec.shape);
  const auto vertices = static_cast<int>(boost::num_vertices(graph));
  std::set<std::pair<int, int>> seen;
  for (std::size_t i = 0; i < spec.link_overrides.size(); ++i) {
    const LinkOverride& o = spec.link_overrides[i];
    for (const auto& [field, vertex] : {std::pair{"a", o.a}, std::pair{"b", o.b}}) {
      if (vertex < 0 || vertex >= vertices)
        return OverrideProblem{
            i, field,
            concat(vertex, " is not a vertex of this ", to_string(spec.shape),
                   " (expected a vertex id in 0..", vertices - 1, ": nodes, then switches)")};
    }
    const bool linked = spec.shape == TopologyShape::fully_connected
                            ? o.a != o.b
                            : boost::edge(o.a, o.b, graph).second;
    if (!linked)
      return OverrideProblem{
          i, "b",
          concat("no link joins vertices ", o.a, " and ", o.b, " in this ", to_string(spec.shape),
                 " (expected the two ends of one of its links)")};
    if (!seen.insert(std::minmax(o.a, o.b)).second)
      return OverrideProblem{i, "b",
                             concat("the link ", o.a, "-", o.b,
                                    " is overridden twice (expected one override per link)")};
    if (!(o.latency_s < 0.0) && !std::isfinite(o.latency_s))
      return OverrideProblem{i, "latency_s", concat("got ", o.latency_s, " (expected >= 0)")};
    if (!(o.bandwidth_Bps < 0.0) && !(std::isfinite(o.bandwidth_Bps) && o.bandwidth_Bps > 0.0))
      return OverrideProblem{i, "bandwidth_Bps",
                             concat("got ", o.bandwidth_Bps, " (expected a finite number > 0)")};
  }
  return std::nullopt;
}

double leaf_spine_uplink_Bps(const TopologySpec& spec) {
  return spec.hosts_per_leaf * spec.bandwidth_Bps / (spec.spines * spec.oversubscription);
}

}  // namespace codesim::sim
