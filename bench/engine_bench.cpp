// `codesim-bench engine`: event throughput of the real Engine and Node on N nodes x K tasks.
// Each node runs K tasks back to back, each of 1e9 * (1 + Exp(1)) flops at 1e9 flop/s; every task
// is one event scheduled by Node::run_task and popped by Engine::run.
#include <chrono>
#include <cstdint>
#include <iomanip>
#include <iostream>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench/bench_timing.hpp"
#include "bench/benchmarks.hpp"
#include "bench/engine_bench_options.hpp"
#include "sim/engine.hpp"
#include "sim/node.hpp"
#include "sim/random_stream.hpp"
#include "sim/straggler_model.hpp"

namespace codesim::bench {
namespace {

constexpr double kSpeedFlopsPerS = kEngineBenchSpeedFlopsPerS;
constexpr double kBaseFlops = kEngineBenchBaseFlops;

// One node and the stream its task sizes come from (keyed like the SimGrid peer's, so both
// sides simulate the very same tasks). Aligned so that a task touches two cache lines, no more: the
// node's hot members fill the first (the engine prefetches it), the stream's position and the
// task count sit in the second.
struct alignas(128) Worker {
  sim::Node node;
  sim::RandomStream task_sizes;
  long remaining_tasks;
};

struct Workload {
  sim::Engine engine;
  std::vector<Worker> workers;

  void start_next_task(std::size_t worker) {
    Worker& w = workers[worker];
    if (w.remaining_tasks == 0) return;
    --w.remaining_tasks;
    const double flops = kBaseFlops * (1.0 + w.task_sizes.exponential(1.0));
    w.node.run_task(engine, flops, [this, worker] { start_next_task(worker); });
  }
};

struct EngineBenchResult {
  std::uint64_t events = 0;
  double setup_s = 0.0;
  double wall_s = 0.0;
  double makespan_s = 0.0;
};

// Setup (nodes and their streams) is timed apart from the run (first tasks scheduled, then
// Engine::run), which is what events per second measure.
EngineBenchResult run_workload(const EngineBenchOptions& options) {
  EngineBenchResult result;
  const auto setup_start = std::chrono::steady_clock::now();
  const std::shared_ptr<const sim::StragglerModel> no_straggler =
      sim::make_straggler_model(sim::StragglerSpec{});
  Workload workload;
  workload.workers.reserve(static_cast<std::size_t>(options.nodes));
  for (long i = 0; i < options.nodes; ++i) {
    const auto index = static_cast<std::uint64_t>(i);
    workload.workers.push_back(
        Worker{sim::Node(static_cast<int>(i), kSpeedFlopsPerS, no_straggler,
                         sim::RandomStream({options.seed, 0, "straggler", index})),
               sim::RandomStream({options.seed, 0, "bench_task", index}), options.tasks});
  }
  result.setup_s = seconds_since(setup_start);

  const auto run_start = std::chrono::steady_clock::now();
  for (std::size_t i = 0; i < workload.workers.size(); ++i) workload.start_next_task(i);
  workload.engine.run();
  result.wall_s = seconds_since(run_start);
  result.events = workload.engine.events_run();
  result.makespan_s = workload.engine.now();
  return result;
}

}  // namespace

int run_engine_bench(const std::vector<std::string>& args, std::ostream& out) {
  constexpr const char* kUsage =
      "usage: codesim-bench engine --nodes N --tasks K [--seed S] [--json]\n";
  EngineBenchOptions options;
  try {
    options = parse_engine_bench_options(args);
  } catch (const std::invalid_argument& e) {
    std::cerr << "error: " << e.what() << "\n" << kUsage;
    return 2;
  }
  if (options.help) {
    out << kUsage;
    return 0;
  }
  const EngineBenchResult result = run_workload(options);
  const double events_per_s = static_cast<double>(result.events) / result.wall_s;
  if (options.json) {
    out << "{\"events\": " << result.events << ", \"wall_s\": " << result.wall_s
        << ", \"events_per_s\": " << events_per_s << "}\n";
  } else {
    out << "codesim engine benchmark: " << options.nodes << " nodes x " << options.tasks
        << " tasks\n"
        << "events: " << result.events << " (one per completed task)\n"
        << "setup_s: " << result.setup_s << " (building nodes and streams; not in wall_s)\n"
        << "wall_s: " << result.wall_s << " (scheduling the first tasks and Engine::run)\n"
        << "events_per_s: " << events_per_s << "\n"
        << "simulated makespan_s: " << std::setprecision(12) << result.makespan_s << "\n";
  }
  return 0;
}

}  // namespace codesim::bench
