// Preflight: the per-replica estimates of models/dnn/training_estimate.hpp summed over a run's
// points and replicas; the throughput comes from a short Eigen matrix-vector benchmark.
#include "app/exec/preflight.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

#include <Eigen/Dense>

#include "app/config/scenario_error.hpp"
#include "models/dnn/round_costs.hpp"
#include "models/dnn/training_estimate.hpp"

namespace codesim::app {

namespace {

std::string gigabytes(double bytes) {
  std::ostringstream text;
  text.precision(3);
  text << bytes / 1e9 << " GB";
  return text.str();
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
    const models::TrainingEstimate replica = models::estimate_training(spec, s.checkpoint);
    if (spec.mode == models::TrainingMode::stochastic) {
      const double operations =
          replica.node_operations_per_iteration * spec.iterations * static_cast<double>(replicas);
      estimate.node_operations += operations;
      estimate.flops += operations * kFlopsPerNodeOperation;
      continue;
    }
    estimate.blocks_bytes = std::max(estimate.blocks_bytes, replica.stored_bytes);
    if (replica.working_bytes > largest_replica_bytes) {
      largest_replica_bytes = replica.working_bytes;
      estimate.largest_point = point.label.empty() ? "point " + std::to_string(p) : point.label;
    }
    datasets[s.resolved["workload"]["dataset"].dump()] =
        models::dataset_values(training->dataset, spec.mlp.layer_sizes.front()) *
        models::kBytesPerValue;
    estimate.flops += replica.flops_per_iteration * spec.iterations * static_cast<double>(replicas);
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
