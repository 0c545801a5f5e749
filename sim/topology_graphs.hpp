// Building the graph of a topology's shape (topology_graphs.cpp); Topology routes over it.
#pragma once

#include "sim/clos_routes.hpp"
#include "sim/shortest_paths.hpp"
#include "sim/topology.hpp"

namespace codesim::sim::detail {

/// A torus's rows and columns.
struct TorusDims {
  int rows = 0;
  int cols = 0;
};

/// Both 0 in the spec: the most square factorization with rows <= cols; one 0: derived from the
/// other.
TorusDims torus_dims(const TopologySpec& spec);

/// A leaf_spine spec's layout (leaves 0 in the spec: as many as the nodes need).
LeafSpine leaf_spine_of(const TopologySpec& spec);

/// A k_ary_fat_tree spec's layout (fat_tree_ports 0 in the spec: the least k that fits).
KaryFatTree k_ary_fat_tree_of(const TopologySpec& spec);

/// The vertices (compute nodes first, then switches) and links of `shape`: fully_connected keeps
/// its links implicit (only the vertices); fat_tree doubles the bandwidth at each level up.
Graph build_graph(const TopologySpec& spec, TopologyShape shape);

/// fully_connected with its links explicit: pairs (a, b), a < b, in lexicographic order (the
/// order Topology::links() gives them).
Graph all_pairs_graph(const TopologySpec& spec);

}  // namespace codesim::sim::detail
