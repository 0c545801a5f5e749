// A shifted step on a uniform ring solved for one representative flow gives the flow network's
// time for the whole step, and steps that are not alike by symmetry are left to the full solve.
#include "sim/symmetric_steps.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <numeric>
#include <string>
#include <vector>

#include "sim/topology.hpp"
#include "sim/transfer_schedule.hpp"

using namespace codesim::sim;

namespace {

TopologySpec ring_of(int nodes) {
  TopologySpec spec;
  spec.shape = TopologyShape::ring;
  spec.nodes = nodes;
  spec.latency_s = 1.5e-6;
  spec.bandwidth_Bps = 1.25e9;
  return spec;
}

std::vector<int> rotation(int nodes, int first) {
  std::vector<int> order(static_cast<std::size_t>(nodes));
  for (int i = 0; i < nodes; ++i) order[static_cast<std::size_t>(i)] = (first + i) % nodes;
  return order;
}

CommunicationCost whole_step(const Topology& topology, const std::vector<int>& participants,
                             std::size_t offset, double bytes) {
  TransferSchedule step;
  for (std::size_t i = 0; i < participants.size(); ++i)
    step.add(participants[i], participants[(i + offset) % participants.size()], bytes);
  const ScheduleTimes times = flow_times(topology, step, FlowLinks::all);
  return {times.makespan_s, times.makespan_s - contention_free_makespan_s(topology, step)};
}

void check_offset(const Topology& topology, const std::vector<int>& participants,
                  std::size_t offset, double bytes) {
  const auto alike = alike_shift_step_cost(topology, participants, offset, bytes);
  const std::size_t n = participants.size();
  INFO("ring of " << n << " from node " << participants[0] << ", offset " << offset);
  REQUIRE(alike.has_value() == (2 * offset != n));
  if (!alike) return;
  const CommunicationCost whole = whole_step(topology, participants, offset, bytes);
  CHECK(std::abs(alike->time_s - whole.time_s) <= 1e-12 * whole.time_s);
  CHECK(std::abs(alike->link_wait_s - whole.link_wait_s) <= 1e-12 * whole.time_s);
}

}  // namespace

TEST_CASE("a shifted step on a uniform ring takes the whole step's time, for every offset") {
  for (int nodes : {3, 4, 5, 8, 16, 37, 64}) {
    const Topology ring(ring_of(nodes));
    for (int first : {0, nodes / 3})
      for (std::size_t offset = 1; offset < static_cast<std::size_t>(nodes); ++offset) {
        check_offset(ring, rotation(nodes, first), offset, 1e6);
        check_offset(ring, rotation(nodes, first), offset, 0.0);
      }
  }
}

TEST_CASE("a shifted step on a uniform ring takes the whole step's time up to 2,048 nodes") {
  for (int nodes : {256, 1000, 2048}) {
    const Topology ring(ring_of(nodes));
    const auto n = static_cast<std::size_t>(nodes);
    for (std::size_t stride = 1; stride < n; stride *= 2) {
      check_offset(ring, rotation(nodes, 7), stride, 3e5);      // Bruck's strides, one way
      check_offset(ring, rotation(nodes, 7), n - stride, 3e5);  // and the other
    }
  }
}

TEST_CASE("steps whose flows are not alike are left to the full solve") {
  const Topology ring(ring_of(16));
  CHECK_FALSE(alike_shift_step_cost(ring, rotation(16, 0), 8, 1e6));  // routes split both ways
  std::vector<int> shuffled = rotation(16, 0);
  std::swap(shuffled[3], shuffled[4]);
  CHECK_FALSE(alike_shift_step_cost(ring, shuffled, 1, 1e6));
  CHECK_FALSE(alike_shift_step_cost(ring, rotation(8, 0), 1, 1e6));  // not every node
  TopologySpec slow_link = ring_of(16);
  slow_link.link_overrides.push_back({2, 3, -1.0, 1e8});
  CHECK_FALSE(alike_shift_step_cost(Topology(slow_link), rotation(16, 0), 1, 1e6));
  TopologySpec cm02 = ring_of(16);
  cm02.sharing = FlowSharing::cm02;
  CHECK_FALSE(alike_shift_step_cost(Topology(cm02), rotation(16, 0), 1, 1e6));
  TopologySpec torus = ring_of(16);
  torus.shape = TopologyShape::torus2d;
  CHECK_FALSE(alike_shift_step_cost(Topology(torus), rotation(16, 0), 1, 1e6));
  Topology broken(ring_of(16));
  broken.set_link_up(5, false);
  CHECK_FALSE(alike_shift_step_cost(broken, rotation(16, 0), 1, 1e6));
}
