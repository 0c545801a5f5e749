// SimGrid 3.32 set to pure max-min sharing, shared by the peers of codesim's flow model
// (simgrid_flows.cpp, simgrid_schedules.cpp) so that both compare against the same SimGrid.
//
// The configuration: CM02 (LV08 without its corrective factors), latency and bandwidth factors of
// 1, weight-S 0, TCP-gamma 0 (no window bound: a variable bound of 0 means unbounded), and no
// cross-traffic (by default a flow also loads the reverse direction by 5%).
// One difference stays: CM02 weighs each flow's share by its route latency (RTT unfairness),
// which pure max-min does not. So the links carry no latency in SimGrid and each flow first
// sleeps its route latency, as CM02's latency phase does (a flow takes no share before its
// latency has passed).
#pragma once

#include <simgrid/s4u.hpp>

#include "sim/flow_sharing.hpp"

namespace codesim::bench {

/// Sets the pure max-min configuration. Call once the engine exists (before, SimGrid knows no
/// options) and before the platform is built or loaded; a --cfg=... given on the command line
/// for one of these options wins.
void configure_max_min();

/// The SimGrid configuration that codesim's `sharing` equals: configure_max_min for max_min,
/// else network/model CM02 or LV08 with every other option at SimGrid's default.
void configure_sharing(sim::FlowSharing sharing);

/// Sets the latency of every link of the engine's platform to 0 (after the platform is loaded,
/// before run()), so that flows can sleep their route latencies instead.
void zero_link_latencies(const simgrid::s4u::Engine& engine);

}  // namespace codesim::bench
