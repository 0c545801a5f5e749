// Preparing a sweep point before its replicas run (point_inputs.cpp); the runner's part that
// reads files: the dataset, the fault log to replay.
#pragma once

#include <map>
#include <memory>
#include <string>

#include "app/exec/runner.hpp"

namespace codesim::app {

/// The datasets loaded so far, keyed by their section and seed: points that share one load it once.
using DataCache = std::map<std::string, std::shared_ptr<const models::DatasetSplit>>;

/// `scenario`'s inputs (its data from `cache` or loaded into it, its checked spec, the fault log
/// it replays, its replica numbers); a ScenarioError in `file` when they do not fit the point.
PointInputs prepare_point(const Scenario& scenario, const std::string& file, DataCache& cache);

}  // namespace codesim::app
