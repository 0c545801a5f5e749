// Stop requests: a thread polls the flag of the run it belongs to.
#include <doctest/doctest.h>

#include <atomic>
#include <thread>

#include "sim/run_stopped.hpp"

using codesim::sim::RunStopped;

TEST_CASE("a thread polls the stop flag of its own run, not the process's or another run's") {
  std::atomic<bool> mine{false};
  std::atomic<bool> other{false};
  {
    const codesim::sim::StopPolling polling(mine);
    codesim::sim::note_stop_request();
    other = true;
    CHECK_NOTHROW(codesim::sim::poll_stop("a loop"));
    mine = true;
    CHECK_THROWS_AS(codesim::sim::poll_stop("a loop"), RunStopped);
    // Another thread polls nothing until it polls a flag of its own.
    std::thread([] { CHECK_NOTHROW(codesim::sim::poll_stop("another loop")); }).join();
  }
  CHECK_NOTHROW(codesim::sim::poll_stop("after the polling"));
  {
    const codesim::sim::StopPolling polling;  // the process-wide flag, set above
    CHECK_THROWS_AS(codesim::sim::poll_stop("a loop"), RunStopped);
  }
  codesim::sim::clear_stop_request();
}
