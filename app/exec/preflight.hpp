// Preflight: before a run starts, estimate its memory (stored blocks, datasets, shadows) and its
// wall time from the arithmetic it must do, refuse runs that cannot fit in memory, and say how
// long long runs will take.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "app/exec/runner.hpp"

namespace codesim::app {

struct PreflightEstimate {
  double memory_bytes = 0;      ///< peak estimate of the whole run
  double blocks_bytes = 0;      ///< stored blocks of one replica of the largest point
  double batch_bytes = 0;       ///< batch-sized buffers of one replica, the largest of any point
  double dataset_bytes = 0;     ///< every distinct dataset, loaded once
  int concurrent_replicas = 1;  ///< replicas in memory at once (threads, at most the units)
  /// Node arithmetic of every replica of every point; stochastic-mode node operations count
  /// kFlopsPerNodeOperation each (about their wall time at the measured rate).
  double flops = 0;
  double node_operations = 0;  ///< stochastic mode: tasks simulated (no rollbacks), all points
  std::string largest_point;   ///< label (or index) of the point with the largest blocks
  int ranks = 1;  ///< MPI ranks sharing each run's blocks (--distribute nodes); the rest per rank
};

/// Flops of the measured matrix-vector rate that take about as long as one simulated task of
/// stochastic mode (about 100 ns at 2 Gflop/s).
inline constexpr double kFlopsPerNodeOperation = 200.0;

/// The estimate for running `experiment` on `jobs` threads (a ScenarioError at /workload/dataset
/// when an IDX file's header cannot be read). Training: per replica its stored
/// blocks (8 bytes per stored value, every copy and code symbol), the audit's shadow, the working
/// copy of one layer and the buffers of a batch; datasets at 8 bytes per feature; checkpoints are
/// on disk. Iterative jobs need no notable memory. Flops: forward, backward and update products
/// of every node and the input encodings, per iteration, times iterations and replicas.
/// Stochastic mode stores no blocks and reads no data: per iteration its node operations are the
/// participants of L forward and L - 1 backward rounds (L with first_layer_backward) and every
/// node's update (P each, an upper bound), plus a verification pass of 2L rounds per checkpoint.
/// With ranks > 1 (a run distributed over MPI ranks), the estimate of the busiest rank: its share
/// of the blocks (ceil(P / R) of the P nodes'), the rest whole.
PreflightEstimate estimate_run(const Experiment& experiment, int jobs, int ranks = 1);

/// MemAvailable of /proc/meminfo in bytes, if it can be read.
std::optional<double> available_memory_bytes();

/// Throws a ScenarioError at /workload/layers when `estimate` needs more than `available_bytes`,
/// saying how much is needed and available and what to change.
void check_memory(const Experiment& experiment, const PreflightEstimate& estimate,
                  double available_bytes);

/// How far beyond its time limit a run's expected simulated time may lie before preflight refuses
/// it (a lower bound on that time is compared, so a refused run cannot finish in time).
inline constexpr double kHopelessTimeFactor = 100.0;

/// Throws a ScenarioError at the first point whose expected simulated time (a lower bound from
/// the closed forms: rollback probability per iteration, checkpoint interval, the arithmetic
/// spread over every node) exceeds kHopelessTimeFactor times its time_limit_s, with the estimate.
void check_expected_time(const Experiment& experiment);

/// Failure and repair events (node crashes, domains, links) a run may make before preflight
/// refuses it: about a minute of the engine's time, where a run's every simulated second can need
/// billions of them (mtbf_s and repair_s of nanoseconds), and no iteration, hence no interrupt
/// poll, would ever end.
inline constexpr double kMaxFailureEvents = 1e9;

/// Throws a ScenarioError at the first point whose failures and repairs would make more than
/// kMaxFailureEvents events before the run can end: their rate (2 per cycle of mean up time plus
/// mean repair time, per node, domain and failing link) times the lesser of the work's lower
/// bound (as check_expected_time's) and time_limit_s. The pointer is the largest contributor's:
/// /cluster/crashes, /cluster/domains or /cluster/network/link_failures.
void check_failure_events(const Experiment& experiment);

/// Arithmetic throughput of one thread of this machine on a block product (measured by a short
/// matrix-vector benchmark on a 32 MB matrix, about 50 ms), in flop/s.
double measured_flops_per_s();

/// "about 12 min" style text for a duration in seconds.
std::string describe_duration(double seconds);

}  // namespace codesim::app
