// The round costs under both network models: phases add up, and under the flow model concurrent
// transfers into one node share its link instead of queueing.
#include "models/dnn/round_costs.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <vector>

#include "sim/collectives.hpp"
#include "sim/topology.hpp"
#include "sim/transfer_schedule.hpp"

using codesim::models::regeneration_time_s;
using codesim::models::round_communication_time_s;
using codesim::models::RoundShape;
using codesim::sim::NetworkModel;
using codesim::sim::Topology;
using codesim::sim::TopologyShape;
using codesim::sim::TopologySpec;

namespace {
constexpr double kLatency_s = 1e-6;
constexpr double kBandwidth_Bps = 1e9;
constexpr double kBytes = 1e6;
constexpr double kTransfer_s = kBytes / kBandwidth_Bps;

Topology star(int nodes, NetworkModel model) {
  TopologySpec spec;
  spec.model = model;
  spec.shape = TopologyShape::star;
  spec.nodes = nodes;
  spec.latency_s = kLatency_s;
  spec.bandwidth_Bps = kBandwidth_Bps;
  return Topology(spec);
}

// Three symbols of two members each on nodes 1..6; node 0 only decodes.
RoundShape three_pairs() {
  RoundShape shape;
  shape.participants = {1, 2, 3, 4, 5, 6};
  shape.members = {{1, 2}, {3, 4}, {5, 6}};
  return shape;
}
}  // namespace

TEST_CASE("a centralized round's symbols reach node 0 one after another only without contention") {
  const RoundShape shape = three_pairs();
  const std::vector<char> present{1, 1, 1};
  const std::vector<int> live{0, 1, 2, 3, 4, 5, 6};
  const double hop_s = 2 * kLatency_s + kTransfer_s;  // node -> switch -> node
  const double broadcast_s = 3 * hop_s;               // ceil(log2 7) rounds, no shared links
  // Reductions: each pair's transfer uses its own links, at once under either model.
  const Topology analytic = star(7, NetworkModel::analytic);
  CHECK(round_communication_time_s(analytic, shape, present, live, kBytes, kBytes, false) ==
        doctest::Approx(hop_s + 3 * hop_s + broadcast_s));
  // Under the flow model the three symbols share the switch -> 0 link: a third each.
  const Topology flow = star(7, NetworkModel::flow);
  CHECK(round_communication_time_s(flow, shape, present, live, kBytes, kBytes, false) ==
        doctest::Approx(hop_s + (2 * kLatency_s + 3 * kTransfer_s) + broadcast_s));
  // A missing symbol sends nothing.
  const std::vector<char> two{1, 0, 1};
  CHECK(round_communication_time_s(flow, shape, two, live, kBytes, kBytes, false) ==
        doctest::Approx(hop_s + (2 * kLatency_s + 2 * kTransfer_s) + broadcast_s));
}

TEST_CASE("a decentralized round adds the faster all-gather to the reductions under both models") {
  const RoundShape shape = three_pairs();
  const std::vector<char> present{1, 1, 1};
  const std::vector<int> live{1, 2, 3, 4, 5, 6};
  for (NetworkModel model : {NetworkModel::analytic, NetworkModel::flow}) {
    CAPTURE(static_cast<int>(model));
    const Topology topology = star(7, model);
    const double reduce_s = 2 * kLatency_s + kTransfer_s;
    CHECK(round_communication_time_s(topology, shape, present, live, kBytes, 0.0, true) ==
          doctest::Approx(reduce_s +
                          codesim::sim::fastest_all_gather_time_s(topology, live, kBytes)));
  }
}

TEST_CASE("regeneration sources send at once under the flow model and in turn without it") {
  const std::vector<int> sources{1, 2, 3, 4};
  const double values = kBytes / 8.0;
  const double combine_s = 2.0 * 4 * values / 1e9;
  CHECK(regeneration_time_s(star(6, NetworkModel::analytic), 5, sources, values, 1e9) ==
        doctest::Approx(combine_s + 4 * (2 * kLatency_s + kTransfer_s)));
  CHECK(regeneration_time_s(star(6, NetworkModel::flow), 5, sources, values, 1e9) ==
        doctest::Approx(combine_s + 2 * kLatency_s + 4 * kTransfer_s));
}

TEST_CASE("a round's communication as one schedule takes the sum of its phases") {
  TopologySpec spec;
  spec.shape = TopologyShape::fat_tree;
  spec.nodes = 12;
  spec.fat_tree_arity = 2;
  spec.latency_s = kLatency_s;
  spec.bandwidth_Bps = kBandwidth_Bps;
  const Topology topology(spec);
  RoundShape shape;
  shape.members = {{0, 4, 8}, {1, 5, 9}, {2, 6, 10}, {3, 7, 11}};  // reductions cross the tree
  const std::vector<char> present{1, 1, 0, 1};
  std::vector<int> live(12);
  for (int p = 0; p < 12; ++p) live[static_cast<std::size_t>(p)] = p;
  for (bool decentralized : {false, true}) {
    CAPTURE(decentralized);
    double fastest_s = 1e300;
    for (bool bruck : {false, true}) {
      codesim::sim::TransferSchedule schedule;
      codesim::models::add_round_communication(schedule, shape, present, live, kBytes, 2 * kBytes,
                                               decentralized, bruck);
      const double time_s = codesim::sim::run_schedule(topology, schedule).makespan_s;
      if (decentralized || !bruck) fastest_s = std::min(fastest_s, time_s);
    }
    CHECK(round_communication_time_s(topology, shape, present, live, kBytes, 2 * kBytes,
                                     decentralized) == doctest::Approx(fastest_s).epsilon(1e-12));
  }
}
