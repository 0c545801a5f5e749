// Closed-form lower bounds on the expected simulated time of jobs with rollbacks.
#include "sim/progress_estimate.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace codesim::sim {

double expected_executed_iterations(double p, double iterations, double interval) {
  if (p <= 0.0) return iterations;
  if (p >= 1.0) return std::numeric_limits<double>::infinity();
  // ((1 - p)^-interval - 1) / p per interval, with expm1 and log1p for small p.
  const double per_interval = std::expm1(-interval * std::log1p(-p)) / p;
  return iterations / interval * per_interval;
}

double checkpoint_interval_iterations(const CheckpointSpec& checkpoint, int iterations) {
  switch (checkpoint.policy) {
    case CheckpointKind::none:
      return iterations;
    case CheckpointKind::every_iterations:
      return std::min(checkpoint.every_iterations, iterations);
    case CheckpointKind::every_seconds:
    case CheckpointKind::young:
    case CheckpointKind::daly:
    case CheckpointKind::optimal_simulated:
      return 1;
  }
  return 1;
}

double iterative_job_rollback_probability(const ClusterSpec& cluster, const IterativeJobSpec& job) {
  if (!job.detect_soft_errors || cluster.soft_errors.empty()) return 0.0;
  const int nodes = cluster.node_count();
  const double tasks = job.tasks > 0 ? job.tasks : nodes;
  // log P(clean) = sum over tasks of log(1 - p_node); node t mod P runs task t.
  double log_clean = 0.0;
  for (int node = 0; node < nodes && node < tasks; ++node) {
    const SoftErrorSpec& spec = cluster.soft_errors[static_cast<std::size_t>(node)];
    const double tasks_on_node = std::floor((tasks - 1 - node) / nodes) + 1;
    // log(1 - p) with p = 1 - (1 - eps) e^(-r f): log1p(-eps) - r f.
    log_clean += tasks_on_node * (std::log1p(-spec.probability_per_operation) -
                                  spec.rate_per_flop * job.task_flops);
  }
  return -std::expm1(log_clean);
}

double iterative_job_min_iteration_s(const ClusterSpec& cluster, const IterativeJobSpec& job) {
  const double speed =
      std::accumulate(cluster.speeds_flops_per_s.begin(), cluster.speeds_flops_per_s.end(), 0.0);
  const double tasks = job.tasks > 0 ? job.tasks : cluster.node_count();
  return tasks * job.task_flops / speed;
}

}  // namespace codesim::sim
