// The training-model report of `codesim theory`: computed from the scheme, the MLP and the
// checkpoint costs, and written as JSON. The text form is in theory_report_text.cpp.
#include "app/cli/theory_report.hpp"
#include "sim/enum_names.hpp"

#include <cmath>
#include <set>

#include "analysis/results_json.hpp"

namespace codesim::app {
namespace {

using analysis::finite_or_null;

using Json = nlohmann::ordered_json;

std::vector<TheoryDecode> steady_decodes(const models::TrainingTheory& theory,
                                         const models::TargetProbabilities& eps) {
  std::vector<TheoryDecode> decodes;
  for (const models::DecodeExposure& d : theory.steady_decodes()) {
    const models::DecodeProbabilities p = models::decode_probabilities(d, eps);
    TheoryDecode decode{.layer = d.layer,
                        .direction = d.direction,
                        .symbols = d.symbol_count(),
                        .codewords = d.codewords.size(),
                        .correctable = d.correctable,
                        .detects = d.detects,
                        .strikes_per_symbol = {},
                        .failure = p.failure,
                        .corrected = p.corrected,
                        .silent = p.silent};
    for (const auto& codeword : d.codewords)
      for (const auto& symbol : codeword) decode.strikes_per_symbol.push_back(symbol.strikes);
    decodes.push_back(std::move(decode));
  }
  return decodes;
}

// The checkpoint model: the interval table and the optimal, Young and Daly intervals.
void add_checkpoint_model(const models::TrainingTheory& theory, const TheoryInputs& in,
                          TheoryReport& report) {
  const double p = report.rollback_per_iteration;
  const double p_first = report.rollback_first_iteration;
  const analysis::CheckpointCosts& costs = in.costs;
  const auto risk = [&](int tau) {
    return analysis::IntervalRisk{p_first, p,
                                  theory.verification_failure_probability(in.strike_eps(), tau)};
  };
  std::set<int> taus(default_theory_taus().begin(), default_theory_taus().end());
  if (in.tau) taus.insert(*in.tau);
  for (int tau : taus) {
    const analysis::IntervalExpectation protocol = analysis::expect_interval(risk(tau), tau, costs);
    report.intervals.push_back(TheoryInterval{
        .tau = tau,
        .executions_per_iteration = analysis::expected_executions(p, tau) / tau,
        .time_per_iteration_s = analysis::expected_time_per_iteration_s(p, tau, costs),
        .verification_failure = risk(tau).verification,
        .protocol_executions_per_iteration = protocol.executions / tau,
        .protocol_time_per_iteration_s = protocol.time_per_iteration_s,
        .protocol_energy_per_iteration_J =
            in.energy ? std::optional<double>(
                            analysis::expected_energy_per_iteration_J(risk(tau), tau, *in.energy))
                      : std::nullopt});
  }
  report.requested_tau = in.tau;
  report.optimal = analysis::optimal_interval(risk, costs);
  report.energy = in.energy;
  if (in.energy) {
    report.energy_at_optimal_J = analysis::expected_energy_per_iteration_J(
        risk(report.optimal.tau), report.optimal.tau, *in.energy);
  }
  report.optimal_stationary = analysis::optimal_interval(p, costs);
  report.classic = analysis::classic_intervals(p, costs);
}

Json optimal_json(const analysis::OptimalInterval& best) {
  return {{"tau", best.tau},
          {"time_per_iteration_s", finite_or_null(best.time_per_iteration_s)},
          {"at_bound", best.at_bound}};
}

Json parameters_json(const std::vector<SchemeParameter>& parameters) {
  Json json = Json::object();
  for (const SchemeParameter& parameter : parameters) {
    json[parameter.name] =
        std::visit([](const auto& value) { return Json(value); }, parameter.value);
  }
  return json;
}

Json opportunities_json(const TheoryReport& r) {
  Json per_layer = Json::array();
  for (std::size_t l = 0; l < r.opportunities.size(); ++l) {
    const models::LayerOpportunities& o = r.opportunities[l];
    per_layer.push_back({{"layer", static_cast<int>(l)},
                         {"forward", o.forward},
                         {"backward", o.backward},
                         {"update", o.update},
                         {"total", o.total()}});
  }
  return {{"per_iteration", r.opportunities_per_iteration}, {"per_layer", per_layer}};
}

Json decodes_json(const std::vector<TheoryDecode>& decodes) {
  Json json = Json::array();
  for (const TheoryDecode& d : decodes) {
    json.push_back(
        {{"layer", d.layer},
         {"direction", d.direction == models::Direction::forward ? "forward" : "backward"},
         {"symbols", d.symbols},
         {"codewords", d.codewords},
         {"correctable", d.correctable},
         {"detects", d.detects},
         {"strikes_per_symbol", d.strikes_per_symbol},
         {"failure", d.failure},
         {"corrected", d.corrected},
         {"silent", d.silent}});
  }
  return json;
}

Json intervals_json(const std::vector<TheoryInterval>& intervals) {
  Json json = Json::array();
  for (const TheoryInterval& i : intervals) {
    json.push_back(
        {{"tau", i.tau},
         {"executions_per_iteration", finite_or_null(i.executions_per_iteration)},
         {"time_per_iteration_s", finite_or_null(i.time_per_iteration_s)},
         {"verification_failure", i.verification_failure},
         {"protocol_executions_per_iteration", finite_or_null(i.protocol_executions_per_iteration)},
         {"protocol_time_per_iteration_s", finite_or_null(i.protocol_time_per_iteration_s)}});
    if (i.protocol_energy_per_iteration_J) {
      json.back()["protocol_energy_per_iteration_J"] =
          finite_or_null(*i.protocol_energy_per_iteration_J);
    }
  }
  return json;
}

}  // namespace

const std::vector<int>& default_theory_taus() {
  static const std::vector<int> taus = {1, 2, 5, 10, 20, 50, 100, 200, 500, 1000};
  return taus;
}

std::vector<SchemeParameter> scheme_parameters(const models::SchemeSpec& spec) {
  const models::SchemeDescriptor& descriptor = models::descriptor_of(spec);
  const std::vector<int> field_values = descriptor.values(spec);
  std::vector<SchemeParameter> parameters;
  for (std::size_t i = 0; i < field_values.size(); ++i) {
    const models::SchemeField& field = descriptor.fields[i];
    SchemeParameter parameter{std::string(field.option), field_values[i]};
    if (!field.choices.empty()) {
      parameter.value = std::string(field.choices[static_cast<std::size_t>(field_values[i])]);
    }
    parameters.push_back(std::move(parameter));
  }
  return parameters;
}

models::TargetProbabilities TheoryInputs::strike_eps() const {
  models::TargetProbabilities all = other_eps;
  all[static_cast<std::size_t>(models::FaultTarget::weights)] = eps;
  return all;
}

bool TheoryInputs::other_targets_strike() const {
  for (std::size_t k = 0; k < other_eps.size(); ++k) {
    if (k != static_cast<std::size_t>(models::FaultTarget::weights) && other_eps[k] > 0.0)
      return true;
  }
  return false;
}

TheoryReport theory_report(const TheoryInputs& in) {
  const models::TrainingTheory theory(in.spec, in.layers, in.options);
  const models::TargetProbabilities eps = in.strike_eps();
  TheoryReport report;
  report.scheme = std::string(models::scheme_name(in.spec));
  report.parameters = scheme_parameters(in.spec);
  report.nodes = theory.summary().nodes;
  report.layers = in.layers;
  report.eps = in.eps;
  if (in.other_targets_strike()) {
    report.eps_by_target = eps;
    report.opportunities_by_target = theory.target_opportunities();
  }
  report.error_model = in.options.error_model;
  report.first_layer_backward = in.options.first_layer_backward;
  report.decentralized = in.options.decentralized;
  report.opportunities_per_iteration = theory.opportunities_per_iteration();
  report.opportunities = theory.opportunities();
  report.latent_blocks = theory.latent_blocks();
  report.decodes = steady_decodes(theory, eps);
  report.rollback_per_iteration = theory.rollback_probability(eps);
  report.rollback_first_iteration = theory.first_rollback_probability(eps);
  report.expected_strikes_per_iteration = theory.expected_strikes(eps);
  report.expected_corrected_decodes_per_iteration = theory.expected_corrected_decodes(eps);
  report.silent_probability_per_iteration = theory.silent_corruption_probability(eps);
  const bool detects_nothing =
      theory.summary().forward.detectable == 0 && theory.summary().backward.detectable == 0;
  const bool checks_at_nodes = !theory.local_corrections().empty();
  // With nothing detected, every strike no node's check sees is silent: all of them without
  // checks, those on copies of vectors (activation, decode) with them.
  models::TargetProbabilities unseen = eps;
  if (checks_at_nodes) {
    for (models::FaultTarget seen :
         {models::FaultTarget::weights, models::FaultTarget::product, models::FaultTarget::update})
      unseen[static_cast<std::size_t>(seen)] = 0.0;
  }
  report.silent_expected_per_iteration = detects_nothing ? theory.expected_strikes(unseen) : 0.0;
  if (checks_at_nodes) {
    TheoryLocalCorrection local;
    local.value_model = std::string(models::to_string(in.options.weight_fault_model.kind));
    for (const models::AbftCorrection& layer : theory.local_corrections()) {
      local.entries_per_strike.push_back(layer.model().entries);
      local.per_strike.push_back(layer.per_strike());
      local.exact.push_back(layer.exact());
    }
    local.expected_per_iteration = theory.expected_local_corrections(eps);
    report.local_correction = std::move(local);
  }
  report.costs = in.costs;
  add_checkpoint_model(theory, in, report);
  return report;
}

Json to_json(const TheoryReport& r) {
  Json json;
  json["scheme"] = r.scheme;
  json["parameters"] = parameters_json(r.parameters);
  json["nodes"] = r.nodes;
  json["layers"] = r.layers;
  json["eps"] = r.eps;
  if (r.eps_by_target) {
    Json by_target;
    Json opportunities;
    for (std::size_t k = 0; k < r.eps_by_target->size(); ++k) {
      const std::string name(models::kFaultTargetNames[k]);
      by_target[name] = (*r.eps_by_target)[k];
      opportunities[name] = (*r.opportunities_by_target)[k];
    }
    json["eps_by_target"] = by_target;
    json["opportunities_by_target"] = opportunities;
  }
  json["error_model"] = std::string(sim::name_of(r.error_model, models::kErrorModelNames));
  json["first_layer_backward"] = r.first_layer_backward;
  if (!r.decentralized) json["decoding"] = "centralized";
  json["opportunities"] = opportunities_json(r);
  json["latent_blocks"] = r.latent_blocks;
  json["decodes"] = decodes_json(r.decodes);
  json["rollback_probability"] = {{"per_iteration", r.rollback_per_iteration},
                                  {"first_iteration", r.rollback_first_iteration}};
  json["expected_strikes_per_iteration"] = r.expected_strikes_per_iteration;
  json["expected_corrected_decodes_per_iteration"] = r.expected_corrected_decodes_per_iteration;
  json["silent_corruption"] = {{"probability_per_iteration", r.silent_probability_per_iteration},
                               {"expected_per_iteration", r.silent_expected_per_iteration}};
  if (r.local_correction) {
    const TheoryLocalCorrection& local = *r.local_correction;
    json["local_correction"] = {{"value_model", local.value_model},
                                {"entries_per_strike", local.entries_per_strike},
                                {"per_strike", local.per_strike},
                                {"exact", local.exact},
                                {"expected_per_iteration", local.expected_per_iteration}};
  }
  json["costs"] = {{"iteration_s", r.costs.iteration_s},
                   {"checkpoint_s", r.costs.checkpoint_s},
                   {"rollback_s", r.costs.rollback_s}};
  json["intervals"] = intervals_json(r.intervals);
  if (r.requested_tau) json["requested_tau"] = *r.requested_tau;
  json["optimal"] = optimal_json(r.optimal);
  if (r.energy) {
    json["energy"] = {{"iteration_J", r.energy->iteration_J},
                      {"checkpoint_J", r.energy->checkpoint_J},
                      {"rollback_J", r.energy->rollback_J},
                      {"per_iteration_J_at_optimal", finite_or_null(*r.energy_at_optimal_J)}};
  }
  json["optimal_stationary"] = optimal_json(r.optimal_stationary);
  json["classic"] = {
      {"mtbf_s", finite_or_null(r.classic.mtbf_s)},
      {"young_iterations", finite_or_null(r.classic.young_iterations)},
      {"daly_iterations", finite_or_null(r.classic.daly_iterations)},
      {"daly_time_per_iteration_s", finite_or_null(r.classic.daly_time_per_iteration_s)}};
  return json;
}

}  // namespace codesim::app
