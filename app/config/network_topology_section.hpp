// The `cluster.network` section of a scenario (scenarios/README.md, "cluster.network").
#pragma once

#include "app/config/object_reader.hpp"
#include "sim/topology.hpp"

namespace codesim::app {

/// Reads the network of `nodes` compute nodes: model, sharing and collectives (recorded only when
/// given), topology and its parameters, edges (edge_list), then link_overrides, each checked
/// against the shape at its own pointer.
sim::TopologySpec read_network(ObjectReader& r, int nodes);

}  // namespace codesim::app
