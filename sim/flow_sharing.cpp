// SimGrid 3.32's sharing constants (network_cm02.cpp and its option defaults there).
#include "sim/flow_sharing.hpp"

#include <algorithm>
#include <limits>

#include "sim/enum_names.hpp"

namespace codesim::sim {

std::string_view to_string(FlowSharing sharing) { return name_of(sharing, kFlowSharingNames); }

SharingLaw sharing_law(FlowSharing sharing) {
  SharingLaw law;
  if (sharing == FlowSharing::max_min) return law;
  law.latency_weighted = true;
  law.tcp_gamma_B = 4194304.0;  // network/TCP-gamma: the largest TCP window, 4 MiB
  law.cross_traffic = true;     // network/crosstraffic: yes
  if (sharing == FlowSharing::lv08) {
    law.latency_factor = 13.01;  // slow start
    law.rate_factor = 0.97;
    law.weight_S_B = 20537.0;
  }
  return law;
}

double window_bound_Bps(const SharingLaw& law, double latency_s) {
  if (law.tcp_gamma_B > 0.0 && latency_s > 0.0) return law.tcp_gamma_B / (2.0 * latency_s);
  return std::numeric_limits<double>::infinity();
}

double lone_flow_time_s(const SharingLaw& law, double latency_s, double bottleneck_Bps,
                        double bytes) {
  const double rate_Bps =
      std::min(bottleneck_Bps, window_bound_Bps(law, latency_s)) * law.rate_factor;
  return latency_s * law.latency_factor + bytes / rate_Bps;
}

}  // namespace codesim::sim
