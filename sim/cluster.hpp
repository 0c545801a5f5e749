// A simulated cluster: nodes with their straggler laws, the network, and crash and soft-error
// processes.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/crash_process.hpp"
#include "sim/engine.hpp"
#include "sim/node.hpp"
#include "sim/soft_error_process.hpp"
#include "sim/straggler_model.hpp"
#include "sim/topology.hpp"

namespace codesim::sim {

/// What one node draws, in watts: computing, up and waiting, and down (crashed until repaired).
/// Defaults: a two-socket server at full load and idle (scenarios/README.md, "cluster.power",
/// gives the sources); a crashed node is taken to be powered off.
struct PowerSpec {
  double busy_W = 300.0;
  double idle_W = 150.0;
  double down_W = 0.0;
};

/// Energy of moving data: per byte sent between nodes, and per checkpoint byte written (the
/// transfer to storage and the write). Defaults: scenarios/README.md, "cluster.power".
struct TransferEnergySpec {
  double network_J_per_B = 2e-8;
  double checkpoint_J_per_B = 3e-8;
};

/// Plain per-node description of a cluster (defaults and overrides already resolved). Every
/// vector has one entry per node.
struct ClusterSpec {
  std::vector<double> speeds_flops_per_s;
  /// Empty, or one per node: the multiplier of its speed over time (an empty trace: 1).
  std::vector<StepTrace> speed_traces;
  std::vector<StragglerSpec> stragglers;
  std::vector<CrashSpec> crashes;
  /// Failure domains and the availability trace (none by default).
  SharedFailures shared_failures;
  std::vector<SoftErrorSpec> soft_errors;
  std::vector<PowerSpec> power;
  TransferEnergySpec transfer_energy;
  TopologySpec network;  ///< network.nodes == number of nodes

  int node_count() const { return static_cast<int>(speeds_flops_per_s.size()); }
};

/// A ClusterSpec with `nodes` identical nodes.
ClusterSpec uniform_cluster(int nodes, double speed_flops_per_s);

/// The live cluster of one replica. Random streams are keyed by (seed, replica, component, node).
class Cluster {
 public:
  Cluster(Engine& engine, const ClusterSpec& spec, std::uint64_t seed, std::uint64_t replica);
  Cluster(const Cluster&) = delete;
  Cluster& operator=(const Cluster&) = delete;

  int size() const { return static_cast<int>(nodes_.size()); }
  Node& node(int id) { return nodes_[id]; }
  const Node& node(int id) const { return nodes_[id]; }
  std::vector<Node>& nodes() { return nodes_; }
  /// The network; with link failures the crash process takes its links down and back up.
  const Topology& topology() const { return topology_; }
  CrashProcess& crashes() { return crashes_; }
  SoftErrorProcess& soft_errors() { return soft_errors_; }
  const SoftErrorProcess& soft_errors() const { return soft_errors_; }
  /// Mean time between failures of the whole cluster, 1 / (sum over nodes of 1 / mtbf_i + sum
  /// over failure domains of 1 / their mean up time); infinity if nothing fails. A replayed trace
  /// is not counted (it has no rate), nor are link failures (whom they cut off depends on the
  /// other links).
  double system_mtbf_s() const { return system_mtbf_s_; }

 private:
  std::vector<Node> nodes_;
  Topology topology_;
  CrashProcess crashes_;
  SoftErrorProcess soft_errors_;
  double system_mtbf_s_;
};

}  // namespace codesim::sim
