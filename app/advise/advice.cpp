// codesim advise (advice.hpp).
#include "app/advise/advice.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <ostream>

#include "analysis/results_json.hpp"
#include "app/config/scenario_error.hpp"
#include "models/nn/layer_steps.hpp"

namespace codesim::app {
namespace {

using analysis::finite_or_null;

constexpr double kInfinity = std::numeric_limits<double>::infinity();
/// Stage 2 gives a configuration this many times the larger of the best pessimistic bound (stage
/// 1's threshold) and its own optimistic bound of simulated time before it counts as not
/// completing.
constexpr double kTimeLimitFactor = 4.0;

const TrainingWorkload& training_scenario(const Experiment& experiment) {
  if (experiment.points.size() != 1) {
    throw ScenarioError(experiment.file, "/sweep",
                        "advise compares strategies for one configuration of the cluster "
                        "(expected one sweep point)");
  }
  const Scenario& scenario = experiment.points.front().scenario;
  const TrainingWorkload* training = training_of(scenario.workload);
  if (training == nullptr) {
    throw ScenarioError(experiment.file, "/workload/kind",
                        "advise chooses a coding strategy for training (expected workload kind "
                        "\"training\")");
  }
  return *training;
}

/// The resolved scenario in stochastic mode, checked as such: what the mode does not model is an
/// error at its key.
Json stochastic_document(const Experiment& experiment) {
  Json document = experiment.points.front().scenario.resolved;
  document["workload"]["mode"] = "stochastic";
  make_experiment(document, experiment.file);
  return document;
}

/// Stage 1's verdicts; returns the indices of the configurations that go on to stage 2.
std::vector<std::size_t> prune(Advice& advice, const BoundedSpace& space,
                               AdviseObjective objective) {
  double best = kInfinity;
  double best_time_s = kInfinity;
  std::string best_label;
  for (std::size_t i = 0; i < space.bounds.size(); ++i) {
    const auto& bound = space.bounds[i];
    if (!bound || bound->unsafe() || !bound->pessimistic) continue;
    if (bound->pessimistic->of(objective) < best) {
      best = bound->pessimistic->of(objective);
      best_time_s = bound->pessimistic->time_s;
      best_label = advice.configurations[i].label;
    }
  }
  advice.best_pessimistic = best;
  advice.best_pessimistic_label = best_label;
  advice.best_pessimistic_time_s = best_time_s;
  std::vector<std::size_t> survivors;
  for (std::size_t i = 0; i < space.bounds.size(); ++i) {
    AdvisedConfiguration& c = advice.configurations[i];
    const auto& bound = space.bounds[i];
    if (!bound) {
      c.stage = AdviseStage::excluded;
      c.reason = space.excluded[i];
    } else if (c.configuration.baseline) {
      survivors.push_back(i);
    } else if (bound->unsafe()) {
      c.reason = "corrupts silently: the closed forms give " +
                 number_text(bound->silent_run_probability) +
                 " probability of a silent corruption in the run";
    } else if (bound->optimistic.of(objective) > best) {
      c.reason = "optimistic bound above the best pessimistic bound";
    } else {
      survivors.push_back(i);
    }
  }
  return survivors;
}

/// The columns of ADVICE.json's configuration table.
const std::vector<std::string>& configuration_columns() {
  static const std::vector<std::string> columns = {"label",
                                                   "strategy",
                                                   "checkpoint",
                                                   "checkpoint_factor",
                                                   "decentralized",
                                                   "baseline",
                                                   "nodes",
                                                   "storage_fraction_per_node",
                                                   "optimistic_time_s",
                                                   "optimistic_energy_J",
                                                   "estimate_time_s",
                                                   "estimate_energy_J",
                                                   "pessimistic_time_s",
                                                   "pessimistic_energy_J",
                                                   "rollback_probability",
                                                   "silent_run_probability",
                                                   "interval_iterations",
                                                   "mtbf_s",
                                                   "stage",
                                                   "reason",
                                                   "rank",
                                                   "simulated",
                                                   "confirmed"};
  return columns;
}

Json simulated_json(const SimulatedCost& s) {
  return {{"replicas", s.replicas},
          {"mean", finite_or_null(s.mean)},
          {"ci95", finite_or_null(s.ci95)},
          {"time_s", finite_or_null(s.both.time_s)},
          {"energy_J", finite_or_null(s.both.energy_J)},
          {"difference_to_best", finite_or_null(s.difference)},
          {"difference_ci95", finite_or_null(s.difference_ci95)},
          {"silent_corruptions", s.silent_corruptions},
          {"incomplete", s.incomplete}};
}

Json confirmed_json(const Confirmation& c) {
  return {{"replicas", c.replicas},
          {"accuracy", finite_or_null(c.accuracy)},
          {"accuracy_ci95", finite_or_null(c.accuracy_ci95)},
          {"silent_corruptions", c.silent_corruptions},
          {"decode_failures", c.decode_failures},
          {"rollbacks", c.rollbacks},
          {"time_to_accuracy_s", finite_or_null(c.time_to_accuracy_s)},
          {"demoted", c.demoted},
          {"verdict", c.verdict}};
}

/// One row of the table, in configuration_columns' order.
Json configuration_row(const AdvisedConfiguration& c) {
  const Configuration& k = c.configuration;
  Json row = {c.label,
              strategy_json(k.scheme),
              kCheckpointChoiceNames[static_cast<std::size_t>(k.checkpoint.kind)],
              k.checkpoint.factor,
              k.decentralized,
              k.baseline};
  if (c.bound) {
    const ConfigurationBound& b = *c.bound;
    const Json worst_time = b.pessimistic ? finite_or_null(b.pessimistic->time_s) : Json(nullptr);
    const Json worst_energy =
        b.pessimistic ? finite_or_null(b.pessimistic->energy_J) : Json(nullptr);
    for (Json value :
         {Json(b.nodes), Json(b.storage_fraction_per_node), finite_or_null(b.optimistic.time_s),
          finite_or_null(b.optimistic.energy_J), finite_or_null(b.estimate.time_s),
          finite_or_null(b.estimate.energy_J), worst_time, worst_energy,
          finite_or_null(b.rollback_probability), finite_or_null(b.silent_run_probability),
          Json(b.interval_iterations), finite_or_null(b.mtbf_s)})
      row.push_back(std::move(value));
  } else {
    for (int i = 0; i < 12; ++i) row.push_back(nullptr);
  }
  row.push_back(kAdviseStageNames[static_cast<std::size_t>(c.stage)]);
  row.push_back(c.reason.empty() && c.bound && !c.bound->pessimistic ? c.bound->unbounded_reason
                                                                     : c.reason);
  row.push_back(c.rank);
  row.push_back(c.simulated ? simulated_json(*c.simulated) : Json(nullptr));
  row.push_back(c.confirmed ? confirmed_json(*c.confirmed) : Json(nullptr));
  return row;
}

/// A configuration as an object (the recommendation).
Json configuration_json(const AdvisedConfiguration& c) {
  const Json row = configuration_row(c);
  Json j = Json::object();
  for (std::size_t i = 0; i < row.size(); ++i) j[configuration_columns()[i]] = row[i];
  return j;
}

/// The ranked configurations, best first.
std::vector<std::size_t> ranked_indices(const Advice& advice) {
  std::vector<std::size_t> ranked;
  for (std::size_t i = 0; i < advice.configurations.size(); ++i)
    if (advice.configurations[i].rank > 0) ranked.push_back(i);
  std::sort(ranked.begin(), ranked.end(), [&](std::size_t a, std::size_t b) {
    return advice.configurations[a].rank < advice.configurations[b].rank;
  });
  return ranked;
}

/// Stage 3: trains the `options.confirm` best in numeric mode beside an error-free reference.
/// The confirmed come first (by time to accuracy when that is the objective), then the others
/// as stage 2 ranked them, and the demoted last.
void confirm_leaders(Advice& advice, const ReferenceAccuracy& reference, const std::string& file,
                     const AdviseOptions& options) {
  const std::vector<std::size_t> ranked = ranked_indices(advice);
  const std::size_t k =
      std::min<std::size_t>(static_cast<std::size_t>(options.confirm), ranked.size());
  std::vector<Json> documents;
  for (std::size_t j = 0; j < k; ++j) {
    const AdvisedConfiguration& c = advice.configurations[ranked[j]];
    Json document = configuration_document(advice.scenario, c.configuration, *c.bound);
    document["workload"]["mode"] = advice.scenario["workload"]["mode"];
    documents.push_back(std::move(document));
  }
  ConfirmationRun run = confirm_by_training(documents, reference, file, options.ranking.jobs,
                                            options.target_accuracy);
  std::vector<std::size_t> kept, demoted;
  for (std::size_t j = 0; j < k; ++j) {
    AdvisedConfiguration& c = advice.configurations[ranked[j]];
    c.confirmed = run.confirmations[j];
    c.stage = AdviseStage::confirmation;
    (c.confirmed->demoted ? demoted : kept).push_back(ranked[j]);
  }
  if (options.objective == AdviseObjective::time_to_accuracy) {
    std::stable_sort(kept.begin(), kept.end(), [&](std::size_t a, std::size_t b) {
      return advice.configurations[a].confirmed->time_to_accuracy_s <
             advice.configurations[b].confirmed->time_to_accuracy_s;
    });
  }
  std::vector<std::size_t> order = kept;
  order.insert(order.end(), ranked.begin() + static_cast<std::ptrdiff_t>(k), ranked.end());
  order.insert(order.end(), demoted.begin(), demoted.end());
  for (std::size_t r = 0; r < order.size(); ++r)
    advice.configurations[order[r]].rank = static_cast<int>(r + 1);
  advice.recommended = order.front();
  run.confirmations.clear();
  advice.confirmation = std::move(run);
}

/// Stage 2 on `survivors`, the baseline first and then by their estimates (the budget may run
/// out before the last are simulated: they stay at stage 1).
void simulate_survivors(Advice& advice, std::vector<std::size_t> survivors, const Json& base,
                        int iterations, const std::string& file, const AdviseOptions& options) {
  std::stable_sort(survivors.begin(), survivors.end(), [&](std::size_t a, std::size_t b) {
    const AdvisedConfiguration& x = advice.configurations[a];
    const AdvisedConfiguration& y = advice.configurations[b];
    if (x.configuration.baseline != y.configuration.baseline) return x.configuration.baseline;
    return x.bound->estimate.of(options.objective) < y.bound->estimate.of(options.objective);
  });
  std::vector<Json> documents;
  std::vector<std::string> labels;
  for (std::size_t i : survivors) {
    const AdvisedConfiguration& c = advice.configurations[i];
    Json document = configuration_document(base, c.configuration, *c.bound);
    const double own_limit = document["workload"]["time_limit_s"].get<double>();
    // A run past this many times both the best pessimistic bound and its own optimistic one
    // could not have won; cutting it there bounds what a rollback storm costs to simulate.
    const double limit = kTimeLimitFactor *
                         std::max(advice.best_pessimistic_time_s, c.bound->optimistic.time_s) *
                         iterations;
    document["workload"]["time_limit_s"] = std::min(own_limit, limit);
    documents.push_back(std::move(document));
    labels.push_back(c.label);
  }
  RankingOptions ranking_options = options.ranking;
  ranking_options.objective = options.objective;
  const Ranking ranking = rank_by_simulation(documents, labels, file, ranking_options);
  for (std::size_t k = 0; k < survivors.size(); ++k) {
    AdvisedConfiguration& c = advice.configurations[survivors[k]];
    c.reason = ranking.costs[k].stopped;
    if (ranking.costs[k].replicas == 0) continue;  // the budget ran out first
    c.stage = AdviseStage::simulation;
    c.simulated = ranking.costs[k];
  }
  for (std::size_t r = 0; r < ranking.order.size(); ++r)
    advice.configurations[survivors[ranking.order[r]]].rank = static_cast<int>(r + 1);
  advice.recommended = survivors[ranking.order.front()];
  advice.simulated_best = advice.recommended;
  advice.rounds = ranking.rounds;
  advice.budget_used_s = ranking.budget_used_s;
  advice.budget_exhausted = ranking.budget_exhausted;
  advice.interrupted = ranking.interrupted;
}

/// Stage 3 trains in numeric mode, and time to accuracy needs accuracy: neither on a scenario
/// whose mode is stochastic.
void check_confirmable(const Experiment& experiment, const TrainingWorkload& training,
                       const AdviseOptions& options) {
  if (training.spec.mode != models::TrainingMode::stochastic) return;
  if (options.objective == AdviseObjective::time_to_accuracy) {
    throw ScenarioError(experiment.file, "/workload/mode",
                        "the objective time_to_accuracy needs test accuracy, which the "
                        "stochastic mode does not compute (expected mode \"numeric\")");
  }
  if (options.confirm > 0) {
    throw ScenarioError(experiment.file, "/workload/mode",
                        "--confirm trains in numeric mode: the scenario's mode is stochastic "
                        "(expected mode \"numeric\")");
  }
}

void print_confirmation(const Advice& advice, std::ostream& out) {
  out << "numeric training (error-free reference accuracy "
      << number_text(advice.confirmation->reference_accuracy) << ", target "
      << number_text(advice.confirmation->target_accuracy) << "):\n";
  for (std::size_t i : ranked_indices(advice)) {
    const AdvisedConfiguration& c = advice.configurations[i];
    if (!c.confirmed) continue;
    const Confirmation& k = *c.confirmed;
    out << "  " << c.rank << "  " << c.label << ": accuracy " << number_text(k.accuracy) << " +- "
        << number_text(k.accuracy_ci95) << ", " << number_text(k.silent_corruptions)
        << " silent corruptions, " << number_text(k.decode_failures) << " decode failures, "
        << number_text(k.rollbacks) << " rollbacks, time to accuracy "
        << number_text(k.time_to_accuracy_s) << " s: " << k.verdict << "\n";
  }
}

}  // namespace

Advice advise(const Experiment& experiment, const AdviseOptions& options) {
  const TrainingWorkload& training = training_scenario(experiment);
  check_confirmable(experiment, training, options);
  // Stage 3's reference first: its data must load before anything else runs.
  const Json& resolved = experiment.points.front().scenario.resolved;
  const ReferenceAccuracy reference =
      options.confirm > 0
          ? reference_accuracy(reference_document(resolved), experiment.file, options.ranking.jobs)
          : ReferenceAccuracy{};
  const Json base = stochastic_document(experiment);
  const Scenario& scenario = experiment.points.front().scenario;
  Advice advice;
  advice.scenario = scenario.resolved;
  advice.seed = scenario.seed;
  advice.objective = options.objective;
  advice.budget_s = options.ranking.budget_s;
  const std::vector<models::SchemeSpec> schemes =
      enumerate_schemes(models::weight_shapes(training.spec), scenario.cluster.node_count());
  const BoundedSpace space =
      bound_space(scenario, schemes, checkpoint_choices(scenario.checkpoint), options.probes.get());
  for (std::size_t i = 0; i < space.configurations.size(); ++i) {
    AdvisedConfiguration c;
    c.configuration = space.configurations[i];
    c.label =
        configuration_label(c.configuration) + (c.configuration.baseline ? " (baseline)" : "");
    c.bound = space.bounds[i];
    advice.configurations.push_back(std::move(c));
  }
  std::vector<std::size_t> survivors = prune(advice, space, options.objective);
  if (!options.prune) {  // every configuration that runs goes on, whatever its bounds said
    survivors.clear();
    for (std::size_t i = 0; i < space.configurations.size(); ++i) {
      if (!space.bounds[i]) continue;
      advice.configurations[i].reason.clear();
      survivors.push_back(i);
    }
  }
  simulate_survivors(advice, std::move(survivors), base, training.spec.iterations, experiment.file,
                     options);
  if (options.confirm > 0 && !advice.interrupted) {
    // On a copy: an interrupted confirmation leaves stage 2's advice as it was.
    Advice confirmed = advice;
    try {
      confirm_leaders(confirmed, reference, experiment.file, options);
      advice = std::move(confirmed);
    } catch (const AdviseInterrupted&) {
      advice.interrupted = true;
    }
  }
  return advice;
}

VersusBaseline versus_baseline(const Advice& advice) {
  const SimulatedCost& baseline = *advice.configurations.front().simulated;
  if (advice.recommended == advice.simulated_best)
    return {-baseline.difference, baseline.difference_ci95, true};
  const SimulatedCost& best = *advice.configurations[advice.recommended].simulated;
  return {best.mean - baseline.mean, std::numeric_limits<double>::quiet_NaN(), false};
}

Json advice_header(std::string_view kind, const Json& scenario, std::uint64_t seed,
                   AdviseObjective objective, double budget_s) {
  Json j = Json::object();
  j["schema_version"] = 1;
  j["kind"] = kind;
  j["codesim_version"] = codesim_version();
  j["scenario"] = scenario;
  j["seed"] = seed;
  j["objective"] = kAdviseObjectiveNames[static_cast<std::size_t>(objective)];
  j["unit"] =
      objective != AdviseObjective::energy ? "s per useful iteration" : "J per useful iteration";
  j["budget_s"] = budget_s;
  return j;
}

Json to_json(const Advice& advice) {
  Json j = advice_header("advice", advice.scenario, advice.seed, advice.objective, advice.budget_s);
  j["complete"] = !advice.interrupted;
  j["budget_used_s"] = advice.budget_used_s;
  j["budget_exhausted"] = advice.budget_exhausted;
  j["rounds"] = advice.rounds;
  Json counts = {{"configurations", advice.configurations.size()}};
  std::array<std::size_t, kAdviseStageNames.size()> stages{};
  for (const AdvisedConfiguration& c : advice.configurations)
    ++stages[static_cast<std::size_t>(c.stage)];
  for (std::size_t s = 0; s < stages.size(); ++s)
    counts[std::string(kAdviseStageNames[s])] = stages[s];
  j["counts"] = counts;
  const AdvisedConfiguration& best = advice.configurations[advice.recommended];
  Json recommendation = configuration_json(best);
  // What to put in the scenario to run it (its checkpoint with the MTBF young and daly need).
  const Json document = configuration_document(advice.scenario, best.configuration, *best.bound);
  recommendation["scenario_sections"] = {
      {"strategy", document["strategy"]},
      {"checkpoint", document["checkpoint"]},
      {"workload", {{"decentralized", best.configuration.decentralized}}}};
  const VersusBaseline versus = versus_baseline(advice);
  recommendation["versus_baseline"] = {{"difference", finite_or_null(versus.difference)},
                                       {"ci95", finite_or_null(versus.ci95)},
                                       {"paired", versus.paired}};
  j["recommendation"] = recommendation;
  if (advice.confirmation) {
    j["confirmation"] = {
        {"reference_accuracy", finite_or_null(advice.confirmation->reference_accuracy)},
        {"target_accuracy", finite_or_null(advice.confirmation->target_accuracy)},
        {"accuracy_tolerance", kAccuracyTolerance}};
  } else {
    j["confirmation"] = nullptr;
  }
  j["best_pessimistic"] = {{"value", finite_or_null(advice.best_pessimistic)},
                           {"label", advice.best_pessimistic_label}};
  Json rows = Json::array();
  for (const AdvisedConfiguration& c : advice.configurations) rows.push_back(configuration_row(c));
  j["configurations"] = {{"columns", configuration_columns()}, {"rows", std::move(rows)}};
  return j;
}

void print_table(const Advice& advice, std::ostream& out, std::size_t rows) {
  std::vector<const AdvisedConfiguration*> ranked;
  for (const AdvisedConfiguration& c : advice.configurations)
    if (c.rank > 0) ranked.push_back(&c);
  std::sort(ranked.begin(), ranked.end(),
            [](const auto* a, const auto* b) { return a->rank < b->rank; });
  const char* unit = advice.objective != AdviseObjective::energy ? "s/it" : "J/it";
  char line[512];
  std::snprintf(line, sizeof line, "%4s  %-70s %5s  %-22s %-22s %4s\n", "rank", "configuration",
                "nodes", (std::string("cost (") + unit + ", 95%)").c_str(), "vs best (paired)",
                "reps");
  out << line;
  for (const AdvisedConfiguration* c : ranked) {
    if (static_cast<std::size_t>(c->rank) > rows && !c->configuration.baseline) continue;
    const SimulatedCost& s = *c->simulated;
    const bool complete = std::isfinite(s.mean);
    std::snprintf(
        line, sizeof line, "%4d  %-70s %5d  %-22s %-22s %4d\n", c->rank, c->label.c_str(),
        c->bound ? c->bound->nodes : 0,
        complete ? (number_text(s.mean) + " +- " + number_text(s.ci95)).c_str()
                 : "did not complete",
        complete ? (number_text(s.difference) + " +- " + number_text(s.difference_ci95)).c_str()
                 : "-",
        s.replicas);
    out << line;
  }
  std::array<std::size_t, kAdviseStageNames.size()> counts{};
  for (const AdvisedConfiguration& c : advice.configurations)
    ++counts[static_cast<std::size_t>(c.stage)];
  out << advice.configurations.size() << " configurations: " << counts[0] << " excluded, "
      << counts[1] << " stopped at their bounds, " << counts[2] + counts[3] << " simulated in "
      << advice.rounds << " rounds (" << number_text(advice.budget_used_s) << " s of the "
      << number_text(advice.budget_s) << " s budget"
      << (advice.budget_exhausted ? ", exhausted" : "") << ")\n";
  if (advice.confirmation) print_confirmation(advice, out);
  out << "recommended: " << advice.configurations[advice.recommended].label << "\n";
}

}  // namespace codesim::app
