// Posting flows on a FlowNetwork: a route (and under cross-traffic its way back), or under max-min
// only the links that may limit it, with the latency and sharing weights of its law.
#include <cmath>

#include "sim/check.hpp"
#include "sim/flow_network.hpp"

namespace codesim::sim {

FlowId FlowNetwork::add_flow_along(std::span<const std::size_t> route, double bytes, double start_s,
                                   std::span<const std::size_t> back_route) {
  double latency_s = 0.0;
  for (std::size_t link : route) {
    CODESIM_CHECK(link < links_.size(), "a route names a link that does not exist");
    latency_s += links_[link].latency_s;
  }
  Flow& flow = push_flow(route, latency_s, bytes, start_s);
  if (law_.latency_weighted && latency_s > 0.0) {
    flow.penalty = latency_s;  // summed link by link, as SimGrid does
    if (law_.weight_S_B > 0.0)
      for (std::size_t link : route) flow.penalty += law_.weight_S_B / links_[link].bandwidth_Bps;
  }
  flow.bound_Bps = window_bound_Bps(law_, latency_s);
  if (law_.cross_traffic) {
    // push_flow marked the route's links with the current stamp.
    for (std::size_t link : back_route) {
      CODESIM_CHECK(link < links_.size(), "a back route names a link that does not exist");
      if (link_mark_[link] == stamp_) continue;
      link_mark_[link] = stamp_;
      route_links_.push_back(static_cast<Index>(link));
    }
  }
  flow.route_size = static_cast<Index>(route_links_.size() - flow.route_begin);
  return post_last_flow();
}

FlowId FlowNetwork::add_flow_limited_by(std::span<const std::size_t> limiting,
                                        double route_latency_s, double bytes, double start_s) {
  CODESIM_CHECK(law_.plain(), "only max-min sharing takes routes cut to their limiting links");
  CODESIM_CHECK(!limiting.empty(), "a flow needs a link that limits it");
  CODESIM_CHECK(route_latency_s >= 0.0 && std::isfinite(route_latency_s),
                "a route's latency must be finite and >= 0");
  push_flow(limiting, route_latency_s, bytes, start_s);
  return post_last_flow();
}

// A new waiting flow on `route` (its forward hops), posted at start_s, its latency scaled by the
// law; the caller completes it (back route, penalty, bound) and posts it (post_last_flow).
FlowNetwork::Flow& FlowNetwork::push_flow(std::span<const std::size_t> route, double latency_s,
                                          double bytes, double start_s) {
  CODESIM_CHECK(start_s >= now_s_ && std::isfinite(start_s), "a flow cannot start in the past");
  CODESIM_CHECK(bytes >= 0.0 && std::isfinite(bytes), "a flow's size must be finite and >= 0");
  CODESIM_CHECK(flows_.size() < kNone - 1, "too many flows for one flow network");
  const Index stamp = next_stamp();
  for (std::size_t link : route) {
    CODESIM_CHECK(link < links_.size(), "a route names a link that does not exist");
    CODESIM_CHECK(link_mark_[link] != stamp, "a route crosses the same link twice");
    link_mark_[link] = stamp;
  }
  Flow& flow = flows_.emplace_back();
  flow.bytes = bytes;
  flow.remaining_bytes = bytes;
  flow.event_s = start_s + latency_s * law_.latency_factor;
  flow.route_begin = route_links_.size();
  flow.forward_size = static_cast<Index>(route.size());
  for (std::size_t link : route) route_links_.push_back(static_cast<Index>(link));
  flow.route_size = flow.forward_size;
  return flow;
}

// The flow push_flow added, with its route complete: its route slots and its first event.
FlowId FlowNetwork::post_last_flow() {
  route_slots_.resize(route_links_.size(), kNone);
  const auto id = static_cast<Index>(flows_.size() - 1);
  push_event(id);
  return id;
}

}  // namespace codesim::sim
