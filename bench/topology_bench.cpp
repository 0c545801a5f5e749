// `codesim-bench topology`: wall time of a short iterative job (every node computes one task per
// iteration, then the results are all-gathered over the routes) on ring, torus2d and fat_tree
// networks of 1e3 to 1e5 nodes. Every query of an all-gather is a route, so the time per node
// shows whether route lookups stay O(1) (or O(depth)) as the network grows.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <iomanip>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "bench/bench_timing.hpp"
#include "bench/benchmarks.hpp"
#include "bench/option_values.hpp"
#include "sim/iterative_job.hpp"

namespace codesim::bench {
namespace {

constexpr const char* kUsage =
    "usage: codesim-bench topology [--shapes ring,torus2d,fat_tree] "
    "[--nodes 1000,3000,10000,30000,100000]\n"
    "                              [--iterations 3] [--runs R] [--json]\n"
    "  wall time of an iterative job of that many iterations (one 1 Gflop task per node, a\n"
    "  1 MB result each, all-gathered) per shape and size; runs are interleaved, medians shown\n";

struct Options {
  std::vector<sim::TopologyShape> shapes = {sim::TopologyShape::ring, sim::TopologyShape::torus2d,
                                            sim::TopologyShape::fat_tree};
  std::vector<int> nodes = {1000, 3000, 10000, 30000, 100000};
  int iterations = 3;
  int runs = 1;
  bool json = false;
  bool help = false;
};

std::vector<std::string> split(const std::string& list) {
  std::vector<std::string> items;
  std::istringstream in(list);
  for (std::string item; std::getline(in, item, ',');) items.push_back(item);
  return items;
}

// Empty string when valid, else what is wrong.
std::string parse(const std::vector<std::string>& args, Options& o) {
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    const bool has_value = i + 1 < args.size();
    if (a == "--json") {
      o.json = true;
    } else if (a == "--help" || a == "-h") {
      o.help = true;
    } else if (a == "--shapes" && has_value) {
      o.shapes.clear();
      for (const std::string& name : split(args[++i])) {
        const auto shape = sim::parse_topology_shape(name);
        if (!shape) return "--shapes expects topology names (got '" + name + "')";
        o.shapes.push_back(*shape);
      }
    } else if (a == "--nodes" && has_value) {
      o.nodes.clear();
      for (const std::string& n : split(args[++i])) {
        if (positive(n) == 0) return "--nodes expects positive integers (got '" + n + "')";
        o.nodes.push_back(positive(n));
      }
    } else if ((a == "--iterations" || a == "--runs") && has_value) {
      const int value = positive(args[++i]);
      if (value == 0) return a + " expects a positive integer";
      (a == "--runs" ? o.runs : o.iterations) = value;
    } else {
      return "unknown argument '" + a + "'";
    }
  }
  if (o.shapes.empty() || o.nodes.empty()) return "--shapes and --nodes need at least one value";
  return "";
}

// One job: build the cluster and its topology, run every iteration; returns wall seconds.
double run_job(sim::TopologyShape shape, int nodes, int iterations, double& completion_s) {
  const auto start = std::chrono::steady_clock::now();
  sim::ClusterSpec cluster = sim::uniform_cluster(nodes, 1e9);
  cluster.network.shape = shape;
  cluster.network.latency_s = 1e-6;
  cluster.network.bandwidth_Bps = 1.25e9;
  sim::IterativeJobSpec job;
  job.iterations = iterations;
  job.task_flops = 1e9;
  job.bytes_per_task = 1e6;
  job.exchange = sim::ExchangeKind::all_gather;
  const sim::MetricSet metrics = sim::run_iterative_job(cluster, sim::CheckpointSpec{}, job, 1, 0);
  completion_s = metrics.get("completion_time_s");
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

int run_topology_bench(const std::vector<std::string>& args, std::ostream& out) {
  Options o;
  if (const std::string error = parse(args, o); !error.empty()) {
    std::cerr << "error: " << error << "\n" << kUsage;
    return 2;
  }
  if (o.help) {
    out << kUsage;
    return 0;
  }
  // Interleaved: run r of every case before run r + 1 of any, so load changes hit all cases.
  std::map<std::pair<int, int>, std::vector<double>> wall_s;
  std::map<std::pair<int, int>, double> completion_s;
  for (int r = 0; r < o.runs; ++r)
    for (sim::TopologyShape shape : o.shapes)
      for (int n : o.nodes) {
        const std::pair<int, int> key{static_cast<int>(shape), n};
        wall_s[key].push_back(run_job(shape, n, o.iterations, completion_s[key]));
      }
  for (sim::TopologyShape shape : o.shapes) {
    for (int n : o.nodes) {
      const std::pair<int, int> key{static_cast<int>(shape), n};
      const double wall = median(wall_s[key]);
      const double us_per_node = wall / n * 1e6;
      if (o.json) {
        out << std::setprecision(6) << "{\"shape\": \"" << sim::to_string(shape)
            << "\", \"nodes\": " << n << ", \"iterations\": " << o.iterations
            << ", \"runs\": " << o.runs << ", \"wall_s\": " << wall
            << ", \"us_per_node\": " << us_per_node
            << ", \"completion_time_s\": " << completion_s[key] << "}\n";
      } else {
        out << std::setprecision(4) << sim::to_string(shape) << " " << n << " nodes, "
            << o.iterations << " iterations: median " << wall << " s over " << o.runs << " run"
            << (o.runs == 1 ? "" : "s") << " (" << us_per_node << " us per node; simulated "
            << std::setprecision(8) << completion_s[key] << " s)\n";
      }
    }
  }
  return 0;
}

}  // namespace codesim::bench
