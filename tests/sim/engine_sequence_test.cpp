// The engine's 32-bit scheduling sequences: when they run out, the queued events are renumbered
// and still run in (time, scheduling) order; the fast callback path keeps the same order and
// cancellation as std::function events.
#include "sim/engine.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "sim/random_stream.hpp"

namespace codesim::sim {
// Starts the sequence just below its 32-bit limit, so that a test reaches it in a few events.
struct EngineTestAccess {
  static void set_next_sequence(Engine& engine, std::uint64_t sequence) {
    engine.next_sequence_ = sequence;
  }
};
}  // namespace codesim::sim

using codesim::sim::Engine;
using codesim::sim::EngineTestAccess;
using codesim::sim::EventId;
using codesim::sim::RandomStream;

namespace {
struct Recorder {
  std::vector<int>* ran;
  int order;
  static void record(void* self) {
    const auto& recorder = *static_cast<const Recorder*>(self);
    recorder.ran->push_back(recorder.order);
  }
};
}  // namespace

TEST_CASE("events keep their (time, scheduling) order across the sequence limit") {
  Engine engine;
  EngineTestAccess::set_next_sequence(engine, (std::uint64_t{1} << 32) - 300);
  RandomStream stream({15, 0, "engine_sequence_test", 0});
  std::vector<int> ran;
  std::vector<double> times;
  std::vector<EventId> ids;
  // 1000 events on a coarse grid (many ties) cross the limit while others are queued.
  for (int i = 0; i < 1000; ++i) {
    const double time_s = static_cast<double>(stream.uniform_int(0, 50));
    times.push_back(time_s);
    ids.push_back(engine.schedule_at(time_s, [&ran, i] { ran.push_back(i); }));
  }
  // Some of them cancelled before and some after the renumbering.
  std::vector<int> expected;
  for (int i = 0; i < 1000; ++i) {
    if (i % 7 == 3) {
      CHECK(engine.cancel(ids[static_cast<std::size_t>(i)]));
    } else {
      expected.push_back(i);
    }
  }
  std::stable_sort(expected.begin(), expected.end(), [&](int a, int b) {
    return times[static_cast<std::size_t>(a)] < times[static_cast<std::size_t>(b)];
  });
  engine.run();
  CHECK(ran == expected);
  CHECK(engine.empty());
}

TEST_CASE("callback events and std::function events share one (time, scheduling) order") {
  Engine engine;
  std::vector<int> ran;
  std::vector<Recorder> recorders;
  recorders.reserve(6);
  for (int i = 0; i < 6; ++i) recorders.push_back({&ran, i});
  engine.schedule_at(2.0, &Recorder::record, &recorders[0]);
  engine.schedule_at(1.0, [&] { ran.push_back(1); });
  engine.schedule_at(2.0, [&] { ran.push_back(2); });
  const EventId cancelled = engine.schedule_at(1.0, &Recorder::record, &recorders[3]);
  engine.schedule_in(1.0, &Recorder::record, &recorders[4]);
  CHECK(engine.cancel(cancelled));
  CHECK_FALSE(engine.cancel(cancelled));
  const EventId ran_already = engine.schedule_at(0.5, &Recorder::record, &recorders[5]);
  engine.run();
  CHECK(ran == std::vector<int>{5, 1, 4, 0, 2});
  CHECK_FALSE(engine.cancel(ran_already));
  CHECK(engine.events_run() == 5);
}

TEST_CASE("a callback event at infinity is dropped and its handle cancels nothing") {
  Engine engine;
  std::vector<int> ran;
  Recorder recorder{&ran, 1};
  const EventId never = engine.schedule_in(INFINITY, &Recorder::record, &recorder);
  CHECK(engine.empty());
  CHECK_FALSE(engine.cancel(never));
  engine.run();
  CHECK(ran.empty());
}

TEST_CASE("the sequence limit reached with nothing queued starts the sequences over") {
  Engine engine;
  EngineTestAccess::set_next_sequence(engine, std::uint64_t{1} << 32);
  std::vector<int> ran;
  engine.schedule_at(2.0, [&] { ran.push_back(2); });
  engine.schedule_at(1.0, [&] { ran.push_back(1); });
  engine.schedule_at(2.0, [&] { ran.push_back(3); });
  engine.run();
  CHECK(ran == std::vector<int>{1, 2, 3});
}
