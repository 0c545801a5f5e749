// Experiment runner: runs the replicas of a scenario and builds its results document.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "app/scenario.hpp"
#include "sim/metric_set.hpp"

namespace codesim::app {

/// The version written in results and printed by --version, e.g. "0.1.0".
std::string codesim_version();

/// Runs replica `replica` of the scenario's workload with the scenario's seed.
sim::MetricSet run_replica(const Scenario& scenario, std::uint64_t replica);

/// Runs replicas 0..replicas-1 and returns the results document: schema_version,
/// codesim_version, scenario (resolved), seed, and one point (params {}) with every replica's
/// metrics and their aggregate. Contains no wall-clock time and no path, so the same scenario
/// and seed give the same bytes.
nlohmann::ordered_json run_scenario(const Scenario& scenario);

}  // namespace codesim::app
