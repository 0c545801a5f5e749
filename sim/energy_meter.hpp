// The energy a run spends, from the power of its nodes and the bytes it moves. Each of the run's
// nodes draws its idle power the whole run, its busy power while it computes (tasks, decodes,
// verification passes) and its down power while crashed; bytes sent between nodes and checkpoint
// bytes written cost their energy per byte. The cluster's nodes outside the run are not counted
// (free for other jobs). Like the workloads' time breakdowns, whose kinds of time it prices, work
// since the last checkpoint is pending: a checkpoint commits it, a rollback loses it. It lives in
// sim/ so that every workload (sim/iterative_job and models/training) prices energy alike.
#pragma once

#include <array>
#include <span>
#include <string_view>
#include <vector>

#include "sim/cluster.hpp"
#include "sim/metric_set.hpp"

namespace codesim::sim {

/// The parts energy_J splits into, in the order EnergyMeter::add_to writes their metrics
/// (energy_<part>_J).
inline constexpr std::array<std::string_view, 6> kEnergyParts = {"compute",    "idle",    "network",
                                                                 "checkpoint", "restart", "lost"};
/// The sum of the energy_<part>_J metrics `metrics` has: energy_J, when they add up as they must.
double sum_of_energy_parts_J(const MetricSet& metrics);

/// The committed seconds of a run that add_to prices at idle power, by kind; with restart_s and
/// lost_s they add up to the run's completion time. A workload's time breakdown gives them (for
/// training, models::energy_times), so that the meter needs no workload's types.
struct EnergyTimes {
  double work_s = 0.0;        ///< committed work: computing, communicating, decoding, evaluating
  double checkpoint_s = 0.0;  ///< committed checkpoints (verification passes and writes)
  double restart_s = 0.0;     ///< restarts, including waiting for repairs
  double lost_s = 0.0;        ///< work discarded by rollbacks
};

class EnergyMeter {
 public:
  EnergyMeter() = default;
  /// Nodes 0 .. nodes - 1 of `cluster` (a training scheme's nodes, or all of an iterative job's).
  EnergyMeter(const ClusterSpec& cluster, int nodes);

  /// Node p computed for `seconds` (a task, or the part of it that ran before it was cancelled).
  void busy(int p, double seconds);
  /// A decode of `seconds`: its decoders compute, every node of `live` (ascending) when
  /// decoding is decentralized, else node 0 when it is live.
  void decode(std::span<const int> live, bool decentralized, double seconds);
  /// Every node computed for `seconds` (the verification pass before a checkpoint).
  void verification(double seconds);
  /// Node p was down for `seconds`, which the time breakdown charged to work (compute,
  /// communication, decode, checkpoint) or, `waiting`, to restart (the job restarting or waiting
  /// for repairs).
  void down(int p, double seconds, bool waiting);
  /// Bytes sent from one node to another.
  void network(double bytes) { pending_.network_B += bytes; }
  /// Bytes of a checkpoint written (committed at once: the checkpoint keeps them).
  void checkpoint_written(double bytes) { checkpoint_B_ += bytes; }
  /// pending -> committed.
  void commit();
  /// pending -> lost.
  void discard();
  /// Watts the run's nodes draw together when all are up and idle.
  double idle_W() const { return idle_W_; }

  /// Sets energy_J and its breakdown, energy_compute_J (busy nodes), energy_idle_J (waiting and
  /// down nodes during work), energy_network_J, energy_checkpoint_J (the nodes during checkpoint
  /// time, the verification's computing, the bytes written), energy_restart_J and energy_lost_J
  /// (the nodes and bytes of work rolled back), from `time` (committed: commit() first).
  void add_to(MetricSet& metrics, const EnergyTimes& time) const;
  /// Joules spent in the first `elapsed_s` simulated seconds, committed, pending and lost alike:
  /// the idle power of every node over elapsed_s plus what busy and down nodes, verification
  /// passes and bytes added. `down_since_s` (per node, negative: up) gives the nodes that are down
  /// now, whose down time down() has not been told yet. At the end of a run (whose time breakdown
  /// adds up to its completion time) this is add_to's energy_J.
  double spent_J(double elapsed_s, std::span<const double> down_since_s) const;

 private:
  struct Work {
    double busy_J = 0.0;          // busy nodes at their busy power
    double busy_idle_J = 0.0;     // the same node-seconds at idle power
    double down_extra_J = 0.0;    // (down - idle power) of down node-seconds
    double verification_J = 0.0;  // (busy - idle power) of the verification passes
    double network_B = 0.0;
    void add(const Work& w);
  };
  std::vector<PowerSpec> power_;
  TransferEnergySpec transfer_;
  double idle_W_ = 0.0;
  double extra_W_ = 0.0;  // sum of busy - idle power
  Work pending_;
  Work committed_;
  Work lost_;
  double checkpoint_B_ = 0.0;
  double down_waiting_extra_J_ = 0.0;  // down_extra_J of nodes down while the job waited
};

}  // namespace codesim::sim
