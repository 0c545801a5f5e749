// Chooses the network model a scenario names, and what the models share.
#include "sim/network_cost_model.hpp"

#include <algorithm>
#include <cstddef>
#include <limits>

#include "sim/check.hpp"

namespace codesim::sim {

std::unique_ptr<const NetworkCostModel> make_network_cost_model(NetworkModel model,
                                                                FlowSharing sharing,
                                                                std::uint64_t full_schedule_work) {
  switch (model) {
    case NetworkModel::flow:
      return detail::make_flow_network_model(sharing, full_schedule_work);
    case NetworkModel::analytic:
      CODESIM_CHECK(sharing == FlowSharing::max_min, "the analytic model shares no link");
      return detail::make_analytic_network_model();
  }
  CODESIM_CHECK(false, "unknown network model");
  return nullptr;
}

void add_network_notes(MetricSet& metrics, const Topology& topology) {
  if (!topology.simplification().empty())
    metrics.set_note("network_simplified", topology.simplification());
}

CommunicationCost NetworkCostModel::concurrent_incasts_cost(const Topology& topology,
                                                            std::span<const Incast> incasts) const {
  std::vector<CommunicationCost> node_costs(static_cast<std::size_t>(topology.node_count()));
  for (const Incast& incast : incasts)
    node_costs[static_cast<std::size_t>(incast.dst)] += incast_cost(topology, incast);
  // The slowest destination, the first such on ties.
  const auto it =
      std::max_element(node_costs.begin(), node_costs.end(),
                       [](const auto& a, const auto& b) { return a.time_s < b.time_s; });
  return it == node_costs.end() ? CommunicationCost{} : *it;
}

double contention_free_makespan_s(std::span<const RoutedTransfer> transfers) {
  double makespan_s = 0.0;
  for (const RoutedTransfer& transfer : transfers) {
    double latency_s = 0.0;
    double bottleneck_Bps = std::numeric_limits<double>::infinity();
    for (const RouteLink& link : transfer.route) {
      latency_s += link.latency_s;
      bottleneck_Bps = std::min(bottleneck_Bps, link.bandwidth_Bps);
    }
    makespan_s = std::max(makespan_s, latency_s + transfer.bytes / bottleneck_Bps);
  }
  return makespan_s;
}

}  // namespace codesim::sim
