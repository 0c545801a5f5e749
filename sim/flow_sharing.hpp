// How flows on a link direction share its bandwidth: pure max-min, or SimGrid's CM02 and LV08
// network models as SimGrid 3.32 runs them (src/kernel/resource/models/network_cm02.cpp there;
// Velho et al., "Flow-level network models: have we reached the limits?", INRIA RR-7821, 2011).
#pragma once

#include <array>
#include <string_view>

namespace codesim::sim {

/// The sharing a scenario names (`cluster.network.sharing`):
///   max_min  equal shares (progressive filling): SimGrid's CM02 with its latency weighting,
///            TCP window bound and cross-traffic turned off
///   cm02     SimGrid `network/model:CM02` with every other option at its default: shares
///            weighted by route latency, the TCP window bound and 5% cross-traffic
///   lv08     SimGrid `network/model:LV08` (its default model): cm02 plus latencies x 13.01,
///            rates x 0.97 and the weight-S term in the sharing penalty
enum class FlowSharing { max_min, cm02, lv08 };
inline constexpr std::array<std::string_view, 3> kFlowSharingNames = {"max_min", "cm02", "lv08"};
std::string_view to_string(FlowSharing sharing);

/// The constants of one sharing. A flow waits latency_factor x its route latency, then moves
/// bytes at rate_factor x the value max-min gives it, where each flow's share of a link is
/// weighted by 1 / penalty and capped by its window bound (SimGrid's lmm variables):
///   penalty  route latency + weight_S_B x sum over its links of 1 / bandwidth when
///            latency_weighted and the route latency is > 0; 1 otherwise (SimGrid keeps the
///            penalty of a flow with no latency at 1)
///   bound    tcp_gamma_B / (2 x route latency) when tcp_gamma_B > 0 and the latency is > 0
/// With cross_traffic, a flow also uses cross_traffic_weight of its value on every link of the
/// reverse route (dst to src), as acknowledgements would.
struct SharingLaw {
  bool latency_weighted = false;
  double latency_factor = 1.0;
  double rate_factor = 1.0;
  double weight_S_B = 0.0;
  double tcp_gamma_B = 0.0;
  bool cross_traffic = false;
  double cross_traffic_weight = 0.05;

  /// Every flow weighs the same and nothing beyond the links bounds it (max_min).
  bool plain() const {
    return !latency_weighted && !cross_traffic && tcp_gamma_B == 0.0 && rate_factor == 1.0 &&
           latency_factor == 1.0;
  }
};

SharingLaw sharing_law(FlowSharing sharing);

/// The bound on a flow's max-min value of route latency `latency_s` (infinity when none).
double window_bound_Bps(const SharingLaw& law, double latency_s);

/// Seconds for `bytes` to cross a route of latency latency_s and bottleneck bottleneck_Bps with
/// no other flow on it (its reverse route's links, which cross-traffic loads by 5% of the rate,
/// are assumed not to be the bottleneck).
double lone_flow_time_s(const SharingLaw& law, double latency_s, double bottleneck_Bps,
                        double bytes);

}  // namespace codesim::sim
