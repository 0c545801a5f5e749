// Recognizes a job that rolls back without making progress, so that a run whose checkpoint (or
// whose every attempt) is doomed stops instead of looping until its time limit.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "sim/run_stopped.hpp"

namespace codesim::sim {

/// Watches the attempts since the last checkpoint. An attempt stalls when it rolls back no
/// further than the best attempt before it. Attempts that fail at random points soon set a new
/// best; a run stalls when
///  - `limit` attempts in a row stall (whatever failed them: even a legitimate run whose
///    iterations roll back with probability 0.99 sets a new best more often), or
///  - kRepeatLimit of the stalled attempts saw no random event at all (no fault, no crash) since
///    their restore: the same state then fails the same way every time (a corrupted checkpoint,
///    a diverging learning rate), so waiting for `limit` would only burn time.
class ProgressWatchdog {
 public:
  static constexpr int kRepeatLimit = 3;

  /// `limit` >= 1.
  explicit ProgressWatchdog(int limit) : limit_(limit) {}

  /// A checkpoint was written or restored from further back: the record starts again.
  void restart_record() {
    best_ = 0;
    stalled_ = 0;
    repeated_ = 0;
  }
  /// An attempt rolled back after `progress` useful iterations past its checkpoint;
  /// `random_events` says whether any fault or crash happened since its restore. Returns whether
  /// the run is now stalled.
  bool rolled_back(int progress, bool random_events) {
    if (progress > best_) {
      best_ = progress;
      stalled_ = 0;
      repeated_ = 0;
      return false;
    }
    ++stalled_;
    if (!random_events) ++repeated_;
    return stalled_ >= limit_ || repeated_ >= kRepeatLimit;
  }
  int limit() const { return limit_; }
  /// Why the run stalled (after rolled_back returned true, before restart_record).
  std::string why() const {
    if (repeated_ >= kRepeatLimit) {
      return std::to_string(repeated_) +
             " rollbacks without any fault or crash got no further than the best attempt before "
             "them: the same state fails the same way every time";
    }
    return std::to_string(stalled_) +
           " rollbacks in a row got no further than the best attempt before them "
           "(checkpoint.max_stalled_rollbacks)";
  }

 private:
  int limit_;
  int best_ = 0;      // most useful iterations an attempt reached past the checkpoint
  int stalled_ = 0;   // attempts in a row that got no further than best_
  int repeated_ = 0;  // of those, the ones without any random event
};

/// Recognizes a failure storm: nodes that fail and come back much faster than any task ends make
/// crash and repair events without end while no iteration finishes, so that neither the rollback
/// watchdog nor the interrupt poll (both per iteration) is ever reached. A workload counts its
/// crashes and repairs here and its finished iterations reset the count.
class FailureStormGuard {
 public:
  /// About ten seconds of the engine's time; a legitimate run makes a handful per iteration.
  static constexpr std::uint64_t kMaxEventsWithoutProgress = 100'000'000;

  /// Crashes and repairs between two polls of the run's interrupt: a run that makes no progress
  /// (and so never reaches its per-iteration poll) still stops within a fraction of a second.
  static constexpr std::uint64_t kEventsPerInterruptPoll = 4096;

  /// Polls `should_stop` (not owned; it outlives the guard; may be empty) every
  /// kEventsPerInterruptPoll events without progress.
  void poll_interrupts_with(const std::function<bool()>& should_stop) {
    should_stop_ = &should_stop;
  }

  void progressed() { events_ = 0; }
  /// A crash or repair. True exactly once, when kMaxEventsWithoutProgress of them have come
  /// without progress: the run must stop, for why(). Throws RunStopped when the interrupt poll
  /// says so.
  bool failure_event() {
    ++events_;
    if (events_ % kEventsPerInterruptPoll == 0 && should_stop_ != nullptr && *should_stop_ &&
        (*should_stop_)())
      throw RunStopped("stopped on request while crashes and repairs went on");
    return events_ == kMaxEventsWithoutProgress;
  }
  static std::string why() {
    return "failure storm: " + std::to_string(kMaxEventsWithoutProgress) +
           " crashes and repairs without a finished iteration (up and repair times far shorter "
           "than a task, or nodes the run needs that never come back)";
  }

 private:
  std::uint64_t events_ = 0;
  const std::function<bool()>* should_stop_ = nullptr;
};

}  // namespace codesim::sim
