// SimGrid 3.32 peer of `codesim-bench engine`: N hosts at 1 Gflop/s, one s4u actor per host, each
// executing K tasks of 1e9 * (1 + Exp(1)) flops back to back; prints the same report.
#include <simgrid/s4u.hpp>

#include <chrono>
#include <cstdint>
#include <iomanip>
#include <iostream>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench/engine_bench_options.hpp"
#include "sim/random_stream.hpp"

namespace sg4 = simgrid::s4u;

namespace {

constexpr double kSpeedFlopsPerS = codesim::bench::kEngineBenchSpeedFlopsPerS;
constexpr double kBaseFlops = codesim::bench::kEngineBenchBaseFlops;
using Options = codesim::bench::EngineBenchOptions;

// SimGrid's Engine has already removed its own --cfg=... and --log=... arguments from argv.
Options parse_options(int argc, char** argv) {
  Options options =
      codesim::bench::parse_engine_bench_options(std::vector<std::string>(argv + 1, argv + argc));
  if (options.help) throw std::invalid_argument("");
  return options;
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

int main(int argc, char** argv) {
  sg4::Engine engine(&argc, argv);
  Options options;
  try {
    options = parse_options(argc, argv);
  } catch (const std::invalid_argument& e) {
    if (e.what()[0] != '\0') std::cerr << "error: " << e.what() << "\n";
    std::cerr << "usage: simgrid-engine-bench --nodes N --tasks K [--seed S] [--json] "
                 "[--cfg=contexts/guard-size:0 --cfg=contexts/stack-size:16]\n";
    return e.what()[0] != '\0' ? 2 : 0;
  }

  // Hosts only compute, so an empty zone (no routing) suffices; a full zone would hold N^2 routes.
  sg4::NetZone* zone = sg4::create_empty_zone("bench");
  std::vector<sg4::Host*> hosts;
  hosts.reserve(static_cast<std::size_t>(options.nodes));
  for (long i = 0; i < options.nodes; ++i) {
    hosts.push_back(zone->create_host("node-" + std::to_string(i), kSpeedFlopsPerS)->seal());
  }
  zone->seal();

  // Setup (streams and actors) is timed apart from the run (Engine::run), which is what events
  // per second measure; the task sizes come from the same keyed streams as codesim-bench's.
  const auto setup_start = std::chrono::steady_clock::now();
  std::vector<codesim::sim::RandomStream> task_sizes;
  task_sizes.reserve(static_cast<std::size_t>(options.nodes));
  for (long i = 0; i < options.nodes; ++i) {
    task_sizes.emplace_back(
        codesim::sim::StreamKey{options.seed, 0, "bench_task", static_cast<std::uint64_t>(i)});
  }
  std::uint64_t tasks_done = 0;
  for (long i = 0; i < options.nodes; ++i) {
    codesim::sim::RandomStream* sizes = &task_sizes[static_cast<std::size_t>(i)];
    sg4::Actor::create("worker-" + std::to_string(i), hosts[static_cast<std::size_t>(i)],
                       [sizes, tasks = options.tasks, &tasks_done] {
                         for (long k = 0; k < tasks; ++k) {
                           sg4::this_actor::execute(kBaseFlops * (1.0 + sizes->exponential(1.0)));
                           ++tasks_done;
                         }
                       });
  }
  const double setup_s = seconds_since(setup_start);

  const auto run_start = std::chrono::steady_clock::now();
  engine.run();
  const double wall_s = seconds_since(run_start);
  const double events_per_s = static_cast<double>(tasks_done) / wall_s;
  const double makespan_s = sg4::Engine::get_clock();

  if (options.json) {
    std::cout << "{\"events\": " << tasks_done << ", \"wall_s\": " << wall_s
              << ", \"events_per_s\": " << events_per_s << "}\n";
  } else {
    std::cout << "simgrid engine benchmark: " << options.nodes << " nodes x " << options.tasks
              << " tasks\n"
              << "events: " << tasks_done << " (one per completed task)\n"
              << "setup_s: " << setup_s
              << " (platform excluded; streams and actors; not in wall_s)\n"
              << "wall_s: " << wall_s << " (Engine::run)\n"
              << "events_per_s: " << events_per_s << "\n"
              << "simulated makespan_s: " << std::setprecision(12) << makespan_s << "\n";
  }
  return 0;
}
