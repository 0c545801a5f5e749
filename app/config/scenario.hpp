// Scenario: the validated plain description of one experiment, as read from a scenario file.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <variant>

#include <nlohmann/json.hpp>

#include "analysis/chrome_trace_writer.hpp"
#include "models/data/dataset_source.hpp"
#include "models/faults/fault_targets.hpp"
#include "models/training/spec.hpp"
#include "sim/checkpoint_policy.hpp"
#include "sim/cluster.hpp"
#include "sim/iterative_job.hpp"

namespace codesim::app {

/// A coded training run: the network, data and protocol (workload), the coding scheme
/// (strategy) and the soft errors (faults).
struct TrainingWorkload {
  models::TrainingSpec spec;  ///< spec.scheme comes from the scenario's `strategy`
  models::DatasetSource dataset;
  models::FaultConfig faults;
  std::string replay_file;     ///< fault log to replay instead of sampling; "" = sample
  std::string fault_log_file;  ///< per-replica fault log path pattern; "" = none
  /// The timeline trace (the `trace` section or codesim run --trace); file is a path pattern
  /// like fault_log_file's, "" = none.
  analysis::TraceOptions trace;
};

/// What the cluster runs: an iterative job of tasks, or coded training (numeric or stochastic:
/// TrainingSpec::mode; both modes take the same settings). The alternative's index is its
/// WorkloadKind.
using WorkloadSpec = std::variant<sim::IterativeJobSpec, TrainingWorkload>;
enum class WorkloadKind { iterative_job, training };
inline constexpr std::array<std::string_view, 2> kWorkloadKindNames = {"iterative_job", "training"};
static_assert(kWorkloadKindNames.size() == std::variant_size_v<WorkloadSpec>,
              "one WorkloadKind and one name per alternative");

/// The training workload of a scenario; null for other workloads. For what only training has
/// (fault logs, traces, a coding scheme); what every workload answers visits WorkloadSpec.
inline const TrainingWorkload* training_of(const WorkloadSpec& workload) {
  return std::get_if<TrainingWorkload>(&workload);
}

/// A validated scenario: every default filled in, every value in range.
struct Scenario {
  std::string name;         ///< names the default output file results/<name>.json
  std::string description;  ///< free text for readers of the file
  std::string label;        ///< names this run in tables and legends ("" = from the sweep)
  std::uint64_t seed = 1;   ///< root of every random stream
  int replicas = 10;        ///< independent runs of the scenario, numbered 0..replicas-1
  /// Run points that preflight expects not to finish within their time limit (they end there
  /// with completed = 0): for experiments that chart where a strategy stops making progress.
  bool allow_unfinished = false;
  sim::ClusterSpec cluster;
  sim::CheckpointSpec checkpoint;
  WorkloadSpec workload;
  /// The scenario as JSON with every default filled in (key order as documented).
  nlohmann::ordered_json resolved;
};

}  // namespace codesim::app
