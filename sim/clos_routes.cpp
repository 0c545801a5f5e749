// Fat-tree routes: the tier that joins two hosts decides the path's shape, ECMP's hash its
// switches.
#include "sim/clos_routes.hpp"

#include <cstdint>

namespace codesim::sim::detail {

std::vector<int> KaryFatTree::route(int src, int dst) const {
  if (src == dst) return {src};
  const int up = edge_vertex(src);
  const int down = edge_vertex(dst);
  if (up == down) return {src, up, dst};
  const std::uint64_t hash = ecmp_hash(src, dst);
  const int from_pod = pod_of(src);
  const int to_pod = pod_of(dst);
  if (from_pod == to_pod) {
    const int aggregation = static_cast<int>(hash % static_cast<std::uint64_t>(half()));
    return {src, up, aggregation_vertex(from_pod, aggregation), down, dst};
  }
  const int core = static_cast<int>(hash % static_cast<std::uint64_t>(half() * half()));
  const int group = core / half();
  return {src,
          up,
          aggregation_vertex(from_pod, group),
          core_vertex(core),
          aggregation_vertex(to_pod, group),
          down,
          dst};
}

std::vector<int> ecmp_route(const EcmpRoutes& clos, int src, int dst) {
  return std::visit([src, dst](const auto& shape) { return shape.route(src, dst); }, clos);
}

}  // namespace codesim::sim::detail

namespace codesim::sim {

int fat_tree_ports_to_fit(int nodes) {
  int k = 2;
  while (std::int64_t{k} * k * k / 4 < nodes) k += 2;
  return k;
}

}  // namespace codesim::sim
