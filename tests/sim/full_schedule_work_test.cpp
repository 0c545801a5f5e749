// A ring or Bruck collective whose full flow schedule costs too much to solve runs in lockstep
// instead, says so in the topology's note, and remembers it for larger ones of its kind.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <numeric>
#include <optional>
#include <string>
#include <vector>

#include "sim/collective_schedules.hpp"
#include "sim/collectives.hpp"
#include "sim/topology.hpp"
#include "sim/transfer_schedule.hpp"

using namespace codesim::sim;

namespace {

TopologySpec binary_fat_tree(int nodes) {
  TopologySpec spec;
  spec.shape = TopologyShape::fat_tree;
  spec.fat_tree_arity = 2;
  spec.nodes = nodes;
  spec.collectives.all_gather = AllGatherAlgorithm::bruck;
  return spec;
}

std::vector<int> first_nodes(int count) {
  std::vector<int> nodes(static_cast<std::size_t>(count));
  std::iota(nodes.begin(), nodes.end(), 0);
  return nodes;
}

// The Bruck all-gather step by step, each step's shifted transfers as one schedule.
CommunicationCost bruck_in_lockstep(const Topology& topology, const std::vector<int>& nodes,
                                    double bytes) {
  const std::size_t p = nodes.size();
  CommunicationCost total;
  for (std::size_t stride = 1; stride < p; stride *= 2) {
    TransferSchedule step;
    for (std::size_t i = 0; i < p; ++i)
      step.add(nodes[i], nodes[(i + p - stride) % p],
               static_cast<double>(std::min(stride, p - stride)) * bytes);
    total += schedule_cost(topology, step);
  }
  return total;
}

}  // namespace

TEST_CASE("a flow run past its work budget gives up, and within it gives the full times") {
  const Topology topology(binary_fat_tree(64));
  TransferSchedule schedule;
  add_bruck_all_gather(schedule, first_nodes(64), 1e6, std::nullopt);
  CHECK_FALSE(flow_times_within(topology, schedule, 1000).has_value());
  const auto within =
      flow_times_within(topology, schedule, std::numeric_limits<std::uint64_t>::max());
  REQUIRE(within.has_value());
  CHECK(within->completion_s == flow_times(topology, schedule).completion_s);
}

TEST_CASE("a collective costing more than the work budget runs in lockstep and says so") {
  // On an 8 x 8 torus the rounds of the full schedule overlap: lockstep differs.
  const std::vector<int> nodes = first_nodes(64);
  TopologySpec spec = binary_fat_tree(64);
  spec.shape = TopologyShape::torus2d;
  const Topology whole(spec);
  TransferSchedule schedule;
  add_bruck_all_gather(schedule, nodes, 1e6, std::nullopt);
  CHECK(all_gather_cost(whole, nodes, 1e6).time_s == schedule_cost(whole, schedule).time_s);
  CHECK(whole.simplification().empty());

  spec.full_schedule_work = 1000;
  const Topology cut(spec);
  const CommunicationCost stepped = all_gather_cost(cut, nodes, 1e6);
  const CommunicationCost by_hand = bruck_in_lockstep(cut, nodes, 1e6);
  CHECK(stepped.time_s == by_hand.time_s);
  CHECK(stepped.link_wait_s == by_hand.link_wait_s);
  CHECK(stepped.time_s != schedule_cost(whole, schedule).time_s);
  CHECK(cut.simplification().find("cost more than 1000 units of solver work") != std::string::npos);
}

TEST_CASE("after one collective gave up its full schedule, larger ones of its kind skip it") {
  TopologySpec spec = binary_fat_tree(64);
  spec.full_schedule_work = 2000;
  const Topology topology(spec);
  const std::vector<int> all = first_nodes(64);
  const std::vector<int> fewer = first_nodes(4);
  all_gather_cost(topology, first_nodes(32), 1e6);  // gives up: lockstep from 32 on
  CHECK(all_gather_cost(topology, all, 2e6).time_s == bruck_in_lockstep(topology, all, 2e6).time_s);
  // Four participants: tried whole again, and cheap enough.
  TransferSchedule small;
  add_bruck_all_gather(small, fewer, 1e6, std::nullopt);
  CHECK(all_gather_cost(topology, fewer, 1e6).time_s == schedule_cost(topology, small).time_s);
}
