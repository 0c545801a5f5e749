// The iterative_job workload: timing, rollbacks, determinism, and Daly's completion-time model.
#include "sim/iterative_job.hpp"
#include "sim/run_stopped.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "analysis/summary_statistics.hpp"

using namespace codesim::sim;

namespace {
double total_breakdown_s(const MetricSet& m) {
  return m.get("time_compute_s") + m.get("time_communication_s") + m.get("time_checkpoint_s") +
         m.get("time_restart_s") + m.get("time_lost_s");
}
}  // namespace

TEST_CASE("a failure-free job takes iterations times task time plus the all-gather") {
  ClusterSpec cluster = uniform_cluster(4, 1e9);
  cluster.network.shape = TopologyShape::fully_connected;
  cluster.network.latency_s = 1e-3;
  cluster.network.bandwidth_Bps = 1e6;
  IterativeJobSpec job;
  job.iterations = 10;
  job.task_flops = 2e9;
  job.bytes_per_task = 1e3;
  const MetricSet m = run_iterative_job(cluster, CheckpointSpec{}, job, 1, 0);
  // Bruck all-gather over 4 nodes (faster than the ring's 3 latencies): 2 latencies + 3 blocks,
  // 2 1e-3 + 3 1e-3.
  const double iteration_s = 2.0 + 2 * 1e-3 + 3 * 1e-3;
  CHECK(m.get("completed") == 1.0);
  CHECK(m.get("completion_time_s") == doctest::Approx(10 * iteration_s));
  CHECK(m.get("iterations_done") == 10);
  CHECK(m.get("rollbacks") == 0);
  CHECK(m.get("time_compute_s") == doctest::Approx(20.0));
  CHECK(total_breakdown_s(m) == doctest::Approx(m.get("completion_time_s")));
}

TEST_CASE("results sent to node 0 share its link under the flow model and queue without it") {
  ClusterSpec cluster = uniform_cluster(5, 1e9);
  cluster.network.shape = TopologyShape::star;
  cluster.network.latency_s = 1e-3;
  cluster.network.bandwidth_Bps = 1e6;
  IterativeJobSpec job;
  job.iterations = 1;
  job.task_flops = 1e9;
  job.bytes_per_task = 1e3;  // 1 ms per link
  job.exchange = ExchangeKind::to_one;
  // Four results cross the switch -> 0 link at a quarter of it each (node 0's own is local): two
  // latencies and four transfer times; queued, each pays its latencies too.
  cluster.network.model = NetworkModel::flow;
  CHECK(run_iterative_job(cluster, CheckpointSpec{}, job, 1, 0).get("completion_time_s") ==
        doctest::Approx(1.0 + 2e-3 + 4e-3));
  cluster.network.model = NetworkModel::analytic;
  CHECK(run_iterative_job(cluster, CheckpointSpec{}, job, 1, 0).get("completion_time_s") ==
        doctest::Approx(1.0 + 4 * (2e-3 + 1e-3)));
}

TEST_CASE("with shared storage every checkpoint write sends each node's share over its link") {
  ClusterSpec cluster = uniform_cluster(4, 1e9);
  cluster.network.shape = TopologyShape::star;
  cluster.network.latency_s = 1e-6;
  cluster.network.bandwidth_Bps = 1e9;
  CheckpointSpec checkpoint;
  checkpoint.policy = CheckpointKind::every_iterations;
  checkpoint.every_iterations = 1;
  checkpoint.bytes = 4e6;
  checkpoint.storage = {StorageKind::shared, 0, false, 1e-5, 5e8};  // at node 0
  IterativeJobSpec job;
  job.iterations = 3;
  job.exchange = ExchangeKind::none;
  const MetricSet m = run_iterative_job(cluster, checkpoint, job, 1, 0);
  // Four 1e6-byte writes share the 5e8 B/s server link (sim/checkpoint_storage_test.cpp).
  CHECK(m.get("checkpoints") >= 2);
  CHECK(m.get("time_checkpoint_s") ==
        doctest::Approx(m.get("checkpoints") * (2e-6 + 1e-5 + 4e6 / 5e8)));
}

TEST_CASE("waiting for the fastest K tasks beats waiting for all under stragglers") {
  ClusterSpec cluster = uniform_cluster(8, 1e9);
  for (auto& s : cluster.stragglers) s = ShiftedExponentialStraggler{1.0, 1.0};
  IterativeJobSpec job;
  job.iterations = 50;
  const double all_s = run_iterative_job(cluster, {}, job, 3, 0).get("completion_time_s");
  job.wait_for = 4;
  const double fastest_s = run_iterative_job(cluster, {}, job, 3, 0).get("completion_time_s");
  CHECK(fastest_s < all_s);
  // Max of 8 Exp(1) has mean H_8 = 2.718; the 4th fastest has mean 1/8+1/7+1/6+1/5 = 0.635.
  CHECK(all_s / 50 == doctest::Approx(1.0 + 2.718).epsilon(0.15));
  CHECK(fastest_s / 50 == doctest::Approx(1.0 + 0.635).epsilon(0.15));
}

TEST_CASE("the same seed and replica give identical metrics and another replica differs") {
  ClusterSpec cluster = uniform_cluster(6, 1e9);
  for (auto& c : cluster.crashes) c = exponential_crashes(50.0, 2.0);
  for (auto& s : cluster.stragglers) s = LognormalStraggler{0.0, 0.5};
  CheckpointSpec checkpoint;
  checkpoint.policy = CheckpointKind::every_iterations;
  checkpoint.every_iterations = 5;
  checkpoint.write_s = 0.5;
  checkpoint.restart_s = 1.0;
  IterativeJobSpec job;
  job.iterations = 40;
  const MetricSet a = run_iterative_job(cluster, checkpoint, job, 11, 0);
  const MetricSet b = run_iterative_job(cluster, checkpoint, job, 11, 0);
  const MetricSet c = run_iterative_job(cluster, checkpoint, job, 11, 1);
  CHECK(a.scalars() == b.scalars());
  CHECK(a.get("completion_time_s") != c.get("completion_time_s"));
  CHECK(a.get("crashes") > 0);
  CHECK(a.get("rollbacks") > 0);
  CHECK(total_breakdown_s(a) == doctest::Approx(a.get("completion_time_s")));
  CHECK(a.get("iterations_done") == 40);
}

TEST_CASE("detected soft errors roll back and undetected ones are counted as silent") {
  ClusterSpec cluster = uniform_cluster(4, 1e9);
  for (auto& e : cluster.soft_errors) e.probability_per_operation = 0.02;
  CheckpointSpec checkpoint;
  checkpoint.policy = CheckpointKind::every_iterations;
  checkpoint.every_iterations = 2;
  IterativeJobSpec job;
  job.iterations = 200;
  const MetricSet detected = run_iterative_job(cluster, checkpoint, job, 5, 0);
  CHECK(detected.get("detected_soft_errors") > 0);
  CHECK(detected.get("rollbacks") == detected.get("detected_soft_errors"));
  CHECK(detected.get("silent_soft_errors") == 0);
  CHECK(detected.get("iterations_redone") > 0);
  job.detect_soft_errors = false;
  const MetricSet silent = run_iterative_job(cluster, checkpoint, job, 5, 0);
  CHECK(silent.get("rollbacks") == 0);
  CHECK(silent.get("silent_soft_errors") > 0);
  // About 200 iterations x 4 tasks x 0.02 = 16 strikes.
  CHECK(silent.get("soft_errors") == doctest::Approx(16).epsilon(0.6));
}

TEST_CASE("a replica that cannot finish stops at the time limit and says so") {
  ClusterSpec cluster = uniform_cluster(1, 1e9);
  cluster.crashes[0] =
      exponential_crashes(0.5, 0.0);  // fails twice per task on average, no checkpoints
  IterativeJobSpec job;
  job.iterations = 100;
  job.time_limit_s = 1000.0;
  CheckpointSpec patient;
  patient.max_stalled_rollbacks = 1'000'000'000;
  const MetricSet m = run_iterative_job(cluster, patient, job, 1, 0);
  CHECK(m.get("completed") == 0.0);
  CHECK(m.get("completion_time_s") == doctest::Approx(1000.0));
  CHECK(m.notes().empty());
}

TEST_CASE("a job whose attempts never get further stops early with a reason") {
  // Every iteration's one task is struck and detected: no attempt completes an iteration.
  ClusterSpec cluster = uniform_cluster(1, 1e9);
  cluster.soft_errors[0].probability_per_operation = 1.0;
  IterativeJobSpec job;
  job.iterations = 10;
  job.time_limit_s = 1000.0;
  CheckpointSpec checkpoint;
  checkpoint.max_stalled_rollbacks = 5;
  const MetricSet m = run_iterative_job(cluster, checkpoint, job, 1, 0);
  CHECK(m.get("completed") == 0.0);
  CHECK(m.get("rollbacks") == 5);
  CHECK(m.get("completion_time_s") == doctest::Approx(5.0));
  REQUIRE(m.notes().size() == 1);
  CHECK(m.notes()[0].first == "stop_reason");
  CHECK(m.notes()[0].second.find("no progress from the last checkpoint: 5 rollbacks in a row") ==
        0);
}

TEST_CASE("mean completion time matches Daly's model within its 95% confidence interval") {
  // One node, failure-free work T_s, checkpoint every tau of work with cost delta, restart R,
  // exponential failures of mean M (repair is instantaneous; R is the downtime):
  //   T_w = M e^(R/M) (e^((tau + delta)/M) - 1) T_s / tau.
  struct Case {
    double mtbf_s, tau_s;
  };
  const double work_s = 120.0, delta_s = 2.0, restart_s = 3.0;
  const int replicas = 3000;
  for (const Case c : {Case{40.0, 6.0}, Case{40.0, 12.0}, Case{100.0, 10.0}, Case{100.0, 24.0},
                       Case{400.0, 40.0}}) {
    CAPTURE(c.mtbf_s);
    CAPTURE(c.tau_s);
    ClusterSpec cluster = uniform_cluster(1, 1e9);
    cluster.crashes[0] = exponential_crashes(c.mtbf_s, 0.0);
    CheckpointSpec checkpoint;
    checkpoint.policy = CheckpointKind::every_iterations;
    checkpoint.every_iterations = static_cast<int>(c.tau_s);
    checkpoint.write_s = delta_s;
    checkpoint.restart_s = restart_s;
    IterativeJobSpec job;
    job.iterations = static_cast<int>(work_s);  // 1 s per iteration
    job.task_flops = 1e9;
    job.checkpoint_at_end = true;
    std::vector<double> times;
    for (int r = 0; r < replicas; ++r)
      times.push_back(
          run_iterative_job(cluster, checkpoint, job, 2024, r).get("completion_time_s"));
    const auto stats = codesim::analysis::summarize(times);
    const double expected_s =
        daly_expected_completion_s(work_s, c.tau_s, delta_s, restart_s, c.mtbf_s);
    CAPTURE(stats.mean);
    CAPTURE(expected_s);
    CAPTURE(stats.ci95);
    CHECK(std::abs(stats.mean - expected_s) <= stats.ci95);
  }
}

TEST_CASE("Daly checkpointing counts detected soft errors, so a crash-free job still finishes") {
  ClusterSpec cluster = uniform_cluster(4, 1e9);
  for (auto& e : cluster.soft_errors) e.probability_per_operation = 0.01;
  CheckpointSpec checkpoint;
  checkpoint.policy = CheckpointKind::daly;
  checkpoint.write_s = 0.5;
  checkpoint.restart_s = 1.0;
  IterativeJobSpec job;
  job.iterations = 2000;
  job.time_limit_s = 1e5;
  const MetricSet m = run_iterative_job(cluster, checkpoint, job, 9, 0);
  CHECK(m.get("completed") == 1.0);
  CHECK(m.get("checkpoints") > 10);
  // About 25 s of work between rollbacks (4 tasks x 0.01 per 1 s iteration): Daly's interval is
  // about sqrt(2 x 0.5 x 25) = 5 s, so redone work stays a small fraction.
  CHECK(m.get("iterations_redone") < 0.3 * 2000);
}

TEST_CASE("a job stopped by its time limit in any phase has a breakdown that adds up to it") {
  // Crashes with repairs, detected soft errors, checkpoints and an exchange: limits spread over
  // the run stop it in compute, exchange, checkpoint, restart and waiting phases. Before, the
  // phase in progress and the work since the last checkpoint were left out.
  ClusterSpec cluster = uniform_cluster(4, 1e9);
  for (CrashSpec& c : cluster.crashes) c = exponential_crashes(40.0, 5.0);
  for (SoftErrorSpec& s : cluster.soft_errors) s.probability_per_operation = 0.05;
  CheckpointSpec checkpoint;
  checkpoint.policy = CheckpointKind::every_iterations;
  checkpoint.every_iterations = 3;
  checkpoint.write_s = 0.5;
  checkpoint.restart_s = 0.7;
  IterativeJobSpec job;
  job.iterations = 30;
  job.bytes_per_task = 1e8;
  const MetricSet full = run_iterative_job(cluster, checkpoint, job, 5, 0);
  REQUIRE(full.get("completed") == 1.0);
  REQUIRE(full.get("rollbacks") > 0.0);
  for (int k = 1; k < 300; ++k) {
    job.time_limit_s = full.get("completion_time_s") * k / 300.0;
    CAPTURE(job.time_limit_s);
    const MetricSet m = run_iterative_job(cluster, checkpoint, job, 5, 0);
    CHECK(m.get("completed") == 0.0);
    CHECK(m.get("completion_time_s") == job.time_limit_s);
    CHECK(total_breakdown_s(m) == doctest::Approx(job.time_limit_s).epsilon(1e-12));
  }
}

TEST_CASE("a job with tasks that never end stops at its time limit instead of aborting") {
  // 1e308 flops at 5e-324 flop/s: an infinite task time, whose event is never queued.
  ClusterSpec cluster = uniform_cluster(2, 5e-324);
  for (CrashSpec& c : cluster.crashes) c = exponential_crashes(10.0, 1.0);
  IterativeJobSpec job;
  job.task_flops = 1e308;
  job.time_limit_s = 1000.0;
  const MetricSet m = run_iterative_job(cluster, {}, job, 1, 0);
  CHECK(m.get("completed") == 0.0);
  CHECK(m.get("crashes") > 50.0);
  CHECK(total_breakdown_s(m) == doctest::Approx(1000.0).epsilon(1e-12));
}

TEST_CASE("a job asked to stop abandons its replica before the next iteration") {
  ClusterSpec cluster = uniform_cluster(2, 1e9);
  IterativeJobSpec job;
  job.iterations = 1000;
  int polls = 0;
  CHECK_THROWS_AS(run_iterative_job(cluster, {}, job, 1, 0, [&polls] { return ++polls == 3; }),
                  RunStopped);
  CHECK(polls == 3);
  CHECK(run_iterative_job(cluster, {}, job, 1, 0, [] { return false; }).get("completed") == 1.0);
}

TEST_CASE("an interrupt stops a job that makes no progress while crashes and repairs go on") {
  // Up and repair times of 1 ns against tasks of 1 us: no iteration ever ends, so the poll
  // before each iteration is never reached again. The guard polls between the crashes too; the
  // run used to go on until 1e8 events (the storm guard) with the interrupt unanswered.
  ClusterSpec cluster = uniform_cluster(2, 1e9);
  for (CrashSpec& crash : cluster.crashes) crash = exponential_crashes(1e-9, 1e-9);
  CheckpointSpec checkpoint;
  checkpoint.restart_s = 1e-6;
  IterativeJobSpec job;
  job.iterations = 1;
  job.tasks = 2;
  job.task_flops = 1000;
  int polls = 0;
  const std::function<bool()> interrupt = [&] { return ++polls > 1; };
  CHECK_THROWS_AS(run_iterative_job(cluster, checkpoint, job, 1, 0, interrupt), RunStopped);
  CHECK(polls == 2);
}

TEST_CASE("a job whose needed node is down for good stops with a reason that says so") {
  // Node 1 goes down at 1 ms and never comes back (a trace interval without an end) while the
  // other node keeps failing and coming back: before, the job waited for repairs until its time
  // limit, the crashes going on.
  ClusterSpec cluster = uniform_cluster(2, 1e9);
  cluster.crashes[0] = exponential_crashes(0.5, 0.01);
  cluster.shared_failures.trace = {{}, {{1e-3, INFINITY}}};
  IterativeJobSpec job;
  job.iterations = 100;
  job.tasks = 2;
  job.task_flops = 1e8;  // 0.1 s per task
  const MetricSet m = run_iterative_job(cluster, CheckpointSpec{}, job, 1, 0);
  CHECK(m.get("completed") == 0.0);
  CHECK(m.get("completion_time_s") < 1.0);
  std::string reason;
  for (const auto& [key, value] : m.notes())
    if (key == "stop_reason") reason = value;
  CHECK(reason.find("no node can come back: 1 node(s) down for good") == 0);
  CHECK(total_breakdown_s(m) == doctest::Approx(m.get("completion_time_s")));
}

TEST_CASE("a job whose restart would end after its time limit ends at its first rollback") {
  // A restart of 1e308 s: every crash during it restarted it, so the job simulated every crash
  // up to its time limit (1e12 s; 17 million in 50 s). No rollback's restart can end in time:
  // the job ends as at its limit at once, the crashes after the rollback not simulated.
  ClusterSpec cluster = uniform_cluster(2, 1e9);
  for (CrashSpec& c : cluster.crashes) c = exponential_crashes(0.5, 0.01);
  CheckpointSpec checkpoint;
  checkpoint.restart_s = 1e308;
  IterativeJobSpec job;
  job.iterations = 100;
  job.tasks = 2;
  job.task_flops = 1e8;  // 0.1 s per task
  const MetricSet m = run_iterative_job(cluster, checkpoint, job, 1, 0);
  CHECK(m.get("completed") == 0.0);
  CHECK(m.get("rollbacks") == 1.0);
  CHECK(m.get("crashes") == 1.0);
  CHECK(m.get("completion_time_s") == job.time_limit_s);
  std::string reason;
  for (const auto& [key, value] : m.notes())
    if (key == "stop_reason") reason = value;
  CHECK(reason.find("the restart after a rollback takes 1e+308 s") == 0);
  CHECK(total_breakdown_s(m) == doctest::Approx(job.time_limit_s));
}
