// `codesim-bench network --small`: microseconds per call of the collectives the quickstart's
// training runs every round (a ring and a Bruck all-gather over 42 nodes, a 7-node reduce, a
// 42-node broadcast) on the quickstart's network, under the flow model (the schedule alone, the
// sim:: call that builds and runs it, and that call once its result is remembered by the
// topology, as in every round after the first) and under the analytic model, for scale.
#include <algorithm>
#include <chrono>
#include <functional>
#include <iomanip>
#include <iostream>
#include <numeric>
#include <string>
#include <vector>

#include "bench/bench_timing.hpp"
#include "bench/benchmarks.hpp"
#include "sim/collective_schedules.hpp"
#include "sim/collectives.hpp"
#include "sim/transfer_schedule.hpp"

namespace codesim::bench {
namespace {

constexpr int kGridNodes = 42;     // the CodeNet 7 x 6 grid
constexpr double kBytes = 448.0;   // one symbol: 56 doubles (a 280-row layer over 5 rows)
constexpr double kMinRunS = 0.02;  // each run repeats a call for at least this long
constexpr int kMaxCalls = 2000;    // cold calls each build a topology: bound their memory

// The quickstart's network (scenarios/quickstart.json) on the grid's nodes.
sim::TopologySpec quickstart_network(sim::NetworkModel model) {
  sim::TopologySpec spec;
  spec.model = model;
  spec.shape = sim::TopologyShape::fat_tree;
  spec.fat_tree_arity = 8;
  spec.nodes = kGridNodes;
  spec.latency_s = 2e-6;
  spec.bandwidth_Bps = 12.5e9;
  return spec;
}

struct Case {
  std::string name;
  std::vector<int> participants;
  sim::TransferId (*add)(sim::TransferSchedule&, std::span<const int>, double, sim::ScheduleStart);
  double (*cost_s)(const sim::Topology&, std::span<const int>, double);
};

std::vector<Case> cases() {
  std::vector<int> grid(kGridNodes);
  std::iota(grid.begin(), grid.end(), 0);
  std::vector<int> column;  // one grid column: a symbol's 7 members, under several switches
  for (int row = 0; row < 7; ++row) column.push_back(row * 6);
  return {{"ring all-gather", grid, sim::add_ring_all_gather, sim::all_gather_time_s},
          {"Bruck all-gather", grid, sim::add_bruck_all_gather, sim::bruck_all_gather_time_s},
          {"reduce", column, sim::add_reduce, sim::reduce_time_s},
          {"broadcast", grid, sim::add_broadcast, sim::broadcast_time_s}};
}

using Call = std::function<void(const sim::Topology&)>;

// Calls per run: enough for kMinRunS, judged from one call on a topology of its own.
int calls_per_run(const sim::TopologySpec& spec, const Call& call) {
  const sim::Topology topology(spec);
  const auto start = std::chrono::steady_clock::now();
  call(topology);
  return std::clamp(static_cast<int>(kMinRunS / std::max(seconds_since(start), 1e-9)), 10,
                    kMaxCalls);
}

// The upper median (the higher middle value for an even count), as this benchmark has always
// reported.
double upper_median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

// Seconds per call, the median over runs. Cold: each call on a topology of its own, built before
// the clock starts, so that none finds its result remembered (Topology::remember). Remembered:
// every call on one topology that has seen the call once, as training's rounds after the first.
double seconds_per_call(const sim::TopologySpec& spec, const Call& call, bool cold, int runs) {
  const int calls = calls_per_run(spec, call);
  std::vector<double> per_call_s;
  for (int r = 0; r < runs; ++r) {
    std::vector<sim::Topology> topologies;
    for (int c = 0; c < (cold ? calls : 1); ++c) topologies.emplace_back(spec);
    if (!cold) call(topologies.front());
    const auto start = std::chrono::steady_clock::now();
    for (int c = 0; c < calls; ++c) call(topologies[cold ? static_cast<std::size_t>(c) : 0]);
    per_call_s.push_back(seconds_since(start) / calls);
  }
  return upper_median(per_call_s);
}

}  // namespace

int run_small_collectives_bench(int runs, bool json, std::ostream& out) {
  const sim::TopologySpec flow = quickstart_network(sim::NetworkModel::flow);
  const sim::TopologySpec analytic = quickstart_network(sim::NetworkModel::analytic);
  if (!json) {
    out << "quickstart collectives (fat tree of arity 8, " << kGridNodes
        << " nodes, 2 us, 12.5 GB/s; " << kBytes << " B blocks), median of " << runs
        << " runs, microseconds per call:\n"
        << std::left << std::setw(18) << "collective" << std::setw(11) << "transfers"
        << std::setw(14) << "run_schedule" << std::setw(11) << "flow call" << std::setw(12)
        << "remembered" << std::setw(10) << "analytic"
        << "flow / analytic, remembered\n";
  }
  double sink = 0.0;  // keeps the calls from being optimized away
  for (const Case& c : cases()) {
    sim::TransferSchedule schedule;
    c.add(schedule, c.participants, kBytes, std::nullopt);
    const Call run = [&](const sim::Topology& t) {
      sink += sim::run_schedule(t, schedule).makespan_s;
    };
    const Call cost = [&](const sim::Topology& t) { sink += c.cost_s(t, c.participants, kBytes); };
    const double schedule_us = 1e6 * seconds_per_call(flow, run, true, runs);
    const double flow_us = 1e6 * seconds_per_call(flow, cost, true, runs);
    const double remembered_us = 1e6 * seconds_per_call(flow, cost, false, runs);
    const double analytic_us = 1e6 * seconds_per_call(analytic, cost, false, runs);
    const std::size_t transfers = schedule.transfers().size();
    if (json) {
      out << std::setprecision(4) << "{\"collective\": \"" << c.name
          << "\", \"participants\": " << c.participants.size() << ", \"transfers\": " << transfers
          << ", \"run_schedule_us\": " << schedule_us << ", \"flow_call_us\": " << flow_us
          << ", \"remembered_call_us\": " << remembered_us
          << ", \"analytic_call_us\": " << analytic_us << "}\n";
    } else {
      out << std::setprecision(4) << std::setw(18) << c.name << std::setw(11) << transfers
          << std::setw(14) << schedule_us << std::setw(11) << flow_us << std::setw(12)
          << remembered_us << std::setw(10) << analytic_us << std::setprecision(3)
          << flow_us / analytic_us << "x, " << remembered_us / analytic_us << "x\n";
    }
  }
  if (sink < 0.0) out << sink;  // never: times are >= 0
  return 0;
}

}  // namespace codesim::bench
