// The collectives' algorithms a scenario chooses (cluster.network.collectives), and the iterative
// job's all-reduce exchange and link wait.
#include <doctest/doctest.h>

#include <numeric>
#include <vector>

#include "sim/collectives.hpp"
#include "sim/iterative_job.hpp"
#include "sim/topology.hpp"

using namespace codesim::sim;

namespace {

TopologySpec star(int nodes, NetworkModel model) {
  TopologySpec spec;
  spec.model = model;
  spec.shape = TopologyShape::star;
  spec.nodes = nodes;
  spec.latency_s = 1e-6;
  spec.bandwidth_Bps = 1e9;
  return spec;
}

std::vector<int> first_nodes(int count) {
  std::vector<int> ids(static_cast<std::size_t>(count));
  std::iota(ids.begin(), ids.end(), 0);
  return ids;
}

}  // namespace

TEST_CASE("a scatter-all-gather broadcast on a star takes its closed form under both models") {
  for (const NetworkModel model : {NetworkModel::flow, NetworkModel::analytic}) {
    TopologySpec spec = star(8, model);
    spec.collectives.broadcast = BroadcastAlgorithm::scatter_all_gather;
    const Topology topology(spec);
    // Scatter rounds of 4, 2 and 1 pieces of 1e6 / 8 B, then 7 ring steps of one piece; each
    // transfer crosses two links (2 us).
    const double piece_s = 1e6 / 8 / 1e9;
    const double expected_s =
        (2e-6 + 4 * piece_s) + (2e-6 + 2 * piece_s) + (2e-6 + piece_s) + 7 * (2e-6 + piece_s);
    CAPTURE(to_string(model));
    CHECK(broadcast_time_s(topology, first_nodes(8), 1e6) ==
          doctest::Approx(expected_s).epsilon(1e-12));
  }
}

TEST_CASE("a large message broadcasts faster by scatter and all-gather than by binomial tree") {
  TopologySpec spec = star(64, NetworkModel::flow);
  const double binomial_s = broadcast_time_s(Topology(spec), first_nodes(64), 1e8);
  spec.collectives.broadcast = BroadcastAlgorithm::scatter_all_gather;
  const double scatter_s = broadcast_time_s(Topology(spec), first_nodes(64), 1e8);
  // 6 rounds of the whole message against about two messages' time.
  CHECK(binomial_s == doctest::Approx(6 * (2e-6 + 0.1)).epsilon(1e-9));
  CHECK(scatter_s < binomial_s / 2.5);
}

TEST_CASE("a broadcast's bytes count the scatter's pieces once per hand-over") {
  CHECK(broadcast_bytes(BroadcastAlgorithm::binomial, 4, 1e6) == 3e6);
  // Scatter: 0 -> 2 two pieces, then 0 -> 1 and 2 -> 3 one each (4 pieces of 2.5e5 B), then the
  // ring: 3 steps of 4 pieces.
  CHECK(broadcast_bytes(BroadcastAlgorithm::scatter_all_gather, 4, 1e6) == 4e6);
  CHECK(broadcast_bytes(BroadcastAlgorithm::scatter_all_gather, 1, 1e6) == 0.0);
}

TEST_CASE("the all-gather runs the algorithm chosen, and auto the faster of ring and Bruck") {
  TopologySpec spec = star(16, NetworkModel::flow);
  spec.latency_s = 1e-3;  // latency-bound: Bruck's 4 rounds beat the ring's 15 steps
  const std::vector<int> all = first_nodes(16);
  const double ring_s = all_gather_time_s(Topology(spec), all, 1e3);
  const double bruck_s = bruck_all_gather_time_s(Topology(spec), all, 1e3);
  REQUIRE(bruck_s < ring_s);
  CHECK(all_gather_cost(Topology(spec), all, 1e3).time_s == bruck_s);
  spec.collectives.all_gather = AllGatherAlgorithm::ring;
  CHECK(all_gather_cost(Topology(spec), all, 1e3).time_s == ring_s);
  spec.collectives.all_gather = AllGatherAlgorithm::bruck;
  CHECK(all_gather_cost(Topology(spec), all, 1e3).time_s == bruck_s);
}

TEST_CASE("an iterative job's all-reduce exchange is a ring all-reduce of its tasks' results") {
  ClusterSpec cluster = uniform_cluster(4, 1e9);
  cluster.network = star(4, NetworkModel::flow);
  IterativeJobSpec job;
  job.iterations = 3;
  job.task_flops = 1e9;
  job.tasks = 8;  // two per node: a node's vector is two tasks' bytes
  job.bytes_per_task = 1e6;
  job.exchange = ExchangeKind::all_reduce;
  const MetricSet m = run_iterative_job(cluster, CheckpointSpec{}, job, 1, 0);
  const double all_reduce_s = all_reduce_time_s(Topology(cluster.network), first_nodes(4), 2e6);
  // 6 ring steps of 2e6 / 4 B, each crossing 2 links: nothing shares a link direction.
  CHECK(all_reduce_s == doctest::Approx(6 * (2e-6 + 5e5 / 1e9)).epsilon(1e-12));
  CHECK(m.get("completion_time_s") == doctest::Approx(3 * (2.0 + all_reduce_s)).epsilon(1e-12));
  CHECK(m.get("time_link_wait_s") == doctest::Approx(0.0).epsilon(1e-12));
  // Each iteration, 2 (p - 1) pieces of 2e6 / 4 B from each of 4 nodes: 1.2e7 B.
  CHECK(m.get("energy_network_J") ==
        doctest::Approx(3 * 1.2e7 * cluster.transfer_energy.network_J_per_B).epsilon(1e-12));
}

TEST_CASE("an iterative job reports the time its exchanges lost to shared links under flow") {
  ClusterSpec cluster = uniform_cluster(5, 1e9);
  cluster.network = star(5, NetworkModel::flow);
  IterativeJobSpec job;
  job.iterations = 2;
  job.bytes_per_task = 1e6;
  job.exchange = ExchangeKind::to_one;
  const MetricSet flow = run_iterative_job(cluster, CheckpointSpec{}, job, 1, 0);
  // Four results share the switch -> 0 link: 4 ms instead of 1 ms alone, each iteration.
  CHECK(flow.get("time_link_wait_s") == doctest::Approx(2 * 3e-3).epsilon(1e-9));
  cluster.network.model = NetworkModel::analytic;
  CHECK_FALSE(run_iterative_job(cluster, CheckpointSpec{}, job, 1, 0).contains("time_link_wait_s"));
}
