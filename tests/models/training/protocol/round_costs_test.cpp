// The round costs under both network models: phases add up, and under the flow model concurrent
// transfers into one node share its link instead of queueing.
#include "models/training/protocol/round_costs.hpp"

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

TEST_CASE("nodes regenerating at once share their sources' links under the flow model") {
  // Nodes 4 and 5 both rebuild a block from node 0: under the flow model node 0's uplink carries
  // both blocks at half rate each; alone each would take one transfer time.
  using codesim::models::parallel_regeneration_cost;
  using codesim::models::RegenerationJob;
  const double values = kBytes / 8.0;
  const double combine_s = 2.0 * values / 1e9;
  const std::vector<RegenerationJob> jobs = {{4, {0}, values, 1e9}, {5, {0}, values, 1e9}};
  const codesim::sim::CommunicationCost shared =
      parallel_regeneration_cost(star(6, NetworkModel::flow), jobs);
  CHECK(shared.time_s == doctest::Approx(combine_s + 2 * kLatency_s + 2 * kTransfer_s));
  CHECK(shared.link_wait_s == doctest::Approx(kTransfer_s));
  const codesim::sim::CommunicationCost alone =
      parallel_regeneration_cost(star(6, NetworkModel::analytic), jobs);
  CHECK(alone.time_s == doctest::Approx(combine_s + 2 * kLatency_s + kTransfer_s));
  CHECK(alone.link_wait_s == 0.0);
  // A node's blocks of two layers come in turn under the analytic model, at once under flow.
  const std::vector<RegenerationJob> two_layers = {{4, {0}, values, 1e9}, {4, {0}, values, 1e9}};
  CHECK(parallel_regeneration_cost(star(6, NetworkModel::analytic), two_layers).time_s ==
        doctest::Approx(2 * (combine_s + 2 * kLatency_s + kTransfer_s)));
  CHECK(parallel_regeneration_cost(star(6, NetworkModel::flow), two_layers).time_s ==
        doctest::Approx(2 * combine_s + 2 * kLatency_s + 2 * kTransfer_s));
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
      codesim::sim::CollectiveChoice algorithms;
      algorithms.all_gather =
          bruck ? codesim::sim::AllGatherAlgorithm::bruck : codesim::sim::AllGatherAlgorithm::ring;
      codesim::models::add_round_communication(schedule, shape, present, live, kBytes, 2 * kBytes,
                                               decentralized, algorithms);
      const double time_s = codesim::sim::run_schedule(topology, schedule).makespan_s;
      if (decentralized || !bruck) fastest_s = std::min(fastest_s, time_s);
    }
    CHECK(round_communication_time_s(topology, shape, present, live, kBytes, 2 * kBytes,
                                     decentralized) == doctest::Approx(fastest_s).epsilon(1e-12));
  }
}

TEST_CASE(
    "a training checkpoint costs every node writing its own blocks, and the storage's flows") {
  codesim::sim::CheckpointSpec spec;
  spec.write_s = 1.0;
  spec.restart_s = 2.0;
  spec.write_bandwidth_Bps = 1e6;  // local disks: 1000 values of 8 bytes in 8e-3 s per node
  const Topology topology = star(4, NetworkModel::flow);
  const codesim::sim::CheckpointCosts local =
      codesim::models::checkpoint_costs(spec, 1000.0, topology, 4);
  CHECK(local.write_s == doctest::Approx(1.008));
  CHECK(local.restart_s == 2.0);
  // Shared storage: the four nodes' 8000 bytes cross the server's 1e6 B/s link together.
  spec.write_bandwidth_Bps = 0.0;
  spec.storage.kind = codesim::sim::StorageKind::shared;
  spec.storage.latency_s = 0.0;
  spec.storage.bandwidth_Bps = 1e6;
  const codesim::sim::CheckpointCosts shared =
      codesim::models::checkpoint_costs(spec, 1000.0, topology, 4);
  CHECK(shared.write_s == doctest::Approx(1.0 + 2 * kLatency_s + 4 * 8000.0 / 1e6));
  CHECK(shared.restart_s == doctest::Approx(2.0 + 2 * kLatency_s + 4 * 8000.0 / 1e6));
}

TEST_CASE("an abft round sends partials without their checksums and charges computing them") {
  const codesim::models::SchemeSpec spec = codesim::models::abft_spec(2, 3);
  const auto scheme = codesim::models::make_scheme(spec, 60, 90);
  const codesim::models::LayerShape shape =
      codesim::models::layer_shape(spec, *scheme, 60, 90, 60, 90);
  const RoundShape& forward = shape.dir[0];
  const RoundShape& backward = shape.dir[1];
  CHECK(forward.partial_rows == 30);   // 60 / 2 rows of W, not the 3 checksums
  CHECK(backward.partial_rows == 30);  // 90 / 3 columns
  CHECK(forward.task_flops_per_column == doctest::Approx(2.0 * 33 * 30));
  CHECK(backward.task_flops_per_column == doctest::Approx(2.0 * 30 * 33));
  CHECK(shape.stored_values_per_node == doctest::Approx(33.0 * 33.0));
  CHECK(shape.update_flops_per_column == doctest::Approx(2.0 * 33 * 33));
  const auto uncoded = codesim::models::make_scheme(codesim::models::uncoded_spec(2, 3), 60, 90);
  CHECK(codesim::models::layer_shape(codesim::models::uncoded_spec(2, 3), *uncoded, 60, 90, 60, 90)
            .dir[0]
            .task_flops_per_column == doctest::Approx(2.0 * 30 * 30));
}

TEST_CASE("a round's remembered cost is forgotten when a link goes down and comes back") {
  TopologySpec spec;
  spec.model = NetworkModel::flow;
  spec.shape = TopologyShape::ring;
  spec.nodes = 6;
  spec.latency_s = kLatency_s;
  spec.bandwidth_Bps = kBandwidth_Bps;
  Topology ring(spec);
  RoundShape shape;
  shape.participants = {0, 1, 2, 3, 4, 5};
  shape.members = {{0, 1}, {2, 3}, {4, 5}};
  const std::vector<char> present{1, 1, 1};
  const std::vector<int> live{0, 1, 2, 3, 4, 5};
  const auto cost_s = [&] {
    return round_communication_time_s(ring, shape, present, live, kBytes, 0.0, true);
  };
  const double intact_s = cost_s();
  CHECK(cost_s() == intact_s);  // remembered: the same bits
  int link01 = -1;
  const std::vector<codesim::sim::TopologyLink> links = ring.links();
  for (std::size_t i = 0; i < links.size(); ++i)
    if ((links[i].a == 0 && links[i].b == 1) || (links[i].a == 1 && links[i].b == 0))
      link01 = static_cast<int>(i);
  REQUIRE(link01 >= 0);
  ring.set_link_up(link01, false);  // 1 -> 0 now goes the long way round
  const double detour_s = cost_s();
  CHECK(detour_s > intact_s);  // more hops of latency (a stale memory would repeat intact_s)
  ring.set_link_up(link01, true);
  CHECK(cost_s() == intact_s);
}
