// A Topology as a SimGrid 3.32 platform file, so the same cluster (links, latencies, bandwidths
// and the very routes codesim takes) can be run in SimGrid: by users, and by our SimGrid peer.
#pragma once

#include <ostream>
#include <span>
#include <utility>

#include "sim/checkpoint_storage.hpp"
#include "sim/topology.hpp"

namespace codesim::sim {

/// Writes `topology` as a SimGrid platform XML (DTD version 4.1), one zone with routing="Full":
///   - a host `node-I` per compute node I, speed speeds_flops_per_s[I] (1 Gflop/s when empty);
///   - a router `switch-J` per switch, J its vertex id (>= node_count());
///   - a link `link-K` per entry K of links(), sharing_policy SPLITDUPLEX (full duplex: each
///     direction has its own bandwidth), bandwidth in B/s and latency in s with 17 significant
///     digits, so they read back as the same doubles;
///   - a one-way route (symmetrical="NO") listing route_links(src, dst) for every ordered pair of
///     distinct compute nodes, or only for `pairs` when given (src != dst; repeats written once).
/// Direction 0 of a link (crossed from the lower to the higher vertex id: from a node towards the
/// switches) is SimGrid's UP, as in SimGrid's clusters where UP leads from a host towards the
/// backbone; each link's line ends with a comment naming the ends of its UP direction.
/// Size: nodes * (nodes - 1) routes (a line per link crossed, ~50 bytes), so pass `pairs` when
/// only some pairs talk on a large network.
///
/// With `storage` of kind shared (sim/checkpoint_storage.hpp), also the storage server: a host
/// `storage` (1 Gflop/s), its link `link-storage` (SPLITDUPLEX, the spec's latency and
/// bandwidth) hanging off vertex attach_vertex, and a one-way route from every compute node to
/// `storage` and back, listing storage_route_links: the links storage_transfer_time_s's flows
/// cross. `link-storage` is UP towards the server (a write) and DOWN from it (a read).
void write_simgrid_platform(std::ostream& out, const Topology& topology,
                            std::span<const std::pair<int, int>> pairs = {},
                            std::span<const double> speeds_flops_per_s = {},
                            const StorageSpec& storage = {});

}  // namespace codesim::sim
