// The stochastic run's crashes: the numeric mode's sim::CrashProcess itself (node crash laws,
// failure domains, availability traces) on an engine of its own. The stochastic run advances its
// clock in steps rather than through an event queue, so it asks this timeline for the next crash
// or repair and processes them in time order; a run at the numeric mode's simulated times sees
// its crashes at the same instants, since they come from the same process and streams.
#pragma once

#include <cstdint>
#include <memory>

#include "sim/cluster.hpp"

namespace codesim::models::detail {

/// A crash or a repair of one cluster node, or a link's failure or repair.
struct CrashEvent {
  double time_s = 0.0;
  int node = 0;
  bool crash = true;  ///< false: a repair
  int link = -1;      ///< >= 0: link `link` failed (crash) or came back; `node` is then -1
};

/// The up/down transitions of the cluster's nodes, in the order sim::CrashProcess makes them
/// (its own streams: (seed, replica, "crash" / "repair", node), "domain", "domain repair", "link",
/// "link repair"). Link failures act on a private copy of the network, which tells whom they cut
/// off; each link transition is reported before the crashes and repairs of the nodes it cuts off
/// or reconnects, so that the run can take the same link down in its own network and reroute.
class CrashTimeline {
 public:
  CrashTimeline();
  /// Transitions after `horizon_s` are not looked for (next_s() is then infinite).
  CrashTimeline(const sim::ClusterSpec& cluster, std::uint64_t seed, std::uint64_t replica,
                double horizon_s);
  CrashTimeline(CrashTimeline&&) noexcept;
  CrashTimeline& operator=(CrashTimeline&&) noexcept;
  ~CrashTimeline();
  /// Whether any node ever goes down (a crash law, a failure domain, a trace or link failures).
  bool active() const { return active_; }
  /// The time of the next transition (infinity: none up to the horizon). Runs the process's
  /// events up to it.
  double next_s() const;
  /// Removes the next transition. Precondition: next_s() is finite.
  CrashEvent pop();
  /// When node `node` went down for good (sim::CrashProcess::down_for_good_since_s; infinity:
  /// it has not, as far as the timeline ran).
  double down_for_good_since_s(int node) const;

 private:
  struct Process;
  std::unique_ptr<Process> process_;
  bool active_ = false;
};

}  // namespace codesim::models::detail
