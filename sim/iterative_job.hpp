// The iterative_job workload: I iterations of T tasks, wait for all or the fastest K, exchange,
// checkpoint, and roll back on crashes of needed tasks and detected soft errors.
#pragma once

#include <cstdint>
#include <string>

#include "sim/checkpoint_policy.hpp"
#include "sim/cluster.hpp"
#include "sim/metric_set.hpp"

namespace codesim::sim {

struct IterativeJobSpec {
  int iterations = 10;           ///< useful iterations to complete, >= 1
  int tasks = 0;                 ///< tasks per iteration, 0 = one per node; task t runs on node t mod P
  double task_flops = 1e9;       ///< flops per task, > 0
  int wait_for = 0;              ///< iteration completes after the fastest K tasks; 0 = all
  double bytes_per_task = 0.0;   ///< bytes each finished task's result sends
  std::string exchange = "all_gather";  ///< "all_gather", "to_one" (to node 0) or "none"
  bool detect_soft_errors = true;  ///< true: a struck task is detected and rolls back; false: silent
};

/// Runs one replica to completion and returns its metrics:
///   completion_time_s, iterations_done, iterations_redone, checkpoints, rollbacks, crashes,
///   soft_errors, silent_soft_errors, time_compute_s, time_communication_s, time_checkpoint_s,
///   time_restart_s, time_lost_s (progress discarded by rollbacks).
MetricSet run_iterative_job(const ClusterSpec& cluster, const CheckpointSpec& checkpoint,
                            const IterativeJobSpec& job, std::uint64_t seed,
                            std::uint64_t replica);

}  // namespace codesim::sim
