// Shared by the crash-process tests: nodes without stragglers, each with its own stream.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "sim/node.hpp"
#include "sim/straggler_model.hpp"

namespace codesim::sim::testing {

/// Nodes 0 .. count-1 at 1 Gflop/s without stragglers.
inline std::vector<Node> make_nodes(int count) {
  std::shared_ptr<const StragglerModel> none = make_straggler_model({});
  std::vector<Node> nodes;
  nodes.reserve(count);
  for (int i = 0; i < count; ++i)
    nodes.emplace_back(i, 1e9, none, RandomStream({1, 0, "straggler", std::uint64_t(i)}));
  return nodes;
}

}  // namespace codesim::sim::testing
