// The stochastic run's crashes: the numeric mode's sim::CrashProcess without an engine. The
// stochastic run advances its clock in steps rather than through an event queue, so it asks this
// timeline for the next crash or repair and processes them in time order; the up and repair
// times are drawn from the crash process's streams in its order, so that a run at the numeric
// mode's simulated times sees its crashes at the same instants.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/crash_process.hpp"
#include "sim/random_stream.hpp"

namespace codesim::models::detail {

/// A crash or a repair of one cluster node.
struct CrashEvent {
  double time_s = 0.0;
  int node = 0;
  bool crash = true;  ///< false: a repair
};

/// Per cluster node: up times from stream (seed, replica, "crash", node) and repair times from
/// (seed, replica, "repair", node), drawn when sim::CrashProcess draws them (an up time at the
/// start and at each repair, a repair time at each crash); events at one instant in the order the
/// engine would run them (the order they were scheduled). A node that crashes twice at one
/// instant stays down, as in CrashProcess.
class CrashTimeline {
 public:
  CrashTimeline() = default;
  CrashTimeline(const std::vector<sim::CrashSpec>& specs, std::uint64_t seed,
                std::uint64_t replica);
  /// Whether any node ever fails.
  bool active() const { return active_; }
  /// The time of the next event (infinity: none).
  double next_s() const;
  /// Removes the next event and schedules what follows it (the repair, the next failure).
  CrashEvent pop();

 private:
  struct Scheduled {
    double time_s = 0.0;
    std::uint64_t sequence = 0;
    CrashEvent event;
  };
  void schedule_failure(int node, double now_s);
  void push(double time_s, int node, bool crash);

  std::vector<sim::CrashSpec> specs_;
  std::vector<sim::RandomStream> up_streams_;
  std::vector<sim::RandomStream> repair_streams_;
  std::vector<double> last_crash_s_;
  std::vector<Scheduled> heap_;
  std::uint64_t sequence_ = 0;
  bool active_ = false;
};

}  // namespace codesim::models::detail
