// Shared checkpoint storage: a storage server on the network, so that a global checkpoint's writes
// (and a restart's reads) are transfers that contend on its link, as they do on a real cluster.
#pragma once

#include <array>
#include <string>
#include <string_view>
#include <vector>

#include "sim/topology.hpp"

namespace codesim::sim {

/// Where checkpoints go:
///   local   every node writes its own state to its own disk: no transfers (the checkpoint
///           policy's costs only)
///   shared  one storage server linked to a place of the network (a compute node or a switch)
///           by its own link: a write sends every node's state to it at once, a restart reads
///           it back at once
enum class StorageKind { local, shared };
inline constexpr std::array<std::string_view, 2> kStorageKindNames = {"local", "shared"};

struct StorageSpec {
  StorageKind kind = StorageKind::local;
  /// shared: the vertex of the topology the server's link hangs off, by Topology's ids: compute
  /// nodes 0..nodes-1, then switches (star: its one switch is `nodes`; fat_tree: switches count
  /// up from `nodes` level by level, the root last, at vertex_count() - 1).
  int attach_vertex = 0;
  /// shared: whether the scenario named a switch (attach_switch) rather than a compute node
  /// (attach_node); kept so that a switch id that is in fact a node's is rejected, not taken.
  bool attach_to_switch = false;
  double latency_s = 1e-6;        ///< shared: the server link's latency, >= 0
  double bandwidth_Bps = 1.25e9;  ///< shared: the server link's bandwidth each way, > 0
};

/// "" when usable on `topology`, else what is wrong and what is expected: a compute node must be
/// one of its nodes; a switch needs a topology with switches (star, fat_tree) and one of their
/// ids. Every check of the place is here (the scenario loader reports it at its key).
std::string validate_storage(const StorageSpec& spec, const Topology& topology);

/// The directed links of compute node `node`'s transfer to the server (`write`) or from it: the
/// topology's route between the node and attach_vertex (route_links, so its ids are those of
/// every other transfer's), then the server link (first when reading). The server link's id is
/// 2 * topology.link_count() when writing, + 1 when reading: after every topology link's.
std::vector<RouteLink> storage_route_links(const Topology& topology, const StorageSpec& spec,
                                           int node, bool write);

/// Seconds for compute nodes 0..nodes-1 each to write `bytes_per_node` to the shared server
/// (`write`) or read it back, all at once, along storage_route_links: the topology's network
/// model's routed_makespan_s (flow: sharing links by max-min fairness; analytic: each transfer
/// alone, the slowest counting). 0 for local storage.
double storage_transfer_time_s(const Topology& topology, const StorageSpec& spec, int nodes,
                               double bytes_per_node, bool write);

}  // namespace codesim::sim
