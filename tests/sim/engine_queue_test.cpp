// The engine's event queue under load: many random times with ties, cancellations and events
// scheduled from inside events still run in exact (time, scheduling order).
#include "sim/engine.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

#include "sim/random_stream.hpp"

using codesim::sim::Engine;
using codesim::sim::EventId;
using codesim::sim::RandomStream;

namespace {
struct Scheduled {
  double time_s;
  int order;  // scheduling order, the tie-breaker
};

// Runs `engine`, whose events append their order to `ran`, and checks they ran as `expected`
// sorted stably by time: in (time, scheduling) order.
void run_and_check_order(Engine& engine, std::vector<Scheduled> expected,
                         const std::vector<int>& ran) {
  std::stable_sort(expected.begin(), expected.end(),
                   [](const Scheduled& a, const Scheduled& b) { return a.time_s < b.time_s; });
  engine.run();
  REQUIRE(ran.size() == expected.size());
  for (std::size_t k = 0; k < ran.size(); ++k) CHECK(ran[k] == expected[k].order);
}
}  // namespace

TEST_CASE("thousands of events with random times and many ties run in (time, scheduling) order") {
  Engine engine;
  RandomStream stream({11, 0, "engine_queue_test", 0});
  std::vector<Scheduled> expected;
  std::vector<int> ran;
  for (int i = 0; i < 5000; ++i) {
    // Times on a coarse grid so that many are equal.
    const double time_s = static_cast<double>(stream.uniform_int(0, 200)) * 0.5;
    expected.push_back({time_s, i});
    engine.schedule_at(time_s, [&ran, i] { ran.push_back(i); });
  }
  run_and_check_order(engine, expected, ran);
}

TEST_CASE("cancelling a random half of many events runs exactly the others, in order") {
  Engine engine;
  RandomStream stream({12, 0, "engine_queue_test", 0});
  std::vector<Scheduled> kept;
  std::vector<EventId> ids;
  std::vector<int> ran;
  for (int i = 0; i < 4000; ++i) {
    const double time_s = stream.uniform(0.0, 100.0);
    ids.push_back(engine.schedule_at(time_s, [&ran, i] { ran.push_back(i); }));
    kept.push_back({time_s, i});
  }
  std::vector<Scheduled> expected;
  for (int i = 0; i < 4000; ++i) {
    if (stream.bernoulli(0.5)) {
      CHECK(engine.cancel(ids[static_cast<std::size_t>(i)]));
    } else {
      expected.push_back(kept[static_cast<std::size_t>(i)]);
    }
  }
  CHECK(engine.pending_events() == expected.size());
  run_and_check_order(engine, expected, ran);
  CHECK(engine.empty());
}

TEST_CASE("chains of events that schedule their successors keep the clock non-decreasing") {
  Engine engine;
  RandomStream stream({13, 0, "engine_queue_test", 0});
  double last_s = 0.0;
  bool monotone = true;
  std::uint64_t remaining = 20000;
  std::function<void()> step = [&] {
    monotone = monotone && engine.now() >= last_s;
    last_s = engine.now();
    if (remaining == 0) return;
    --remaining;
    // Zero delays exercise ties with events already queued at the same time.
    const double delay_s = stream.bernoulli(0.2) ? 0.0 : stream.exponential(1.0);
    engine.schedule_in(delay_s, step);
  };
  for (int chain = 0; chain < 100; ++chain) engine.schedule_in(stream.uniform(0.0, 1.0), step);
  engine.run();
  CHECK(monotone);
  CHECK(remaining == 0);
  CHECK(engine.events_run() == 20100);
}

TEST_CASE("an event at negative zero runs at time zero before later ones") {
  Engine engine;
  std::vector<int> order;
  engine.schedule_at(1e-300, [&] { order.push_back(2); });
  engine.schedule_at(-0.0, [&] { order.push_back(1); });
  engine.run();
  CHECK(order == std::vector<int>{1, 2});
}

TEST_CASE("a default-constructed handle cancels nothing") {
  Engine engine;
  bool ran = false;
  engine.schedule_at(1.0, [&] { ran = true; });
  CHECK_FALSE(engine.cancel(EventId{}));
  engine.run();
  CHECK(ran);
}

TEST_CASE("cancelling millions of far-future events keeps the queue as small as the pending ones") {
  // A task that would end in 1e299 s, cancelled by every crash and rollback, never reaches the
  // top of the heap; its entry must still go when it is cancelled.
  Engine engine;
  std::vector<int> ran;
  for (int i = 0; i < 10; ++i) engine.schedule_at(1.0 + i, [&ran, i] { ran.push_back(i); });
  std::size_t largest = 0;
  int cancelled = 0;
  for (int i = 0; i < 3000000; ++i) {
    const EventId far = engine.schedule_at(1e299 + i * 1e284, [] { FAIL("cancelled event ran"); });
    cancelled += engine.cancel(far) ? 1 : 0;
    largest = std::max(largest, engine.queue_entries());
  }
  CHECK(cancelled == 3000000);
  CHECK(engine.pending_events() == 10);
  CHECK(largest <= 2 * 10 + 64 + 1);
  engine.run();
  CHECK(ran == std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9});
}

TEST_CASE("events cancelled from inside events while others run keep the queue bounded") {
  // The pattern of crashes and rollbacks: every step cancels the far-future event the previous
  // step scheduled and schedules a new one, a million times.
  Engine engine;
  EventId far;
  std::size_t largest = 0;
  int steps = 0;
  std::function<void()> step = [&] {
    engine.cancel(far);
    far = engine.schedule_in(1e300, [] { FAIL("cancelled event ran"); });
    largest = std::max(largest, engine.queue_entries());
    if (++steps < 1000000) engine.schedule_in(1.0, step);
  };
  engine.schedule_at(0.0, step);
  engine.run_until(2e6);
  CHECK(steps == 1000000);
  CHECK(engine.pending_events() == 1);
  CHECK(largest <= 2 * 2 + 64 + 1);
}

TEST_CASE("cancelling most of many random events still runs the others in exact order") {
  // Enough cancellations that the queue drops its cancelled entries several times.
  Engine engine;
  RandomStream stream({14, 0, "engine_queue_test", 0});
  std::vector<Scheduled> expected;
  std::vector<int> ran;
  for (int round = 0; round < 5; ++round) {
    std::vector<std::pair<EventId, Scheduled>> batch;
    for (int i = 0; i < 4000; ++i) {
      const int order = round * 4000 + i;
      // Times on a coarse grid so that many are equal.
      const double time_s = static_cast<double>(stream.uniform_int(0, 300)) * 0.25;
      batch.push_back(
          {engine.schedule_at(time_s, [&ran, order] { ran.push_back(order); }), {time_s, order}});
    }
    for (const auto& [id, scheduled] : batch) {
      if (stream.bernoulli(0.9)) {
        CHECK(engine.cancel(id));
      } else {
        expected.push_back(scheduled);
      }
    }
    CHECK(engine.queue_entries() <= 2 * engine.pending_events() + 64 + 1);
  }
  CHECK(engine.pending_events() == expected.size());
  run_and_check_order(engine, expected, ran);
}

TEST_CASE("an event at infinity never runs, is not pending and its handle cancels nothing") {
  Engine engine;
  bool ran = false;
  const EventId never = engine.schedule_at(INFINITY, [&] { ran = true; });
  CHECK(engine.pending_events() == 0);
  CHECK_FALSE(engine.cancel(never));
  // A delay whose sum with now() overflows is at infinity too.
  engine.schedule_at(1e308, [&] { engine.schedule_in(1e308, [&] { ran = true; }); });
  engine.run();
  CHECK_FALSE(ran);
  CHECK(engine.now() == 1e308);
  CHECK(engine.empty());
}
