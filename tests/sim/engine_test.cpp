// Event ordering, cancellation, run_until and stop of the discrete-event engine.
#include "sim/engine.hpp"

#include <doctest/doctest.h>

#include <vector>

using codesim::sim::Engine;

TEST_CASE("events run in time order") {
  Engine engine;
  std::vector<int> order;
  engine.schedule_at(3.0, [&] { order.push_back(3); });
  engine.schedule_at(1.0, [&] { order.push_back(1); });
  engine.schedule_at(2.0, [&] { order.push_back(2); });
  engine.run();
  CHECK(order == std::vector<int>{1, 2, 3});
  CHECK(engine.now() == 3.0);
  CHECK(engine.events_run() == 3);
}

TEST_CASE("events at equal time run in scheduling order") {
  Engine engine;
  std::vector<int> order;
  for (int i = 0; i < 100; ++i) engine.schedule_at(5.0, [&, i] { order.push_back(i); });
  engine.run();
  REQUIRE(order.size() == 100);
  for (int i = 0; i < 100; ++i) CHECK(order[i] == i);
}

TEST_CASE("an event scheduled for now from inside an event runs after those already queued") {
  Engine engine;
  std::vector<int> order;
  engine.schedule_at(1.0, [&] {
    order.push_back(1);
    engine.schedule_in(0.0, [&] { order.push_back(3); });
  });
  engine.schedule_at(1.0, [&] { order.push_back(2); });
  engine.run();
  CHECK(order == std::vector<int>{1, 2, 3});
}

TEST_CASE("a cancelled event never runs and cancelling twice is harmless") {
  Engine engine;
  int runs = 0;
  auto id = engine.schedule_in(1.0, [&] { ++runs; });
  engine.schedule_in(2.0, [&] { ++runs; });
  CHECK(engine.cancel(id));
  CHECK_FALSE(engine.cancel(id));
  CHECK(engine.pending_events() == 1);
  engine.run();
  CHECK(runs == 1);
  CHECK_FALSE(engine.cancel(id));
}

TEST_CASE("a stale handle does not cancel the event that reused its slot") {
  Engine engine;
  int runs = 0;
  auto first = engine.schedule_in(1.0, [&] { ++runs; });
  engine.run();
  engine.schedule_in(1.0, [&] { ++runs; });
  CHECK_FALSE(engine.cancel(first));
  engine.run();
  CHECK(runs == 2);
}

TEST_CASE("run_until stops at the horizon and advances the clock to it") {
  Engine engine;
  std::vector<double> times;
  for (double t : {0.5, 1.0, 1.5, 2.5}) engine.schedule_at(t, [&, t] { times.push_back(t); });
  engine.run_until(1.5);
  CHECK(times == std::vector<double>{0.5, 1.0, 1.5});
  CHECK(engine.now() == 1.5);
  engine.run_until(2.0);
  CHECK(engine.now() == 2.0);
  engine.run();
  CHECK(times.size() == 4);
}

TEST_CASE("stop makes run return after the current event") {
  Engine engine;
  int runs = 0;
  engine.schedule_at(1.0, [&] {
    ++runs;
    engine.stop();
  });
  engine.schedule_at(2.0, [&] { ++runs; });
  engine.run();
  CHECK(runs == 1);
  CHECK(engine.now() == 1.0);
  engine.run();
  CHECK(runs == 2);
}
