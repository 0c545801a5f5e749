// The two network models behind one interface: on a small star, each gives the costs worked by
// hand (the analytic model's contention-free ones, the flow model's shared links).
#include "sim/network_cost_model.hpp"

#include <doctest/doctest.h>

#include <memory>
#include <span>
#include <vector>

#include "sim/collectives.hpp"
#include "sim/topology.hpp"
#include "sim/transfer_schedule.hpp"

using namespace codesim::sim;

namespace {

// Four nodes on a star: every route is two 1 us links of 1e9 B/s (node, switch, node).
Topology star(NetworkModel model) {
  TopologySpec spec;
  spec.model = model;
  spec.shape = TopologyShape::star;
  spec.nodes = 4;
  spec.latency_s = 1e-6;
  spec.bandwidth_Bps = 1e9;
  return Topology(spec);
}

constexpr double kBytes = 1e6;
constexpr double kAlone_s = 2e-6 + kBytes / 1e9;  // one transfer with the network to itself

}  // namespace

TEST_CASE("a topology asks the model its spec names, which says whether it reports link wait") {
  CHECK_FALSE(make_network_cost_model(NetworkModel::analytic)->reports_link_wait());
  CHECK(make_network_cost_model(NetworkModel::flow)->reports_link_wait());
  CHECK_FALSE(star(NetworkModel::analytic).network_cost_model().reports_link_wait());
  CHECK(star(NetworkModel::flow).network_cost_model().reports_link_wait());
}

TEST_CASE(
    "an incast arrives one transfer after another analytically and shares the link as flows") {
  const std::vector<int> sources = {1, 2, 3};
  const Incast incast{.dst = 0, .sources = sources, .bytes = kBytes, .then_s = 5e-4};
  const Topology analytic = star(NetworkModel::analytic);
  const CommunicationCost one_by_one = analytic.network_cost_model().incast_cost(analytic, incast);
  CHECK(one_by_one.time_s == doctest::Approx(5e-4 + 3 * kAlone_s));
  CHECK(one_by_one.link_wait_s == 0.0);
  // The three flows share the switch's link into node 0: 3e6 bytes at 1e9 B/s after 2 us.
  const Topology flow = star(NetworkModel::flow);
  const CommunicationCost shared = flow.network_cost_model().incast_cost(flow, incast);
  CHECK(shared.time_s == doctest::Approx(5e-4 + 2e-6 + 3e6 / 1e9));
  CHECK(shared.link_wait_s == doctest::Approx(2e-3));
  CHECK(incast_cost(flow, incast).time_s == shared.time_s);
}

TEST_CASE("concurrent reduces contend on a shared link only under the flow model") {
  // Nodes 1 and 2 each reduce into node 0: both cross the switch's link into node 0.
  const std::vector<int> first = {0, 1};
  const std::vector<int> second = {0, 2};
  const std::vector<std::span<const int>> groups = {first, second};
  const Topology analytic = star(NetworkModel::analytic);
  CHECK(concurrent_reduce_cost(analytic, groups, kBytes).time_s == doctest::Approx(kAlone_s));
  const Topology flow = star(NetworkModel::flow);
  const CommunicationCost cost = concurrent_reduce_cost(flow, groups, kBytes);
  CHECK(cost.time_s == doctest::Approx(2e-6 + 2e6 / 1e9));
  CHECK(cost.link_wait_s == doctest::Approx(1e-3));
}

TEST_CASE("concurrent incasts from one source share its uplink only under the flow model") {
  // Node 0 sends a block to node 1 and one to node 2, which then combine for 1 ms each.
  const std::vector<int> source = {0};
  const std::vector<Incast> incasts = {
      {.dst = 1, .sources = source, .bytes = kBytes, .then_s = 1e-3},
      {.dst = 2, .sources = source, .bytes = kBytes, .then_s = 1e-3}};
  const Topology analytic = star(NetworkModel::analytic);
  const CommunicationCost apart = concurrent_incasts_cost(analytic, incasts);
  CHECK(apart.time_s == doctest::Approx(1e-3 + kAlone_s));
  CHECK(apart.link_wait_s == 0.0);
  const Topology flow = star(NetworkModel::flow);
  const CommunicationCost shared = concurrent_incasts_cost(flow, incasts);
  CHECK(shared.time_s == doctest::Approx(2e-6 + 2e6 / 1e9 + 1e-3));
  CHECK(shared.link_wait_s == doctest::Approx(1e-3));
}

TEST_CASE("a collective without contention costs its closed form under both models") {
  // Binomial broadcast to four nodes: 0 -> 1, then 0 -> 2 and 1 -> 3 on links of their own.
  const std::vector<int> all = {0, 1, 2, 3};
  for (NetworkModel model : {NetworkModel::analytic, NetworkModel::flow}) {
    CAPTURE(model);
    const Topology topology = star(model);
    const CommunicationCost cost = topology.network_cost_model().collective_cost(
        topology, CollectiveKind::broadcast, all, kBytes);
    CHECK(cost.time_s == doctest::Approx(2 * kAlone_s));
    CHECK(cost.link_wait_s == doctest::Approx(0.0));
  }
}

TEST_CASE(
    "a schedule runs contention-free under the analytic model and as flows under the flow one") {
  TransferSchedule schedule;
  schedule.add(1, 0, kBytes);
  schedule.add(2, 0, kBytes);
  const Topology analytic = star(NetworkModel::analytic);
  CHECK(run_schedule(analytic, schedule).makespan_s ==
        contention_free_times(analytic, schedule).makespan_s);
  const Topology flow = star(NetworkModel::flow);
  CHECK(run_schedule(flow, schedule).makespan_s == flow_times(flow, schedule).makespan_s);
  CHECK(run_schedule(flow, schedule).makespan_s == doctest::Approx(2e-6 + 2e6 / 1e9));
}

TEST_CASE("transfers on explicit routes share a common link only under the flow model") {
  // Two transfers whose routes meet on link direction 4 (a 1e9 B/s link after 1 us links).
  const std::vector<RoutedTransfer> transfers = {
      {{{0, 1e-6, 1e9}, {4, 1e-6, 1e9}}, kBytes},
      {{{2, 1e-6, 1e9}, {4, 1e-6, 1e9}}, kBytes},
  };
  CHECK(make_network_cost_model(NetworkModel::analytic)->routed_makespan_s(transfers) ==
        doctest::Approx(kAlone_s));
  CHECK(contention_free_makespan_s(transfers) == doctest::Approx(kAlone_s));
  CHECK(make_network_cost_model(NetworkModel::flow)->routed_makespan_s(transfers) ==
        doctest::Approx(2e-6 + 2e6 / 1e9));
  CHECK(make_network_cost_model(NetworkModel::flow)->routed_makespan_s({}) == 0.0);
}
