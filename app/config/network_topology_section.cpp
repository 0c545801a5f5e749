// The `cluster.network` section: shape, model, sharing, collectives, edges and link overrides,
// read into sim::TopologySpec.
#include "app/config/network_topology_section.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "app/config/json_input.hpp"

namespace codesim::app {
namespace {

constexpr std::int64_t kMaxFullyConnectedNodes = 2048;  // p (p - 1) / 2 links

// Each named switch of an edge list and its vertex id.
using SwitchIds = std::unordered_map<std::string, int>;

// cluster.network.switches: the names of an edge list's switch vertices (ids nodes, nodes + 1...).
std::vector<std::string> read_switches(ObjectReader& r, SwitchIds& ids, int nodes) {
  std::vector<std::string> names;
  const Json* raw = r.raw("switches");
  if (raw == nullptr) return names;
  if (!raw->is_array()) {
    r.fail("switches", "wrong type: got " + describe_json(*raw) +
                           " (expected an array of switch names, strings)");
  }
  const ObjectReader list(nullptr, r.pointer_of("switches"), r.file());  // for its errors
  for (std::size_t i = 0; i < raw->size(); ++i) {
    const Json& name = (*raw)[i];
    if (!name.is_string() || name.get<std::string>().empty()) {
      list.fail(std::to_string(i), "wrong type: got " + describe_json(name) +
                                       " (expected a switch's name, a non-empty string)");
    }
    const auto [at, added] =
        ids.emplace(name.get<std::string>(), nodes + static_cast<int>(names.size()));
    if (!added) {
      list.fail(std::to_string(i), in_quotes(at->first) + " is already switches/" +
                                       std::to_string(at->second - nodes) +
                                       " (expected one name per switch)");
    }
    names.push_back(at->first);
  }
  r.record("switches", *raw);
  return names;
}

// An end of a link: a vertex id (an integer in 0..max_id), or the name of an edge list's switch.
int read_vertex(ObjectReader& r, std::string_view key, const SwitchIds& switches, int max_id,
                std::string_view ids) {
  const Json* value = r.raw(key);
  if (value == nullptr || !value->is_string())
    return static_cast<int>(r.integer(key, std::nullopt, 0, max_id));
  const std::string name = value->get<std::string>();
  const auto it = switches.find(name);
  if (it == switches.end()) {
    r.fail(key, in_quotes(name) + " names no switch (expected " + std::string(ids) +
                    (switches.empty() ? "; switches are named in cluster.network.switches)"
                                      : ", or a name listed in switches)"));
  }
  r.record(key, name);
  return it->second;
}

std::vector<sim::EdgeSpec> read_edges(ObjectReader& r, const sim::TopologySpec& network,
                                      const SwitchIds& switches) {
  std::vector<sim::EdgeSpec> edges;
  const Json* raw = r.raw("edges");
  if (raw == nullptr) r.fail("edges", "missing required key (expected an array of links)");
  if (!raw->is_array()) {
    r.fail("edges", "wrong type: got " + describe_json(*raw) +
                        " (expected an array of {a, b, latency_s, bandwidth_Bps} links)");
  }
  const std::string ids = "a compute-node id in 0.." + std::to_string(network.nodes - 1);
  Json resolved = Json::array();
  std::map<std::pair<int, int>, std::size_t> seen;  // pair -> its first index: n log n, not n^2
  for (std::size_t i = 0; i < raw->size(); ++i) {
    ObjectReader e(&(*raw)[i], r.pointer_of("edges") + "/" + std::to_string(i), r.file());
    sim::EdgeSpec edge;
    edge.a = read_vertex(e, "a", switches, network.nodes - 1, ids);
    edge.b = read_vertex(e, "b", switches, network.nodes - 1, ids);
    if (edge.a == edge.b) {
      e.fail("b", "a link from vertex " + std::to_string(edge.a) +
                      " to itself (expected two different vertices)");
    }
    const auto [first, added] = seen.emplace(std::minmax(edge.a, edge.b), edges.size());
    if (!added) {
      e.fail("b", "the link " + std::to_string(edge.a) + "-" + std::to_string(edge.b) +
                      " is already edges/" + std::to_string(first->second) +
                      " (expected one link per pair)");
    }
    edge.latency_s = e.number("latency_s", network.latency_s, at_least(0.0));
    edge.bandwidth_Bps = e.number("bandwidth_Bps", network.bandwidth_Bps, above(0.0));
    resolved.push_back(e.finish());
    edges.push_back(edge);
  }
  r.record("edges", std::move(resolved));
  return edges;
}

// cluster.network.link_overrides: [{a, b, latency_s, bandwidth_Bps}], each link of the shape
// named by its two vertex ids; checked against the shape once the rest of the network is read.
std::vector<sim::LinkOverride> read_link_overrides(ObjectReader& r, const SwitchIds& switches) {
  std::vector<sim::LinkOverride> overrides;
  const Json* raw = r.raw("link_overrides");
  if (raw == nullptr) return overrides;
  if (!raw->is_array()) {
    r.fail("link_overrides", "wrong type: got " + describe_json(*raw) +
                                 " (expected an array of {a, b, latency_s, bandwidth_Bps})");
  }
  Json resolved = Json::array();
  for (std::size_t i = 0; i < raw->size(); ++i) {
    ObjectReader o(&(*raw)[i], r.pointer_of("link_overrides") + "/" + std::to_string(i), r.file());
    sim::LinkOverride link;
    const std::string ids = "a vertex id: nodes, then switches";
    link.a = read_vertex(o, "a", switches, std::numeric_limits<int>::max(), ids);
    link.b = read_vertex(o, "b", switches, std::numeric_limits<int>::max(), ids);
    if (o.has("latency_s")) link.latency_s = o.number("latency_s", std::nullopt, at_least(0.0));
    if (o.has("bandwidth_Bps"))
      link.bandwidth_Bps = o.number("bandwidth_Bps", std::nullopt, above(0.0));
    if (link.latency_s < 0.0 && link.bandwidth_Bps < 0.0)
      o.fail("", "an override that changes nothing (expected latency_s or bandwidth_Bps)");
    resolved.push_back(o.finish());
    overrides.push_back(link);
  }
  r.record("link_overrides", std::move(resolved));
  return overrides;
}

// torus2d: rows and columns, 0 to choose; a product or a divisor of the nodes.
void read_torus(ObjectReader& r, sim::TopologySpec& t) {
  const int nodes = t.nodes;
  t.torus_rows = static_cast<int>(r.integer("torus_rows", 0, 0, nodes));
  t.torus_cols = static_cast<int>(r.integer("torus_cols", 0, 0, nodes));
  const std::int64_t rows = t.torus_rows;
  const std::int64_t cols = t.torus_cols;
  if (rows > 0 && cols > 0 && rows * cols != nodes) {
    r.fail("torus_cols", "torus_rows x torus_cols = " + std::to_string(rows) + " x " +
                             std::to_string(cols) + " does not match " + std::to_string(nodes) +
                             " nodes (expected rows x cols = nodes)");
  }
  if ((rows > 0 && cols == 0 && nodes % rows != 0) ||
      (cols > 0 && rows == 0 && nodes % cols != 0)) {
    r.fail(rows > 0 ? "torus_rows" : "torus_cols",
           "value " + std::to_string(std::max(rows, cols)) + " does not divide " +
               std::to_string(nodes) + " nodes (expected a divisor of nodes, or 0 to choose)");
  }
}

// k_ary_fat_tree: fat_tree_ports, recorded as resolved (0 picks the least k that fits).
void read_k_ary_fat_tree(ObjectReader& r, sim::TopologySpec& t) {
  const std::int64_t k = r.integer("fat_tree_ports", 0, 0, sim::kMaxFatTreePorts);
  if (k % 2 != 0)
    r.fail("fat_tree_ports",
           "value " + std::to_string(k) +
               " is odd (expected an even number of ports k, or 0 to fit the nodes)");
  if (k > 0 && k * k * k / 4 < t.nodes) {
    r.fail("fat_tree_ports", "a fat tree of " + std::to_string(k) + "-port switches holds " +
                                 std::to_string(k * k * k / 4) + " hosts, not the " +
                                 std::to_string(t.nodes) +
                                 " nodes (expected k with k^3 / 4 >= nodes, or 0 to fit them)");
  }
  t.fat_tree_ports = k > 0 ? static_cast<int>(k) : sim::fat_tree_ports_to_fit(t.nodes);
  r.record("fat_tree_ports", t.fat_tree_ports);
}

}  // namespace

sim::TopologySpec read_network(ObjectReader& r, int nodes) {
  using sim::TopologyShape;
  sim::TopologySpec t;
  t.nodes = nodes;
  t.model = r.kind("model", t.model, sim::kNetworkModelNames, "network model");
  // Recorded only when given: results of scenarios written before the key stay byte-identical.
  if (r.has("sharing")) {
    t.sharing = r.choice("sharing", t.sharing, sim::kFlowSharingNames);
    if (t.model != sim::NetworkModel::flow && t.sharing != sim::FlowSharing::max_min)
      r.fail("sharing", "sharing \"" + std::string(sim::to_string(t.sharing)) +
                            "\" applies to the flow model, not \"" +
                            std::string(sim::to_string(t.model)) +
                            "\" (expected \"max_min\", or model \"flow\")");
  }
  t.shape = r.kind("topology", t.shape, sim::kTopologyShapeNames, "topology");
  if (t.shape == TopologyShape::fully_connected && nodes > kMaxFullyConnectedNodes) {
    r.fail("topology", "fully_connected with " + std::to_string(nodes) +
                           " nodes is too many links (expected at most " +
                           std::to_string(kMaxFullyConnectedNodes) +
                           " nodes, or a star, ring, torus2d or fat_tree)");
  }
  // Like sharing, recorded only when given.
  if (r.has("collectives")) {
    r.object("collectives", [&t](ObjectReader& c) {
      t.collectives.all_gather =
          c.choice("all_gather", t.collectives.all_gather, sim::kAllGatherAlgorithmNames);
      t.collectives.broadcast =
          c.choice("broadcast", t.collectives.broadcast, sim::kBroadcastAlgorithmNames);
    });
  }
  t.latency_s = r.number("latency_s", t.latency_s, at_least(0.0));
  t.bandwidth_Bps = r.number("bandwidth_Bps", t.bandwidth_Bps, above(0.0));
  if (t.shape == TopologyShape::torus2d) {
    read_torus(r, t);
  } else if (t.shape == TopologyShape::fat_tree) {
    t.fat_tree_arity = static_cast<int>(r.integer("fat_tree_arity", t.fat_tree_arity, 2, 1024));
  } else if (t.shape == TopologyShape::leaf_spine) {
    t.hosts_per_leaf = static_cast<int>(r.integer("hosts_per_leaf", t.hosts_per_leaf, 1, 1 << 20));
    t.spines = static_cast<int>(r.integer("spines", t.spines, 1, 65536));
    t.leaves = static_cast<int>(r.integer("leaves", 0, 0, nodes));
    t.oversubscription = r.number("oversubscription", t.oversubscription, above(0.0));
    if (const double uplink = sim::leaf_spine_uplink_Bps(t);
        !(std::isfinite(uplink) && uplink > 0.0))
      r.fail("oversubscription",
             fmt::format("{:g} makes the uplinks' bandwidth hosts_per_leaf x bandwidth_Bps / "
                         "(spines x oversubscription) = {:g} B/s (expected an oversubscription "
                         "that leaves it finite and positive)",
                         t.oversubscription, uplink));
    const std::int64_t room = std::int64_t{t.leaves} * t.hosts_per_leaf;
    if (t.leaves > 0 && room < nodes) {
      r.fail("leaves", std::to_string(t.leaves) + " leaves of " + std::to_string(t.hosts_per_leaf) +
                           " hosts hold " + std::to_string(room) + " hosts, not the " +
                           std::to_string(nodes) +
                           " nodes (expected leaves x hosts_per_leaf >= nodes, or 0 to fit them)");
    }
  } else if (t.shape == TopologyShape::k_ary_fat_tree) {
    read_k_ary_fat_tree(r, t);
  }
  SwitchIds switches;
  if (t.shape == TopologyShape::edge_list) {
    t.switches = read_switches(r, switches, nodes);
    t.edges = read_edges(r, t, switches);
  }
  std::vector<sim::LinkOverride> overrides = read_link_overrides(r, switches);
  const std::string problem = sim::validate_topology(t);
  if (!problem.empty()) r.fail("", with_expectation(problem, "a valid network"));
  t.link_overrides = std::move(overrides);
  if (const auto bad = sim::find_override_problem(t)) {
    ObjectReader at(nullptr, r.pointer_of("link_overrides") + "/" + std::to_string(bad->index),
                    r.file());
    at.fail(bad->field, bad->message);
  }
  return t;
}

}  // namespace codesim::app
