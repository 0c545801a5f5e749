// Collective costs over topology routes against their closed forms on uniform links.
#include "sim/collectives.hpp"

#include <doctest/doctest.h>

#include <array>
#include <cmath>
#include <numeric>
#include <string>
#include <vector>

#include "sim/collective_schedules.hpp"
#include "sim/topology.hpp"
#include "sim/transfer_schedule.hpp"

using codesim::sim::add_gather;
using codesim::sim::add_network_notes;
using codesim::sim::all_gather_time_s;
using codesim::sim::all_reduce_time_s;
using codesim::sim::broadcast_time_s;
using codesim::sim::bruck_all_gather_time_s;
using codesim::sim::contention_free_makespan_s;
using codesim::sim::fastest_all_gather_time_s;
using codesim::sim::MetricSet;
using codesim::sim::NetworkModel;
using codesim::sim::reduce_time_s;
using codesim::sim::run_schedule;
using codesim::sim::Topology;
using codesim::sim::TopologyShape;
using codesim::sim::TopologySpec;
using codesim::sim::TransferSchedule;

namespace {
constexpr double kAlpha_s = 2e-6;
constexpr double kBandwidth_Bps = 1.25e9;
constexpr double kBeta_s_per_B = 1.0 / kBandwidth_Bps;
constexpr double kBytes = 4e6;

// Where links are uniform and no two transfers share a link direction, the flow model's
// schedules take exactly the closed forms' times, so most cases below hold under both models.
constexpr std::array<NetworkModel, 2> kModels = {NetworkModel::analytic, NetworkModel::flow};

Topology uniform(TopologyShape shape, int nodes, NetworkModel model) {
  TopologySpec spec;
  spec.model = model;
  spec.shape = shape;
  spec.nodes = nodes;
  spec.latency_s = kAlpha_s;
  spec.bandwidth_Bps = kBandwidth_Bps;
  return Topology(spec);
}

std::vector<int> first_nodes(int p) {
  std::vector<int> ids(p);
  std::iota(ids.begin(), ids.end(), 0);
  return ids;
}
}  // namespace

TEST_CASE("collectives over eight fully connected nodes match the closed forms") {
  for (NetworkModel model : kModels) {
    CAPTURE(model);
    const Topology topology = uniform(TopologyShape::fully_connected, 8, model);
    const std::vector<int> all = first_nodes(8);
    const double step_s = kAlpha_s + kBytes * kBeta_s_per_B;
    CHECK(broadcast_time_s(topology, all, kBytes) == doctest::Approx(3 * step_s));
    CHECK(reduce_time_s(topology, all, kBytes) == doctest::Approx(3 * step_s));
    CHECK(all_gather_time_s(topology, all, kBytes) == doctest::Approx(7 * step_s));
    CHECK(all_reduce_time_s(topology, all, kBytes) ==
          doctest::Approx(2 * 7 * (kAlpha_s + kBytes * kBeta_s_per_B / 8)));
  }
}

TEST_CASE("collectives over a non-power-of-two group round the tree depth up") {
  for (NetworkModel model : kModels) {
    CAPTURE(model);
    const Topology topology = uniform(TopologyShape::fully_connected, 10, model);
    const double step_s = kAlpha_s + kBytes * kBeta_s_per_B;
    for (int p : {2, 3, 5, 6, 7, 9}) {
      CAPTURE(p);
      const std::vector<int> group = first_nodes(p);
      const int rounds = static_cast<int>(std::ceil(std::log2(p)));
      CHECK(broadcast_time_s(topology, group, kBytes) == doctest::Approx(rounds * step_s));
      CHECK(reduce_time_s(topology, group, kBytes) == doctest::Approx(rounds * step_s));
      CHECK(all_gather_time_s(topology, group, kBytes) == doctest::Approx((p - 1) * step_s));
      CHECK(all_reduce_time_s(topology, group, kBytes) ==
            doctest::Approx(2 * (p - 1) * (kAlpha_s + kBytes * kBeta_s_per_B / p)));
    }
  }
}

TEST_CASE("a single participant or none costs nothing") {
  for (NetworkModel model : kModels) {
    CAPTURE(model);
    const Topology topology = uniform(TopologyShape::ring, 4, model);
    const std::vector<int> one{2};
    const std::vector<int> none;
    for (const auto& group : {one, none}) {
      CHECK(broadcast_time_s(topology, group, kBytes) == 0.0);
      CHECK(reduce_time_s(topology, group, kBytes) == 0.0);
      CHECK(all_gather_time_s(topology, group, kBytes) == 0.0);
      CHECK(all_reduce_time_s(topology, group, kBytes) == 0.0);
    }
  }
}

TEST_CASE("collectives through a star pay two link latencies per transfer") {
  for (NetworkModel model : kModels) {
    CAPTURE(model);
    const Topology topology = uniform(TopologyShape::star, 12, model);
    const std::vector<int> group{11, 3, 7, 0, 5, 9};  // any subset, any order
    const double step_s = 2 * kAlpha_s + kBytes * kBeta_s_per_B;
    CHECK(broadcast_time_s(topology, group, kBytes) == doctest::Approx(3 * step_s));
    CHECK(all_gather_time_s(topology, group, kBytes) == doctest::Approx(5 * step_s));
    CHECK(all_reduce_time_s(topology, group, kBytes) ==
          doctest::Approx(10 * (2 * kAlpha_s + kBytes * kBeta_s_per_B / 6)));
  }
}

TEST_CASE("ring collectives take the longest neighbour route in the given participant order") {
  const Topology topology = uniform(TopologyShape::ring, 8, NetworkModel::analytic);
  const double transfer_s = kBytes * kBeta_s_per_B;
  const std::vector<int> spaced{0, 2, 4, 6};    // every neighbour two hops away
  const std::vector<int> shuffled{0, 4, 2, 6};  // 0->4 and 2->6 are four hops
  CHECK(all_gather_time_s(topology, spaced, kBytes) ==
        doctest::Approx(3 * (2 * kAlpha_s + transfer_s)));
  CHECK(all_gather_time_s(topology, shuffled, kBytes) ==
        doctest::Approx(3 * (4 * kAlpha_s + transfer_s)));
  // Broadcast from 0: round 1 is 0->4 (four hops), round 2 is 0->2 and 4->6 (two hops each).
  CHECK(broadcast_time_s(topology, shuffled, kBytes) ==
        doctest::Approx((4 * kAlpha_s + transfer_s) + (2 * kAlpha_s + transfer_s)));
  CHECK(broadcast_time_s(topology, spaced, kBytes) ==
        doctest::Approx((4 * kAlpha_s + transfer_s) + (2 * kAlpha_s + transfer_s)));
}

TEST_CASE("each tree round costs its slowest transfer") {
  for (NetworkModel model : kModels) {
    CAPTURE(model);
    // Four fully linked nodes where the 0-2 link has half the bandwidth; it stays the route from
    // 0 to 2 because it has the lowest latency.
    TopologySpec spec;
    spec.model = model;
    spec.shape = TopologyShape::edge_list;
    spec.nodes = 4;
    spec.latency_s = kAlpha_s;
    spec.bandwidth_Bps = kBandwidth_Bps;
    spec.edges = {{0, 1}, {0, 2, -1.0, kBandwidth_Bps / 2}, {0, 3}, {1, 2}, {1, 3}, {2, 3}};
    const Topology topology(spec);
    const std::vector<int> group = first_nodes(4);
    const double fast_s = kAlpha_s + kBytes * kBeta_s_per_B;
    const double slow_s = kAlpha_s + 2 * kBytes * kBeta_s_per_B;
    // Round 1: 0->1; round 2: 0->2 (slow) alongside 1->3.
    CHECK(broadcast_time_s(topology, group, kBytes) == doctest::Approx(fast_s + slow_s));
    CHECK(reduce_time_s(topology, group, kBytes) == doctest::Approx(fast_s + slow_s));
    // The ring 0-1-2-3-0 avoids the slow link; the ring 0-2-1-3-0 uses it.
    CHECK(all_gather_time_s(topology, group, kBytes) == doctest::Approx(3 * fast_s));
    const std::vector<int> through_slow{0, 2, 1, 3};
    CHECK(all_gather_time_s(topology, through_slow, kBytes) == doctest::Approx(3 * slow_s));
    CHECK(all_reduce_time_s(topology, through_slow, kBytes) ==
          doctest::Approx(6 * (kAlpha_s + 2 * kBytes * kBeta_s_per_B / 4)));
  }
}

TEST_CASE("reduce sends along the routes towards the root, broadcast away from it") {
  for (NetworkModel model : kModels) {
    CAPTURE(model);
    // Between 0 and 5 the route out (0-4-1-5) has a narrow link and the route back (5-3-2-0) not.
    TopologySpec spec;
    spec.model = model;
    spec.shape = TopologyShape::edge_list;
    spec.nodes = 6;
    spec.latency_s = kAlpha_s;
    spec.bandwidth_Bps = kBandwidth_Bps;
    spec.edges = {{0, 4}, {4, 1}, {1, 5, -1.0, kBandwidth_Bps / 4}, {0, 2}, {2, 3}, {3, 5}};
    const Topology topology(spec);
    const std::vector<int> pair{0, 5};
    CHECK(broadcast_time_s(topology, pair, kBytes) ==
          doctest::Approx(3 * kAlpha_s + 4 * kBytes * kBeta_s_per_B));
    CHECK(reduce_time_s(topology, pair, kBytes) ==
          doctest::Approx(3 * kAlpha_s + kBytes * kBeta_s_per_B));
  }
}

TEST_CASE("a ring all-reduce over a 20000-node fat tree is quick and paced by the root crossing") {
  TopologySpec spec;
  spec.model = NetworkModel::analytic;
  spec.shape = TopologyShape::fat_tree;
  spec.nodes = 20000;
  spec.fat_tree_arity = 4;
  spec.latency_s = kAlpha_s;
  spec.bandwidth_Bps = kBandwidth_Bps;
  const Topology topology(spec);
  const std::vector<int> all = first_nodes(20000);
  // Eight switch levels; the wrap-around transfer 19999 -> 0 climbs to the root and back.
  const double time_s = all_reduce_time_s(topology, all, kBytes);
  CHECK(time_s == doctest::Approx(2 * 19999 * (16 * kAlpha_s + kBytes * kBeta_s_per_B / 20000)));
}

TEST_CASE("Bruck all-gather pays log2 p latencies and p - 1 blocks") {
  for (NetworkModel model : kModels) {
    CAPTURE(model);
    const Topology topology = uniform(TopologyShape::fully_connected, 40, model);
    for (int p : {2, 3, 5, 8, 16, 38, 40}) {
      CAPTURE(p);
      const std::vector<int> group = first_nodes(p);
      const double rounds = std::ceil(std::log2(p));
      CHECK(bruck_all_gather_time_s(topology, group, kBytes) ==
            doctest::Approx(rounds * kAlpha_s + (p - 1) * kBytes * kBeta_s_per_B));
    }
    CHECK(bruck_all_gather_time_s(topology, std::vector<int>{7}, kBytes) == 0.0);
  }
}

TEST_CASE(
    "the fastest all-gather is Bruck when latency dominates and the ring when far pairs are slow") {
  // Uniform links: Bruck's log2 p latencies beat the ring's p - 1.
  const NetworkModel model = NetworkModel::analytic;
  const Topology flat = uniform(TopologyShape::fully_connected, 16, model);
  const std::vector<int> all = first_nodes(16);
  CHECK(fastest_all_gather_time_s(flat, all, 8.0) ==
        doctest::Approx(bruck_all_gather_time_s(flat, all, 8.0)));
  CHECK(fastest_all_gather_time_s(flat, all, 8.0) < all_gather_time_s(flat, all, 8.0));
  // Four nodes in a fast ring plus slow diagonals (0-2, 1-3) that routes prefer for their lower
  // latency: Bruck's stride-2 round sends two blocks over a slow diagonal, the ring never does.
  TopologySpec spec;
  spec.model = model;
  spec.shape = TopologyShape::edge_list;
  spec.nodes = 4;
  spec.latency_s = kAlpha_s;
  spec.bandwidth_Bps = kBandwidth_Bps;
  spec.edges = {{0, 1},
                {1, 2},
                {2, 3},
                {3, 0},
                {0, 2, -1.0, kBandwidth_Bps / 10},
                {1, 3, -1.0, kBandwidth_Bps / 10}};
  const Topology diagonals(spec);
  const std::vector<int> four = first_nodes(4);
  const double ring_s = 3 * (kAlpha_s + kBytes * kBeta_s_per_B);
  CHECK(all_gather_time_s(diagonals, four, kBytes) == doctest::Approx(ring_s));
  CHECK(bruck_all_gather_time_s(diagonals, four, kBytes) ==
        doctest::Approx(2 * kAlpha_s + kBytes * kBeta_s_per_B + 2 * kBytes * 10 * kBeta_s_per_B));
  CHECK(fastest_all_gather_time_s(diagonals, four, kBytes) == doctest::Approx(ring_s));
}

TEST_CASE("under the flow model transfers of one round that share ring links take turns") {
  const Topology topology = uniform(TopologyShape::ring, 8, NetworkModel::flow);
  const double transfer_s = kBytes * kBeta_s_per_B;
  // Round 2 of the broadcast over {0, 2, 4, 6}: 0->4 (via 1, 2, 3) and 2->6 (via 3, 4, 5) both
  // cross 2->3 and 3->4, so each moves at half the bandwidth.
  const std::vector<int> spaced{0, 2, 4, 6};
  CHECK(broadcast_time_s(topology, spaced, kBytes) ==
        doctest::Approx((2 * kAlpha_s + transfer_s) + (4 * kAlpha_s + 2 * transfer_s)));
  // The all-gather ring 0->4->2->6->0: 0->4 and 2->6 again share two links in every step, while
  // neighbours at two hops (0->2->4->6->0) share none.
  const std::vector<int> shuffled{0, 4, 2, 6};
  CHECK(all_gather_time_s(topology, shuffled, kBytes) ==
        doctest::Approx(3 * (4 * kAlpha_s + 2 * transfer_s)));
  CHECK(all_gather_time_s(topology, spaced, kBytes) ==
        doctest::Approx(3 * (2 * kAlpha_s + transfer_s)));
}

TEST_CASE("under the flow model a gather's senders share the root's link instead of queueing") {
  // Star of 5: the four senders' flows all cross the switch -> 0 link, each at a quarter of it;
  // the contention-free cost of the same schedule is one transfer.
  const Topology topology = uniform(TopologyShape::star, 5, NetworkModel::flow);
  TransferSchedule schedule;
  add_gather(schedule, first_nodes(5), kBytes, std::nullopt);
  const double transfer_s = kBytes * kBeta_s_per_B;
  CHECK(run_schedule(topology, schedule).makespan_s ==
        doctest::Approx(2 * kAlpha_s + 4 * transfer_s));
  CHECK(contention_free_makespan_s(topology, schedule) ==
        doctest::Approx(2 * kAlpha_s + transfer_s));
}

TEST_CASE("a ring all-reduce over a 20000-node fat tree runs in lockstep under the flow model") {
  TopologySpec spec;
  spec.shape = TopologyShape::fat_tree;
  spec.nodes = 20000;
  spec.fat_tree_arity = 4;
  spec.latency_s = kAlpha_s;
  spec.bandwidth_Bps = kBandwidth_Bps;
  const Topology topology(spec);
  // No two neighbour transfers share a link direction, so lockstep steps cost the closed form.
  CHECK(topology.simplification().empty());
  CHECK(all_reduce_time_s(topology, first_nodes(20000), kBytes) ==
        doctest::Approx(2 * 19999 * (16 * kAlpha_s + kBytes * kBeta_s_per_B / 20000)));
  // ... and says so: the run's results carry the note.
  CHECK(topology.simplification().starts_with("a collective over 20000 nodes"));
  MetricSet metrics;
  add_network_notes(metrics, topology);
  REQUIRE(metrics.notes().size() == 1);
  CHECK(metrics.notes()[0].first == "network_simplified");
}

TEST_CASE("flow schedules beyond a double's range take forever or ignore unlimited links") {
  // Two star links of 1e308 s each: the route's latency overflows, as in the analytic model.
  TopologySpec slow;
  slow.shape = TopologyShape::star;
  slow.nodes = 4;
  slow.latency_s = 1e308;
  TransferSchedule gather;
  add_gather(gather, first_nodes(4), kBytes, std::nullopt);
  CHECK(std::isinf(run_schedule(Topology(slow), gather).makespan_s));
  // A fat tree doubling 1e308 B/s per level has infinite upper links; they never limit a flow.
  TopologySpec wide;
  wide.shape = TopologyShape::fat_tree;
  wide.nodes = 16;
  wide.latency_s = 0.0;
  wide.bandwidth_Bps = 1e308;
  TransferSchedule across;
  across.add(0, 15, 1e10);
  CHECK(run_schedule(Topology(wide), across).makespan_s == doctest::Approx(1e10 / 1e308));
}
