// The iterative_job workload: I iterations of T tasks, wait for all or the fastest K, exchange,
// checkpoint, and roll back on crashes of needed tasks and detected soft errors.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "sim/checkpoint_policy.hpp"
#include "sim/cluster.hpp"
#include "sim/metric_set.hpp"

namespace codesim::sim {

/// How finished tasks' results are exchanged: all_gather (among the used nodes), to_one (every
/// used task's result to node 0), all_reduce (a ring all-reduce among the used nodes of a vector of
/// their tasks' bytes: data-parallel gradient exchange) or none.
enum class ExchangeKind { all_gather, to_one, none, all_reduce };

/// The exchanges' names (in scenarios and outputs), indexed by ExchangeKind.
inline constexpr std::array<std::string_view, 4> kExchangeKindNames = {"all_gather", "to_one",
                                                                       "none", "all_reduce"};
std::string_view to_string(ExchangeKind kind);
std::optional<ExchangeKind> parse_exchange_kind(std::string_view name);

struct IterativeJobSpec {
  int iterations = 10;      ///< useful iterations to complete, >= 1
  int tasks = 0;            ///< tasks per iteration, 0 = one per node; task t runs on node t mod P
  double task_flops = 1e9;  ///< flops per task, > 0
  int wait_for = 0;         ///< iteration completes after the fastest K tasks; 0 = all
  double bytes_per_task = 0.0;  ///< bytes each finished task's result sends
  ExchangeKind exchange = ExchangeKind::all_gather;
  bool detect_soft_errors =
      true;  ///< true: a struck task is detected and rolls back; false: silent
  bool checkpoint_at_end = false;  ///< write a last checkpoint when the final iteration completes
  double time_limit_s = 1e12;  ///< simulated time after which the replica gives up (completed = 0)
};

/// Runs one replica to completion and returns its metrics:
///   completed (1, or 0 when time_limit_s was hit), completion_time_s, iterations_done,
///   iterations_redone, checkpoints, rollbacks, crashes, soft_errors, detected_soft_errors,
///   silent_soft_errors, and the time breakdown time_compute_s, time_communication_s,
///   time_checkpoint_s, time_restart_s (restarts, including waiting for repairs), time_lost_s
///   (compute, communication and checkpoint writes discarded by rollbacks); the five add up to
///   completion_time_s; under the flow model time_link_wait_s, the part of time_communication_s
///   lost to links shared between the exchange's transfers; then the energy (sim/energy_meter.hpp,
///   every node of the cluster) energy_J and its parts energy_compute_J (nodes running tasks, at
///   busy power, for what ran until the task finished, was abandoned or cancelled, or was lost to a
///   crash), energy_idle_J (the other node-seconds of committed work at idle power, crashed nodes
///   at down power), energy_network_J (the exchange's bytes: all_gather, each participant's results
///   to every other participant; to_one, each used task's result not on node 0; all_reduce, 2 (p -
///   1) / p of each participant's vector from each participant), energy_checkpoint_J (idle power
///   during writes, checkpoint.bytes per completed write), energy_restart_J (restarts and waiting
///   for repairs, crashed nodes at down power) and energy_lost_J (the nodes and bytes of work
///   discarded by rollbacks, like time_lost_s); the six add up to energy_J.
/// Semantics: task t runs on node t mod P (a node runs its tasks back to back); the compute phase
/// ends when the fastest wait_for tasks (or all) finished, the rest are abandoned; then results
/// are exchanged. Rollback to the last checkpoint (then restart_s) happens when a crash hits a
/// node whose unfinished task is still needed, a participant of the exchange, a checkpoint write
/// or a restart (which then starts over), and when a used task was struck by a soft error and
/// detect_soft_errors is set. Young and Daly intervals use the job's mean time between
/// rollbacks: crashes of any node plus detected soft errors at their expected rate per second of
/// straggler-free iteration time (unless the checkpoint spec gives mtbf_s).
/// `should_stop`, when set, is polled before every iteration; true throws RunStopped.
MetricSet run_iterative_job(const ClusterSpec& cluster, const CheckpointSpec& checkpoint,
                            const IterativeJobSpec& job, std::uint64_t seed, std::uint64_t replica,
                            const std::function<bool()>& should_stop = {});

/// What a checkpoint write and a restart of the job cost: the spec's costs plus, with shared
/// storage, every node of `topology` sending (reading back) its equal share of checkpoint.bytes.
CheckpointCosts iterative_job_checkpoint_costs(const CheckpointSpec& checkpoint,
                                               const Topology& topology);

}  // namespace codesim::sim
