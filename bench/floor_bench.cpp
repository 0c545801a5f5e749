// `codesim-bench floor`: the paper-size iteration against the memory floor. A STREAM-like triad
// (a = b + s c over arrays far larger than the caches) measures this machine's memory bandwidth;
// an iteration must at least move, per stored block, one read for the forward product and one
// read and one write for the backward product fused with the update; the floor is those bytes
// over the bandwidth. The iteration is timed inside error-free train_coded runs (between the
// polls that precede consecutive iterations), so setup, evaluation and read-out are left out.
#include <algorithm>
#include <chrono>
#include <iomanip>
#include <iostream>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/bench_timing.hpp"
#include "bench/benchmarks.hpp"
#include "bench/engine_bench_options.hpp"
#include "models/coding/coding_scheme.hpp"
#include "models/data/synthetic_dataset.hpp"
#include "models/linalg/thread_team.hpp"
#include "models/training/train.hpp"

namespace codesim::bench {
namespace {

using Clock = std::chrono::steady_clock;

constexpr const char* kUsage =
    "usage: codesim-bench floor [--iterations N] [--runs R] [--threads T] [--triad-mib M]\n"
    "           [--eval-samples S] [--json]\n";

struct FloorOptions {
  int iterations = 8;
  int runs = 3;
  int threads = 1;
  long triad_mib = 256;   // per array
  int eval_samples = 16;  // evaluated before the first iteration and after the last
  bool json = false;
};

FloorOptions parse_floor_options(const std::vector<std::string>& args) {
  FloorOptions options;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    auto value = [&]() -> const std::string& {
      if (i + 1 >= args.size()) throw std::invalid_argument(arg + " expects a value");
      return args[++i];
    };
    if (arg == "--iterations") {
      options.iterations = static_cast<int>(parse_bench_integer(arg, value(), 3));
    } else if (arg == "--runs") {
      options.runs = static_cast<int>(parse_bench_integer(arg, value(), 1));
    } else if (arg == "--threads") {
      options.threads = static_cast<int>(parse_bench_integer(arg, value(), 1));
    } else if (arg == "--triad-mib") {
      options.triad_mib = parse_bench_integer(arg, value(), 16);
    } else if (arg == "--eval-samples") {
      options.eval_samples = static_cast<int>(parse_bench_integer(arg, value(), 1));
    } else if (arg == "--json") {
      options.json = true;
    } else {
      throw std::invalid_argument("unknown argument '" + arg + "'");
    }
  }
  return options;
}

// Best bytes per second of a = b + s c over `repeats` passes, the arrays cut between the team's
// threads as the kernels cut products (STREAM counts 3 arrays x 8 bytes per element, no
// write-allocate, and reports the best pass).
double triad_bytes_per_s(long elements, int repeats, models::ThreadTeam& team) {
  std::vector<double> a(static_cast<std::size_t>(elements), 0.0);
  std::vector<double> b(a.size(), 1.0);
  std::vector<double> c(a.size(), 2.0);
  const int pieces = team.size();
  double best_s = 1e300;
  for (int r = 0; r < repeats; ++r) {
    const auto start = Clock::now();
    team.parallel_for(pieces, [&](int piece) {
      const long first = elements * piece / pieces;
      const long last = elements * (piece + 1) / pieces;
      double* out = a.data();
      const double* x = b.data();
      const double* y = c.data();
      for (long i = first; i < last; ++i) out[i] = x[i] + 3.0 * y[i];
    });
    best_s = std::min(best_s, std::chrono::duration<double>(Clock::now() - start).count());
  }
  if (a[static_cast<std::size_t>(elements / 2)] != 7.0) throw std::logic_error("triad is wrong");
  return 3.0 * 8.0 * static_cast<double>(elements) / best_s;
}

struct Config {
  std::vector<int> layers{784, 10000, 10000, 10};
  models::SchemeSpec scheme = models::CodenetGridSpec{5, 4, 7, 6, 0};
};

// Bytes of every stored block of the run: per layer, redundancy x its weights x 8.
std::vector<double> stored_bytes_per_layer(const Config& config) {
  std::vector<double> bytes;
  for (std::size_t l = 0; l + 1 < config.layers.size(); ++l) {
    const models::SchemeSummary s =
        models::summarize_scheme(config.scheme, config.layers[l + 1], config.layers[l]);
    bytes.push_back(s.redundancy * config.layers[l + 1] * config.layers[l] * 8.0);
  }
  return bytes;
}

struct RunTimes {
  double iteration_s = 0.0;  // median between consecutive iterations (all but the first)
  double setup_s = 0.0;      // from the call to the first iteration (with the first evaluation)
  double read_out_s = 0.0;   // after the last iteration (the last evaluation, decoding W)
};

double seconds_between(Clock::time_point from, Clock::time_point to) {
  return std::chrono::duration<double>(to - from).count();
}

// One error-free run, timed between the polls that precede its iterations.
RunTimes time_run(const Config& config, const FloorOptions& options,
                  models::Arithmetic arithmetic) {
  models::SyntheticSpec data;
  data.classes = 10;
  data.features = config.layers.front();
  data.samples = 200;
  const models::Dataset train = models::make_synthetic_dataset(data);
  data.samples = options.eval_samples;
  data.seed = 1;
  const models::Dataset test = models::make_synthetic_dataset(data);
  models::TrainingSpec spec;
  spec.arithmetic = arithmetic;
  spec.threads = options.threads;
  spec.mlp.layer_sizes = config.layers;
  spec.sgd.batch_size = 1;
  spec.scheme = config.scheme;
  spec.iterations = options.iterations;
  spec.eval_samples = options.eval_samples;
  const models::FaultConfig faults = models::fault_free_config();
  std::vector<Clock::time_point> polls;
  models::TrainingObserver observer;
  observer.should_stop = [&polls] {
    polls.push_back(Clock::now());
    return false;
  };
  const int nodes = models::summarize_scheme(config.scheme).nodes;
  models::FaultInjector injector(faults, nodes, 1, 0);
  const auto start = Clock::now();
  models::train_coded(sim::uniform_cluster(nodes, 1e9), {}, spec, injector, train, test, 1, 0,
                      observer);
  const auto end = Clock::now();
  std::vector<double> gaps;
  for (std::size_t i = 2; i < polls.size(); ++i)
    gaps.push_back(seconds_between(polls[i - 1], polls[i]));
  RunTimes times;
  times.iteration_s = median(gaps);
  times.setup_s = seconds_between(start, polls.front());
  times.read_out_s = seconds_between(polls.back(), end) - times.iteration_s;
  return times;
}

}  // namespace

int run_floor_bench(const std::vector<std::string>& args, models::Arithmetic arithmetic,
                    std::ostream& out) {
  FloorOptions options;
  try {
    options = parse_floor_options(args);
  } catch (const std::invalid_argument& e) {
    std::cerr << "error: " << e.what() << "\n" << kUsage;
    return 2;
  }
  const Config config;
  const std::vector<double> stored = stored_bytes_per_layer(config);
  double floor_bytes = 0.0;
  double unfused_bytes = 0.0;
  for (std::size_t l = 0; l < stored.size(); ++l) {
    floor_bytes += 3.0 * stored[l];  // forward read; backward read fused with the update's
    unfused_bytes += (l == 0 ? 3.0 : 4.0) * stored[l];  // layer 0 has no backward product
  }
  models::ThreadTeam one(1);
  models::ThreadTeam team(options.threads);
  std::vector<double> bandwidths_one;
  std::vector<double> bandwidths;
  std::vector<double> iterations;
  std::vector<double> setups;
  std::vector<double> read_outs;
  const long elements = options.triad_mib * 1024 * 1024 / 8;
  for (int r = 0; r < options.runs; ++r) {  // interleaved, so that load changes hit all
    bandwidths_one.push_back(triad_bytes_per_s(elements, 5, one));
    bandwidths.push_back(triad_bytes_per_s(elements, 5, team));
    const RunTimes times = time_run(config, options, arithmetic);
    iterations.push_back(times.iteration_s);
    setups.push_back(times.setup_s);
    read_outs.push_back(times.read_out_s);
  }
  const double bandwidth_one = median(bandwidths_one);
  const double bandwidth = median(bandwidths);
  const double iteration_s = median(iterations);
  // The machine's bandwidth: the better of one thread and the team.
  const double best_bandwidth = std::max(bandwidth, bandwidth_one);
  const double floor_s = floor_bytes / best_bandwidth;
  nlohmann::ordered_json report;
  report["layers"] = "784,10000,10000,10";
  report["scheme"] = "codenet_grid 7x6 (5,4), batch 1";
  report["arithmetic"] = models::arithmetic_name(arithmetic);
  report["threads"] = options.threads;
  report["eval_samples"] = options.eval_samples;
  report["triad_bytes_per_s_1_thread"] = bandwidth_one;
  report["triad_bytes_per_s"] = bandwidth;
  report["stored_bytes"] = stored[0] + stored[1] + stored[2];
  report["floor_bytes"] = floor_bytes;
  report["unfused_bytes"] = unfused_bytes;
  report["floor_s"] = floor_s;
  report["unfused_floor_s"] = unfused_bytes / best_bandwidth;
  report["iteration_s"] = iteration_s;
  report["ratio_to_floor"] = iteration_s / floor_s;
  report["iteration_bytes_per_s"] = unfused_bytes / iteration_s;
  report["setup_s"] = median(setups);
  report["read_out_s"] = median(read_outs);
  if (options.json) {
    out << report.dump(2) << "\n";
    return 0;
  }
  out << "codesim floor benchmark: " << report["scheme"].get<std::string>() << ", layers "
      << report["layers"].get<std::string>() << ", " << report["arithmetic"].get<std::string>()
      << ", " << options.threads << " thread(s), medians of " << options.runs << " runs\n"
      << std::setprecision(4) << "triad bandwidth: " << bandwidth / 1e9 << " GB/s on "
      << options.threads << " thread(s), " << bandwidth_one / 1e9 << " GB/s on 1\n"
      << "stored blocks: " << report["stored_bytes"].get<double>() / 1e9 << " GB\n"
      << "floor (3 passes): " << floor_s
      << " s; unfused (4 passes past layer 0): " << unfused_bytes / best_bandwidth << " s\n"
      << "iteration: " << iteration_s << " s = " << iteration_s / floor_s << "x the floor ("
      << unfused_bytes / iteration_s / 1e9 << " GB/s of the unfused passes)\n"
      << "setup (to the first iteration, " << options.eval_samples
      << " samples evaluated): " << median(setups)
      << " s; read-out (after the last): " << median(read_outs) << " s\n";
  return 0;
}

}  // namespace codesim::bench
