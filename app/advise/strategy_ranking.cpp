// Stage 2 of codesim advise (strategy_ranking.hpp).
#include "app/advise/strategy_ranking.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>

#include "analysis/summary_statistics.hpp"
#include "app/exec/unit_executor.hpp"

namespace codesim::app {
namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

/// One replica of one configuration.
struct Sample {
  double value = 0.0;  ///< objective per useful iteration; infinite when it did not complete
  double silent = 0.0;
  double operations = 0.0;
};

/// One document whose sweep zips what differs between the configurations.
Json sweep_document(const std::vector<Json>& documents, const std::vector<std::string>& labels,
                    int replicas) {
  Json document = documents.front();
  document["replicas"] = replicas;
  document.erase("label");
  Json zip = Json::object();
  zip["/label"] = labels;
  for (const char* pointer :
       {"/strategy", "/checkpoint", "/workload/decentralized", "/workload/time_limit_s"}) {
    Json values = Json::array();
    const Json::json_pointer at(pointer);
    for (const Json& d : documents) values.push_back(d.at(at));
    zip[pointer] = std::move(values);
  }
  document["sweep"] = {{"zip", Json::array({zip})}};
  return document;
}

double mean_of(const std::vector<Sample>& samples) {
  double sum = 0.0;
  for (const Sample& s : samples) sum += s.value;
  return samples.empty() ? kInfinity : sum / double(samples.size());
}

double silent_of(const std::vector<Sample>& samples) {
  double sum = 0.0;
  for (const Sample& s : samples) sum += s.silent;
  return sum;
}

/// Paired differences a - b over their common replicas (both complete there).
struct Paired {
  double mean = 0.0;
  double ci95 = 0.0;
  bool identical = true;      ///< every difference exactly 0
  bool a_incomplete = false;  ///< a did not complete a replica that b completed
};

Paired paired(const std::vector<Sample>& a, const std::vector<Sample>& b) {
  Paired result;
  std::vector<double> differences;
  const std::size_t n = std::min(a.size(), b.size());
  for (std::size_t r = 0; r < n; ++r) {
    if (std::isinf(a[r].value) && std::isinf(b[r].value)) continue;
    if (std::isinf(a[r].value)) {
      result.a_incomplete = true;
      continue;
    }
    differences.push_back(a[r].value - b[r].value);
    result.identical = result.identical && differences.back() == 0.0;
  }
  const analysis::SummaryStatistics stats = analysis::summarize(differences);
  result.mean = differences.empty() ? 0.0 : stats.mean;
  result.ci95 = stats.ci95;
  return result;
}

/// Best first: no silent corruption, then the lower mean, then the earlier configuration.
std::vector<std::size_t> best_first(const std::vector<std::vector<Sample>>& samples,
                                    const std::vector<std::size_t>& candidates) {
  std::vector<std::size_t> order = candidates;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    const bool unsafe_a = silent_of(samples[a]) > 0.0;
    const bool unsafe_b = silent_of(samples[b]) > 0.0;
    if (unsafe_a != unsafe_b) return unsafe_b;
    return mean_of(samples[a]) < mean_of(samples[b]);
  });
  return order;
}

/// Why configuration `p` needs no more replicas against `best`, or "" when it still does.
std::string settled(const std::vector<Sample>& p, const std::vector<Sample>& best) {
  if (silent_of(p) > 0.0) return "corrupted silently in simulation";
  const Paired d = paired(p, best);
  if (d.a_incomplete) return "did not complete a replica that the best completed";
  if (d.identical) return "ties the best on every replica";
  if (d.mean - d.ci95 > 0.0) {
    return "worse than the best by " + number_text(d.mean) + " +- " + number_text(d.ci95) +
           " (paired 95%)";
  }
  return "";
}

}  // namespace

namespace {

double mean_operations(const std::vector<Sample>& samples) {
  double sum = 0.0;
  for (const Sample& s : samples) sum += s.operations;
  return samples.empty() ? 0.0 : sum / double(samples.size());
}

/// The units that bring every active configuration to `target` replicas, and the budget they
/// are expected to take (0 for configurations not run yet).
PreparedRun next_round(const PreparedRun& prepared, const std::vector<std::size_t>& active,
                       const std::vector<std::vector<Sample>>& samples, int target,
                       double& expected_s) {
  PreparedRun round{prepared.inputs, {}};
  for (PointInputs& inputs : round.inputs) inputs.replicas.clear();
  expected_s = 0.0;
  for (std::size_t p : active) {
    for (int r = static_cast<int>(samples[p].size()); r < target; ++r) {
      round.inputs[p].replicas.push_back(static_cast<std::uint64_t>(r));
      round.units.push_back({p, static_cast<std::uint64_t>(r)});
      expected_s += mean_operations(samples[p]) * kSecondsPerNodeOperation;
    }
  }
  return round;
}

/// Appends each active configuration's replicas of `results` to its samples; returns the budget
/// they took.
double collect(const Json& results, const std::vector<Json>& documents,
               const std::vector<std::size_t>& active, AdviseObjective objective,
               std::vector<std::vector<Sample>>& samples) {
  double used_s = 0.0;
  for (std::size_t p : active) {
    const double iterations = documents[p]["workload"]["iterations"].get<double>();
    for (const Json& replica : results["points"][p]["replicas"]) {
      const bool complete = replica.value("completed", 0.0) > 0.0;
      const double total = objective == AdviseObjective::time
                               ? replica.value("completion_time_s", 0.0)
                               : replica.value("energy_J", 0.0);
      const double operations = replica.value("node_operations", 0.0);
      samples[p].push_back({complete ? total / iterations : kInfinity,
                            replica.value("silent_corruptions", 0.0), operations});
      used_s += operations * kSecondsPerNodeOperation;
    }
  }
  return used_s;
}

/// The active configurations not yet settled against the best (which stays); `costs` get the
/// reasons of the others.
std::vector<std::size_t> unsettled(const std::vector<std::size_t>& active,
                                   const std::vector<std::vector<Sample>>& samples,
                                   std::vector<SimulatedCost>& costs, std::size_t best) {
  std::vector<std::size_t> still;
  for (std::size_t p : active) {
    std::string why;
    if (p != best) {
      why = std::isinf(mean_of(samples[best]))
                ? "no configuration completed every replica within its time limit"
                : settled(samples[p], samples[best]);
    }
    if (why.empty()) {
      still.push_back(p);
    } else {
      costs[p].stopped = why;
    }
  }
  return still;
}

/// Each configuration's cost, and its paired difference to `best`.
void summarize_costs(const std::vector<std::vector<Sample>>& samples, std::size_t best,
                     std::vector<SimulatedCost>& costs) {
  for (std::size_t p = 0; p < samples.size(); ++p) {
    SimulatedCost& cost = costs[p];
    std::vector<double> values;
    for (const Sample& s : samples[p]) values.push_back(s.value);
    const analysis::SummaryStatistics stats = analysis::summarize(values);
    cost.replicas = static_cast<int>(values.size());
    cost.mean = stats.mean;
    cost.ci95 = stats.ci95;
    cost.silent_corruptions = silent_of(samples[p]);
    cost.incomplete = static_cast<int>(
        std::count_if(values.begin(), values.end(), [](double v) { return std::isinf(v); }));
    const Paired d = paired(samples[p], samples[best]);
    cost.difference = d.mean;
    cost.difference_ci95 = d.ci95;
    if (p == best) cost.stopped = "the best";
  }
}

}  // namespace

Ranking rank_by_simulation(const std::vector<Json>& documents,
                           const std::vector<std::string>& labels, const std::string& file,
                           const RankingOptions& options) {
  const std::size_t n = documents.size();
  const Experiment experiment =
      make_experiment(sweep_document(documents, labels, options.max_replicas), file);
  const std::unique_ptr<UnitExecutor> executor = make_local_executor();
  const PreparedRun prepared = prepare_run(experiment, *executor);
  std::vector<std::vector<Sample>> samples(n);
  std::vector<std::size_t> active(n);
  std::iota(active.begin(), active.end(), std::size_t{0});
  Ranking ranking;
  ranking.costs.resize(n);
  int target = std::min(options.first_replicas, options.max_replicas);
  while (true) {
    double expected_s = 0.0;
    const PreparedRun round = next_round(prepared, active, samples, target, expected_s);
    // The first round always runs: nothing is known of a configuration's cost before it.
    if (ranking.rounds > 0 && ranking.budget_used_s + expected_s > options.budget_s) {
      ranking.budget_exhausted = true;
      for (std::size_t p : active) ranking.costs[p].stopped = "the budget ran out";
      break;
    }
    const RunOutput output =
        run_prepared(experiment, round, {.jobs = options.jobs, .on_progress = options.on_progress});
    if (!output.results.value("complete", false))
      throw std::runtime_error("the simulation was interrupted");
    ++ranking.rounds;
    ranking.budget_used_s += collect(output.results, documents, active, options.objective, samples);
    const std::size_t best = best_first(samples, active).front();
    active = unsettled(active, samples, ranking.costs, best);
    if (active.size() <= 1) break;
    if (target >= options.max_replicas) {
      for (std::size_t p : active)
        if (p != best) ranking.costs[p].stopped = "not settled at the replica cap";
      break;
    }
    target = std::min(options.max_replicas, target * 2);
  }
  std::vector<std::size_t> all(n);
  std::iota(all.begin(), all.end(), std::size_t{0});
  ranking.order = best_first(samples, all);
  summarize_costs(samples, ranking.order.front(), ranking.costs);
  return ranking;
}

}  // namespace codesim::app
