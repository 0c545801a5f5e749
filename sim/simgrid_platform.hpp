// A Topology as a SimGrid 3.32 platform file, so the same cluster (links, latencies, bandwidths
// and the very routes codesim takes) can be run in SimGrid: by users, and by our SimGrid peer.
// Routes come in one of two forms, because listing a route per ordered pair of nodes grows as
// nodes^2 (553 MB at 1,024 nodes on a 4-ary fat tree) while most shapes need far less:
//   shortest  where SimGrid's own shortest paths over the links are exactly codesim's routes, a
//             zone with routing="DijkstraCache" declaring only one-hop routes along each link
//             (size linear in the links: 7 to 14 MB at 16,384 nodes);
//   explicit  everywhere else (ECMP on a leaf-spine, cycles in an edge list, shapes whose
//             routes SimGrid's rule may not reproduce), a zone with routing="Full" listing every
//             route, which bounds the nodes one can export (estimate_explicit_platform_bytes).
// SimGrid's Dijkstra (src/kernel/routing/DijkstraZone.cpp, 3.32) counts each one-hop route as
// one link, keeps the first strict improvement and pops equal costs lowest graph vertex first,
// a vertex's graph index being the order in which the routes first name it. So its route ends
// at each vertex with the lowest-index neighbour one hop closer to the source: codesim's rule
// (sim/topology.hpp: fewest latency, then hops, then the lowest-id predecessor) when every link
// has the same latency and vertices are first named in id order, and trivially on a tree, where
// each pair has one path. bench/peers/simgrid_routes checks the two agree route by route.
#pragma once

#include <cstdint>
#include <ostream>
#include <span>
#include <utility>

#include "sim/checkpoint_storage.hpp"
#include "sim/topology.hpp"

namespace codesim::sim {

/// How write_simgrid_platform lists the routes.
enum class PlatformRoutes {
  automatic,        ///< shortest when shortest_paths_are_routes, else explicit
  explicit_routes,  ///< always a Full zone listing each route
};

/// Whether SimGrid's Dijkstra over one-hop routes along the links takes exactly route_links
/// between every two vertices: on trees (one path per pair, whatever the links), and on a ring or
/// torus2d whose links are all alike (ties broken by the lowest-id predecessor, as codesim does).
/// Every other shape, a shape added later included, answers false unless it is a tree.
bool shortest_paths_are_routes(const Topology& topology);

/// Estimated bytes of the explicit form with every ordered pair of compute nodes (and the
/// storage routes of `storage`): the routes of a deterministic sample of pairs, written, scaled
/// up to all pairs. Exact on shapes whose routes all have the same length.
std::uint64_t estimate_explicit_platform_bytes(const Topology& topology,
                                               const StorageSpec& storage = {});

/// Writes `topology` as a SimGrid platform XML (DTD version 4.1), one zone named codesim:
///   - a host `node-I` per compute node I, speed speeds_flops_per_s[I] (1 Gflop/s when empty);
///   - a router `switch-J` per switch, J its vertex id (>= node_count());
///   - a link `link-K` per entry K of links(), sharing_policy SPLITDUPLEX (full duplex: each
///     direction has its own bandwidth), bandwidth in B/s and latency in s with 17 significant
///     digits, so they read back as the same doubles;
///   - shortest form (routing="DijkstraCache"): for each link, in the order of its higher then
///     its lower end's id, a one-way route (symmetrical="NO") from the lower end to the higher
///     (the link UP) and one back (DOWN), so that SimGrid first names vertices in id order;
///   - explicit form (routing="Full"): a one-way route listing route_links(src, dst) for every
///     ordered pair of distinct compute nodes, or only for `pairs` when given (src != dst;
///     repeats written once). `pairs` is ignored in the shortest form, which has every route.
/// Direction 0 of a link (crossed from the lower to the higher vertex id: from a node towards the
/// switches) is SimGrid's UP, as in SimGrid's clusters where UP leads from a host towards the
/// backbone; each link's line ends with a comment naming the ends of its UP direction.
///
/// With `storage` of kind shared (sim/checkpoint_storage.hpp), also the storage server: a host
/// `storage` (1 Gflop/s), its link `link-storage` (SPLITDUPLEX, the spec's latency and
/// bandwidth) hanging off vertex attach_vertex, and the routes storage_transfer_time_s's flows
/// take (storage_route_links): in the shortest form the one-hop routes between attach_vertex and
/// `storage` (SimGrid then finds the rest as it does between nodes), in the explicit form a
/// one-way route from every compute node to `storage` and back. `link-storage` is UP towards the
/// server (a write) and DOWN from it (a read).
void write_simgrid_platform(std::ostream& out, const Topology& topology,
                            std::span<const std::pair<int, int>> pairs = {},
                            std::span<const double> speeds_flops_per_s = {},
                            const StorageSpec& storage = {},
                            PlatformRoutes routes = PlatformRoutes::automatic);

}  // namespace codesim::sim
