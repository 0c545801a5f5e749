// Stage 1 of codesim advise (strategy_bounds.hpp).
#include "app/advise/strategy_bounds.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <mutex>
#include <set>
#include <variant>

#include "analysis/theory.hpp"
#include "app/exec/unit_executor.hpp"
#include "models/coding/coding_scheme.hpp"
#include "models/faults/fault_targets.hpp"
#include "models/theory/training_theory.hpp"
#include "models/training/train.hpp"
#include "sim/build_once_map.hpp"

namespace codesim::app {
namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();
constexpr int kProbeIterations = 2;
constexpr int kStragglerProbeIterations = 16;

using models::FaultTarget;
using models::TargetProbabilities;

/// One fault-free iteration and one checkpoint (verification pass and write) of a configuration.
struct Probe {
  IterationCost iteration;   ///< no stragglers
  IterationCost straggled;   ///< the cluster's stragglers (= iteration without them)
  IterationCost checkpoint;  ///< no stragglers
};

sim::ClusterSpec without_failures(sim::ClusterSpec cluster, bool keep_stragglers) {
  for (sim::CrashSpec& crash : cluster.crashes) crash = sim::CrashSpec{};
  cluster.shared_failures = {};
  if (!keep_stragglers)
    for (sim::StragglerSpec& law : cluster.stragglers) law = sim::StragglerSpec{};
  return cluster;
}

bool has_stragglers(const sim::ClusterSpec& cluster) {
  return std::any_of(
      cluster.stragglers.begin(), cluster.stragglers.end(),
      [](const sim::StragglerSpec& law) { return !std::holds_alternative<sim::NoStraggler>(law); });
}

IterationCost per_iteration(const sim::MetricSet& metrics, double count) {
  return {metrics.get("completion_time_s") / count, metrics.get("energy_J") / count};
}

/// The probes of `spec` (its scheme and decoding set), or why the stochastic mode cannot run it:
/// one fault-free run that checkpoints after every iteration, whose time breakdown separates the
/// iterations from the checkpoints (verification passes and writes).
std::variant<Probe, std::string> probe(const Scenario& scenario, models::TrainingSpec spec) {
  spec.mode = models::TrainingMode::stochastic;
  spec.time_limit_s = 1e12;
  const models::FaultConfig faults = models::fault_free_config();
  const sim::ClusterSpec steady = without_failures(scenario.cluster, false);
  spec.iterations = kProbeIterations;
  auto valid = models::check_stochastic_training(steady, spec, faults);
  if (const std::string* problem = std::get_if<std::string>(&valid)) return *problem;
  sim::CheckpointSpec checkpoint = scenario.checkpoint;
  checkpoint.policy = sim::CheckpointKind::every_iterations;
  checkpoint.every_iterations = 1;
  const sim::MetricSet run = models::run_stochastic_training(
      steady, checkpoint, std::get<models::ValidTraining>(valid), faults, scenario.seed, 0);
  const double checkpoints = std::max(1.0, run.get("checkpoints"));
  const IterationCost checkpointing{run.get("time_checkpoint_s"), run.get("energy_checkpoint_J")};
  Probe result;
  result.iteration = {(run.get("completion_time_s") - checkpointing.time_s) / kProbeIterations,
                      (run.get("energy_J") - checkpointing.energy_J) / kProbeIterations};
  result.checkpoint = {checkpointing.time_s / checkpoints, checkpointing.energy_J / checkpoints};
  result.straggled = result.iteration;
  if (has_stragglers(scenario.cluster)) {
    const sim::ClusterSpec slow = without_failures(scenario.cluster, true);
    spec.iterations = kStragglerProbeIterations;
    checkpoint.policy = sim::CheckpointKind::none;
    result.straggled = per_iteration(
        models::run_stochastic_training(slow, checkpoint, spec, faults, scenario.seed, 0),
        kStragglerProbeIterations);
  }
  return result;
}

/// What a probe depends on beyond its scheme and decoding: the resolved scenario without what a
/// fault-free probe does not see (its faults and crashes, its names).
std::string probe_context(const Scenario& scenario) {
  Json context = scenario.resolved;
  for (const char* key : {"name", "description", "label", "replicas", "faults", "sweep"})
    context.erase(key);
  if (context.contains("cluster")) context["cluster"].erase("crashes");
  return context.dump();
}

/// Crashes of the whole cluster: their rate, repair times, or why they cannot be bounded.
struct CrashRisk {
  double rate_per_s = 0.0;
  double mean_repair_s = 0.0;
  double max_repair_s = 0.0;
  std::string unbounded;
};

CrashRisk crash_risk(const sim::ClusterSpec& cluster) {
  CrashRisk risk;
  double weighted_repair = 0.0;
  const auto add = [&](const sim::FailureLaw& failure, const sim::RepairLaw& repair) {
    const double mean_up = sim::mean_s(failure);
    if (!std::isfinite(mean_up)) return;
    risk.rate_per_s += 1.0 / mean_up;
    weighted_repair += sim::mean_s(repair) / mean_up;
    risk.max_repair_s = std::max(risk.max_repair_s, sim::mean_s(repair));
  };
  for (const sim::CrashSpec& crash : cluster.crashes) add(crash.failure, crash.repair);
  for (const sim::FailureDomainSpec& domain : cluster.shared_failures.domains)
    add(domain.failure, domain.repair);
  if (risk.rate_per_s > 0.0) risk.mean_repair_s = weighted_repair / risk.rate_per_s;
  if (!cluster.shared_failures.trace.empty())
    risk.unbounded = "the availability trace's down times have no rate";
  if (cluster.shared_failures.links)
    risk.unbounded = "link failures cut off nodes the closed forms do not count";
  return risk;
}

/// Strike probabilities of one scheme's nodes: the mean of an operation on a stored block, and
/// the most (a whole layer's flops) over the nodes.
struct StrikeOdds {
  TargetProbabilities nominal{};
  TargetProbabilities most{};
};

StrikeOdds strike_odds(const models::FaultConfig& faults, int cluster_nodes, int scheme_nodes,
                       double block_flops, double layer_flops) {
  const std::vector<models::NodeFaultRates> rates =
      models::resolve_fault_rates(faults, cluster_nodes);
  StrikeOdds odds;
  for (std::size_t t = 0; t < models::kFaultTargetCount; ++t) {
    double sum = 0.0;
    double most = 0.0;
    for (int node = 0; node < scheme_nodes; ++node) {
      sum += models::strike_probability(rates[node][t], block_flops);
      most = std::max(most, models::strike_probability(rates[node][t], layer_flops));
    }
    odds.nominal[t] = sum / scheme_nodes;
    odds.most[t] = most;
  }
  return odds;
}

bool decode_strikes(const StrikeOdds& odds) {
  return odds.most[static_cast<std::size_t>(FaultTarget::decode)] > 0.0;
}

/// A steady and a first iteration's rollback odds and a steady one's corrected decodes at one
/// level of strike odds.
struct LevelOdds {
  TargetProbabilities eps{};
  double first = 0.0;
  double steady = 0.0;
  double corrected = 0.0;  ///< decodes corrected, and blocks corrected at their nodes
};

/// What the closed forms say of one scheme: rollback odds at the three levels, or nothing.
struct SchemeRisk {
  std::optional<models::TrainingTheory> theory;
  StrikeOdds odds;
  LevelOdds nominal, most;
  double decodes_per_iteration = 1.0;  ///< of a steady iteration
  double silent = 0.0;                 ///< a steady iteration's silent corruption, nominal odds
  std::string unbounded;               ///< why the worst case cannot be bounded ("" = it can)
  bool strikes = false;                ///< some target can strike
};

SchemeRisk scheme_risk(const Scenario& scenario, const TrainingWorkload& training,
                       const models::SchemeSpec& scheme, bool decentralized) {
  SchemeRisk risk;
  const models::TrainingSpec& spec = training.spec;
  const models::SchemeSummary summary = models::summarize_scheme(scheme);
  double largest_layer = 0.0;
  for (const models::WeightShape& w : models::weight_shapes(spec))
    largest_layer = std::max(largest_layer, double(w.rows) * w.cols * w.positions);
  const double layer_flops = 2.0 * spec.sgd.batch_size * largest_layer;
  risk.odds = strike_odds(training.faults, scenario.cluster.node_count(), summary.nodes,
                          layer_flops * summary.storage_fraction_per_node, layer_flops);
  for (double eps : risk.odds.most) risk.strikes = risk.strikes || eps > 0.0;
  if (spec.network) {
    risk.unbounded = "the closed forms describe MLPs, not workload.network";
  } else if (std::string problem = models::validate_training_theory(scheme, spec.mlp.layer_sizes);
             !problem.empty()) {
    risk.unbounded = "the closed forms do not apply: " + problem;
  } else {
    models::TrainingTheoryOptions options;
    options.error_model = spec.decode.error_model;
    options.weight_fault_model = training.faults[FaultTarget::weights].model;
    options.product_fault_model = training.faults[FaultTarget::product].model;
    options.update_fault_model = training.faults[FaultTarget::update].model;
    options.product_columns = spec.sgd.batch_size;
    options.decentralized = decentralized;
    options.first_layer_backward = spec.first_layer_backward;
    risk.theory.emplace(scheme, spec.mlp.layer_sizes, options);
  }
  if (risk.unbounded.empty() && !training.faults.rate_traces.empty())
    risk.unbounded = "faults.rate_trace multiplies the rates over time";
  if (risk.unbounded.empty() && spec.wait_for != models::WaitRule::all)
    risk.unbounded = "wait_for leaves out symbols the closed forms count";
  if (risk.theory) {
    const auto level = [&](const TargetProbabilities& odds) {
      LevelOdds l;
      l.eps = odds;
      l.first = risk.theory->first_rollback_probability(l.eps);
      l.steady = risk.theory->rollback_probability(l.eps);
      l.corrected = risk.theory->expected_corrected_decodes(l.eps) +
                    risk.theory->expected_local_corrections(l.eps);
      return l;
    };
    risk.decodes_per_iteration =
        std::max<double>(1.0, static_cast<double>(risk.theory->steady_decodes().size()));
    risk.nominal = level(risk.odds.nominal);
    risk.most = level(risk.odds.most);
    risk.silent = risk.theory->silent_corruption_probability(risk.nominal.eps);
  }
  return risk;
}

/// Rollback odds of a first iteration, a steady one and the verification pass (`verification`),
/// scaled, plus the crash odds of an iteration.
analysis::IntervalRisk interval_risk(const LevelOdds& odds, double verification, double scale,
                                     double crash) {
  const auto cap = [](double p) { return std::min(1.0, p); };
  return {cap(scale * odds.first + crash), cap(scale * odds.steady + crash),
          cap(scale * verification)};
}

struct Costs {
  IterationCost iteration;
  IterationCost checkpoint;
  double rollback_s = 0.0;
};

IterationCost interval_cost(const analysis::IntervalRisk& risk, int tau, const Costs& costs) {
  const double watts = costs.iteration.energy_J / costs.iteration.time_s;
  const analysis::CheckpointCosts time{costs.iteration.time_s, costs.checkpoint.time_s,
                                       costs.rollback_s};
  const analysis::EnergyCosts energy{costs.iteration.energy_J, costs.checkpoint.energy_J,
                                     costs.rollback_s * watts};
  return {analysis::expect_interval(risk, tau, time).time_per_iteration_s,
          analysis::expected_energy_per_iteration_J(risk, tau, energy)};
}

/// The checkpoint interval in iterations of `choice` (0 = never), and the MTBF handed to it.
std::pair<int, double> interval_of(const CheckpointChoice& choice, const sim::CheckpointSpec& own,
                                   double job_mtbf_s, double crash_mtbf_s, double iteration_s) {
  CheckpointChoice policy = choice;
  double mtbf_s = job_mtbf_s;
  if (choice.kind == CheckpointChoiceKind::scenario) {
    switch (own.policy) {
      case sim::CheckpointKind::none:
        return {0, 0.0};
      case sim::CheckpointKind::every_iterations:
        return {own.every_iterations, 0.0};
      case sim::CheckpointKind::every_seconds:
        return {std::max(1, int(std::ceil(own.every_s / iteration_s))), 0.0};
      case sim::CheckpointKind::young:
        policy = {CheckpointChoiceKind::young, own.interval_factor};
        break;
      case sim::CheckpointKind::daly:
      case sim::CheckpointKind::optimal_simulated:
        policy = {CheckpointChoiceKind::daly, own.interval_factor};
        break;
    }
    mtbf_s = own.mtbf_s > 0.0 ? own.mtbf_s : crash_mtbf_s;
  }
  if (policy.kind == CheckpointChoiceKind::none) return {0, 0.0};
  const double delta = sim::checkpoint_write_cost_s(own);
  const double interval_s = policy.factor * (policy.kind == CheckpointChoiceKind::young
                                                 ? sim::young_interval_s(delta, mtbf_s)
                                                 : sim::daly_interval_s(delta, mtbf_s));
  if (!std::isfinite(interval_s)) return {0, mtbf_s};
  const double tau = std::ceil(interval_s / iteration_s);
  return {int(std::clamp(tau, 1.0, double(analysis::kMaxInterval))), mtbf_s};
}

}  // namespace

std::vector<CheckpointChoice> checkpoint_choices(const sim::CheckpointSpec& checkpoint) {
  std::vector<CheckpointChoice> choices = {{CheckpointChoiceKind::none, 1.0},
                                           {CheckpointChoiceKind::young, 1.0}};
  for (double factor : checkpoint.search_factors)
    choices.push_back({CheckpointChoiceKind::daly, factor});
  return choices;
}

namespace {

/// What every configuration of one scheme and decoding mode shares.
struct SchemeFacts {
  const SchemeRisk& risk;
  const Probe& probe;
  const CrashRisk& crashes;
};

ConfigurationBound bound_configuration(const Scenario& scenario, const Configuration& c,
                                       const SchemeFacts& facts) {
  const models::TrainingSpec& spec = training_of(scenario.workload)->spec;
  const sim::CheckpointSpec& own = scenario.checkpoint;
  const SchemeRisk& risk = facts.risk;
  const Probe& probe = facts.probe;
  const CrashRisk& crashes = facts.crashes;
  ConfigurationBound b;
  const models::SchemeSummary summary = models::summarize_scheme(c.scheme);
  b.nodes = summary.nodes;
  b.storage_fraction_per_node = summary.storage_fraction_per_node;
  const models::TrainingTheory* theory = risk.theory ? &*risk.theory : nullptr;
  const double iteration_s = probe.straggled.time_s;
  b.rollback_probability = risk.nominal.steady;
  const double crash = 1.0 - std::exp(-crashes.rate_per_s * iteration_s);
  const double job_mtbf_s = 1.0 / (crashes.rate_per_s + b.rollback_probability / iteration_s);
  const double crash_mtbf_s = 1.0 / crashes.rate_per_s;
  const auto [tau, mtbf_s] = interval_of(c.checkpoint, own, job_mtbf_s, crash_mtbf_s, iteration_s);
  b.interval_iterations = tau;
  b.mtbf_s = mtbf_s;
  // No checkpoints: the whole run is one interval, with neither writes nor verification.
  const int span = tau > 0 ? tau : spec.iterations;
  const IterationCost checkpoint = tau > 0 ? probe.checkpoint : IterationCost{};
  // The verification pass's odds after tau iterations (the costly part: once per level).
  const auto verification = [&](const LevelOdds& odds) {
    return theory != nullptr && tau > 0 ? theory->verification_failure_probability(odds.eps, tau)
                                        : 0.0;
  };
  const double verification_nominal = verification(risk.nominal);
  const double verification_most =
      risk.most.eps == risk.nominal.eps ? verification_nominal : verification(risk.most);
  const auto risk_at = [&](const LevelOdds& odds, double scale, double crashes_p) {
    if (theory == nullptr) return analysis::IntervalRisk{crashes_p, crashes_p, 0.0};
    return interval_risk(odds, &odds == &risk.most ? verification_most : verification_nominal,
                         scale, crashes_p);
  };
  // Optimistic: half the nominal odds, no straggler or crash (no odds under a rate trace).
  const bool rates_vary = !training_of(scenario.workload)->faults.rate_traces.empty();
  b.optimistic =
      interval_cost(rates_vary ? analysis::IntervalRisk{} : risk_at(risk.nominal, 0.5, 0.0), span,
                    {probe.iteration, checkpoint, own.restart_s});
  const double repair_s = crashes.rate_per_s > 0.0 ? crashes.mean_repair_s : 0.0;
  b.estimate = interval_cost(risk_at(risk.nominal, 1.0, crash), span,
                             {probe.straggled, checkpoint, own.restart_s + repair_s});
  if (!crashes.unbounded.empty()) {
    b.unbounded_reason = crashes.unbounded;
  } else if (risk.strikes && !risk.unbounded.empty()) {
    b.unbounded_reason = risk.unbounded;
  } else {
    // Each corrected decode (a regeneration, or a node's check and product again) is charged a
    // whole round more (an iteration's time over its decodes): above a block's transfer.
    const double slowdown = 1.0 + 2.0 * risk.most.corrected / risk.decodes_per_iteration;
    const IterationCost iteration{probe.straggled.time_s * slowdown,
                                  probe.straggled.energy_J * slowdown};
    const IterationCost worst = interval_cost(
        risk_at(risk.most, 2.0, crash), span,
        {iteration, checkpoint, own.restart_s + checkpoint.time_s + crashes.max_repair_s});
    b.pessimistic = IterationCost{worst.time_s * (1.0 + kPessimisticMargin),
                                  worst.energy_J * (1.0 + kPessimisticMargin)};
  }
  b.silent_run_probability = -std::expm1(spec.iterations * std::log1p(-risk.silent));
  return b;
}

}  // namespace

class ProbeCache {
 public:
  using Entry = std::variant<Probe, std::string>;
  /// The probe `key` (scheme and decoding) in `context` (probe_context), run by `run` once.
  template <typename Run>
  const Entry& get(const std::string& context, const std::string& key, const Run& run) {
    return probes_.get({context_id(context), key}, run);
  }

 private:
  /// Contexts are whole scenario texts: each is kept once and the probes use its number.
  std::size_t context_id(const std::string& context) {
    const std::lock_guard<std::mutex> lock(mutex_);
    return contexts_.emplace(context, contexts_.size()).first->second;
  }

  std::mutex mutex_;
  std::map<std::string, std::size_t> contexts_;
  sim::BuildOnceMap<std::pair<std::size_t, std::string>, Entry> probes_;
};

std::shared_ptr<ProbeCache> make_probe_cache() { return std::make_shared<ProbeCache>(); }

BoundedSpace bound_space(const Scenario& scenario, const std::vector<models::SchemeSpec>& schemes,
                         const std::vector<CheckpointChoice>& checkpoints, ProbeCache* probes) {
  const TrainingWorkload& training = *training_of(scenario.workload);
  const CrashRisk crashes = crash_risk(scenario.cluster);
  const bool writes = sim::checkpoint_write_cost_s(scenario.checkpoint) > 0.0;
  BoundedSpace space;
  std::set<int> taus;  // the checkpoint intervals of the scheme and decoding at hand
  const auto add = [&](const Configuration& c, const std::variant<Probe, std::string>& probed,
                       const SchemeRisk& risk) {
    space.configurations.push_back(c);
    if (const std::string* problem = std::get_if<std::string>(&probed)) {
      space.bounds.push_back(std::nullopt);
      space.excluded.push_back("the stochastic mode cannot run it: " + *problem);
      return;
    }
    ConfigurationBound bound =
        bound_configuration(scenario, c, {risk, std::get<Probe>(probed), crashes});
    // A young or daly interval beyond the run is none's run, and one an earlier factor gave
    // is that factor's: left out.
    const bool scaled = c.checkpoint.kind == CheckpointChoiceKind::young ||
                        c.checkpoint.kind == CheckpointChoiceKind::daly;
    if (scaled &&
        (bound.interval_iterations <= 0 || bound.interval_iterations >= training.spec.iterations ||
         !taus.insert(bound.interval_iterations).second)) {
      space.configurations.pop_back();
      return;
    }
    space.bounds.push_back(std::move(bound));
    space.excluded.emplace_back();
  };
  const std::string context = probes != nullptr ? probe_context(scenario) : std::string();
  const auto probe_of = [&](const models::SchemeSpec& scheme, bool decentralized) {
    models::TrainingSpec spec = training.spec;
    spec.scheme = scheme;
    spec.decentralized = decentralized;
    if (probes == nullptr) return probe(scenario, spec);
    return probes->get(context, scheme_label(scheme) + (decentralized ? " | d" : " | c"),
                       [&] { return probe(scenario, spec); });
  };
  // The baseline first: the scenario's strategy as it stands.
  {
    const models::SchemeSpec& own = training.spec.scheme;
    const SchemeRisk risk = scheme_risk(scenario, training, own, training.spec.decentralized);
    add({own, {CheckpointChoiceKind::scenario, 1.0}, training.spec.decentralized, true},
        probe_of(own, training.spec.decentralized), risk);
  }
  for (models::SchemeSpec scheme : schemes) {
    if (stop_requested()) throw AdviseInterrupted();
    models::set_generator_seed(scheme, scenario.seed);
    const SchemeRisk decentralized_risk = scheme_risk(scenario, training, scheme, true);
    // Centralized decoding differs only where decode strikes occur.
    const std::optional<SchemeRisk> centralized_risk =
        decode_strikes(decentralized_risk.odds)
            ? std::optional<SchemeRisk>(scheme_risk(scenario, training, scheme, false))
            : std::nullopt;
    // Young and Daly need a write cost and something that fails.
    const bool fails = crashes.rate_per_s > 0.0 || decentralized_risk.strikes;
    for (bool decentralized : {true, false}) {
      const SchemeRisk& risk =
          decentralized || !centralized_risk ? decentralized_risk : *centralized_risk;
      const std::variant<Probe, std::string> probed = probe_of(scheme, decentralized);
      taus.clear();
      for (const CheckpointChoice& choice : checkpoints) {
        if (choice.kind != CheckpointChoiceKind::none && (!writes || !fails)) continue;
        add({scheme, choice, decentralized, false}, probed, risk);
      }
    }
  }
  return space;
}

Json configuration_document(const Json& document, const Configuration& configuration,
                            const ConfigurationBound& bound) {
  Json d = document;
  d.erase("sweep");
  d["strategy"] = strategy_json(configuration.scheme);
  d["workload"]["mode"] = "stochastic";
  d["workload"]["decentralized"] = configuration.decentralized;
  if (configuration.checkpoint.kind == CheckpointChoiceKind::scenario) return d;
  const Json& own = document.at("checkpoint");
  Json checkpoint = Json::object();
  if (own.contains("storage")) checkpoint["storage"] = own["storage"];
  checkpoint["policy"] =
      configuration.checkpoint.kind == CheckpointChoiceKind::none
          ? "none"
          : std::string(
                kCheckpointChoiceNames[static_cast<std::size_t>(configuration.checkpoint.kind)]);
  if (configuration.checkpoint.kind != CheckpointChoiceKind::none) {
    checkpoint["mtbf_s"] = bound.mtbf_s;
    checkpoint["interval_factor"] = configuration.checkpoint.factor;
    for (const char* key : {"write_s", "bytes", "write_bandwidth_Bps"})
      if (own.contains(key)) checkpoint[key] = own[key];
  }
  for (const char* key : {"restart_s", "max_stalled_rollbacks"})
    if (own.contains(key)) checkpoint[key] = own[key];
  d["checkpoint"] = checkpoint;
  return d;
}

}  // namespace codesim::app
