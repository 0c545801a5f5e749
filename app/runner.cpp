// Experiment runner: one point (no sweep yet), replicas run one after another.
#include "app/runner.hpp"

#include <vector>

#include "analysis/results_json.hpp"
#include "sim/check.hpp"
#include "sim/iterative_job.hpp"

#ifndef CODESIM_VERSION
#define CODESIM_VERSION "unknown"
#endif

namespace codesim::app {

std::string codesim_version() { return CODESIM_VERSION; }

sim::MetricSet run_replica(const Scenario& scenario, std::uint64_t replica) {
  // The loader accepts only known kinds, so anything else is a broken invariant.
  CODESIM_CHECK(scenario.workload.kind == "iterative_job", "unknown workload kind");
  return sim::run_iterative_job(scenario.cluster, scenario.checkpoint,
                                scenario.workload.iterative_job, scenario.seed, replica);
}

nlohmann::ordered_json run_scenario(const Scenario& scenario) {
  std::vector<sim::MetricSet> replicas;
  replicas.reserve(static_cast<std::size_t>(scenario.replicas));
  for (int r = 0; r < scenario.replicas; ++r)
    replicas.push_back(run_replica(scenario, static_cast<std::uint64_t>(r)));

  nlohmann::ordered_json results = nlohmann::ordered_json::object();
  results["schema_version"] = 1;
  results["codesim_version"] = codesim_version();
  results["scenario"] = scenario.resolved;
  results["seed"] = scenario.seed;
  results["points"] = nlohmann::ordered_json::array();
  results["points"].push_back(analysis::point_json(nlohmann::ordered_json::object(), replicas));
  return results;
}

}  // namespace codesim::app
