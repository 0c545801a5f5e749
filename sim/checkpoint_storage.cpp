// Checkpoint transfers to and from a shared storage server, as flows on the network's links.
#include "sim/checkpoint_storage.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "sim/flow_network.hpp"

namespace codesim::sim {

std::string validate_storage(const StorageSpec& spec, int nodes) {
  if (spec.kind == StorageKind::local) return "";
  if (spec.attach_node < 0 || spec.attach_node >= nodes)
    return "storage attach_node must be a node id in 0.." + std::to_string(nodes - 1) + " (got " +
           std::to_string(spec.attach_node) + ")";
  if (!(std::isfinite(spec.latency_s) && spec.latency_s >= 0.0))
    return "storage latency_s must be finite and >= 0";
  if (!(std::isfinite(spec.bandwidth_Bps) && spec.bandwidth_Bps > 0.0))
    return "storage bandwidth_Bps must be finite and > 0";
  return "";
}

namespace {

// The directed links of node -> server (write) or server -> node (read); the server link gets the
// id after every topology link's.
std::vector<RouteLink> storage_route(const Topology& topology, const StorageSpec& spec, int node,
                                     bool write) {
  const auto server_link = 2 * static_cast<std::uint64_t>(topology.link_count());
  std::vector<RouteLink> route = write ? topology.route_links(node, spec.attach_node)
                                       : topology.route_links(spec.attach_node, node);
  const RouteLink server{server_link + (write ? 0 : 1), spec.latency_s, spec.bandwidth_Bps};
  route.insert(write ? route.end() : route.begin(), server);
  return route;
}

}  // namespace

double storage_transfer_time_s(const Topology& topology, const StorageSpec& spec, int nodes,
                               double bytes_per_node, bool write) {
  if (spec.kind == StorageKind::local || nodes <= 0) return 0.0;
  std::string key = "storage";
  const auto append = [&key](const auto& value) { Topology::append_to_key(key, value); };
  append(write);
  append(nodes);
  append(spec.attach_node);
  append(bytes_per_node);
  append(spec.latency_s);
  append(spec.bandwidth_Bps);
  if (const std::vector<double>* known = topology.remembered(key)) return known->front();
  std::unordered_map<std::uint64_t, std::size_t> dense;
  std::vector<FlowLink> links;
  std::vector<FlowSpec> flows;
  double alone_s = 0.0;  // the analytic model's: the slowest transfer alone
  for (int node = 0; node < nodes; ++node) {
    FlowSpec flow;
    flow.bytes = bytes_per_node;
    double latency_s = 0.0;
    double bottleneck_Bps = spec.bandwidth_Bps;
    for (const RouteLink& link : storage_route(topology, spec, node, write)) {
      const auto [it, added] = dense.emplace(link.id, links.size());
      if (added)
        links.push_back(
            {std::min(link.bandwidth_Bps, std::numeric_limits<double>::max()), link.latency_s});
      flow.route.push_back(it->second);
      latency_s += link.latency_s;
      bottleneck_Bps = std::min(bottleneck_Bps, link.bandwidth_Bps);
    }
    alone_s = std::max(alone_s, latency_s + bytes_per_node / bottleneck_Bps);
    flows.push_back(std::move(flow));
  }
  double time_s = alone_s;
  if (topology.network_model() == NetworkModel::flow && std::isfinite(alone_s)) {
    const std::vector<double> done_s = simulate_flows(links, flows);
    time_s = *std::max_element(done_s.begin(), done_s.end());
  }
  topology.remember(std::move(key), {time_s});
  return time_s;
}

}  // namespace codesim::sim
