// Checkpoint policies (none, every N iterations, every T seconds, Young, Daly) and their costs.
#pragma once

#include <array>
#include <string>
#include <string_view>
#include <vector>

#include "sim/checkpoint_storage.hpp"

namespace codesim::sim {

/// The checkpoint policies: none, every_iterations (every every_iterations iterations),
/// every_seconds (every every_s of progress), young (tau = sqrt(2 delta M)) and daly (Daly 2006
/// higher-order tau), where delta is the write cost and M = mtbf_s (the whole job's mean time
/// between failures), and optimal_simulated: the runner simulates daly with each of
/// search_factors times its interval (common random numbers) and reports the fastest
/// (app/exec/checkpoint_search); run directly, it is daly.
enum class CheckpointKind { none, every_iterations, every_seconds, young, daly, optimal_simulated };

/// The policies' names (in scenarios and outputs), indexed by CheckpointKind.
inline constexpr std::array<std::string_view, 6> kCheckpointKindNames = {
    "none", "every_iterations", "every_seconds", "young", "daly", "optimal_simulated"};
std::string_view to_string(CheckpointKind kind);

/// Plain description of checkpointing: the policy and its parameters.
struct CheckpointSpec {
  CheckpointKind policy = CheckpointKind::none;
  int every_iterations = 0;  ///< > 0 for every_iterations
  double every_s = 0.0;      ///< > 0 for every_seconds
  double mtbf_s = 0.0;       ///< job MTBF for young/daly; 0 = derive from the cluster
  /// young/daly: the interval is this times Young's or Daly's (> 0; 1 = theirs).
  double interval_factor = 1.0;
  /// optimal_simulated: the interval factors simulated (each > 0, at least two).
  std::vector<double> search_factors = {0.125, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0};
  double write_s = 0.0;  ///< fixed write cost, seconds
  double bytes = 0.0;    ///< bytes written per checkpoint (adds bytes / write_bandwidth)
  double write_bandwidth_Bps = 0.0;  ///< 0 = no bandwidth term
  double restart_s = 0.0;            ///< cost of restarting from the last checkpoint, seconds
  /// Rollbacks in a row that get no further than the best attempt from the same checkpoint
  /// before the job gives that checkpoint up (sim::ProgressWatchdog); >= 1.
  int max_stalled_rollbacks = 1000;
  /// Where checkpoints are written (sim/checkpoint_storage.hpp): shared storage adds the
  /// transfers to and from its server to every write and restart.
  StorageSpec storage;
};

/// Returns "" when `spec` is usable, else what is wrong and what is expected, e.g.
/// "checkpoint every_s must be > 0 (got 0)". young/daly need a positive write cost.
std::string validate_checkpoint(const CheckpointSpec& spec);

/// Total cost of writing one checkpoint: write_s + bytes / write_bandwidth_Bps.
double checkpoint_write_cost_s(const CheckpointSpec& spec);

/// Young (1974): tau = sqrt(2 delta M); 0 when M = 0.
double young_interval_s(double write_cost_s, double mtbf_s);
/// Daly (2006): tau = sqrt(2 delta M) (1 + sqrt(delta / (2M)) / 3 + delta / (18 M)) - delta
/// for delta < 2M, else tau = M (so 0 when M = 0).
double daly_interval_s(double write_cost_s, double mtbf_s);
/// Daly (2006) expected wall time to finish `work_s` of failure-free work with checkpoints every
/// tau seconds of work, write cost delta, restart R and exponential failures of mean M:
/// T_w = M e^(R/M) (e^((tau + delta)/M) - 1) work_s / tau.
double daly_expected_completion_s(double work_s, double tau_s, double write_cost_s,
                                  double restart_s, double mtbf_s);

/// What one checkpoint costs in a run, seconds: a write (delta in Young's and Daly's intervals) and
/// a restart. The run knows them: the bytes each node writes and the transfers to shared storage.
struct CheckpointCosts {
  double write_s = 0.0;
  double restart_s = 0.0;
};

/// The spec's own costs: write_s + bytes / write_bandwidth_Bps and restart_s (no storage).
CheckpointCosts checkpoint_costs(const CheckpointSpec& spec);
/// `costs` plus, with shared storage (spec.storage), the transfers of nodes 0..nodes-1 each
/// writing `bytes_per_node` to its server at once, and reading them back on a restart.
CheckpointCosts add_storage_transfers(CheckpointCosts costs, const CheckpointSpec& spec,
                                      const Topology& topology, int nodes, double bytes_per_node);

/// Decides when a job checkpoints. Progress is counted since the last checkpoint.
class CheckpointPolicy {
 public:
  /// `mtbf_s` is used by young/daly (spec.mtbf_s when > 0 wins over it); `costs` are what a write
  /// and a restart take in the run, so that young/daly size the interval with the write cost the
  /// run pays.
  CheckpointPolicy(const CheckpointSpec& spec, double mtbf_s, CheckpointCosts costs);
  /// With the spec's own costs (checkpoint_costs(spec)).
  CheckpointPolicy(const CheckpointSpec& spec, double mtbf_s)
      : CheckpointPolicy(spec, mtbf_s, checkpoint_costs(spec)) {}

  /// True when a checkpoint is due after `iterations` iterations taking `progress_s` seconds
  /// since the last checkpoint (or the start).
  bool due(int iterations, double progress_s) const;
  /// The interval in seconds of progress for time-based policies (every_seconds, young, daly);
  /// infinity for none, 0 for every_iterations.
  double interval_s() const { return interval_s_; }
  double write_cost_s() const { return write_cost_s_; }
  double restart_s() const { return restart_s_; }
  /// Why a run whose restart starts at `now_s` can never complete by `time_limit_s`: the
  /// restart would end after it, and every later rollback takes the same restart. Empty when it
  /// ends in time. Such a run ends as at its limit at once (without this, a restart of 1e308 s
  /// under crashes simulated every crash up to the limit).
  std::string restart_past_limit(double now_s, double time_limit_s) const;
  bool enabled() const { return kind_ != Kind::none; }

 private:
  enum class Kind { none, iterations, seconds };
  Kind kind_ = Kind::none;
  int every_iterations_ = 0;
  double interval_s_ = 0.0;
  double write_cost_s_ = 0.0;
  double restart_s_ = 0.0;
};

}  // namespace codesim::sim
