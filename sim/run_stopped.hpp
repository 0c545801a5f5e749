// The exception that abandons a running replica when its caller asks it to stop (an interrupted
// run), shared by every workload so the runner catches one type; and the process-wide stop
// request that loops deep inside one event poll (a flow simulation of a million transfers can
// run for minutes between two polls of a workload).
#pragma once

#include <stdexcept>

namespace codesim::sim {

/// Thrown by a workload whose stop poll returned true: the replica is abandoned, not finished.
class RunStopped : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Records that the process was asked to stop (async-signal-safe: a lock-free atomic store).
void note_stop_request() noexcept;
/// Forgets it (for tests, which stop and go on in one process).
void clear_stop_request() noexcept;

/// While one is alive on a thread, poll_stop there throws RunStopped once a stop was requested.
/// A replica that may be abandoned alone holds one (not the ranks of a distributed replica, which
/// must stop in lockstep).
class StopPolling {
 public:
  StopPolling();
  ~StopPolling();
  StopPolling(const StopPolling&) = delete;
  StopPolling& operator=(const StopPolling&) = delete;

 private:
  bool was_polling_;
};

/// Called in long loops (a thread-local flag and a relaxed load): under a StopPolling, throws
/// RunStopped naming `where` once a stop was requested.
void poll_stop(const char* where);

}  // namespace codesim::sim
