// `codesim theory`: parses a scheme, an MLP and the checkpoint costs, then prints the closed-form
// fault exposure, rollback probability and checkpoint-interval model; or the T1 / T3 tables.
#include "app/theory_command.hpp"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <optional>
#include <ostream>
#include <set>
#include <sstream>
#include <variant>

#include <boost/program_options.hpp>
#include <nlohmann/json.hpp>

#include "analysis/theory.hpp"
#include "app/scheme_options.hpp"
#include "app/text_format.hpp"
#include "models/coding/coding_scheme.hpp"
#include "models/faults/fault_targets.hpp"
#include "models/theory/tolerance_tables.hpp"
#include "models/theory/training_theory.hpp"

namespace po = boost::program_options;
using Json = nlohmann::ordered_json;

namespace codesim::app {
namespace {

constexpr int kOk = 0;
constexpr int kBadInput = 2;

// Defaults (the CodeNet experiment's MLP and error rate; costs in units of one iteration).
const char* const kDefaultLayers = "784,10000,10000,10";
constexpr double kDefaultIterationS = 1.0;
constexpr double kDefaultCheckpointS = 2.0;  // a verification pass (~ an iteration) and a write
constexpr double kDefaultRollbackS = 1.0;    // reloading every block
const std::vector<int> kTauList = {1, 2, 5, 10, 20, 50, 100, 200, 500, 1000};

// Options of the training model, which the tables do not take.
const std::vector<std::string> kModelOptions = {
    "scheme",     "layers", "eps",         "iteration-s",         "checkpoint-s",
    "rollback-s", "tau",    "error-model", "first-layer-backward"};

// A failed check: what is wrong, with "(expected ...)".
struct Problem {
  std::string message;
};

po::options_description theory_options() {
  static const std::string caption =
      "codesim theory --scheme KIND [scheme options] [model options]\n"
      "codesim theory --table thresholds | --table tolerance --m M --n N [--orientation O]\n"
      "  scheme options as codesim codes:\n" +
      scheme_usage_lines("    ") + "options";
  po::options_description options(caption);
  add_scheme_options(options);
  options.add_options()("layers", po::value<std::string>()->value_name("N0,N1,..."),
                        "MLP sizes, W_l is N_{l+1} x N_l (default 784,10000,10000,10)")(
      "eps", po::value<double>()->value_name("E"),
      "strike probability per node per operation (default 3e-4)")(
      "iteration-s", po::value<double>()->value_name("S"),
      "T_it, seconds per iteration (default 1)")(
      "checkpoint-s", po::value<double>()->value_name("S"),
      "T_ck, seconds per checkpoint with its verification pass (default 2)")(
      "rollback-s", po::value<double>()->value_name("S"), "T_rb, seconds per rollback (default 1)")(
      "tau", po::value<int>()->value_name("N"),
      "also evaluate this checkpoint interval (iterations)")(
      "error-model", po::value<std::string>()->value_name("MODEL"),
      "adversarial (default: t = floor((S-K)/2)) or random (t = S-K-1)")(
      "first-layer-backward", po::bool_switch(),
      "model a backward round in layer 0 too (the CodeNet experiment code; train_coded skips "
      "it)")("table", po::value<std::string>()->value_name("NAME"),
             "thresholds (T1) or tolerance (T3, with --m --n) instead of the training model")(
      "json", po::bool_switch(), "print JSON")("help,h", po::bool_switch(), "show this help");
  return options;
}

// Appends a generic expectation to messages that lack one.
std::string expecting(std::string message, const std::string& expected) {
  if (message.find("(expected") == std::string::npos) message += " (expected " + expected + ")";
  return message;
}

std::optional<Problem> check_orientation(const po::variables_map& values) {
  if (!values.count("orientation")) return std::nullopt;
  const std::string orientation = values["orientation"].as<std::string>();
  if (orientation == "default" || orientation == "mirrored") return std::nullopt;
  return Problem{"unknown orientation '" + orientation + "' (expected default or mirrored)"};
}

bool mirrored(const po::variables_map& values) {
  return values.count("orientation") && values["orientation"].as<std::string>() == "mirrored";
}

// "784,10000,10" -> sizes; nullopt when it is not a list of at least two positive integers.
std::optional<std::vector<int>> parse_layers(const std::string& text) {
  std::vector<int> sizes;
  std::stringstream stream(text);
  std::string item;
  while (std::getline(stream, item, ',')) {
    if (item.empty() || item.size() > 9 ||
        !std::all_of(item.begin(), item.end(), [](char c) { return c >= '0' && c <= '9'; })) {
      return std::nullopt;
    }
    sizes.push_back(std::stoi(item));
    if (sizes.back() < 1) return std::nullopt;
  }
  if (sizes.size() < 2 || text.empty() || text.back() == ',') return std::nullopt;
  return sizes;
}

// The training model's inputs after validation.
struct ModelInputs {
  models::SchemeSpec spec;
  std::vector<int> layers;
  double eps = models::kPaperErrorProbability;
  analysis::CheckpointCosts costs;
  std::optional<int> tau;
  models::TrainingTheoryOptions options;
};

std::optional<Problem> read_model_inputs(const po::variables_map& values, ModelInputs& in) {
  if (!values.count("scheme")) {
    return Problem{
        "--scheme is required (expected uncoded, replication, mds, gpd or codenet_grid, or "
        "--table)"};
  }
  std::variant<models::SchemeSpec, std::string> read = read_scheme_options(values);
  if (read.index() == 1) return Problem{std::get<std::string>(read)};
  in.spec = std::get<models::SchemeSpec>(read);
  const std::string layers =
      values.count("layers") ? values["layers"].as<std::string>() : kDefaultLayers;
  const auto sizes = parse_layers(layers);
  if (!sizes) {
    return Problem{"--layers '" + layers +
                   "' is not a list of sizes (expected at least two positive integers separated "
                   "by commas, e.g. 784,10000,10000,10)"};
  }
  in.layers = *sizes;
  if (values.count("eps")) in.eps = values["eps"].as<double>();
  if (!(in.eps >= 0.0 && in.eps <= 1.0)) {
    std::ostringstream message;
    message << "--eps " << in.eps << " is out of range (expected a probability in [0, 1])";
    return Problem{message.str()};
  }
  in.costs.iteration_s =
      values.count("iteration-s") ? values["iteration-s"].as<double>() : kDefaultIterationS;
  in.costs.checkpoint_s =
      values.count("checkpoint-s") ? values["checkpoint-s"].as<double>() : kDefaultCheckpointS;
  in.costs.rollback_s =
      values.count("rollback-s") ? values["rollback-s"].as<double>() : kDefaultRollbackS;
  const auto seconds_problem = [](const char* name, double value, bool positive) {
    std::ostringstream message;
    message << "--" << name << " " << value << " is out of range (expected a finite number of "
            << "seconds " << (positive ? "> 0" : ">= 0") << ")";
    return Problem{message.str()};
  };
  if (!(in.costs.iteration_s > 0.0 && std::isfinite(in.costs.iteration_s))) {
    return seconds_problem("iteration-s", in.costs.iteration_s, true);
  }
  if (!(in.costs.checkpoint_s >= 0.0 && std::isfinite(in.costs.checkpoint_s))) {
    return seconds_problem("checkpoint-s", in.costs.checkpoint_s, false);
  }
  if (!(in.costs.rollback_s >= 0.0 && std::isfinite(in.costs.rollback_s))) {
    return seconds_problem("rollback-s", in.costs.rollback_s, false);
  }
  if (values.count("tau")) {
    in.tau = values["tau"].as<int>();
    if (*in.tau < 1 || *in.tau > analysis::kMaxInterval) {
      return Problem{"--tau " + std::to_string(*in.tau) +
                     " is out of range (expected an interval in iterations in [1, " +
                     std::to_string(analysis::kMaxInterval) + "])"};
    }
  }
  if (values.count("error-model")) {
    const std::string model = values["error-model"].as<std::string>();
    if (model != "adversarial" && model != "random") {
      return Problem{"unknown error model '" + model + "' (expected adversarial or random)"};
    }
    in.options.error_model =
        model == "random" ? models::ErrorModel::random : models::ErrorModel::adversarial;
  }
  in.options.first_layer_backward = values["first-layer-backward"].as<bool>();
  const std::string problem = models::validate_training_theory(in.spec, in.layers);
  if (!problem.empty()) {
    return Problem{expecting(problem, "a scheme whose m, n or k divide every layer's W")};
  }
  return std::nullopt;
}

// Infinite and NaN values become JSON null.
Json number(double value) { return std::isfinite(value) ? Json(value) : Json(nullptr); }

Json optimal_json(const analysis::OptimalInterval& best) {
  return {{"tau", best.tau},
          {"time_per_iteration_s", number(best.time_per_iteration_s)},
          {"at_bound", best.at_bound}};
}

Json model_report(const ModelInputs& in) {
  const models::TrainingTheory theory(in.spec, in.layers, in.options);
  const double eps = in.eps;
  Json report;
  report["scheme"] = std::string(models::scheme_name(in.spec));
  report["parameters"] = scheme_parameters_json(in.spec);
  report["nodes"] = theory.summary().nodes;
  report["layers"] = in.layers;
  report["eps"] = eps;
  report["error_model"] =
      in.options.error_model == models::ErrorModel::random ? "random" : "adversarial";
  report["first_layer_backward"] = in.options.first_layer_backward;

  Json per_layer = Json::array();
  for (int l = 0; l < theory.layers(); ++l) {
    const models::LayerOpportunities& o = theory.opportunities()[static_cast<std::size_t>(l)];
    per_layer.push_back({{"layer", l},
                         {"forward", o.forward},
                         {"backward", o.backward},
                         {"update", o.update},
                         {"total", o.total()}});
  }
  report["opportunities"] = {{"per_iteration", theory.opportunities_per_iteration()},
                             {"per_layer", per_layer}};
  report["latent_blocks"] = theory.latent_blocks();

  Json decodes = Json::array();
  for (const models::DecodeExposure& d : theory.steady_decodes()) {
    const models::DecodeProbabilities p = models::decode_probabilities(d, eps);
    Json strikes = Json::array();
    for (const auto& codeword : d.codewords)
      for (const auto& symbol : codeword) strikes.push_back(symbol.strikes);
    decodes.push_back(
        {{"layer", d.layer},
         {"direction", d.direction == models::Direction::forward ? "forward" : "backward"},
         {"symbols", d.symbol_count()},
         {"codewords", d.codewords.size()},
         {"correctable", d.correctable},
         {"detects", d.detects},
         {"strikes_per_symbol", strikes},
         {"failure", p.failure},
         {"corrected", p.corrected},
         {"silent", p.silent}});
  }
  report["decodes"] = decodes;

  const double p = theory.rollback_probability(eps);
  const double p_first = theory.first_rollback_probability(eps);
  report["rollback_probability"] = {{"per_iteration", p}, {"first_iteration", p_first}};
  report["expected_strikes_per_iteration"] = theory.expected_strikes(eps);
  report["expected_corrected_decodes_per_iteration"] = theory.expected_corrected_decodes(eps);
  const bool detects_nothing =
      theory.summary().forward.detectable == 0 && theory.summary().backward.detectable == 0;
  report["silent_corruption"] = {
      {"probability_per_iteration", theory.silent_corruption_probability(eps)},
      {"expected_per_iteration", detects_nothing ? theory.expected_strikes(eps) : 0.0}};

  const analysis::CheckpointCosts& costs = in.costs;
  report["costs"] = {{"iteration_s", costs.iteration_s},
                     {"checkpoint_s", costs.checkpoint_s},
                     {"rollback_s", costs.rollback_s}};
  const auto risk = [&](int tau) {
    return analysis::IntervalRisk{p_first, p, theory.verification_failure_probability(eps, tau)};
  };
  std::set<int> taus(kTauList.begin(), kTauList.end());
  if (in.tau) taus.insert(*in.tau);
  Json intervals = Json::array();
  for (int tau : taus) {
    const analysis::IntervalExpectation protocol = analysis::expect_interval(risk(tau), tau, costs);
    intervals.push_back(
        {{"tau", tau},
         {"executions_per_iteration", number(analysis::expected_executions(p, tau) / tau)},
         {"time_per_iteration_s", number(analysis::expected_time_per_iteration_s(p, tau, costs))},
         {"verification_failure", risk(tau).verification},
         {"protocol_executions_per_iteration", number(protocol.executions / tau)},
         {"protocol_time_per_iteration_s", number(protocol.time_per_iteration_s)}});
  }
  report["intervals"] = intervals;
  if (in.tau) report["requested_tau"] = *in.tau;
  report["optimal"] = optimal_json(analysis::optimal_interval(risk, costs));
  report["optimal_stationary"] = optimal_json(analysis::optimal_interval(p, costs));
  const analysis::ClassicIntervals classic = analysis::classic_intervals(p, costs);
  report["classic"] = {{"mtbf_s", number(classic.mtbf_s)},
                       {"young_iterations", number(classic.young_iterations)},
                       {"daly_iterations", number(classic.daly_iterations)},
                       {"daly_time_per_iteration_s", number(classic.daly_time_per_iteration_s)}};
  return report;
}

// A number for text output: 4 significant digits, "inf" or "-" for null.
std::string text(const Json& value) {
  if (value.is_null()) return "inf";
  if (value.is_number_integer()) return std::to_string(value.get<long long>());
  return significant(value.get<double>(), 4);
}

void print_model(const Json& r, std::ostream& out) {
  out << "scheme: " << r["scheme"].get<std::string>();
  std::string separator = " (";
  for (const auto& [name, value] : r["parameters"].items()) {
    out << separator << name << " "
        << (value.is_string() ? value.get<std::string>() : value.dump());
    separator = ", ";
  }
  out << ")\n";
  out << "nodes: " << r["nodes"].get<int>() << "\n";
  out << "layers:";
  separator = " ";
  for (const auto& size : r["layers"]) {
    out << separator << size.get<int>();
    separator = ",";
  }
  out << " (" << r["opportunities"]["per_layer"].size() << " weight layers; "
      << (r["first_layer_backward"].get<bool>() ? "every layer has" : "layer 0 has no")
      << " backward round)\n";
  out << "eps: " << text(r["eps"])
      << " per opportunity (weights, before each forward and backward product and after each "
         "update)\n";
  out << "error model: " << r["error_model"].get<std::string>() << "\n";
  out << "opportunities per iteration: " << r["opportunities"]["per_iteration"].get<int>() << "\n";
  for (const auto& layer : r["opportunities"]["per_layer"]) {
    out << "  layer " << layer["layer"].get<int>() << ": forward " << layer["forward"].get<int>()
        << ", backward " << layer["backward"].get<int>() << ", update "
        << layer["update"].get<int>() << "\n";
  }
  out << "latent blocks (read only by the verification pass): " << r["latent_blocks"].get<int>()
      << "\n";
  out << "decodes of a steady iteration (failure = detected, rollback):\n";
  out << "  layer  direction  symbols  correctable  failure     corrected   silent\n";
  for (const auto& d : r["decodes"]) {
    out << "  " << std::left << std::setw(7) << d["layer"].get<int>() << std::setw(11)
        << d["direction"].get<std::string>() << std::setw(9) << d["symbols"].get<int>()
        << std::setw(13) << (d["detects"].get<bool>() ? text(d["correctable"]) : "none")
        << std::setw(12) << text(d["failure"]) << std::setw(12) << text(d["corrected"])
        << text(d["silent"]) << std::right << "\n";
  }
  out << "rollback probability per iteration: p = "
      << text(r["rollback_probability"]["per_iteration"])
      << " (first iteration after a checkpoint or rollback: "
      << text(r["rollback_probability"]["first_iteration"]) << ")\n";
  out << "expected strikes per iteration: " << text(r["expected_strikes_per_iteration"]) << "\n";
  out << "expected corrected decodes per iteration: "
      << text(r["expected_corrected_decodes_per_iteration"]) << "\n";
  out << "silent corruptions per iteration: "
      << text(r["silent_corruption"]["expected_per_iteration"]) << " expected (probability "
      << text(r["silent_corruption"]["probability_per_iteration"]) << ")\n";
  out << "checkpoint model: T_it " << text(r["costs"]["iteration_s"]) << " s, T_ck "
      << text(r["costs"]["checkpoint_s"]) << " s, T_rb " << text(r["costs"]["rollback_s"])
      << " s\n";
  out << "  stationary p (docs/reproduction.md, checkpoint model): E_exec/tau and E[T]; protocol: "
         "first iteration and the "
         "verification pass included\n";
  out << "  " << std::setw(7) << "tau" << std::setw(13) << "E_exec/tau" << std::setw(13) << "E[T]_s"
      << std::setw(13) << "p_verify" << std::setw(20) << "protocol_E_exec/tau" << std::setw(18)
      << "protocol_E[T]_s"
      << "\n";
  for (const auto& i : r["intervals"]) {
    out << "  " << std::setw(7) << i["tau"].get<int>() << std::setw(13)
        << text(i["executions_per_iteration"]) << std::setw(13) << text(i["time_per_iteration_s"])
        << std::setw(13) << text(i["verification_failure"]) << std::setw(20)
        << text(i["protocol_executions_per_iteration"]) << std::setw(18)
        << text(i["protocol_time_per_iteration_s"]) << "\n";
  }
  const auto print_optimal = [&out](const char* label, const Json& o) {
    out << label << o["tau"].get<int>() << (o["at_bound"].get<bool>() ? " (search bound)" : "")
        << ", E[T] " << text(o["time_per_iteration_s"]) << " s per useful iteration\n";
  };
  print_optimal("optimal tau (protocol): ", r["optimal"]);
  print_optimal("optimal tau (stationary p): ", r["optimal_stationary"]);
  out << "young: " << text(r["classic"]["young_iterations"])
      << " iterations, daly: " << text(r["classic"]["daly_iterations"])
      << " iterations (MTBF T_it / p = " << text(r["classic"]["mtbf_s"]) << " s); daly E[T] "
      << text(r["classic"]["daly_time_per_iteration_s"]) << " s per useful iteration\n";
}

std::string threshold_note(int m, int n) {
  if (m == 1 && n == 1) return "one block: K = 1";
  if (n == 1) return "n = 1: polynomial / MDS row split, K_ff = m";
  if (m == 1) return "m = 1: MatDot, K_ff = 2n - 1";
  return "";
}

Json thresholds_report() {
  Json rows = Json::array();
  for (const models::ThresholdRow& row : models::gpd_threshold_table()) {
    rows.push_back({{"m", row.m},
                    {"n", row.n},
                    {"forward", row.forward},
                    {"backward", row.backward},
                    {"mirrored_forward", row.mirrored_forward},
                    {"mirrored_backward", row.mirrored_backward},
                    {"note", threshold_note(row.m, row.n)}});
  }
  return {{"table", "thresholds"}, {"rows", rows}};
}

void print_thresholds(const Json& r, std::ostream& out) {
  out << "GPD recovery thresholds: any K of the P nodes decode (T1)\n";
  out << "   m   n   K_ff   K_bp   K_ff_mirrored   K_bp_mirrored\n";
  for (const auto& row : r["rows"]) {
    out << std::setw(4) << row["m"].get<int>() << std::setw(4) << row["n"].get<int>()
        << std::setw(7) << row["forward"].get<int>() << std::setw(7) << row["backward"].get<int>()
        << std::setw(16) << row["mirrored_forward"].get<int>() << std::setw(16)
        << row["mirrored_backward"].get<int>();
    const std::string note = row["note"].get<std::string>();
    if (!note.empty()) out << "   " << note;
    out << "\n";
  }
}

Json optional_json(const std::optional<int>& value) { return value ? Json(*value) : Json(nullptr); }

Json tolerance_report(int m, int n, bool mirrored_split) {
  Json rows = Json::array();
  for (const models::ToleranceRow& row : models::tolerance_table(m, n, mirrored_split)) {
    rows.push_back({{"nodes", row.nodes},
                    {"gpd_forward", optional_json(row.gpd_forward)},
                    {"gpd_backward", optional_json(row.gpd_backward)},
                    {"gpd_forward_random", optional_json(row.gpd_forward_random)},
                    {"gpd_backward_random", optional_json(row.gpd_backward_random)},
                    {"codenet", optional_json(row.codenet)},
                    {"codenet_nodes", row.codenet_nodes},
                    {"mds", optional_json(row.mds)},
                    {"replication_copies", optional_json(row.replication_copies)},
                    {"replication_correctable", optional_json(row.replication_correctable)},
                    {"replication_detectable", optional_json(row.replication_detectable)}});
  }
  Json ratio = Json::array();
  for (const models::RatioRow& row : models::gpd_replication_ratio_table(8, mirrored_split)) {
    ratio.push_back({{"m", row.m},
                     {"n", row.n},
                     {"blocks", row.m * row.n},
                     {"gpd_at_2mn", row.gpd_at_2mn},
                     {"replication_detectable_at_2mn", row.replication_detectable_at_2mn},
                     {"detection_ratio_at_2mn", row.detection_ratio_at_2mn},
                     {"gpd_at_3mn", row.gpd_at_3mn},
                     {"replication_at_3mn", row.replication_at_3mn},
                     {"ratio_at_3mn", row.ratio_at_3mn}});
  }
  return {{"table", "tolerance"},
          {"m", m},
          {"n", n},
          {"orientation", mirrored_split ? "mirrored" : "default"},
          {"errors", "erroneous nodes per decode, worst case; adversarial unless *_random"},
          {"rows", rows},
          {"ratio", ratio}};
}

void print_tolerance(const Json& r, std::ostream& out) {
  const auto cell = [](const Json& value) {
    return value.is_null() ? std::string("-") : text(value);
  };
  out << "errors tolerated per decode vs nodes P (T3): m " << r["m"].get<int>() << ", n "
      << r["n"].get<int>() << ", orientation " << r["orientation"].get<std::string>()
      << "; every node stores 1/(mn) of W\n";
  out << "  codenet: P_r = m + 2t, P_c = n + 2t in P nodes; mds: k = 2mn (row- and column-split "
         "blocks); replication: floor(P / mn) copies (correct / detect)\n";
  out << "     P  gpd_ff  gpd_bp  gpd_ff_random  gpd_bp_random  codenet(nodes)  mds  "
         "replication(copies: correct/detect)\n";
  for (const auto& row : r["rows"]) {
    const std::string codenet =
        row["codenet"].is_null() ? "-"
                                 : text(row["codenet"]) + " (" + text(row["codenet_nodes"]) + ")";
    const std::string replication = row["replication_copies"].is_null()
                                        ? "-"
                                        : text(row["replication_copies"]) + ": " +
                                              text(row["replication_correctable"]) + "/" +
                                              text(row["replication_detectable"]);
    out << std::setw(6) << row["nodes"].get<int>() << std::setw(8) << cell(row["gpd_forward"])
        << std::setw(8) << cell(row["gpd_backward"]) << std::setw(15)
        << cell(row["gpd_forward_random"]) << std::setw(15) << cell(row["gpd_backward_random"])
        << std::setw(16) << codenet << std::setw(5) << cell(row["mds"]) << "  " << replication
        << "\n";
  }
  out << "GPD (forward, adversarial) versus replication at P = 2mn and 3mn (square splits):\n";
  out << "   m   n   mn  gpd@2mn  rep_detect@2mn  detect_ratio@2mn  gpd@3mn  rep@3mn  "
         "ratio@3mn\n";
  for (const auto& row : r["ratio"]) {
    out << std::setw(4) << row["m"].get<int>() << std::setw(4) << row["n"].get<int>()
        << std::setw(5) << row["blocks"].get<int>() << std::setw(9) << row["gpd_at_2mn"].get<int>()
        << std::setw(16) << row["replication_detectable_at_2mn"].get<int>() << std::setw(18)
        << text(row["detection_ratio_at_2mn"]) << std::setw(9) << row["gpd_at_3mn"].get<int>()
        << std::setw(9) << row["replication_at_3mn"].get<int>() << std::setw(11)
        << text(row["ratio_at_3mn"]) << "\n";
  }
}

// The tables take no training-model options and (tolerance) only --m, --n, --orientation.
std::optional<Problem> check_table_options(const po::variables_map& values,
                                           const std::string& table) {
  if (table != "thresholds" && table != "tolerance") {
    return Problem{"unknown table '" + table + "' (expected thresholds or tolerance)"};
  }
  std::vector<std::string> allowed;
  if (table == "tolerance") allowed = {"m", "n", "orientation"};
  std::vector<std::string> rejected = kModelOptions;
  for (const std::string& name : scheme_option_names()) rejected.push_back(name);
  for (const auto& name : rejected) {
    if (std::find(allowed.begin(), allowed.end(), name) != allowed.end()) continue;
    const bool given =
        name == "first-layer-backward" ? values[name].as<bool>() : values.count(name) > 0;
    if (given) {
      return Problem{"--" + name + " does not apply to --table " + table + " (expected " +
                     (table == "tolerance" ? "--m, --n and --orientation" : "only --json") + ")"};
    }
  }
  if (table == "tolerance") {
    if (!values.count("m") || !values.count("n")) {
      return Problem{"--table tolerance needs --m and --n (expected two integers >= 1)"};
    }
    const int m = values["m"].as<int>();
    const int n = values["n"].as<int>();
    if (m < 1 || n < 1 || m * static_cast<long long>(n) > 1024) {
      return Problem{"--m " + std::to_string(m) + " --n " + std::to_string(n) +
                     " is out of range (expected m, n >= 1 with m n <= 1024)"};
    }
    if (auto problem = check_orientation(values)) return problem;
  }
  return std::nullopt;
}

}  // namespace

int run_theory_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  const po::options_description options = theory_options();
  po::variables_map values;
  try {
    po::store(po::command_line_parser(args).options(options).run(), values);
    po::notify(values);
  } catch (const po::error& e) {
    err << "error: codesim theory: " << e.what()
        << " (expected the options of codesim theory --help)\n";
    return kBadInput;
  }
  if (values["help"].as<bool>()) {
    out << options << "\n";
    return kOk;
  }
  const bool json = values["json"].as<bool>();
  const auto fail = [&err](const Problem& problem) {
    err << "error: codesim theory: " << problem.message << "\n";
    return kBadInput;
  };
  if (values.count("table")) {
    const std::string table = values["table"].as<std::string>();
    if (auto problem = check_table_options(values, table)) return fail(*problem);
    const Json report =
        table == "thresholds"
            ? thresholds_report()
            : tolerance_report(values["m"].as<int>(), values["n"].as<int>(), mirrored(values));
    if (json) {
      out << report.dump(2) << "\n";
    } else if (table == "thresholds") {
      print_thresholds(report, out);
    } else {
      print_tolerance(report, out);
    }
    return kOk;
  }
  ModelInputs inputs;
  if (auto problem = read_model_inputs(values, inputs)) return fail(*problem);
  const Json report = model_report(inputs);
  if (json) {
    out << report.dump(2) << "\n";
  } else {
    print_model(report, out);
  }
  return kOk;
}

}  // namespace codesim::app
