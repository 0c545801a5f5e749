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
/// Configurations per sweep run: the first round stops between them when the budget runs out.
constexpr std::size_t kChunkConfigurations = 64;

/// One replica of one configuration.
struct Sample {
  double value = 0.0;  ///< objective per useful iteration; infinite when it did not complete
  IterationCost cost;  ///< both per useful iteration (infinite when it did not complete)
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

/// Appends each active configuration's replicas of `results` to its samples; returns the budget
/// they took.
double collect(const Json& results, const std::vector<Json>& documents, std::size_t first,
               const std::vector<std::size_t>& points, AdviseObjective objective,
               std::vector<std::vector<Sample>>& samples) {
  double used_s = 0.0;
  for (std::size_t q : points) {
    const std::size_t p = first + q;
    const double iterations = documents[p]["workload"]["iterations"].get<double>();
    for (const Json& replica : results["points"][q]["replicas"]) {
      const bool complete = replica.value("completed", 0.0) > 0.0;
      const IterationCost cost =
          complete ? IterationCost{replica.value("completion_time_s", 0.0) / iterations,
                                   replica.value("energy_J", 0.0) / iterations}
                   : IterationCost{kInfinity, kInfinity};
      const double operations = replica.value("node_operations", 0.0);
      samples[p].push_back(
          {cost.of(objective), cost, replica.value("silent_corruptions", 0.0), operations});
      used_s += operations * kSecondsPerNodeOperation;
    }
  }
  return used_s;
}

/// Configurations run as sweeps of at most kChunkConfigurations points, in the order given.
struct Chunk {
  std::size_t first = 0;  ///< its first configuration
  std::size_t size = 0;
  Experiment experiment;
  PreparedRun prepared;
};

std::vector<Chunk> make_chunks(const std::vector<Json>& documents,
                               const std::vector<std::string>& labels, const std::string& file,
                               int replicas) {
  std::vector<Chunk> chunks;
  const std::unique_ptr<UnitExecutor> executor = make_local_executor();
  for (std::size_t first = 0; first < documents.size(); first += kChunkConfigurations) {
    Chunk chunk;
    chunk.first = first;
    chunk.size = std::min(kChunkConfigurations, documents.size() - first);
    const auto begin = static_cast<std::ptrdiff_t>(first);
    const auto end = static_cast<std::ptrdiff_t>(first + chunk.size);
    chunk.experiment =
        make_experiment(sweep_document({documents.begin() + begin, documents.begin() + end},
                                       {labels.begin() + begin, labels.begin() + end}, replicas),
                        file);
    chunk.prepared = prepare_run(chunk.experiment, *executor);
    chunks.push_back(std::move(chunk));
  }
  return chunks;
}

/// Brings each of `members` to `target` replicas (chunk by chunk); returns the budget it took,
/// or nullopt when a stop request interrupted it (the chunks that finished keep their samples).
std::optional<double> run_round(const std::vector<Chunk>& chunks,
                                const std::vector<std::size_t>& members,
                                const std::vector<Json>& documents, int target,
                                const RankingOptions& options,
                                std::vector<std::vector<Sample>>& samples) {
  double used_s = 0.0;
  for (const Chunk& chunk : chunks) {
    std::vector<std::size_t> points;  // within the chunk
    for (std::size_t p : members)
      if (p >= chunk.first && p < chunk.first + chunk.size) points.push_back(p - chunk.first);
    if (points.empty()) continue;
    PreparedRun round{chunk.prepared.inputs, {}};
    for (PointInputs& inputs : round.inputs) inputs.replicas.clear();
    for (std::size_t q : points) {
      for (auto r = samples[chunk.first + q].size(); r < static_cast<std::size_t>(target); ++r) {
        round.inputs[q].replicas.push_back(r);
        round.units.push_back({q, r});
      }
    }
    if (round.units.empty()) continue;
    RunOptions run;
    run.jobs = options.jobs;
    run.on_progress = options.on_progress;
    const RunOutput output = run_prepared(chunk.experiment, round, run);
    if (!output.results.value("complete", false)) return std::nullopt;
    used_s += collect(output.results, documents, chunk.first, points, options.objective, samples);
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
    IterationCost sum;
    for (const Sample& s : samples[p]) {
      values.push_back(s.value);
      sum.time_s += s.cost.time_s;
      sum.energy_J += s.cost.energy_J;
    }
    const analysis::SummaryStatistics stats = analysis::summarize(values);
    cost.replicas = static_cast<int>(values.size());
    cost.mean = stats.mean;
    cost.both = {sum.time_s / double(values.size()), sum.energy_J / double(values.size())};
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
  const std::vector<Chunk> chunks = make_chunks(documents, labels, file, options.max_replicas);
  std::vector<std::vector<Sample>> samples(n);
  Ranking ranking;
  ranking.costs.resize(n);
  const int first = std::min(options.first_replicas, options.max_replicas);
  // The first round, chunk by chunk in the order given: the first chunk always runs (nothing is
  // known of a configuration's cost before it); the others while the budget lasts.
  std::vector<std::size_t> active;
  for (std::size_t c = 0; c < chunks.size(); ++c) {
    if (c > 0 && ranking.budget_used_s >= options.budget_s) {
      ranking.budget_exhausted = true;
      break;
    }
    std::vector<std::size_t> members(chunks[c].size);
    std::iota(members.begin(), members.end(), chunks[c].first);
    const std::optional<double> used =
        run_round(chunks, members, documents, first, options, samples);
    if (!used) {
      if (c == 0) throw AdviseInterrupted();
      ranking.interrupted = true;
      break;
    }
    ranking.budget_used_s += *used;
    active.insert(active.end(), members.begin(), members.end());
  }
  ranking.rounds = 1;
  for (int target = first; active.size() > 1 && !ranking.interrupted;) {
    const std::size_t best = best_first(samples, active).front();
    active = unsettled(active, samples, ranking.costs, best);
    if (active.size() <= 1) break;
    if (target >= options.max_replicas) {
      for (std::size_t p : active)
        if (p != best) ranking.costs[p].stopped = "not settled at the replica cap";
      break;
    }
    target = std::min(options.max_replicas, target * 2);
    double expected_s = 0.0;
    for (std::size_t p : active)
      expected_s += (target - double(samples[p].size())) * mean_operations(samples[p]) *
                    kSecondsPerNodeOperation;
    if (ranking.budget_used_s + expected_s > options.budget_s) {
      ranking.budget_exhausted = true;
      for (std::size_t p : active) ranking.costs[p].stopped = "the budget ran out";
      break;
    }
    // An interrupted round may have brought some configurations further than others: each
    // keeps the replicas it has (its cost is their mean), so the ranking stays paired on the
    // replicas they share.
    const std::optional<double> used =
        run_round(chunks, active, documents, target, options, samples);
    if (!used) {
      ranking.interrupted = true;
      for (std::size_t p : active) ranking.costs[p].stopped = "interrupted";
      break;
    }
    ranking.budget_used_s += *used;
    ++ranking.rounds;
  }
  std::vector<std::size_t> simulated;
  for (std::size_t p = 0; p < n; ++p) {
    if (samples[p].empty()) {
      ranking.costs[p].stopped = ranking.interrupted ? "interrupted before it was simulated"
                                                     : "the budget ran out before it was simulated";
    } else {
      simulated.push_back(p);
    }
  }
  ranking.order = best_first(samples, simulated);
  summarize_costs(samples, ranking.order.front(), ranking.costs);
  return ranking;
}

}  // namespace codesim::app
