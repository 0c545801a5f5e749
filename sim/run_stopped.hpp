// The exception that abandons a running replica when its caller asks it to stop (an interrupted
// run), shared by every workload so the runner catches one type; and the stop request that loops
// deep inside one event poll (a flow simulation of a million transfers can run for minutes between
// two polls of a workload). The request is a flag per run: the process-wide one that a signal
// sets, or a run's own (two runs of one process, each stopped alone).
#pragma once

#include <atomic>
#include <stdexcept>

namespace codesim::sim {

/// Thrown by a workload whose stop poll returned true: the replica is abandoned, not finished.
class RunStopped : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The process-wide stop request (lock-free, so a signal handler may set it).
std::atomic<bool>& process_stop_flag() noexcept;
/// Records that the process was asked to stop (async-signal-safe: a lock-free atomic store).
void note_stop_request() noexcept;
/// Forgets it (for tests, which stop and go on in one process).
void clear_stop_request() noexcept;

/// While one is alive on a thread, poll_stop there throws RunStopped once `flag` is set (the
/// process-wide flag unless given; not owned, it outlives the polling). A replica that may be
/// abandoned alone holds one (not the ranks of a distributed replica, which must stop in lockstep).
class StopPolling {
 public:
  explicit StopPolling(const std::atomic<bool>& flag = process_stop_flag());
  ~StopPolling();
  StopPolling(const StopPolling&) = delete;
  StopPolling& operator=(const StopPolling&) = delete;

 private:
  const std::atomic<bool>* was_polling_;
};

/// Called in long loops (a thread-local pointer and a relaxed load): under a StopPolling, throws
/// RunStopped naming `where` once its flag is set.
void poll_stop(const char* where);

}  // namespace codesim::sim
