// Shared checkpoint storage: a storage server on the network, so that a global checkpoint's writes
// (and a restart's reads) are transfers that contend on its link (issue 18).
#pragma once

#include <array>
#include <string>
#include <string_view>

#include "sim/topology.hpp"

namespace codesim::sim {

/// Where checkpoints go:
///   local   every node writes its own state to its own disk: no transfers (the checkpoint
///           policy's costs only)
///   shared  one storage server linked to compute node `attach_node` by its own link: a write
///           sends every node's state to it at once, a restart reads it back at once
enum class StorageKind { local, shared };
inline constexpr std::array<std::string_view, 2> kStorageKindNames = {"local", "shared"};

struct StorageSpec {
  StorageKind kind = StorageKind::local;
  int attach_node = 0;            ///< shared: the compute node the server hangs off
  double latency_s = 1e-6;        ///< shared: the server link's latency, >= 0
  double bandwidth_Bps = 1.25e9;  ///< shared: the server link's bandwidth each way, > 0
};

/// "" when usable for a network of `nodes` compute nodes, else what is wrong and what is expected.
std::string validate_storage(const StorageSpec& spec, int nodes);

/// Seconds for compute nodes 0..nodes-1 each to write `bytes_per_node` to the shared server
/// (`write`) or read it back, all at once: flows on route(node, attach_node) plus the server link,
/// sharing links by max-min fairness under the flow model; under the analytic model each transfer
/// alone (the slowest counts). 0 for local storage.
double storage_transfer_time_s(const Topology& topology, const StorageSpec& spec, int nodes,
                               double bytes_per_node, bool write);

}  // namespace codesim::sim
