// Each sweep point's inputs, prepared before any unit runs: its data (loaded once per dataset),
// its spec checked once against its cluster and data, and the fault log it replays.
#include "app/exec/point_inputs.hpp"

#include <exception>
#include <string>
#include <utility>
#include <variant>

#include "app/config/fault_log_json.hpp"
#include "app/config/scenario_error.hpp"
#include "app/config/sweep.hpp"
#include "app/exec/unit_executor.hpp"
#include "models/training/stochastic/stochastic_validation.hpp"
#include "sim/overloaded.hpp"

namespace codesim::app {

namespace {

/// Loads a point's dataset (shared with earlier points that use the same one).
std::shared_ptr<const models::DatasetSplit> load_point_data(const Scenario& scenario,
                                                            const TrainingWorkload& training,
                                                            const std::string& file,
                                                            DataCache& cache) {
  const Json& section = scenario.resolved["workload"]["dataset"];
  const std::string key = section.dump() + "#" + std::to_string(scenario.seed);
  auto& data = cache[key];
  if (!data) {
    try {
      data = std::make_shared<models::DatasetSplit>(
          models::load_dataset(training.dataset, scenario.seed));
    } catch (const models::DatasetError& e) {
      throw ScenarioError(file, "/workload/dataset",
                          std::string(e.what()) + " (expected a readable, well-formed dataset)");
    }
  }
  return data;
}

/// The point's spec checked once, against its cluster and data (numeric) or for the stochastic
/// mode: every replica runs on it.
models::ValidTraining check_point_training(const Scenario& scenario,
                                           const TrainingWorkload& training,
                                           const models::DatasetSplit* data,
                                           const std::string& file) {
  const models::TrainingSpec& spec = training.spec;
  auto checked = data == nullptr
                     ? models::check_stochastic_training(scenario.cluster, spec, training.faults)
                     : models::check_training(spec, {scenario.cluster.node_count(),
                                                     data->train.features(), data->train.classes});
  if (auto* valid = std::get_if<models::ValidTraining>(&checked)) return std::move(*valid);
  const std::string& problem = std::get<std::string>(checked);
  if (data == nullptr) {  // the reader has said what the stochastic mode does not model
    throw ScenarioError(file, "/workload/mode",
                        problem + " (expected a scenario stochastic mode models)");
  }
  if (spec.network) {
    throw ScenarioError(file, "/workload/network",
                        problem +
                            " (expected a network that fits the data: input of its "
                            "features, last layer's units >= classes)");
  }
  throw ScenarioError(
      file, "/workload/layers",
      problem + " (expected layers that fit the data: first = features, " + "last >= classes)");
}

/// A training point's data and fault log to replay (into `inputs`).
void prepare_training_point(const Scenario& scenario, const TrainingWorkload& training,
                            const std::string& file, DataCache& cache, PointInputs& inputs) {
  if (training.spec.mode == models::TrainingMode::stochastic) {  // reads no data
    inputs.training = check_point_training(scenario, training, nullptr, file);
    return;
  }
  inputs.data = load_point_data(scenario, training, file, cache);
  inputs.training = check_point_training(scenario, training, inputs.data.get(), file);
  const std::string& replay = training.replay_file;
  if (!replay.empty()) {
    models::FaultLog log = read_fault_log_file(replay);
    if (log.seed && *log.seed != scenario.seed) {
      throw ScenarioError(file, "/faults/replay",
                          "the log was recorded with seed " + std::to_string(*log.seed) +
                              " but the scenario's seed is " + std::to_string(scenario.seed) +
                              " (expected --seed " + std::to_string(*log.seed) + ")");
    }
    // A replay reruns the one replica that recorded the log.
    inputs.replicas = {log.replica.value_or(0)};
    inputs.replay = std::move(log);
  }
}

}  // namespace

PointInputs prepare_point(const Scenario& scenario, const std::string& file, DataCache& cache) {
  PointInputs inputs;
  for (int r = 0; r < scenario.replicas; ++r) inputs.replicas.push_back(r);
  std::visit(sim::Overloaded{
                 [](const sim::IterativeJobSpec&) {},  // reads no data
                 [&](const TrainingWorkload& training) {
                   prepare_training_point(scenario, training, file, cache, inputs);
                 },
             },
             scenario.workload);
  return inputs;
}

PreparedRun prepare_run(const Experiment& experiment, UnitExecutor& executor) {
  DataCache data_cache;
  PreparedRun prepared;
  std::exception_ptr failure;
  try {
    for (std::size_t p = 0; p < experiment.points.size(); ++p) {
      const ExperimentPoint& point = experiment.points[p];
      try {
        prepared.inputs.push_back(prepare_point(point.scenario, experiment.file, data_cache));
      } catch (const ScenarioError& e) {
        throw in_sweep_point(e, p, point.label, point.sources);
      }
      for (std::uint64_t r : prepared.inputs.back().replicas) prepared.units.push_back({p, r});
    }
  } catch (...) {
    failure = std::current_exception();
  }
  executor.agree(failure);  // a rank that cannot read its data stops every rank
  return prepared;
}

}  // namespace codesim::app
