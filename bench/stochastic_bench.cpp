// `codesim-bench stochastic`: simulated node operations (product and update tasks) per second of
// the stochastic training mode on one core, for the paper configuration (CodeNet 7x6 grid (5,4)
// on a 784-10000-10000-10 MLP, eps 3e-4, a checkpoint every 10 iterations), the same with eps split
// over every fault target (paper_all), and for a CodeNet grid of 9,900 nodes (100 x 100 grid,
// (90, 90)).
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <iomanip>
#include <iostream>
#include <string>
#include <vector>

#include "bench/benchmarks.hpp"
#include "models/training/stochastic/stochastic_validation.hpp"
#include "models/training/train.hpp"

namespace codesim::bench {
namespace {

constexpr const char* kUsage =
    "usage: codesim-bench stochastic [--case paper|paper_all|large] [--iterations N] [--runs R] "
    "[--json]\n"
    "  paper: CodeNet 7x6 (5,4), 784-10000-10000-10, eps 3e-4 on weights, checkpoint every 10, "
    "1e6 iterations\n"
    "  paper_all: the same with eps 3e-4 / 5 on each of the five fault targets\n"
    "  large: CodeNet 100x100 (90,90) on 9900 nodes, 900-900-900-90, eps 3e-5, 300 iterations\n";

struct Case {
  std::string name;
  sim::ClusterSpec cluster;
  sim::CheckpointSpec checkpoint;
  models::TrainingSpec spec;
  models::FaultConfig faults;
};

Case make_case(const std::string& name, int iterations) {
  Case c;
  c.name = name;
  models::SchemeSpec& s = c.spec.scheme;
  double eps = 3e-4;
  int nodes = 38;
  if (name == "paper" || name == "paper_all") {
    s = models::codenet_grid_spec(5, 4, 7, 6, 1);
    c.spec.mlp.layer_sizes = {784, 10000, 10000, 10};
    c.spec.iterations = iterations > 0 ? iterations : 1000000;
  } else {
    s = models::codenet_grid_spec(90, 90, 100, 100, 1);
    nodes = models::summarize_scheme(s).nodes;
    c.spec.mlp.layer_sizes = {900, 900, 900, 90};
    c.spec.iterations = iterations > 0 ? iterations : 300;
    eps = 3e-5;
  }
  c.cluster = sim::uniform_cluster(nodes, 1e10);
  c.cluster.network.shape = sim::TopologyShape::fat_tree;
  c.cluster.network.fat_tree_arity = 8;
  c.cluster.network.latency_s = 2e-6;
  c.cluster.network.bandwidth_Bps = 1.25e10;
  c.checkpoint.policy = sim::CheckpointKind::every_iterations;
  c.checkpoint.every_iterations = 10;
  c.checkpoint.write_s = 1e-3;
  c.checkpoint.restart_s = 1e-3;
  c.faults = models::default_fault_config();
  c.faults[models::FaultTarget::weights].rate.probability_per_operation = eps;
  if (name == "paper_all") {  // all_steps_mnist's split: every primary step error-prone
    for (auto& target : c.faults.targets) target.rate.probability_per_operation = eps / 5.0;
  }
  return c;
}

}  // namespace

int run_stochastic_bench(const std::vector<std::string>& args, std::ostream& out) {
  std::vector<std::string> cases = {"paper", "paper_all", "large"};
  int iterations = 0;
  int runs = 1;
  bool json = false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    const bool has_value = i + 1 < args.size();
    if (a == "--json") {
      json = true;
    } else if (a == "--case" && has_value &&
               (args[i + 1] == "paper" || args[i + 1] == "paper_all" || args[i + 1] == "large")) {
      cases = {args[++i]};
    } else if ((a == "--iterations" || a == "--runs") && has_value) {
      int value = 0;
      try {
        value = std::stoi(args[++i]);
      } catch (...) {
        value = 0;
      }
      if (value < 1) {
        std::cerr << "error: " << a << " expects a positive integer\n" << kUsage;
        return 2;
      }
      (a == "--runs" ? runs : iterations) = value;
    } else if (a == "--help" || a == "-h") {
      out << kUsage;
      return 0;
    } else {
      std::cerr << "error: unknown argument '" << a << "'\n" << kUsage;
      return 2;
    }
  }
  for (const std::string& name : cases) {
    const Case c = make_case(name, iterations);
    std::vector<double> rates;
    sim::MetricSet metrics;
    double wall_s = 0.0;
    for (int r = 0; r < runs; ++r) {
      const auto start = std::chrono::steady_clock::now();
      metrics = models::run_stochastic_training(c.cluster, c.checkpoint, c.spec, c.faults, 1,
                                                static_cast<std::uint64_t>(r));
      wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      rates.push_back(metrics.get("node_operations") / wall_s);
    }
    std::sort(rates.begin(), rates.end());
    const double median = rates.size() % 2 == 1
                              ? rates[rates.size() / 2]
                              : (rates[rates.size() / 2 - 1] + rates[rates.size() / 2]) / 2.0;
    if (json) {
      out << std::setprecision(6) << "{\"case\": \"" << name
          << "\", \"nodes\": " << c.cluster.node_count()
          << ", \"iterations\": " << c.spec.iterations
          << ", \"node_operations\": " << metrics.get("node_operations")
          << ", \"wall_s\": " << wall_s << ", \"node_ops_per_s\": " << median
          << ", \"rollbacks\": " << metrics.get("rollbacks")
          << ", \"corrected\": " << metrics.get("corrected") << "}\n";
    } else {
      out << std::setprecision(4) << name << ": " << c.cluster.node_count() << " nodes, "
          << c.spec.iterations << " iterations, " << metrics.get("node_operations")
          << " node operations in " << wall_s << " s (last run); median " << median
          << " node-ops/s over " << runs << " run" << (runs == 1 ? "" : "s") << "; "
          << metrics.get("rollbacks") << " rollbacks, " << metrics.get("corrected")
          << " corrected\n";
    }
  }
  return 0;
}

}  // namespace codesim::bench
