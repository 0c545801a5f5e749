// The progress bar: what it draws and when.
#include "app/cli/progress_bar.hpp"

#include <doctest/doctest.h>

#include <sstream>

namespace codesim::app {
namespace {

TEST_CASE("the progress bar shows replicas and simulated iterations, then erases itself") {
  std::ostringstream err;
  std::atomic<std::uint64_t> iterations{0};
  {
    ProgressBar bar(err, true, iterations, 0.0);
    iterations = 1234;
    bar.update({1, 4});
    const std::string line = err.str();
    CHECK(line.find("] 1/4 replicas, 1234 simulated iterations, 0 s elapsed, ETA") !=
          std::string::npos);
    CHECK(line.find("[#######.......................]") != std::string::npos);
    bar.update({3, 4, 1, 2});
    CHECK(err.str().find("] 3/4 replicas (1/2 points), 1234 simulated iterations") !=
          std::string::npos);
  }
  CHECK(err.str().ends_with("\r\033[K"));
}

TEST_CASE("the progress bar waits for its delay and draws nothing when disabled") {
  std::ostringstream late;
  std::ostringstream off;
  std::atomic<std::uint64_t> iterations{5};
  {
    ProgressBar waiting(late, true, iterations, 3600.0);
    waiting.update({1, 2});
    ProgressBar disabled(off, false, iterations, 0.0);
    disabled.update({1, 2});
  }
  CHECK(late.str().empty());
  CHECK(off.str().empty());
}

TEST_CASE("a run that finishes before the delay never shows the bar") {
  std::ostringstream err;
  std::atomic<std::uint64_t> iterations{0};
  {
    ProgressBar bar(err, true, iterations, 3600.0);
    bar.update({2, 2});
  }
  CHECK(err.str().empty());
}

}  // namespace
}  // namespace codesim::app
