// Checkpoint transfers to and from a shared storage server on the network's links, costed by the
// topology's network model.
#include "sim/checkpoint_storage.hpp"

#include <cmath>
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "sim/flow_sharing.hpp"
#include "sim/network_cost_model.hpp"

namespace codesim::sim {

std::string validate_storage(const StorageSpec& spec, const Topology& topology) {
  if (spec.kind == StorageKind::local) return "";
  const int nodes = topology.node_count();
  const int vertices = topology.vertex_count();
  const int id = spec.attach_vertex;
  if (!spec.attach_to_switch && (id < 0 || id >= nodes))
    return std::to_string(id) + " is not a compute node's id (expected a node id in 0.." +
           std::to_string(nodes - 1) + ")";
  if (spec.attach_to_switch) {
    const std::string shape(to_string(topology.shape()));
    // fully_connected, ring and torus2d (and edge lists without switches) have none.
    if (vertices == nodes)
      return "topology " + shape +
             " has no switches (expected a topology with switches: star, fat_tree, leaf_spine, "
             "k_ary_fat_tree or an edge_list with switches; or attach_node for a compute node)";
    const std::string root = std::to_string(vertices - 1);
    const std::string expected = vertices - nodes == 1
                                     ? "(expected its only switch, " + root + ")"
                                     : "(expected a switch id in " + std::to_string(nodes) + ".." +
                                           root + ", the root being " + root + ")";
    if (id >= 0 && id < nodes)
      return std::to_string(id) + " is a compute node's id, not a switch's " + expected;
    if (id < 0 || id >= vertices)
      return std::to_string(id) + " is not a vertex of this " + shape + " " + expected;
  }
  if (!(std::isfinite(spec.latency_s) && spec.latency_s >= 0.0))
    return "storage latency_s must be finite and >= 0";
  if (!(std::isfinite(spec.bandwidth_Bps) && spec.bandwidth_Bps > 0.0))
    return "storage bandwidth_Bps must be finite and > 0";
  return "";
}

std::vector<RouteLink> storage_route_links(const Topology& topology, const StorageSpec& spec,
                                           int node, bool write) {
  const auto server_link = 2 * static_cast<std::uint64_t>(topology.link_count());
  std::vector<RouteLink> route = write ? topology.route_links(node, spec.attach_vertex)
                                       : topology.route_links(spec.attach_vertex, node);
  const RouteLink server{server_link + (write ? 0 : 1), spec.latency_s, spec.bandwidth_Bps};
  route.insert(write ? route.end() : route.begin(), server);
  return route;
}

double storage_transfer_time_s(const Topology& topology, const StorageSpec& spec, int nodes,
                               double bytes_per_node, bool write) {
  if (spec.kind == StorageKind::local || nodes <= 0) return 0.0;
  std::string key = "storage";
  const auto append = [&key](const auto& value) { Topology::append_to_key(key, value); };
  append(write);
  append(nodes);
  append(spec.attach_vertex);  // the place: a valid switch's id is never a node's
  append(bytes_per_node);
  append(spec.latency_s);
  append(spec.bandwidth_Bps);
  if (const std::vector<double>* known = topology.remembered(key)) return known->front();
  std::vector<RoutedTransfer> transfers;
  transfers.reserve(static_cast<std::size_t>(nodes));
  for (int node = 0; node < nodes; ++node)
    transfers.push_back({storage_route_links(topology, spec, node, write), bytes_per_node});
  if (sharing_law(topology.sharing()).cross_traffic)
    for (int node = 0; node < nodes; ++node)
      transfers[static_cast<std::size_t>(node)].back_route =
          storage_route_links(topology, spec, node, !write);
  const double time_s = topology.network_cost_model().routed_makespan_s(transfers);
  topology.remember(std::move(key), {time_s});
  return time_s;
}

}  // namespace codesim::sim
