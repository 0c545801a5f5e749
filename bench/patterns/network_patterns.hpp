// Named communication patterns on named platforms, shared by codesim-bench network and the
// SimGrid peer (bench/peers/simgrid_schedules.cpp), so both sides run the very same transfers.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "sim/topology.hpp"
#include "sim/transfer_schedule.hpp"

namespace codesim::bench {

struct NetworkPattern {
  sim::TopologySpec platform;      ///< the network the transfers run on (model: flow)
  sim::TransferSchedule schedule;  ///< the transfers, with their dependencies
};

/// Patterns:   one_transfer, two_flows, incast_16, all_to_all, permutation, ring_all_gather,
///             bruck_all_gather, broadcast, gather, codenet_round (one training round's
///             communication: CodeNet 7x6 on the paper's first layer, needs 42 nodes)
/// Platforms:  star, fat_tree (arity 4), torus2d, dumbbell (edge list: nodes 0..n/2-1 linked to
///             node 0, the others to node n/2, and one 0 - n/2 link with a tenth of the bandwidth)
/// Links: 1 us latency, 1.25e9 B/s; transfers move 1e6 bytes (per block for the all-gathers).
/// Throws std::invalid_argument naming the problem for unknown names or too few nodes.
NetworkPattern make_network_pattern(std::string_view pattern, std::string_view platform, int nodes);
/// The named platform alone (what make_network_pattern runs its transfers on).
sim::TopologySpec make_network_platform(std::string_view platform, int nodes);

std::vector<std::string> network_pattern_names();
std::vector<std::string> network_platform_names();

}  // namespace codesim::bench
