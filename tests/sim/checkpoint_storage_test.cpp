// Shared checkpoint storage: every node's write crosses the server's link, and under the flow model
// the writes share it.
#include "sim/checkpoint_storage.hpp"

#include <doctest/doctest.h>

#include "sim/topology.hpp"

using namespace codesim::sim;

namespace {
Topology star(int nodes, NetworkModel model) {
  TopologySpec spec;
  spec.model = model;
  spec.shape = TopologyShape::star;
  spec.nodes = nodes;
  spec.latency_s = 1e-6;
  spec.bandwidth_Bps = 1e9;
  return Topology(spec);
}

StorageSpec server_on_node(int node) {
  StorageSpec storage;
  storage.kind = StorageKind::shared;
  storage.attach_node = node;
  storage.latency_s = 1e-5;
  storage.bandwidth_Bps = 5e8;
  return storage;
}
}  // namespace

TEST_CASE("a global checkpoint's writes share the storage server's link under the flow model") {
  // Four nodes write 1e6 bytes each to a server hanging off node 0 by a 5e8 B/s link: all four
  // flows cross it, so it moves 4e6 bytes at 5e8 B/s after the longest route latency (two star
  // links and the server link).
  const StorageSpec storage = server_on_node(0);
  const Topology flow = star(4, NetworkModel::flow);
  CHECK(storage_transfer_time_s(flow, storage, 4, 1e6, true) ==
        doctest::Approx(2e-6 + 1e-5 + 4e6 / 5e8));
  // Reads go the other way and share the same link's other direction.
  CHECK(storage_transfer_time_s(flow, storage, 4, 1e6, false) ==
        doctest::Approx(2e-6 + 1e-5 + 4e6 / 5e8));
  // Without contention each write is alone: the slowest one.
  const Topology analytic = star(4, NetworkModel::analytic);
  CHECK(storage_transfer_time_s(analytic, storage, 4, 1e6, true) ==
        doctest::Approx(2e-6 + 1e-5 + 1e6 / 5e8));
}

TEST_CASE("local storage moves nothing and a server must hang off an existing node") {
  CHECK(storage_transfer_time_s(star(4, NetworkModel::flow), StorageSpec{}, 4, 1e6, true) == 0.0);
  CHECK(validate_storage(StorageSpec{}, 4).empty());
  CHECK(validate_storage(server_on_node(3), 4).empty());
  CHECK(validate_storage(server_on_node(4), 4) ==
        "storage attach_node must be a node id in 0..3 (got 4)");
}
