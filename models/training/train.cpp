// The entry points of coded training: each builds one replica's run of its mode (the numeric
// run in numeric/, the stochastic run in stochastic/) and runs it.
#include "models/training/train.hpp"

#include "models/training/numeric/numeric_backend.hpp"
#include "models/training/stochastic/stochastic_backend.hpp"
#include "models/training/stochastic/stochastic_validation.hpp"
#include "sim/check.hpp"

namespace codesim::models {

TrainingResult train_coded(const sim::ClusterSpec& cluster, const sim::CheckpointSpec& checkpoint,
                           const ValidTraining& training, FaultInjector& injector,
                           const Dataset& train, const Dataset& test, std::uint64_t seed,
                           std::uint64_t replica, const TrainingObserver& observer) {
  detail::NumericBackend run(cluster, checkpoint, training, injector, train, test, seed, replica,
                             observer);
  return run.run();
}

TrainingResult train_coded(const sim::ClusterSpec& cluster, const sim::CheckpointSpec& checkpoint,
                           const TrainingSpec& spec, FaultInjector& injector, const Dataset& train,
                           const Dataset& test, std::uint64_t seed, std::uint64_t replica,
                           const TrainingObserver& observer) {
  const ValidTraining training =
      valid_training(spec, {cluster.node_count(), train.features(), train.classes});
  return train_coded(cluster, checkpoint, training, injector, train, test, seed, replica, observer);
}

sim::MetricSet run_coded_training(const sim::ClusterSpec& cluster,
                                  const sim::CheckpointSpec& checkpoint, const TrainingSpec& spec,
                                  const FaultConfig& faults, const Dataset& train,
                                  const Dataset& test, std::uint64_t seed, std::uint64_t replica) {
  // Only the metrics are returned: nobody reads the log's digests.
  FaultInjector injector(faults, cluster.node_count(), seed, replica, SequenceDigest::skipped);
  return train_coded(cluster, checkpoint, spec, injector, train, test, seed, replica).metrics;
}

sim::MetricSet run_stochastic_training(const sim::ClusterSpec& cluster,
                                       const sim::CheckpointSpec& checkpoint,
                                       const ValidTraining& training, const FaultConfig& faults,
                                       std::uint64_t seed, std::uint64_t replica,
                                       const std::function<bool()>& should_stop) {
  detail::StochasticBackend run(cluster, checkpoint, training, faults, seed, replica, should_stop);
  return run.run();
}

sim::MetricSet run_stochastic_training(const sim::ClusterSpec& cluster,
                                       const sim::CheckpointSpec& checkpoint,
                                       const TrainingSpec& spec, const FaultConfig& faults,
                                       std::uint64_t seed, std::uint64_t replica,
                                       const std::function<bool()>& should_stop) {
  auto checked = check_stochastic_training(cluster, spec, faults);
  if (const auto* problem = std::get_if<std::string>(&checked)) {
    CODESIM_CHECK(false, problem->c_str());
  }
  return run_stochastic_training(cluster, checkpoint, std::get<ValidTraining>(checked), faults,
                                 seed, replica, should_stop);
}

}  // namespace codesim::models
