// `codesim-bench network --small`: microseconds per call of the collectives the quickstart's
// training runs every round (a ring and a Bruck all-gather over 42 nodes, a 7-node reduce, a
// 42-node broadcast) on the quickstart's network, under the flow model (the schedule alone, and
// the sim:: call that builds and runs it) and under the analytic model, for scale.
#include <algorithm>
#include <chrono>
#include <functional>
#include <iomanip>
#include <iostream>
#include <numeric>
#include <string>
#include <vector>

#include "bench/benchmarks.hpp"
#include "sim/collective_schedules.hpp"
#include "sim/collectives.hpp"
#include "sim/transfer_schedule.hpp"

namespace codesim::bench {
namespace {

constexpr int kGridNodes = 42;     // the CodeNet 7 x 6 grid
constexpr double kBytes = 448.0;   // one symbol: 56 doubles (a 280-row layer over 5 rows)
constexpr double kMinRunS = 0.02;  // each run repeats a call for at least this long

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

// Seconds per call of `call`, repeated for at least kMinRunS per run; the median over runs.
double seconds_per_call(const std::function<void()>& call, int runs) {
  const auto start = std::chrono::steady_clock::now();
  call();
  const double first_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const int calls = std::max(10, static_cast<int>(kMinRunS / std::max(first_s, 1e-9)));
  std::vector<double> per_call_s;
  for (int r = 0; r < runs; ++r) {
    const auto run_start = std::chrono::steady_clock::now();
    for (int c = 0; c < calls; ++c) call();
    per_call_s.push_back(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - run_start).count() /
        calls);
  }
  std::sort(per_call_s.begin(), per_call_s.end());
  return per_call_s[per_call_s.size() / 2];
}

}  // namespace

int run_small_collectives_bench(int runs, bool json, std::ostream& out) {
  const sim::Topology flow(quickstart_network(sim::NetworkModel::flow));
  const sim::Topology analytic(quickstart_network(sim::NetworkModel::analytic));
  if (!json) {
    out << "quickstart collectives (fat tree of arity 8, " << kGridNodes
        << " nodes, 2 us, 12.5 GB/s; " << kBytes << " B blocks), median of " << runs
        << " runs, microseconds per call:\n"
        << std::left << std::setw(18) << "collective" << std::setw(11) << "transfers"
        << std::setw(15) << "run_schedule" << std::setw(15) << "flow call" << std::setw(15)
        << "analytic call"
        << "flow / analytic\n";
  }
  double sink = 0.0;  // keeps the calls from being optimized away
  for (const Case& c : cases()) {
    sim::TransferSchedule schedule;
    c.add(schedule, c.participants, kBytes, std::nullopt);
    const double schedule_us =
        1e6 * seconds_per_call([&] { sink += sim::run_schedule(flow, schedule).makespan_s; }, runs);
    const double flow_us =
        1e6 * seconds_per_call([&] { sink += c.cost_s(flow, c.participants, kBytes); }, runs);
    const double analytic_us =
        1e6 * seconds_per_call([&] { sink += c.cost_s(analytic, c.participants, kBytes); }, runs);
    const std::size_t transfers = schedule.transfers().size();
    if (json) {
      out << std::setprecision(4) << "{\"collective\": \"" << c.name
          << "\", \"participants\": " << c.participants.size() << ", \"transfers\": " << transfers
          << ", \"run_schedule_us\": " << schedule_us << ", \"flow_call_us\": " << flow_us
          << ", \"analytic_call_us\": " << analytic_us << "}\n";
    } else {
      out << std::setprecision(4) << std::setw(18) << c.name << std::setw(11) << transfers
          << std::setw(15) << schedule_us << std::setw(15) << flow_us << std::setw(15)
          << analytic_us << flow_us / analytic_us << "x\n";
    }
  }
  if (sink < 0.0) out << sink;  // never: times are >= 0
  return 0;
}

}  // namespace codesim::bench
