// Preflight estimates from the scheme summaries (stored fraction per node, redundancy) and the
// layer shapes; the throughput comes from a short Eigen matrix-vector benchmark.
#include "app/preflight.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

#include <Eigen/Dense>

#include "app/scenario_error.hpp"
#include "models/coding/coding_scheme.hpp"

namespace codesim::app {

namespace {

constexpr double kBytesPerValue = 8.0;

std::string gigabytes(double bytes) {
  std::ostringstream text;
  text.precision(3);
  text << bytes / 1e9 << " GB";
  return text.str();
}

/// Samples of a dataset source as the run will load it (an upper bound for files).
double dataset_values(const models::DatasetSource& source, int features) {
  double samples = 0;
  switch (source.kind) {
    case models::DatasetKind::mnist:
      samples = 10000;
      break;
    case models::DatasetKind::fashion_mnist:
      samples = 70000;
      break;
    case models::DatasetKind::synthetic:
      samples = source.synthetic.samples;
      break;
    case models::DatasetKind::idx:
      samples = 70000;  // unknown before reading: MNIST-sized
      break;
  }
  return samples * features;
}

}  // namespace

PreflightEstimate estimate_run(const Experiment& experiment, int jobs) {
  PreflightEstimate estimate;
  std::map<std::string, double> datasets;
  std::size_t units = 0;
  double largest_replica_bytes = 0;
  for (std::size_t p = 0; p < experiment.points.size(); ++p) {
    const ExperimentPoint& point = experiment.points[p];
    const Scenario& s = point.scenario;
    const TrainingWorkload* training = training_of(s.workload);
    const std::size_t replicas = training != nullptr && !training->replay_file.empty()
                                     ? 1
                                     : static_cast<std::size_t>(s.replicas);
    units += replicas;
    if (training == nullptr) continue;
    const models::TrainingSpec& spec = training->spec;
    const std::vector<int>& sizes = spec.mlp.layer_sizes;
    if (spec.mode == models::TrainingMode::stochastic) {
      const double nodes = models::summarize_scheme(spec.scheme).nodes;
      const double layers = static_cast<double>(sizes.size()) - 1;
      double per_iteration = nodes * (2 * layers - 1 + 1);
      if (s.checkpoint.policy == sim::CheckpointKind::every_iterations) {
        per_iteration += nodes * 2 * layers / s.checkpoint.every_iterations;
      }
      const double operations = per_iteration * spec.iterations * static_cast<double>(replicas);
      estimate.node_operations += operations;
      estimate.flops += operations * kFlopsPerNodeOperation;
      continue;
    }
    double stored_values = 0;
    double weights = 0;
    double largest_layer = 0;
    double flops_per_iteration = 0;
    const double batch = spec.mlp.batch_size;
    for (std::size_t l = 0; l + 1 < sizes.size(); ++l) {
      const double rows = sizes[l + 1];
      const double cols = sizes[l];
      const models::SchemeSummary summary = models::summarize_scheme(spec.scheme, 0, 0);
      const double layer_stored = summary.redundancy * rows * cols;
      stored_values += layer_stored;
      weights += rows * cols;
      largest_layer = std::max(largest_layer, rows * cols);
      // Forward and backward products and the update each touch every stored value twice (a
      // multiply and an add) per batch column, plus the input encodings.
      flops_per_iteration +=
          3 * 2 * layer_stored * batch + 2 * summary.nodes * (rows + cols) * batch;
    }
    double replica_bytes = stored_values * kBytesPerValue;
    estimate.blocks_bytes = std::max(estimate.blocks_bytes, replica_bytes);
    // Working copies (one layer's weights decoded at the read-out) and the audit's shadow.
    replica_bytes += largest_layer * kBytesPerValue;
    if (spec.audit) replica_bytes += weights * kBytesPerValue;
    if (replica_bytes > largest_replica_bytes) {
      largest_replica_bytes = replica_bytes;
      estimate.largest_point = point.label.empty() ? "point " + std::to_string(p) : point.label;
    }
    datasets[s.resolved["workload"]["dataset"].dump()] =
        dataset_values(training->dataset, sizes.front()) * kBytesPerValue;
    estimate.flops += flops_per_iteration * spec.iterations * static_cast<double>(replicas);
  }
  for (const auto& [key, bytes] : datasets) estimate.dataset_bytes += bytes;
  estimate.concurrent_replicas =
      static_cast<int>(std::max<std::size_t>(1, std::min<std::size_t>(units, jobs)));
  estimate.memory_bytes =
      estimate.dataset_bytes + estimate.concurrent_replicas * largest_replica_bytes;
  return estimate;
}

std::optional<double> available_memory_bytes() {
  std::ifstream meminfo("/proc/meminfo");
  std::string key;
  double kilobytes = 0;
  std::string unit;
  while (meminfo >> key >> kilobytes >> unit) {
    if (key == "MemAvailable:") return kilobytes * 1024.0;
  }
  return std::nullopt;
}

void check_memory(const Experiment& experiment, const PreflightEstimate& estimate,
                  double available_bytes) {
  if (estimate.memory_bytes <= available_bytes) return;
  throw ScenarioError(
      experiment.file, "/workload/layers",
      "the run needs about " + gigabytes(estimate.memory_bytes) + " of memory (" +
          std::to_string(estimate.concurrent_replicas) + " concurrent replicas of up to " +
          gigabytes(estimate.blocks_bytes) + " of stored blocks (" + estimate.largest_point +
          ") and " + gigabytes(estimate.dataset_bytes) + " of data) but " +
          gigabytes(available_bytes) +
          " is available (expected fewer --jobs, smaller layers or less redundancy)");
}

double measured_flops_per_s() {
  const Eigen::Index n = 2048;  // 32 MB: memory-bound like the blocks of large layers
  const Eigen::MatrixXd a = Eigen::MatrixXd::Constant(n, n, 0.5);
  const Eigen::VectorXd x = Eigen::VectorXd::Constant(n, 1.0);
  Eigen::VectorXd y(n);
  const auto start = std::chrono::steady_clock::now();
  int repetitions = 0;
  double elapsed_s = 0;
  do {
    y.noalias() = a * x;
    ++repetitions;
    elapsed_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  } while (elapsed_s < 0.01);
  const double flops = 2.0 * static_cast<double>(n * n) * repetitions;
  return y(0) > 0 ? flops / elapsed_s : flops / elapsed_s;  // y(0) keeps the product alive
}

std::string describe_duration(double seconds) {
  std::ostringstream text;
  text.precision(2);
  if (seconds < 120) {
    text << "about " << std::round(seconds) << " s";
  } else if (seconds < 7200) {
    text << "about " << std::round(seconds / 60) << " min";
  } else {
    text << "about " << seconds / 3600 << " h";
  }
  return text.str();
}

}  // namespace codesim::app
