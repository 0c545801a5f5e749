// The multi-rooted three-tier fat tree datacenters build (Al-Fares, Loukissas and Vahdat, "A
// scalable, commodity data center network architecture", SIGCOMM 2008), and the ECMP routes of
// both Clos shapes: every path between two hosts through the fabric has the same hop count, and
// a flow takes the one a deterministic hash of (source, destination) picks, so runs stay
// byte-identical.
#pragma once

#include <variant>
#include <vector>

#include "sim/leaf_spine.hpp"

namespace codesim::sim::detail {

/// A fat tree of k-port switches (k even): k pods, each of k/2 edge switches and k/2 aggregation
/// switches with every edge switch linked to every aggregation switch of its pod; (k/2)^2 core
/// switches in k/2 groups, core switch c linked to aggregation switch c / (k/2) of every pod; k/2
/// hosts per edge switch. Vertices: compute nodes 0..nodes-1 (node i on edge switch i / (k/2)),
/// then the k^2/2 edge switches pod by pod, the k^2/2 aggregation switches pod by pod, the core.
struct KaryFatTree {
  int nodes = 0;
  int ports = 0;  ///< k

  int half() const { return ports / 2; }
  int edge_vertex(int node) const { return nodes + node / half(); }
  int aggregation_vertex(int pod, int index) const {
    return nodes + ports * half() + pod * half() + index;
  }
  int core_vertex(int core) const { return nodes + 2 * ports * half() + core; }
  int pod_of(int node) const { return node / (half() * half()); }
  int switch_count() const { return 2 * ports * half() + half() * half(); }
  /// The route's vertices, src first: up to the lowest tier that joins the two hosts and down,
  /// through the aggregation (same pod) or core (other pod) switch ECMP's hash picks.
  std::vector<int> route(int src, int dst) const;
};

/// A Clos network with equal-cost paths between its leaves, and its ECMP route.
using EcmpRoutes = std::variant<LeafSpine, KaryFatTree>;
std::vector<int> ecmp_route(const EcmpRoutes& clos, int src, int dst);

}  // namespace codesim::sim::detail
