// The worked example of docs/network.md ("a gather on a dumbbell"), checked number for number.
#include <doctest/doctest.h>

#include <numeric>
#include <optional>
#include <vector>

#include "sim/collective_schedules.hpp"
#include "sim/topology.hpp"
#include "sim/transfer_schedule.hpp"

using codesim::sim::TopologySpec;

namespace {

constexpr double kLatency_s = 1e-6;
constexpr double kBandwidth_Bps = 1.25e9;
constexpr double kSlow_Bps = kBandwidth_Bps / 10;
constexpr double kBytes = 1e6;

/// Nodes 1-7 linked to hub 0, nodes 9-15 to hub 8, and the slow link 0 - 8 (as the dumbbell of
/// bench/patterns).
TopologySpec dumbbell() {
  TopologySpec spec;
  spec.shape = codesim::sim::TopologyShape::edge_list;
  spec.nodes = 16;
  spec.latency_s = kLatency_s;
  spec.bandwidth_Bps = kBandwidth_Bps;
  for (int v = 1; v < 16; ++v)
    if (v != 8) spec.edges.push_back({v < 8 ? 0 : 8, v});
  spec.edges.push_back({0, 8, -1.0, kSlow_Bps});
  return spec;
}

}  // namespace

TEST_CASE("a gather to node 0 on the dumbbell takes the slow link's time for all 8 far blocks") {
  const codesim::sim::Topology topology(dumbbell());
  std::vector<int> all(16);
  std::iota(all.begin(), all.end(), 0);
  codesim::sim::TransferSchedule gather;
  codesim::sim::add_gather(gather, all, kBytes, std::nullopt);  // transfer i - 1 from node i
  const codesim::sim::ScheduleTimes times = codesim::sim::run_schedule(topology, gather);

  // Nodes 1-7 each have their own link to node 0: latency, then 1e6 B at 1.25e9 B/s.
  for (int v = 1; v < 8; ++v) CHECK(times.completion_s[v - 1] == doctest::Approx(8.01e-4));
  // The slow link carries node 8's block from 1 us (one hop) and, from 2 us (two hops), the 7
  // blocks of nodes 9-15 too: 8 flows at 1.25e8 / 8 B/s. Node 8, 125 B ahead, ends first, at
  // 2e-6 + (1e6 - 125) / 1.5625e7 = 0.063994 s; the 7 others share the whole slow link for their
  // last 125 B each and end at 0.064001 s.
  CHECK(times.completion_s[7] == doctest::Approx(0.063994).epsilon(1e-12));
  for (int v = 9; v < 16; ++v)
    CHECK(times.completion_s[v - 1] == doctest::Approx(0.064001).epsilon(1e-12));
  // The slow link is busy from 1 us to the end: makespan = 1e-6 + 8 x 1e6 / 1.25e8.
  CHECK(times.makespan_s == doctest::Approx(1e-6 + 8 * kBytes / kSlow_Bps).epsilon(1e-12));
  CHECK(times.makespan_s == doctest::Approx(0.064001).epsilon(1e-12));

  // Without contention each far block would cross the slow link alone: 2e-6 + 1e6 / 1.25e8.
  const double contention_free_s = codesim::sim::contention_free_makespan_s(topology, gather);
  CHECK(contention_free_s == doctest::Approx(0.008002).epsilon(1e-12));
  CHECK(times.makespan_s > 7.99 * contention_free_s);
}
