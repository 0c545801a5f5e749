// run_indexed: every index runs once, results by index do not depend on threads, failures.
#include "app/exec/work_pool.hpp"

#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

using codesim::app::run_indexed;

namespace {

/// A deterministic, slightly uneven amount of work for index i.
std::uint64_t work_for(std::size_t i) {
  std::uint64_t x = i * 0x9E3779B97F4A7C15ULL + 1;
  for (std::size_t k = 0; k < 200 + (i % 7) * 300; ++k) x ^= (x << 13) ^ (x >> 7) ^ (x << 17);
  return x;
}

}  // namespace

TEST_CASE("every index runs exactly once and results by index are the same for any job count") {
  constexpr std::size_t kCount = 257;
  std::vector<std::uint64_t> reference;
  for (const int jobs : {1, 2, 4}) {
    CAPTURE(jobs);
    std::vector<std::atomic<int>> runs(kCount);
    std::vector<std::uint64_t> results(kCount);
    run_indexed(kCount, jobs, [&](std::size_t i) {
      runs[i].fetch_add(1);
      results[i] = work_for(i);
    });
    for (std::size_t i = 0; i < kCount; ++i) CHECK(runs[i].load() == 1);
    if (reference.empty()) reference = results;
    CHECK(results == reference);
  }
}

TEST_CASE("zero tasks run nothing and more jobs than tasks is fine") {
  int calls = 0;
  run_indexed(0, 4, [&](std::size_t) { ++calls; });
  CHECK(calls == 0);
  std::atomic<int> small{0};
  run_indexed(2, 8, [&](std::size_t) { small.fetch_add(1); });
  CHECK(small.load() == 2);
}

TEST_CASE("one job runs the tasks in order on the calling thread") {
  std::vector<std::size_t> order;
  bool same_thread = true;
  const auto caller = std::this_thread::get_id();
  run_indexed(20, 1, [&](std::size_t i) {
    order.push_back(i);
    same_thread = same_thread && std::this_thread::get_id() == caller;
  });
  std::vector<std::size_t> expected(20);
  for (std::size_t i = 0; i < expected.size(); ++i) expected[i] = i;
  CHECK(order == expected);
  CHECK(same_thread);
}

TEST_CASE("on_done is called once per finished task under a mutex") {
  for (const int jobs : {1, 2, 4}) {
    CAPTURE(jobs);
    int done = 0;  // unsynchronized on purpose: on_done runs under the pool's mutex
    std::vector<int> seen(100, 0);
    run_indexed(
        100, jobs, [](std::size_t i) { (void)work_for(i); },
        [&](std::size_t i) {
          ++done;
          ++seen[i];
        });
    CHECK(done == 100);
    CHECK(seen == std::vector<int>(100, 1));
  }
}

TEST_CASE("the exception of the lowest failing index is rethrown after the others") {
  for (const int jobs : {1, 2, 4}) {
    CAPTURE(jobs);
    std::atomic<int> started{0};
    std::string message;
    try {
      run_indexed(1000, jobs, [&](std::size_t i) {
        started.fetch_add(1);
        // Index 7 fails slowly so that later failures are seen first with several jobs.
        if (i == 7) {
          std::this_thread::sleep_for(std::chrono::milliseconds(20));
          throw std::runtime_error("task 7");
        }
        if (i == 9 || i == 12) throw std::runtime_error("task " + std::to_string(i));
      });
    } catch (const std::runtime_error& e) {
      message = e.what();
    }
    CHECK(message == "task 7");
    // The hand-out stopped: far fewer than all tasks started.
    CHECK(started.load() < 100);
  }
}

TEST_CASE("a task failure with one job skips the rest") {
  std::vector<std::size_t> ran;
  CHECK_THROWS_AS(run_indexed(10, 1,
                              [&](std::size_t i) {
                                ran.push_back(i);
                                if (i == 3) throw std::logic_error("stop");
                              }),
                  std::logic_error);
  CHECK(ran == std::vector<std::size_t>{0, 1, 2, 3});
}
