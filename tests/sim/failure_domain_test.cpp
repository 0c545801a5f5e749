// Failure domains and availability traces in the crash process: a domain downs all its members
// at one instant and brings them back at its repair, domains fail independently with their own
// law, a trace is replayed exactly, and causes combine (a node is down while any holds).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <tuple>
#include <vector>

#include "sim/crash_process.hpp"
#include "tests/sim/crash_test_support.hpp"

using namespace codesim::sim;
using codesim::sim::testing::make_nodes;

namespace {

/// What the listeners saw: (time, node, true for a crash / false for a repair).
using Event = std::tuple<double, int, bool>;

struct Run {
  std::vector<Event> events;
  std::uint64_t crashes = 0;
};

Run run(int node_count, std::vector<CrashSpec> specs, SharedFailures shared, double end_s,
        std::uint64_t seed = 9) {
  Engine engine;
  std::vector<Node> nodes = make_nodes(node_count);
  if (specs.empty()) specs.assign(node_count, CrashSpec{});
  CrashProcess process(engine, nodes, specs, seed, 0, std::move(shared));
  Run out;
  process.on_crash([&](int id, bool) {
    CHECK_FALSE(nodes[id].is_up());
    out.events.emplace_back(engine.now(), id, true);
  });
  process.on_repair([&](int id) {
    CHECK(nodes[id].is_up());
    out.events.emplace_back(engine.now(), id, false);
  });
  process.start();
  engine.run_until(end_s);
  out.crashes = process.crashes();
  return out;
}

/// A failure law that always draws `value_s` (log-normal with sigma 0), for exact timelines.
FailureLaw always(double value_s) { return LogNormalLaw{value_s, 0.0}; }
double draw_of(const FailureLaw& law) {
  RandomStream unused({0, 0, "unused", 0});
  return draw_s(law, unused);
}

}  // namespace

TEST_CASE("a domain failure downs every member at one instant and its repair brings them back") {
  SharedFailures shared;
  shared.domains.push_back({"rack", {1, 2, 4}, ExponentialLaw{100.0}, FixedLaw{10.0}});
  const Run r = run(6, {}, shared, 5000.0);
  std::map<double, std::set<int>> crashed_at, repaired_at;
  for (const auto& [t, node, crash] : r.events) (crash ? crashed_at : repaired_at)[t].insert(node);
  REQUIRE(crashed_at.size() > 20);
  CHECK(r.crashes == 3 * crashed_at.size());
  for (const auto& [t, members] : crashed_at) {
    CHECK(members == std::set<int>{1, 2, 4});  // nodes 0, 3 and 5 are outside: never down
    if (t + 10.0 <= 5000.0) CHECK(repaired_at.at(t + 10.0) == members);
  }
  CHECK(repaired_at.size() >= crashed_at.size() - 1);
}

TEST_CASE("a member held down by another cause comes back only when every cause has ended") {
  // The domain {0, 1, 2} fails at d, is repaired at d + 50 and fails again at d + 50 + d. The
  // trace downs node 0 over [90, 110) (before the domain) and node 1 over [120, 200) (past it).
  const FailureLaw law = always(100.0);
  const double d = draw_of(law);
  REQUIRE(d == doctest::Approx(100.0));
  SharedFailures shared;
  shared.domains.push_back({"rack", {0, 1, 2}, law, FixedLaw{50.0}});
  shared.trace = {{{90.0, 110.0}}, {{120.0, 200.0}}, {}, {}};
  const Run r = run(4, {}, shared, d + 50.0 + d + 1.0);
  const double second = d + 50.0 + d;
  const std::vector<Event> expected = {
      {90.0, 0, true},      {d, 1, true},         {d, 2, true},
      {d + 50.0, 0, false}, {d + 50.0, 2, false}, {200.0, 1, false},
      {second, 0, true},    {second, 1, true},    {second, 2, true}};
  CHECK(r.events == expected);
  CHECK(r.crashes == 6);
}

TEST_CASE("a node's own failure finds nothing to strike while another cause holds it down") {
  // Own up times of exactly u and repairs of 5: fails at u, its repair at u + 5 finds the trace
  // (from 12 to 30) still holding it; the next own failure, due at u + 5 + u while it is still
  // down, strikes nothing and the one after it (u later) crashes it.
  const FailureLaw law = always(10.0);
  const double u = draw_of(law);
  const std::vector<CrashSpec> specs = {{law, FixedLaw{5.0}}};
  SharedFailures shared;
  shared.trace = {{{12.0, 30.0}}};
  const Run r = run(1, specs, shared, 41.0);
  const double again = u + 5.0 + u + u;
  const std::vector<Event> expected = {
      {u, 0, true}, {30.0, 0, false}, {again, 0, true}, {again + 5.0, 0, false}};
  CHECK(r.events == expected);
}

TEST_CASE("an availability trace is replayed to the second and a running task is lost") {
  Engine engine;
  std::vector<Node> nodes = make_nodes(3);
  SharedFailures shared;
  shared.trace = {{{1.5, 2.25}, {2.25, 2.5}, {3.0, INFINITY}}, {}, {{0.0, 7.125}}};
  CrashProcess process(engine, nodes, std::vector<CrashSpec>(3), 1, 0, shared);
  std::vector<Event> events;
  std::vector<bool> lost;
  process.on_crash([&](int id, bool task_lost) {
    events.emplace_back(engine.now(), id, true);
    lost.push_back(task_lost);
  });
  process.on_repair([&](int id) { events.emplace_back(engine.now(), id, false); });
  bool done = false;
  nodes[0].run_task(engine, 1e10, [&] { done = true; });  // 10 s: the trace's 1.5 s cuts it
  process.start();
  engine.run_until(100.0);
  const std::vector<Event> expected = {{0.0, 2, true},   {1.5, 0, true},  {2.25, 0, false},
                                       {2.25, 0, true},  {2.5, 0, false}, {3.0, 0, true},
                                       {7.125, 2, false}};
  CHECK(events == expected);
  CHECK(lost.at(1));
  CHECK_FALSE(done);
  CHECK_FALSE(nodes[0].is_up());  // never back after 3 s
  CHECK(nodes[1].is_up());
}

TEST_CASE("domains fail independently, each with up times following its own law") {
  // Four racks of two nodes, Weibull up times (shape 0.7, scale 10 s) and 1 s repairs: the up
  // time of a rack is the time from its repair (or the start) to its next failure.
  SharedFailures shared;
  for (int g = 0; g < 4; ++g)
    shared.domains.push_back({"rack", {2 * g, 2 * g + 1}, WeibullLaw{0.7, 10.0}, FixedLaw{1.0}});
  const Run r = run(8, {}, shared, 3e4, 21);
  std::vector<double> up_s;
  std::vector<double> up_since(4, 0.0);
  std::map<double, std::set<int>> racks_failing_at;
  for (const auto& [t, node, crash] : r.events) {
    const int rack = node / 2;
    if (node % 2 == 1) continue;  // the rack's first member stands for it
    if (crash) {
      up_s.push_back(t - up_since[rack]);
      racks_failing_at[t].insert(rack);
    } else {
      up_since[rack] = t;
    }
  }
  REQUIRE(up_s.size() > 5000);
  // Independent streams: no two racks ever fail at the same instant.
  for (const auto& [t, racks] : racks_failing_at) CHECK(racks.size() == 1);
  // Kolmogorov-Smirnov at the 0.1% level (1.95 / sqrt(n)) against the Weibull law.
  std::sort(up_s.begin(), up_s.end());
  const auto n = static_cast<double>(up_s.size());
  double distance = 0.0;
  for (std::size_t i = 0; i < up_s.size(); ++i) {
    const double f = 1.0 - std::exp(-std::pow(up_s[i] / 10.0, 0.7));
    distance =
        std::max({distance, f - static_cast<double>(i) / n, static_cast<double>(i + 1) / n - f});
  }
  CHECK(distance < 1.95 / std::sqrt(n));
}

TEST_CASE("domains draw from their own streams: the nodes' own crashes are unchanged by them") {
  const std::vector<CrashSpec> specs(4, exponential_crashes(50.0, 2.0));
  const Run alone = run(4, specs, {}, 2000.0);
  SharedFailures shared;
  shared.domains.push_back({"far", {3}, ExponentialLaw{1e9}, FixedLaw{1.0}});
  const Run with_domain = run(4, specs, shared, 2000.0);
  CHECK(alone.events == with_domain.events);
  // The same seed replays the domain's failures exactly.
  SharedFailures often;
  often.domains.push_back({"rack", {0, 1}, ExponentialLaw{30.0}, LogNormalLaw{3.0, 0.5}});
  CHECK(run(4, specs, often, 2000.0).events == run(4, specs, often, 2000.0).events);
  CHECK(run(4, specs, often, 2000.0).events != alone.events);
}
