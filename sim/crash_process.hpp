// Crash process: per node, an up time drawn from its failure law, a crash, a repair time drawn
// from its repair law, then up again.
#pragma once

#include <cmath>
#include <cstdint>
#include <functional>
#include <vector>

#include "sim/engine.hpp"
#include "sim/failure_law.hpp"
#include "sim/node.hpp"

namespace codesim::sim {

/// Crash parameters of one node: the law of its up times and of its repair times
/// (sim/failure_law.hpp). The default never crashes.
struct CrashSpec {
  FailureLaw failure = ExponentialLaw{};  ///< time from the start or a repair to the next failure
  RepairLaw repair = FixedLaw{};          ///< time a crashed node stays down
  /// Mean up time, seconds (infinite: the node never crashes).
  double mtbf_s() const { return mean_s(failure); }
  bool ever_fails() const { return std::isfinite(mtbf_s()); }
};

/// Exponential up times of mean mtbf_s (infinity: never) and a fixed repair time: the crash
/// process of codesim before failure laws, and of a scenario's mtbf_s and repair_s.
CrashSpec exponential_crashes(double mtbf_s, double repair_s = 0.0);

/// Drives crashes of a set of nodes on an engine. Up times are drawn from stream (seed, replica,
/// "crash", node id), repair times from (seed, replica, "repair", node id) (none for fixed
/// repairs), so exponential failures with fixed repairs draw what they always drew. A node cannot
/// fail while it is down. A node that crashes twice at one instant (its repair and its time to
/// failure both too short for the clock to advance, e.g. mtbf_s 5e-324 with repair_s 0) stays down:
/// it would never be up for any time, and repairing it again would crash it again forever without
/// time passing.
class CrashProcess {
 public:
  /// Called right after node `node_id` went down; `task_lost` tells whether a running task was
  /// lost.
  using CrashListener = std::function<void(int node_id, bool task_lost)>;
  /// Called right after node `node_id` is back up.
  using RepairListener = std::function<void(int node_id)>;

  /// `specs[i]` applies to `nodes[i]`. The nodes must outlive the process.
  CrashProcess(Engine& engine, std::vector<Node>& nodes, std::vector<CrashSpec> specs,
               std::uint64_t seed, std::uint64_t replica);

  void on_crash(CrashListener listener) { on_crash_ = std::move(listener); }
  void on_repair(RepairListener listener) { on_repair_ = std::move(listener); }
  /// Schedules every node's first failure. Call once.
  void start();
  std::uint64_t crashes() const { return crashes_; }

 private:
  void schedule_failure(int node_index);

  Engine& engine_;
  std::vector<Node>& nodes_;
  std::vector<CrashSpec> specs_;
  std::vector<RandomStream> streams_;
  std::vector<RandomStream> repair_streams_;
  std::vector<double> last_crash_s_;  // per node; NaN before its first crash
  CrashListener on_crash_;
  RepairListener on_repair_;
  std::uint64_t crashes_ = 0;
};

}  // namespace codesim::sim
