// The iterative_job workload's energy: its parts add up, busy and idle node-seconds are priced
// per node, rollbacks lose energy, crashed nodes draw their down power, and bytes cost per byte.
#include <doctest/doctest.h>

#include "sim/energy_meter.hpp"

#include "sim/iterative_job.hpp"

using namespace codesim::sim;

namespace {

// Crashes with repairs, detected soft errors, checkpoints with bytes and an exchange: every part
// of the energy has something to count.
ClusterSpec faulty_cluster() {
  ClusterSpec cluster = uniform_cluster(4, 1e9);
  for (CrashSpec& c : cluster.crashes) c = exponential_crashes(40.0, 5.0);
  for (SoftErrorSpec& s : cluster.soft_errors) s.probability_per_operation = 0.05;
  return cluster;
}

CheckpointSpec every_three_iterations() {
  CheckpointSpec checkpoint;
  checkpoint.policy = CheckpointKind::every_iterations;
  checkpoint.every_iterations = 3;
  checkpoint.write_s = 0.5;
  checkpoint.restart_s = 0.7;
  checkpoint.bytes = 1e9;
  return checkpoint;
}

}  // namespace

TEST_CASE("an iterative job's energy parts add up to energy_J, finished or stopped at its limit") {
  const ClusterSpec cluster = faulty_cluster();
  const CheckpointSpec checkpoint = every_three_iterations();
  IterativeJobSpec job;
  job.iterations = 30;
  job.bytes_per_task = 1e8;
  const MetricSet full = run_iterative_job(cluster, checkpoint, job, 5, 0);
  REQUIRE(full.get("completed") == 1.0);
  REQUIRE(full.get("rollbacks") > 0.0);
  CHECK(full.get("energy_J") == doctest::Approx(sum_of_energy_parts_J(full)).epsilon(1e-12));
  for (const char* part : {"energy_compute_J", "energy_network_J", "energy_checkpoint_J",
                           "energy_restart_J", "energy_lost_J"}) {
    CAPTURE(part);
    CHECK(full.get(part) > 0.0);
  }
  // Every node at idle power the whole run is a floor when no node draws less while down.
  ClusterSpec idle_when_down = cluster;
  for (PowerSpec& p : idle_when_down.power) p.down_W = p.idle_W;
  const MetricSet floor_run = run_iterative_job(idle_when_down, checkpoint, job, 5, 0);
  CHECK(floor_run.get("energy_J") > 4 * 150.0 * floor_run.get("completion_time_s"));
  for (int k = 1; k < 40; ++k) {
    job.time_limit_s = full.get("completion_time_s") * k / 40.0;
    CAPTURE(job.time_limit_s);
    const MetricSet m = run_iterative_job(cluster, checkpoint, job, 5, 0);
    CHECK(m.get("completed") == 0.0);
    CHECK(m.get("energy_J") == doctest::Approx(sum_of_energy_parts_J(m)).epsilon(1e-12));
    CHECK(m.get("energy_J") > 0.0);
  }
}

TEST_CASE("without faults or bytes a job draws idle power throughout plus its tasks' busy extra") {
  ClusterSpec cluster = uniform_cluster(4, 1e9);
  double idle_W = 0.0, extra_W = 0.0, busy_W = 0.0;
  for (int p = 0; p < 4; ++p) {
    cluster.power[p] = {300.0 + 10.0 * p, 150.0 - p, 5.0};
    idle_W += cluster.power[p].idle_W;
    extra_W += cluster.power[p].busy_W - cluster.power[p].idle_W;
    busy_W += cluster.power[p].busy_W;
  }
  IterativeJobSpec job;
  job.iterations = 10;
  job.tasks = 8;  // two 2 s tasks back to back on every node
  job.task_flops = 2e9;
  job.exchange = ExchangeKind::none;
  const MetricSet m = run_iterative_job(cluster, {}, job, 1, 0);
  const double busy_s = 10 * 2 * 2.0;  // per node
  REQUIRE(m.get("completion_time_s") == doctest::Approx(busy_s));
  CHECK(m.get("energy_J") ==
        doctest::Approx(idle_W * m.get("completion_time_s") + extra_W * busy_s));
  CHECK(m.get("energy_compute_J") == doctest::Approx(busy_W * busy_s));
  CHECK(m.get("energy_idle_J") == doctest::Approx(0.0));  // no node ever waited
  for (const char* part :
       {"energy_network_J", "energy_checkpoint_J", "energy_restart_J", "energy_lost_J"}) {
    CAPTURE(part);
    CHECK(m.get(part) == 0.0);
  }
}

TEST_CASE("with a slower node the faster nodes' waiting is idle energy") {
  ClusterSpec cluster = uniform_cluster(2, 1e9);
  cluster.speeds_flops_per_s[1] = 0.5e9;  // node 1 takes 2 s, node 0 waits 1 s per iteration
  IterativeJobSpec job;
  job.iterations = 5;
  job.exchange = ExchangeKind::none;
  const MetricSet m = run_iterative_job(cluster, {}, job, 1, 0);
  REQUIRE(m.get("completion_time_s") == doctest::Approx(10.0));
  CHECK(m.get("energy_compute_J") == doctest::Approx(300.0 * (5.0 + 10.0)));
  CHECK(m.get("energy_idle_J") == doctest::Approx(150.0 * 5.0));
  CHECK(m.get("energy_J") == doctest::Approx(300.0 * 15.0 + 150.0 * 5.0));
}

TEST_CASE("rollbacks lose energy and crashed nodes powered off spend less than idle ones") {
  const ClusterSpec off = faulty_cluster();  // down_W = 0 by default
  ClusterSpec idle = off;
  for (PowerSpec& p : idle.power) p.down_W = p.idle_W;
  const CheckpointSpec checkpoint = every_three_iterations();
  IterativeJobSpec job;
  job.iterations = 30;
  const MetricSet a = run_iterative_job(off, checkpoint, job, 7, 0);
  const MetricSet b = run_iterative_job(idle, checkpoint, job, 7, 0);
  REQUIRE(a.get("crashes") > 0.0);
  REQUIRE(a.get("rollbacks") > 0.0);
  CHECK(a.get("energy_lost_J") > 0.0);
  // Besides idle power over the lost time, the tasks that ran and were rolled back are lost.
  CHECK(b.get("energy_lost_J") > 4 * 150.0 * b.get("time_lost_s"));
  // Power changes no event: the same run, priced differently.
  CHECK(a.get("completion_time_s") == b.get("completion_time_s"));
  CHECK(a.get("energy_compute_J") == b.get("energy_compute_J"));
  CHECK(a.get("energy_J") < b.get("energy_J"));
  // Crashed nodes cost less in the phases they were down in, never more.
  CHECK(a.get("energy_idle_J") + a.get("energy_restart_J") + a.get("energy_lost_J") <
        b.get("energy_idle_J") + b.get("energy_restart_J") + b.get("energy_lost_J"));
}

TEST_CASE("a node still down at the end of the run draws its down power until the end") {
  ClusterSpec cluster = uniform_cluster(2, 1e9);
  cluster.crashes[1] =
      exponential_crashes(1e-6, 1e12);  // node 1 fails at once and is never repaired in the run
  IterativeJobSpec job;
  job.iterations = 10;
  job.wait_for = 1;  // node 0 carries on alone
  job.exchange = ExchangeKind::none;
  const MetricSet off = run_iterative_job(cluster, {}, job, 1, 0);
  cluster.power[1].down_W = cluster.power[1].idle_W;
  const MetricSet idle = run_iterative_job(cluster, {}, job, 1, 0);
  REQUIRE(off.get("crashes") == 1);
  REQUIRE(off.get("completion_time_s") == doctest::Approx(10.0).epsilon(1e-5));
  // Node 1 down from about 0 to the end: its 150 W idle power saved for the whole run.
  CHECK(idle.get("energy_J") - off.get("energy_J") ==
        doctest::Approx(150.0 * off.get("completion_time_s")).epsilon(1e-5));
}

TEST_CASE("an exchange's bytes and checkpoint bytes cost their joules per byte") {
  ClusterSpec cluster = uniform_cluster(4, 1e9);
  cluster.transfer_energy = {1e-6, 2e-6};
  IterativeJobSpec job;
  job.iterations = 10;
  job.bytes_per_task = 1e3;
  SUBCASE("all_gather: every node's result to each of the three others") {
    const MetricSet m = run_iterative_job(cluster, {}, job, 1, 0);
    CHECK(m.get("energy_network_J") == doctest::Approx(10 * 4 * 3 * 1e3 * 1e-6));
  }
  SUBCASE("to_one: the results of nodes 1 to 3 to node 0") {
    job.exchange = ExchangeKind::to_one;
    const MetricSet m = run_iterative_job(cluster, {}, job, 1, 0);
    CHECK(m.get("energy_network_J") == doctest::Approx(10 * 3 * 1e3 * 1e-6));
  }
  SUBCASE("none sends nothing") {
    job.exchange = ExchangeKind::none;
    CHECK(run_iterative_job(cluster, {}, job, 1, 0).get("energy_network_J") == 0.0);
  }
  SUBCASE("checkpoints: idle power while writing plus each write's bytes") {
    CheckpointSpec checkpoint;
    checkpoint.policy = CheckpointKind::every_iterations;
    checkpoint.every_iterations = 2;
    checkpoint.write_s = 0.5;
    checkpoint.bytes = 1e6;
    const MetricSet m = run_iterative_job(cluster, checkpoint, job, 1, 0);
    REQUIRE(m.get("checkpoints") == 4);  // after iterations 2, 4, 6, 8 (none at the end)
    CHECK(m.get("energy_checkpoint_J") ==
          doctest::Approx(4 * 150.0 * m.get("time_checkpoint_s") + 4 * 1e6 * 2e-6));
  }
}
