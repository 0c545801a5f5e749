// Shifted steps on a uniform ring: one representative flow.
#include "sim/symmetric_steps.hpp"

#include <algorithm>

namespace codesim::sim {

std::optional<CommunicationCost> alike_shift_step_cost(const Topology& topology,
                                                       std::span<const int> participants,
                                                       std::size_t offset, double bytes) {
  const auto n = static_cast<std::size_t>(topology.node_count());
  if (topology.shape() != TopologyShape::ring || !topology.uniform_links() ||
      topology.sharing() != FlowSharing::max_min || n < 3 || participants.size() != n)
    return std::nullopt;
  offset %= n;
  if (offset == 0 || 2 * offset == n) return std::nullopt;
  const auto first = static_cast<std::size_t>(participants[0]);
  for (std::size_t i = 0; i < n; ++i)
    if (static_cast<std::size_t>(participants[i]) != (first + i) % n) return std::nullopt;
  const int src = participants[0];
  const int dst = participants[offset];
  const double hops = static_cast<double>(std::min(offset, n - offset));
  // As the flow network computes it: the route's latency, then bytes at bandwidth / h.
  const double latency_s = topology.route_latency_s(src, dst);
  const double time_s = latency_s + bytes / (topology.route_bandwidth_Bps(src, dst) / hops);
  return CommunicationCost{time_s, time_s - topology.transfer_time_s(src, dst, bytes)};
}

}  // namespace codesim::sim
