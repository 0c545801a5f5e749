// Crash process: exponential uptimes with the right mean, lost tasks, repairs, no failures of
// down nodes, never-crashing nodes, and reproducible crash times.
#include "sim/crash_process.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "tests/sim/crash_test_support.hpp"

using namespace codesim::sim;
using codesim::sim::testing::make_nodes;

namespace {

// (node id, crash time) of every crash before `end_s`.
std::vector<std::pair<int, double>> crash_times(int node_count, CrashSpec spec, double end_s,
                                                std::uint64_t seed, std::uint64_t replica) {
  Engine engine;
  std::vector<Node> nodes = make_nodes(node_count);
  CrashProcess process(engine, nodes, std::vector<CrashSpec>(node_count, spec), seed, replica);
  std::vector<std::pair<int, double>> out;
  process.on_crash([&](int id, bool) { out.emplace_back(id, engine.now()); });
  process.start();
  engine.run_until(end_s);
  return out;
}
}  // namespace

TEST_CASE("time up between failures averages the MTBF") {
  constexpr int kNodes = 4;
  const CrashSpec spec = exponential_crashes(100.0, 5.0);
  Engine engine;
  std::vector<Node> nodes = make_nodes(kNodes);
  CrashProcess process(engine, nodes, std::vector<CrashSpec>(kNodes, spec), 42, 0);
  std::vector<double> up_since(kNodes, 0.0);
  double total_up_s = 0.0;
  int failures = 0;
  process.on_crash([&](int id, bool) {
    total_up_s += engine.now() - up_since[id];
    ++failures;
  });
  process.on_repair([&](int id) { up_since[id] = engine.now(); });
  process.start();
  engine.run_until(2.5e5);
  REQUIRE(failures > 8000);
  CHECK(process.crashes() == static_cast<std::uint64_t>(failures));
  // Uptimes are Exp(1/M): standard deviation M, so the mean is within 4 M / sqrt(n).
  const double mean_up_s = total_up_s / failures;
  CHECK(std::abs(mean_up_s - spec.mtbf_s()) < 4.0 * spec.mtbf_s() / std::sqrt(double(failures)));
}

TEST_CASE("a crashed node's running task never completes") {
  Engine engine;
  std::vector<Node> nodes = make_nodes(2);
  // Node 0 fails every 10 s on average, so a 1000 s task cannot survive; node 1 never fails.
  CrashProcess process(engine, nodes, {exponential_crashes(10.0, 1.0), CrashSpec{}}, 7, 0);
  std::vector<bool> lost_flags;
  process.on_crash([&](int id, bool task_lost) {
    CHECK(id == 0);
    lost_flags.push_back(task_lost);
  });
  bool done0 = false;
  bool done1 = false;
  nodes[0].run_task(engine, 1e12, [&] { done0 = true; });
  nodes[1].run_task(engine, 1e12, [&] { done1 = true; });
  process.start();
  engine.run_until(2000.0);
  REQUIRE_FALSE(lost_flags.empty());
  CHECK(lost_flags.front());
  for (std::size_t i = 1; i < lost_flags.size(); ++i) CHECK_FALSE(lost_flags[i]);
  CHECK_FALSE(done0);
  CHECK(done1);
}

TEST_CASE("repair brings the node back up repair_s after the crash") {
  Engine engine;
  std::vector<Node> nodes = make_nodes(1);
  CrashProcess process(engine, nodes, {exponential_crashes(50.0, 7.5)}, 3, 0);
  double crashed_at = -1.0;
  int repairs = 0;
  process.on_crash([&](int, bool) {
    CHECK_FALSE(nodes[0].is_up());
    crashed_at = engine.now();
  });
  process.on_repair([&](int id) {
    CHECK(id == 0);
    CHECK(nodes[0].is_up());
    CHECK(engine.now() - crashed_at == doctest::Approx(7.5));
    ++repairs;
  });
  process.start();
  engine.run_until(5000.0);
  CHECK(repairs > 50);
  // A repaired node runs tasks again.
  if (nodes[0].is_up()) {
    bool done = false;
    nodes[0].run_task(engine, 1.0, [&] { done = true; });
    engine.run_until(engine.now() + 1e-6);
    CHECK(done);
  }
}

TEST_CASE("a down node does not fail again before it is repaired") {
  constexpr int kNodes = 3;
  Engine engine;
  std::vector<Node> nodes = make_nodes(kNodes);
  // Failures would come every second but repairs take 100 s.
  CrashProcess process(engine, nodes,
                       std::vector<CrashSpec>(kNodes, exponential_crashes(1.0, 100.0)), 5, 0);
  std::vector<std::string> history(kNodes);
  process.on_crash([&](int id, bool) { history[id] += 'c'; });
  process.on_repair([&](int id) { history[id] += 'r'; });
  process.start();
  engine.run_until(10000.0);
  for (int id = 0; id < kNodes; ++id) {
    INFO("node " << id << ": " << history[id]);
    CHECK(history[id].size() > 150);
    CHECK(history[id].size() <= 200);  // at most one crash per 100 s of downtime
    for (std::size_t i = 0; i < history[id].size(); ++i)
      CHECK(history[id][i] == (i % 2 == 0 ? 'c' : 'r'));
  }
}

TEST_CASE("with zero repair time the node comes back right after the crash listener's reactions") {
  Engine engine;
  std::vector<Node> nodes = make_nodes(1);
  CrashProcess process(engine, nodes, {exponential_crashes(10.0, 0.0)}, 9, 0);
  std::vector<std::string> log;
  double crashed_at = -1.0;
  process.on_crash([&](int, bool) {
    crashed_at = engine.now();
    log.push_back("crash");
    // A reaction scheduled for now still finds the node down.
    engine.schedule_in(0.0,
                       [&] { log.push_back(nodes[0].is_up() ? "reaction:up" : "reaction:down"); });
  });
  process.on_repair([&](int) {
    CHECK(engine.now() == crashed_at);
    log.push_back("repair");
    engine.stop();
  });
  process.start();
  engine.run();
  CHECK(log == std::vector<std::string>{"crash", "reaction:down", "repair"});
  CHECK(nodes[0].is_up());
  CHECK(process.crashes() == 1);
}

TEST_CASE("an infinite MTBF never crashes") {
  Engine engine;
  std::vector<Node> nodes = make_nodes(3);
  CrashProcess never(engine, nodes, std::vector<CrashSpec>(3), 1, 0);
  never.start();
  CHECK(engine.empty());
  engine.run();
  CHECK(never.crashes() == 0);
  for (const Node& node : nodes) CHECK(node.is_up());

  // Mixed: only the finite-MTBF node crashes.
  const auto crashes = [] {
    Engine e;
    std::vector<Node> mixed = make_nodes(3);
    CrashProcess process(e, mixed, {CrashSpec{}, exponential_crashes(20.0, 1.0), CrashSpec{}}, 1,
                         0);
    std::vector<int> ids;
    process.on_crash([&](int id, bool) { ids.push_back(id); });
    process.start();
    e.run_until(1000.0);
    return ids;
  }();
  CHECK(crashes.size() > 10);
  for (int id : crashes) CHECK(id == 1);
}

TEST_CASE("the same seed gives the same crash times and another replica different ones") {
  const CrashSpec spec = exponential_crashes(30.0, 2.0);
  const auto first = crash_times(4, spec, 1000.0, 11, 0);
  CHECK(first.size() > 50);
  CHECK(crash_times(4, spec, 1000.0, 11, 0) == first);
  CHECK(crash_times(4, spec, 1000.0, 11, 1) != first);
  CHECK(crash_times(4, spec, 1000.0, 12, 0) != first);
}

TEST_CASE("a node's crash times do not depend on how many other nodes there are") {
  const CrashSpec spec = exponential_crashes(30.0, 2.0);
  auto only_node0 = [](std::vector<std::pair<int, double>> all) {
    std::vector<double> out;
    for (const auto& [id, t] : all)
      if (id == 0) out.push_back(t);
    return out;
  };
  const auto alone = only_node0(crash_times(1, spec, 1000.0, 11, 0));
  CHECK(alone.size() > 10);
  CHECK(only_node0(crash_times(5, spec, 1000.0, 11, 0)) == alone);
}

TEST_CASE("the process runs without listeners") {
  Engine engine;
  std::vector<Node> nodes = make_nodes(2);
  CrashProcess process(engine, nodes, std::vector<CrashSpec>(2, exponential_crashes(10.0, 1.0)), 2,
                       0);
  process.start();
  engine.run_until(1000.0);
  CHECK(process.crashes() > 100);
}

TEST_CASE("a node that fails again at the instant it was repaired stays down instead of looping") {
  // mtbf_s 5e-324: a rate of infinity, so every time to failure is 0; with repair_s 0 the node
  // would crash and come back forever without the clock moving.
  Engine engine;
  std::vector<Node> nodes = make_nodes(2);
  CrashProcess process(engine, nodes,
                       {exponential_crashes(5e-324, 0.0), exponential_crashes(5e-324, 1.0)}, 1, 0);
  std::vector<std::pair<int, double>> crashes;
  process.on_crash([&](int id, bool) { crashes.emplace_back(id, engine.now()); });
  process.start();
  engine.run_until(10.5);
  // Node 0 crashes twice at time 0 and stays down; node 1 crashes whenever it is repaired.
  CHECK(std::count(crashes.begin(), crashes.end(), std::pair<int, double>{0, 0.0}) == 2);
  CHECK_FALSE(nodes[0].is_up());
  CHECK(process.crashes() == 2 + 11);
  CHECK(crashes.back() == std::pair<int, double>{1, 10.0});
}
