// Preflight: the per-replica estimates of models/training/estimate.hpp summed over a run's
// points and replicas; the throughput comes from a short Eigen matrix-vector benchmark.
#include "app/exec/preflight.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <map>
#include <numeric>
#include <sstream>
#include <variant>

#include <fmt/format.h>
#include <Eigen/Dense>

#include "app/config/scenario_error.hpp"
#include "models/nn/layer_steps.hpp"
#include "models/training/estimate.hpp"
#include "models/training/protocol/round_costs.hpp"
#include "sim/overloaded.hpp"
#include "sim/progress_estimate.hpp"
#include "sim/topology.hpp"

namespace codesim::app {

namespace {

std::string gigabytes(double bytes) {
  std::ostringstream text;
  text.precision(3);
  text << bytes / 1e9 << " GB";
  return text.str();
}

// The sums of estimate_run over the points seen so far.
struct RunTotals {
  PreflightEstimate estimate;
  std::map<std::string, double> datasets;  // bytes by dataset section
  std::size_t units = 0;
  double largest_replica_bytes = 0;
};

// Adds training point `p` (running `replicas` replicas) to the totals.
void add_training_point(const Experiment& experiment, std::size_t p,
                        const TrainingWorkload& training, std::size_t replicas, int ranks,
                        RunTotals& totals) {
  const ExperimentPoint& point = experiment.points[p];
  const Scenario& s = point.scenario;
  PreflightEstimate& estimate = totals.estimate;
  const models::TrainingSpec& spec = training.spec;
  models::TrainingEstimate replica = models::estimate_training(spec, s.checkpoint);
  if (ranks > 1) {
    // Distributed (--distribute nodes): a rank holds the blocks of at most ceil(P / R) nodes.
    const int nodes = models::summarize_scheme(spec.scheme).nodes;
    const double share = static_cast<double>((nodes + ranks - 1) / ranks) / nodes;
    replica.working_bytes -= replica.stored_bytes * (1.0 - share);
    replica.stored_bytes *= share;
  }
  if (spec.mode == models::TrainingMode::stochastic) {
    const double operations =
        replica.node_operations_per_iteration * spec.iterations * static_cast<double>(replicas);
    estimate.node_operations += operations;
    estimate.flops += operations * kFlopsPerNodeOperation;
    return;
  }
  estimate.blocks_bytes = std::max(estimate.blocks_bytes, replica.stored_bytes);
  estimate.batch_bytes = std::max(estimate.batch_bytes, replica.batch_bytes);
  if (replica.working_bytes > totals.largest_replica_bytes) {
    totals.largest_replica_bytes = replica.working_bytes;
    estimate.largest_point = point.label.empty() ? "point " + std::to_string(p) : point.label;
  }
  try {
    totals.datasets[s.resolved["workload"]["dataset"].dump()] =
        models::dataset_values(training.dataset, models::input_features(spec)) *
        models::kBytesPerValue;
  } catch (const models::DatasetError& e) {
    throw ScenarioError(experiment.file, "/workload/dataset",
                        std::string(e.what()) + " (expected a readable, well-formed dataset)");
  }
  estimate.flops += replica.flops_per_iteration * spec.iterations * static_cast<double>(replicas);
}

}  // namespace

PreflightEstimate estimate_run(const Experiment& experiment, int jobs, int ranks) {
  RunTotals totals;
  totals.estimate.ranks = ranks;
  for (std::size_t p = 0; p < experiment.points.size(); ++p) {
    const Scenario& s = experiment.points[p].scenario;
    std::visit(sim::Overloaded{
                   // Its tasks are flops and bytes on the simulated nodes: no memory here.
                   [&](const sim::IterativeJobSpec&) {
                     totals.units += static_cast<std::size_t>(s.replicas);
                   },
                   [&](const TrainingWorkload& training) {
                     // A replay reruns the one replica that recorded the log.
                     const std::size_t replicas =
                         training.replay_file.empty() ? static_cast<std::size_t>(s.replicas) : 1;
                     totals.units += replicas;
                     add_training_point(experiment, p, training, replicas, ranks, totals);
                   },
               },
               s.workload);
  }
  PreflightEstimate& estimate = totals.estimate;
  for (const auto& [key, bytes] : totals.datasets) estimate.dataset_bytes += bytes;
  estimate.concurrent_replicas =
      static_cast<int>(std::max<std::size_t>(1, std::min<std::size_t>(totals.units, jobs)));
  estimate.memory_bytes =
      estimate.dataset_bytes + estimate.concurrent_replicas * totals.largest_replica_bytes;
  return estimate;
}

std::optional<double> available_memory_bytes() {
  std::ifstream meminfo("/proc/meminfo");
  std::string key;
  double kilobytes = 0;
  std::string unit;
  while (meminfo >> key >> kilobytes >> unit) {
    if (key == "MemAvailable:") return kilobytes * 1024.0;
  }
  return std::nullopt;
}

void check_memory(const Experiment& experiment, const PreflightEstimate& estimate,
                  double available_bytes) {
  if (estimate.memory_bytes <= available_bytes) return;
  // Point at what dominates: the data, the batch buffers or the stored blocks.
  const double largest =
      std::max({estimate.dataset_bytes, estimate.batch_bytes, estimate.blocks_bytes});
  const char* pointer = largest == estimate.dataset_bytes ? "/workload/dataset"
                        : largest == estimate.batch_bytes ? "/workload/batch"
                                                          : "/workload/layers";
  throw ScenarioError(
      experiment.file, pointer,
      std::string(estimate.ranks > 1
                      ? "each of the " + std::to_string(estimate.ranks) + " ranks needs about "
                      : "the run needs about ") +
          gigabytes(estimate.memory_bytes) + " of memory (" +
          std::to_string(estimate.concurrent_replicas) + " concurrent replicas of up to " +
          gigabytes(estimate.blocks_bytes) + " of stored blocks and " +
          gigabytes(estimate.batch_bytes) + " of batch buffers (" + estimate.largest_point +
          "), and " + gigabytes(estimate.dataset_bytes) + " of data) but " +
          gigabytes(available_bytes) +
          (estimate.ranks > 1 ? " is available to each (expected more ranks,"
                              : " is available (expected") +
          " fewer --jobs, smaller layers, a smaller batch, a smaller "
          "dataset or less redundancy)");
}

namespace {

// The lower bound of check_expected_time for one point, with what it assumed; nullopt when the
// point has no closed form to bound it.
struct TimeBound {
  double simulated_s = 0;
  double rollback_probability = 0;
  double interval = 0;
  double iterations = 0;
  double time_limit_s = 0;
};

// A point's iterations, time limit and the least simulated time an iteration takes (its
// arithmetic spread over every node at full speed).
struct WorkBound {
  double iterations = 0;
  double time_limit_s = 0;
  double min_iteration_s = 0;
  double min_run_s() const { return min_iteration_s * iterations; }
};

WorkBound work_bound(const Scenario& s) {
  const sim::ClusterSpec& cluster = s.cluster;
  WorkBound work;
  std::visit(sim::Overloaded{
                 [&](const TrainingWorkload& training) {
                   const models::TrainingSpec& spec = training.spec;
                   work.iterations = spec.iterations;
                   work.time_limit_s = spec.time_limit_s;
                   const double speed = std::accumulate(cluster.speeds_flops_per_s.begin(),
                                                        cluster.speeds_flops_per_s.end(), 0.0);
                   work.min_iteration_s =
                       models::estimate_training(spec, s.checkpoint).flops_per_iteration / speed;
                 },
                 [&](const sim::IterativeJobSpec& job) {
                   work.iterations = job.iterations;
                   work.time_limit_s = job.time_limit_s;
                   work.min_iteration_s = sim::iterative_job_min_iteration_s(cluster, job);
                 },
             },
             s.workload);
  return work;
}

std::optional<TimeBound> time_bound(const Scenario& s) {
  const WorkBound work = work_bound(s);
  TimeBound bound;
  bound.iterations = work.iterations;
  bound.time_limit_s = work.time_limit_s;
  const double min_iteration_s = work.min_iteration_s;
  bound.rollback_probability =
      std::visit(sim::Overloaded{
                     [](const TrainingWorkload& training) {
                       return models::training_rollback_probability(training.spec, training.faults);
                     },
                     [&](const sim::IterativeJobSpec& job) {
                       return sim::iterative_job_rollback_probability(s.cluster, job);
                     },
                 },
                 s.workload);
  if (bound.rollback_probability <= 0.0) return std::nullopt;
  bound.interval =
      sim::checkpoint_interval_iterations(s.checkpoint, static_cast<int>(bound.iterations));
  bound.simulated_s =
      min_iteration_s * sim::expected_executed_iterations(bound.rollback_probability,
                                                          bound.iterations, bound.interval);
  return bound;
}

}  // namespace

void check_expected_time(const Experiment& experiment) {
  for (std::size_t p = 0; p < experiment.points.size(); ++p) {
    const ExperimentPoint& point = experiment.points[p];
    if (point.scenario.allow_unfinished) continue;
    const std::optional<TimeBound> bound = time_bound(point.scenario);
    if (!bound || !(bound->simulated_s > kHopelessTimeFactor * bound->time_limit_s)) continue;
    const std::string where =
        experiment.points.size() > 1
            ? (point.label.empty() ? "point " + std::to_string(p) : point.label) + ": "
            : "";
    throw ScenarioError(
        experiment.file, "/workload/time_limit_s",
        fmt::format("{}the run cannot finish: its expected simulated time is at least {:.3g} s "
                    "(rollback probability {:.3g} per iteration, {:g} iterations between "
                    "checkpoints, {:g} iterations), over {:g} times time_limit_s = {:g} (expected "
                    "lower fault rates, more frequent checkpoints or a larger time_limit_s; "
                    "--force or allow_unfinished runs it anyway)",
                    where, bound->simulated_s, bound->rollback_probability, bound->interval,
                    bound->iterations, kHopelessTimeFactor, bound->time_limit_s));
  }
}

namespace {

// Failure and repair events per simulated second of `count` processes cycling through up times
// of mean `up_s` and repairs of mean `repair_s` (none when they never fail).
double failure_event_rate(double count, double up_s, double repair_s) {
  if (!std::isfinite(up_s) || count == 0) return 0.0;
  return 2.0 * count / (up_s + repair_s);
}

}  // namespace

void check_failure_events(const Experiment& experiment) {
  for (std::size_t p = 0; p < experiment.points.size(); ++p) {
    const ExperimentPoint& point = experiment.points[p];
    const Scenario& s = point.scenario;
    if (s.allow_unfinished) continue;
    const WorkBound work = work_bound(s);
    const double horizon_s = std::min(work.min_run_s(), work.time_limit_s);
    const sim::SharedFailures& shared = s.cluster.shared_failures;
    double nodes = 0;  // events per simulated second, by cause
    for (const sim::CrashSpec& c : s.cluster.crashes)
      nodes += failure_event_rate(1, c.mtbf_s(), sim::mean_s(c.repair));
    double domains = 0;
    for (const sim::FailureDomainSpec& d : shared.domains)
      domains += failure_event_rate(1, sim::mean_s(d.failure), sim::mean_s(d.repair));
    double links = 0;
    if (shared.links && shared.links->ever_fails()) {
      links =
          failure_event_rate(sim::Topology(s.cluster.network).link_count(),
                             sim::mean_s(shared.links->failure), sim::mean_s(shared.links->repair));
    }
    const double rate_per_s = nodes + domains + links;
    const double events = rate_per_s * horizon_s;
    if (!(events > kMaxFailureEvents)) continue;
    const char* pointer = nodes >= domains && nodes >= links ? "/cluster/crashes"
                          : domains >= links                 ? "/cluster/domains"
                                                             : "/cluster/network/link_failures";
    const std::string where =
        experiment.points.size() > 1
            ? (point.label.empty() ? "point " + std::to_string(p) : point.label) + ": "
            : "";
    throw ScenarioError(
        experiment.file, pointer,
        fmt::format("{}the run cannot finish: its failures and repairs come {:.3g} times per "
                    "simulated second, {:.3g} events in the {:.3g} s it runs at least, over the "
                    "{:g} the engine handles in about a minute (expected longer mean up or repair "
                    "times; --force or allow_unfinished runs it anyway)",
                    where, rate_per_s, events, horizon_s, kMaxFailureEvents));
  }
}

double measured_flops_per_s() {
  const Eigen::Index n = 2048;  // 32 MB: memory-bound like the blocks of large layers
  const Eigen::MatrixXd a = Eigen::MatrixXd::Constant(n, n, 0.5);
  const Eigen::VectorXd x = Eigen::VectorXd::Constant(n, 1.0);
  Eigen::VectorXd y(n);
  const auto start = std::chrono::steady_clock::now();
  int repetitions = 0;
  double elapsed_s = 0;
  do {
    y.noalias() = a * x;
    ++repetitions;
    elapsed_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  } while (elapsed_s < 0.01);
  const double flops = 2.0 * static_cast<double>(n * n) * repetitions;
  return y(0) > 0 ? flops / elapsed_s : flops / elapsed_s;  // y(0) keeps the product alive
}

std::string describe_duration(double seconds) {
  std::ostringstream text;
  text.precision(2);
  if (seconds < 120) {
    text << "about " << std::round(seconds) << " s";
  } else if (seconds < 7200) {
    text << "about " << std::round(seconds / 60) << " min";
  } else {
    text << "about " << seconds / 3600 << " h";
  }
  return text.str();
}

}  // namespace codesim::app
