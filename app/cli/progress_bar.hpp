// The one-line progress bar of `codesim run` on a terminal's stderr.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <ostream>
#include <string_view>
#include <thread>

#include "app/exec/runner.hpp"

namespace codesim::app {

/// Seconds a run lasts before `codesim run` shows its progress bar.
inline constexpr double kProgressDelay_s = 2.0;

/// Replicas (and points) done, simulated iterations started so far, elapsed time and ETA, drawn
/// once the run has lasted `delay_s`: after every update() and twice a second by its own thread.
/// Disabled, it draws nothing and starts no thread. The last line is erased when it is destroyed.
class ProgressBar {
 public:
  /// `units` names what units_done counts ("replicas" for a run, "cells" for an advise map).
  ProgressBar(std::ostream& err, bool enabled, const std::atomic<std::uint64_t>& iterations,
              double delay_s, std::string_view units = "replicas");
  ~ProgressBar();
  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;

  /// Records the replicas done and redraws; safe from any thread.
  void update(const RunProgress& progress);

 private:
  using Clock = std::chrono::steady_clock;
  void tick();
  void draw();  // with mutex_ held

  std::ostream& err_;
  const bool enabled_;
  const std::atomic<std::uint64_t>& iterations_;
  const double delay_s_;
  const std::string_view units_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool finished_ = false;
  bool shown_ = false;
  RunProgress progress_;
  Clock::time_point start_ = Clock::now();
  std::thread ticker_;
};

}  // namespace codesim::app
