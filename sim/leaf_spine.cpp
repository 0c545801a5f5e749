// Leaf-spine routes: up to the source's leaf, through the ECMP spine when the leaves differ, down.
#include "sim/leaf_spine.hpp"

namespace codesim::sim::detail {

std::uint64_t ecmp_hash(int src, int dst) {
  std::uint64_t z = (static_cast<std::uint64_t>(static_cast<std::uint32_t>(src)) << 32) |
                    static_cast<std::uint32_t>(dst);
  z += 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

int LeafSpine::spine_for(int src, int dst) const {
  return static_cast<int>(ecmp_hash(src, dst) % static_cast<std::uint64_t>(spines));
}

std::vector<int> LeafSpine::route(int src, int dst) const {
  if (src == dst) return {src};
  const int up = leaf_vertex(src);
  const int down = leaf_vertex(dst);
  if (up == down) return {src, up, dst};
  return {src, up, spine_vertex(spine_for(src, dst)), down, dst};
}

}  // namespace codesim::sim::detail
