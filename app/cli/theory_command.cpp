// `codesim theory`: parses and checks a scheme, an MLP and the checkpoint costs, then prints the
// training-model report (theory_report.hpp); or the T1 / T3 tables (theory_tables.hpp).
#include "app/cli/theory_command.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <optional>
#include <ostream>
#include <sstream>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include <boost/program_options.hpp>

#include "app/cli/command_line.hpp"
#include "app/cli/scheme_options.hpp"
#include "app/cli/sweep_tables.hpp"
#include "app/cli/theory_report.hpp"
#include "app/cli/theory_tables.hpp"
#include "sim/enum_names.hpp"

namespace po = boost::program_options;

namespace codesim::app {
namespace {

// Defaults (the CodeNet experiment's MLP and error rate; costs in units of one iteration).
const char* const kDefaultLayers = "784,10000,10000,10";
constexpr double kDefaultIterationS = 1.0;
constexpr double kDefaultCheckpointS = 2.0;  // a verification pass (~ an iteration) and a write
constexpr double kDefaultRollbackS = 1.0;    // reloading every block

// Options of the training model, which the tables do not take.
const std::vector<std::string> kModelOptions = {
    "scheme",       "layers",         "eps",
    "iteration-s",  "checkpoint-s",   "rollback-s",
    "tau",          "error-model",    "first-layer-backward",
    "weight-fault", "fault-entries",  "fault-density",
    "iteration-J",  "checkpoint-J",   "rollback-J",
    "product-eps",  "activation-eps", "decode-eps",
    "update-eps",   "centralized"};
// The strike probabilities of the fault targets other than weights, by option.
constexpr std::array<std::pair<const char*, models::FaultTarget>, 4> kTargetEpsOptions = {{
    {"product-eps", models::FaultTarget::product},
    {"activation-eps", models::FaultTarget::activation},
    {"decode-eps", models::FaultTarget::decode},
    {"update-eps", models::FaultTarget::update},
}};
// The weight strikes' value model: only the nodes' own checks (abft) depend on it.
const std::vector<std::string> kFaultOptions = {"weight-fault", "fault-entries", "fault-density"};

// A failed check: what is wrong, with "(expected ...)".
struct Problem {
  std::string message;
};

po::options_description theory_options() {
  static const std::string caption =
      "codesim theory --scheme KIND [scheme options] [model options]\n"
      "codesim theory --table thresholds | --table tolerance --m M --n N [--orientation O]\n"
      "codesim theory --table tradeoff | tolerance_grid | conditioning | stragglers [--nodes P]\n"
      "  scheme options as codesim codes:\n" +
      scheme_usage_lines("    ") + "options";
  po::options_description options(caption);
  add_scheme_options(options);
  options.add_options()("layers", po::value<std::string>()->value_name("N0,N1,..."),
                        "MLP sizes, W_l is N_{l+1} x N_l (default 784,10000,10000,10)")(
      "eps", po::value<double>()->value_name("E"),
      "strike probability per node per operation (default 3e-4)")(
      "product-eps", po::value<double>()->value_name("E"),
      "strike probability of each partial product (default 0; with --activation-eps, "
      "--decode-eps and --update-eps: every step of the decentralized protocol)")(
      "activation-eps", po::value<double>()->value_name("E"),
      "strike probability of each node's copy of each activation or delta (default 0)")(
      "decode-eps", po::value<double>()->value_name("E"),
      "strike probability of each node's decoded vector (default 0)")(
      "update-eps", po::value<double>()->value_name("E"),
      "strike probability of each node's encoded update of each layer (default 0)")(
      "iteration-s", po::value<double>()->value_name("S"),
      "T_it, seconds per iteration (default 1)")(
      "checkpoint-s", po::value<double>()->value_name("S"),
      "T_ck, seconds per checkpoint with its verification pass (default 2)")(
      "rollback-s", po::value<double>()->value_name("S"), "T_rb, seconds per rollback (default 1)")(
      "iteration-J", po::value<double>()->value_name("J"),
      "J_it, joules per iteration: adds the expected energy per useful iteration (the same "
      "closed form in joules)")("checkpoint-J", po::value<double>()->value_name("J"),
                                "J_ck, joules per checkpoint with its verification pass "
                                "(default 0; needs --iteration-J)")(
      "rollback-J", po::value<double>()->value_name("J"),
      "J_rb, joules per rollback (default 0; needs --iteration-J)")(
      "tau", po::value<int>()->value_name("N"),
      "also evaluate this checkpoint interval (iterations)")(
      "error-model", po::value<std::string>()->value_name("MODEL"),
      "adversarial (default: t = floor((S-K)/2)) or random (t = S-K-1)")(
      "first-layer-backward", po::bool_switch(),
      "model a backward round in layer 0 too (the CodeNet experiment code; train_coded skips "
      "it)")("centralized", po::bool_switch(),
             "node 0 decodes and sends its vectors to every node: its decode strikes reach "
             "every node alike and are silent (default: every node decodes)")(
      "weight-fault", po::value<std::string>()->value_name("MODEL"),
      "abft: what a weight, product or update strike does, bitflip, sparse_additive, "
      "random_value, gaussian or stuck_at_zero, with their defaults (default "
      "sparse_additive; a struck partial is judged as one column)")(
      "fault-entries", po::value<long long>()->value_name("N"),
      "abft: entries of the checksummed block one strike changes (default: by density)")(
      "fault-density", po::value<double>()->value_name("D"),
      "abft: fraction of the checksummed block's entries one strike changes (default 0.005; "
      "bitflip strikes one entry)")(
      "table", po::value<std::string>()->value_name("NAME"),
      "thresholds (T1), tolerance (T3, with --m --n), tradeoff, tolerance_grid, conditioning or "
      "stragglers (with --nodes, default 12) instead of the training model")(
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

// T_it, T_ck and T_rb, defaulted and checked.
std::optional<Problem> read_costs(const po::variables_map& values,
                                  analysis::CheckpointCosts& costs) {
  costs.iteration_s =
      values.count("iteration-s") ? values["iteration-s"].as<double>() : kDefaultIterationS;
  costs.checkpoint_s =
      values.count("checkpoint-s") ? values["checkpoint-s"].as<double>() : kDefaultCheckpointS;
  costs.rollback_s =
      values.count("rollback-s") ? values["rollback-s"].as<double>() : kDefaultRollbackS;
  const auto seconds_problem = [](const char* name, double value, bool positive) {
    std::ostringstream message;
    message << "--" << name << " " << value << " is out of range (expected a finite number of "
            << "seconds " << (positive ? "> 0" : ">= 0") << ")";
    return Problem{message.str()};
  };
  if (!(costs.iteration_s > 0.0 && std::isfinite(costs.iteration_s))) {
    return seconds_problem("iteration-s", costs.iteration_s, true);
  }
  if (!(costs.checkpoint_s >= 0.0 && std::isfinite(costs.checkpoint_s))) {
    return seconds_problem("checkpoint-s", costs.checkpoint_s, false);
  }
  if (!(costs.rollback_s >= 0.0 && std::isfinite(costs.rollback_s))) {
    return seconds_problem("rollback-s", costs.rollback_s, false);
  }
  return std::nullopt;
}

// J_it, J_ck and J_rb: none, or --iteration-J with the others defaulting to 0.
std::optional<Problem> read_energy(const po::variables_map& values,
                                   std::optional<analysis::EnergyCosts>& energy) {
  if (!values.count("iteration-J")) {
    for (const char* name : {"checkpoint-J", "rollback-J"}) {
      if (values.count(name)) {
        return Problem{std::string("--") + name + " needs --iteration-J (expected the three " +
                       "step energies, or none)"};
      }
    }
    return std::nullopt;
  }
  analysis::EnergyCosts costs;
  costs.iteration_J = values["iteration-J"].as<double>();
  costs.checkpoint_J = values.count("checkpoint-J") ? values["checkpoint-J"].as<double>() : 0.0;
  costs.rollback_J = values.count("rollback-J") ? values["rollback-J"].as<double>() : 0.0;
  const auto joules_problem = [](const char* name, double value, bool positive) {
    std::ostringstream message;
    message << "--" << name << " " << value << " is out of range (expected a finite number of "
            << "joules " << (positive ? "> 0" : ">= 0") << ")";
    return Problem{message.str()};
  };
  if (!(costs.iteration_J > 0.0 && std::isfinite(costs.iteration_J)))
    return joules_problem("iteration-J", costs.iteration_J, true);
  if (!(costs.checkpoint_J >= 0.0 && std::isfinite(costs.checkpoint_J)))
    return joules_problem("checkpoint-J", costs.checkpoint_J, false);
  if (!(costs.rollback_J >= 0.0 && std::isfinite(costs.rollback_J)))
    return joules_problem("rollback-J", costs.rollback_J, false);
  energy = costs;
  return std::nullopt;
}

// --weight-fault, --fault-entries, --fault-density: abft only, one of entries and density.
std::optional<Problem> read_fault_model(const po::variables_map& values, TheoryInputs& in) {
  const bool given = std::any_of(kFaultOptions.begin(), kFaultOptions.end(),
                                 [&](const std::string& name) { return values.count(name) > 0; });
  if (!given) return std::nullopt;
  if (!std::holds_alternative<models::AbftSpec>(in.spec)) {
    return Problem{
        "--weight-fault, --fault-entries and --fault-density apply only to nodes that "
        "check their own blocks (expected --scheme abft)"};
  }
  models::ValueModelSpec& spec = in.options.weight_fault_model;
  if (values.count("weight-fault")) {
    const std::string name = values["weight-fault"].as<std::string>();
    const auto kind = models::parse_value_model_kind(name);
    if (!kind) {
      return Problem{"unknown value model '" + name +
                     "' (expected bitflip, sparse_additive, random_value, gaussian or "
                     "stuck_at_zero)"};
    }
    spec = models::value_model_defaults(*kind);
  }
  if (values.count("fault-entries") && values.count("fault-density")) {
    return Problem{"--fault-entries and --fault-density are both given (expected one)"};
  }
  if (values.count("fault-entries")) {
    const long long entries = values["fault-entries"].as<long long>();
    if (entries < 1) {
      return Problem{"--fault-entries " + std::to_string(entries) +
                     " is out of range (expected an integer >= 1)"};
    }
    spec.entries = entries;
  }
  if (values.count("fault-density")) {
    spec.density = values["fault-density"].as<double>();
    spec.entries = 0;
    if (!(spec.density > 0.0 && spec.density <= 1.0)) {
      std::ostringstream message;
      message << "--fault-density " << spec.density << " is out of range (expected (0, 1])";
      return Problem{message.str()};
    }
  }
  if (std::string problem = models::validate_value_model(spec); !problem.empty()) {
    return Problem{expecting("weight fault model: " + problem, "a valid value model")};
  }
  in.options.product_fault_model = spec;
  in.options.update_fault_model = spec;
  return std::nullopt;
}

// --product-eps, --activation-eps, --decode-eps, --update-eps: probabilities.
std::optional<Problem> read_target_eps(const po::variables_map& values, TheoryInputs& in) {
  for (const auto& [name, target] : kTargetEpsOptions) {
    if (!values.count(name)) continue;
    const double eps = values[name].as<double>();
    if (!(eps >= 0.0 && eps <= 1.0)) {
      std::ostringstream message;
      message << "--" << name << " " << eps
              << " is out of range (expected a probability in [0, 1])";
      return Problem{message.str()};
    }
    in.other_eps[static_cast<std::size_t>(target)] = eps;
  }
  return std::nullopt;
}

std::optional<Problem> read_model_inputs(const po::variables_map& values, TheoryInputs& in) {
  if (!values.count("scheme")) {
    return Problem{
        "--scheme is required (expected uncoded, replication, mds, gpd, codenet_grid or abft, "
        "or --table)"};
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
  if (auto problem = read_target_eps(values, in)) return problem;
  if (auto problem = read_costs(values, in.costs)) return problem;
  if (auto problem = read_energy(values, in.energy)) return problem;
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
    const auto parsed = sim::parse_name<models::ErrorModel>(model, models::kErrorModelNames);
    if (!parsed) {
      return Problem{"unknown error model '" + model + "' (expected adversarial or random)"};
    }
    in.options.error_model = *parsed;
  }
  in.options.first_layer_backward = values["first-layer-backward"].as<bool>();
  in.options.decentralized = !values["centralized"].as<bool>();
  const std::string problem = models::validate_training_theory(in.spec, in.layers);
  if (!problem.empty()) {
    return Problem{expecting(problem, "a scheme whose m, n or k divide every layer's W")};
  }
  return read_fault_model(values, in);
}

// The tables and the options each takes beyond --json.
const std::vector<std::pair<std::string, std::vector<std::string>>> kTables = {
    {"thresholds", {}},   {"tolerance", {"m", "n", "orientation"}},
    {"tradeoff", {}},     {"tolerance_grid", {}},
    {"conditioning", {}}, {"stragglers", {"nodes"}}};

std::string table_names() {
  std::string names;
  for (std::size_t i = 0; i < kTables.size(); ++i) {
    names += (i == 0 ? "" : i + 1 == kTables.size() ? " or " : ", ") + kTables[i].first;
  }
  return names;
}

std::string allowed_text(const std::vector<std::string>& allowed) {
  if (allowed.empty()) return "only --json";
  std::string text;
  for (const std::string& name : allowed) text += (text.empty() ? "--" : ", --") + name;
  return text;
}

// The tables take no training-model options, only their own (kTables).
std::optional<Problem> check_table_options(const po::variables_map& values,
                                           const std::string& table) {
  const auto entry = std::find_if(kTables.begin(), kTables.end(),
                                  [&table](const auto& t) { return t.first == table; });
  if (entry == kTables.end()) {
    return Problem{"unknown table '" + table + "' (expected " + table_names() + ")"};
  }
  const std::vector<std::string>& allowed = entry->second;
  std::vector<std::string> rejected = kModelOptions;
  for (const std::string& name : scheme_option_names()) rejected.push_back(name);
  for (const auto& name : rejected) {
    if (std::find(allowed.begin(), allowed.end(), name) != allowed.end()) continue;
    const bool given = name == "first-layer-backward" || name == "centralized"
                           ? values[name].as<bool>()
                           : values.count(name) > 0;
    if (given) {
      return Problem{"--" + name + " does not apply to --table " + table + " (expected " +
                     allowed_text(allowed) + ")"};
    }
  }
  if (table == "stragglers" && values.count("nodes")) {
    const int nodes = values["nodes"].as<int>();
    if (nodes < 1 || nodes > kMaxStragglerNodes) {
      return Problem{"--nodes " + std::to_string(nodes) + " is out of range (expected 1 to " +
                     std::to_string(kMaxStragglerNodes) + ")"};
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

// A report as JSON (--json) or text.
template <typename Report>
void print(const Report& report, bool json, std::ostream& out) {
  if (json) {
    out << to_json(report).dump(2) << "\n";
  } else {
    print_text(report, out);
  }
}

// Prints a checked table.
void print_table(const po::variables_map& values, const std::string& table, bool json,
                 std::ostream& out) {
  if (table == "thresholds") {
    print(thresholds_table(), json, out);
  } else if (table == "tolerance") {
    print(tolerance_report(values["m"].as<int>(), values["n"].as<int>(), mirrored(values)), json,
          out);
  } else if (table == "tradeoff") {
    print(tradeoff_table(), json, out);
  } else if (table == "tolerance_grid") {
    print(tolerance_grid(), json, out);
  } else if (table == "conditioning") {
    print(conditioning_table(), json, out);
  } else {
    print(straggler_table(values.count("nodes") ? values["nodes"].as<int>() : 12), json, out);
  }
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
    print_table(values, table, json, out);
    return kOk;
  }
  TheoryInputs inputs;
  if (auto problem = read_model_inputs(values, inputs)) return fail(*problem);
  print(theory_report(inputs), json, out);
  return kOk;
}

}  // namespace codesim::app
