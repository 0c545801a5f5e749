// A two-tier Clos (leaf-spine) network as datacenters build it, and its ECMP routes: hosts hang
// off leaf switches, every leaf links to every spine, and a flow between leaves takes the spine a
// deterministic hash of (source, destination) picks among the equal-cost ones.
#pragma once

#include <cstdint>
#include <vector>

namespace codesim::sim::detail {

/// Vertices: compute nodes 0..nodes-1 (node i on leaf i / hosts_per_leaf), then the leaves
/// nodes..nodes+leaves-1, then the spines.
struct LeafSpine {
  int nodes = 0;
  int leaves = 0;
  int spines = 0;
  int hosts_per_leaf = 0;

  int leaf_vertex(int node) const { return nodes + node / hosts_per_leaf; }
  int spine_vertex(int spine) const { return nodes + leaves + spine; }
  /// ECMP: the spine a flow from src to dst crosses (a fixed hash, so runs are byte-identical).
  int spine_for(int src, int dst) const;
  /// The route's vertices, src first: src, its leaf, (a spine, dst's leaf,) dst.
  std::vector<int> route(int src, int dst) const;
};

/// Mixes (src, dst) into 64 bits (splitmix64's finalizer): the ECMP hash.
std::uint64_t ecmp_hash(int src, int dst);

}  // namespace codesim::sim::detail
