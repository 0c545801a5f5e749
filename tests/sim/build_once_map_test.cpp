// BuildOnceMap: each key's value is built once, whatever the threads asking for it.
#include "sim/build_once_map.hpp"

#include <doctest/doctest.h>

#include <atomic>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace codesim::sim {

TEST_CASE("a build-once map builds each key once however many threads ask for it") {
  BuildOnceMap<int, std::string> map;
  std::atomic<int> builds{0};
  std::vector<std::thread> threads;
  std::vector<const std::string*> seen(8);
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      seen[t] = &map.get(t % 2, [&] {
        ++builds;
        return std::string(t % 2 == 0 ? "even" : "odd");
      });
    });
  }
  for (std::thread& thread : threads) thread.join();
  CHECK(builds == 2);
  for (int t = 0; t < 8; ++t) {
    CHECK(*seen[t] == (t % 2 == 0 ? "even" : "odd"));
    CHECK(seen[t] == seen[t % 2]);  // the same entry, never moved
  }
}

TEST_CASE("a build that throws leaves the key unbuilt for the next call") {
  BuildOnceMap<int, int> map;
  CHECK_THROWS_AS(map.get(1, []() -> int { throw std::runtime_error("no"); }), std::runtime_error);
  CHECK(map.get(1, [] { return 7; }) == 7);
  CHECK(map.get(1, [] { return 8; }) == 7);
}

}  // namespace codesim::sim
