// `codesim codes`: parses one coding-scheme configuration and prints what it can tolerate.
#include "app/cli/codes_command.hpp"

#include <algorithm>
#include <cstdint>
#include <iomanip>
#include <memory>
#include <optional>
#include <ostream>
#include <sstream>
#include <variant>

#include <boost/program_options.hpp>
#include <nlohmann/json.hpp>

#include "app/cli/command_line.hpp"
#include "app/cli/local_checks_report.hpp"
#include "app/cli/scheme_options.hpp"
#include "app/config/training_sections.hpp"
#include "app/exec/preflight.hpp"
#include "models/coding/coding_scheme.hpp"
#include "models/theory/decode_trials.hpp"
#include "sim/enum_names.hpp"

namespace po = boost::program_options;

namespace codesim::app {
namespace {

constexpr int kMaxTrials = 1'000'000;

po::options_description codes_options() {
  static const std::string caption =
      "codesim codes --scheme KIND [options]\n" + scheme_usage_lines("  ") + "options";
  po::options_description options(caption);
  add_scheme_options(options);
  options.add_options()("rows", po::value<int>()->value_name("N_OUT"),
                        "rows of W: element counts instead of fractions of the product length")(
      "cols", po::value<int>()->value_name("N_IN"), "columns of W (with --rows)")(
      "trials", po::value<int>()->value_name("T"),
      "also decode T products per number of erroneous symbols e = 0 .. S - K + 1 (random-valued "
      "errors, both error models; T2), and as many with adversarial (worst-case) errors")(
      "adversarial-trials", po::value<int>()->value_name("A"),
      "with --trials: A adversarial decodes per e instead of T")(
      "seed", po::value<std::uint64_t>()->value_name("S")->default_value(1),
      "seed of the --trials data and error placement")("json", po::bool_switch(), "print JSON")(
      "help,h", po::bool_switch(), "show this help");
  return options;
}

// Empty when the options other than the scheme's are valid, else what is wrong.
std::string check_other_options(const po::variables_map& values) {
  if (values.count("rows") != values.count("cols")) return "--rows and --cols go together";
  if (values.count("trials") &&
      (values["trials"].as<int>() < 1 || values["trials"].as<int>() > kMaxTrials)) {
    return "--trials must be in 1.." + std::to_string(kMaxTrials);
  }
  if (values.count("adversarial-trials") &&
      (!values.count("trials") || values["adversarial-trials"].as<int>() < 1 ||
       values["adversarial-trials"].as<int>() > kMaxTrials)) {
    return "--adversarial-trials goes with --trials and must be in 1.." +
           std::to_string(kMaxTrials);
  }
  if (values.count("rows") && (values["rows"].as<int>() < 1 || values["cols"].as<int>() < 1)) {
    return "--rows and --cols must be at least 1";
  }
  // As a scenario's layers: larger shapes made the local checks' closed forms run for minutes.
  if (values.count("rows") &&
      (values["rows"].as<int>() > kMaxLayerSize || values["cols"].as<int>() > kMaxLayerSize)) {
    return "--rows and --cols must be at most " + std::to_string(kMaxLayerSize) +
           " (the largest layer size a scenario may give)";
  }
  return {};
}

nlohmann::ordered_json parameters_json(const po::variables_map& values,
                                       const models::SchemeSpec& spec) {
  nlohmann::ordered_json parameters = scheme_parameters_json(spec);
  if (values.count("rows")) {
    parameters["rows"] = values["rows"].as<int>();
    parameters["cols"] = values["cols"].as<int>();
  }
  return parameters;
}

template <typename Field>
nlohmann::ordered_json per_direction(const models::SchemeSummary& summary, Field field) {
  return {{"forward", field(summary.forward)}, {"backward", field(summary.backward)}};
}

nlohmann::ordered_json summary_json(const models::SchemeSummary& s,
                                    nlohmann::ordered_json parameters, bool counts) {
  using Capability = models::DirectionCapability;
  nlohmann::ordered_json out;
  out["scheme"] = s.scheme;
  out["parameters"] = std::move(parameters);
  out["nodes"] = s.nodes;
  out["recovery_threshold"] =
      per_direction(s, [](const Capability& c) { return c.recovery_threshold; });
  out["storage_fraction_per_node"] = s.storage_fraction_per_node;
  out["redundancy"] = s.redundancy;
  out["errors_correctable"] = {
      {"adversarial",
       per_direction(s, [](const Capability& c) { return c.correctable_adversarial; })},
      {"random", per_direction(s, [](const Capability& c) { return c.correctable_random; })}};
  out["errors_detectable"] = per_direction(s, [](const Capability& c) { return c.detectable; });
  out["erasures_tolerated"] =
      per_direction(s, [](const Capability& c) { return c.erasures_tolerated; });
  out["elements_sent_per_node"] =
      per_direction(s, [](const Capability& c) { return c.elements_sent_per_node; });
  out["elements_received_per_node"] =
      per_direction(s, [](const Capability& c) { return c.elements_received_per_node; });
  out["elements_unit"] = counts ? "elements (batch 1)"
                                : "multiples of the product length (N_out forward, N_in "
                                  "backward; batch 1)";
  out["errors_counted_in"] = "erroneous nodes, worst case";
  return out;
}

void print_text(const nlohmann::ordered_json& j, std::ostream& out) {
  out << "scheme: " << j["scheme"].get<std::string>();
  std::string separator = " (";
  for (const auto& [name, value] : j["parameters"].items()) {
    out << separator << name << " "
        << (value.is_string() ? value.get<std::string>() : value.dump());
    separator = ", ";
  }
  out << ")\n";
  out << "nodes: " << j["nodes"].get<int>() << "\n";
  out << "storage_fraction_per_node: " << j["storage_fraction_per_node"].get<double>() << "\n";
  out << "redundancy: " << j["redundancy"].get<double>() << "\n";
  out << std::left << std::setw(32) << "" << std::right << std::setw(10) << "forward"
      << std::setw(10) << "backward"
      << "\n";
  const auto row = [&](const std::string& label, const nlohmann::ordered_json& pair) {
    out << std::left << std::setw(32) << label << std::right;
    for (const char* dir : {"forward", "backward"}) {
      std::ostringstream cell;
      cell << pair[dir].get<double>();
      out << std::setw(10) << cell.str();
    }
    out << "\n";
  };
  row("recovery_threshold", j["recovery_threshold"]);
  row("errors_correctable.adversarial", j["errors_correctable"]["adversarial"]);
  row("errors_correctable.random", j["errors_correctable"]["random"]);
  row("errors_detectable", j["errors_detectable"]);
  row("erasures_tolerated", j["erasures_tolerated"]);
  row("elements_sent_per_node", j["elements_sent_per_node"]);
  row("elements_received_per_node", j["elements_received_per_node"]);
  out << "errors and erasures: " << j["errors_counted_in"].get<std::string>() << "\n";
  out << "elements: " << j["elements_unit"].get<std::string>() << "\n";
}

// One JSON row per error count.
nlohmann::ordered_json trial_rows(const std::vector<models::DecodeTrialCounts>& counts) {
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  for (const models::DecodeTrialCounts& c : counts) {
    rows.push_back({{"errors", c.errors},
                    {"exact", c.exact},
                    {"detected", c.detected},
                    {"wrong", c.wrong},
                    {"success_rate", static_cast<double>(c.exact) / c.trials},
                    {"worst_relative_error", c.worst_relative_error}});
  }
  return rows;
}

// T2: decode outcomes versus the number of erroneous symbols, per direction and error model.
// by_model holds random-valued errors under each decoder error model; adversarial_values the
// worst-case errors (adversarial_errors) under the adversarial decoder model, whose promise they
// test: exact up to `corrects`, detected up to `detects`, fooled only beyond.
nlohmann::ordered_json trials_json(const models::SchemeSpec& spec, const models::SchemeSummary& s,
                                   int trials, int adversarial_trials, std::uint64_t seed) {
  const std::unique_ptr<models::CodingScheme> shape = models::make_trial_scheme(spec);
  nlohmann::ordered_json out;
  out["trials"] = trials;
  out["seed"] = seed;
  out["errors"] = "random-valued (Gaussian noise times the symbol's peak on every entry)";
  out["exact_relative_error"] = models::kExactRelativeError;
  out["adversarial_trials"] = adversarial_trials;
  out["adversarial_errors"] =
      "worst-case: -delta_s V on e symbols of a codeword direction delta of minimum weight "
      "S - K + 1, one V for all (repetition schemes: e copies of one block agree on a wrong "
      "value); decoded with the adversarial error model";
  for (const models::Direction dir : {models::Direction::forward, models::Direction::backward}) {
    const bool forward = dir == models::Direction::forward;
    const int symbols = shape->symbol_count(dir);
    const int threshold = (forward ? s.forward : s.backward).recovery_threshold;
    const int max_errors = std::min(symbols, std::max(0, symbols - threshold + 1));
    nlohmann::ordered_json models_json;
    for (const models::ErrorModel model :
         {models::ErrorModel::adversarial, models::ErrorModel::random}) {
      models::DecodeOptions options;
      options.error_model = model;
      models_json[std::string(sim::name_of(model, models::kErrorModelNames))] =
          trial_rows(models::run_decode_trials(spec, dir, options, trials, max_errors, seed));
    }
    out[forward ? "forward" : "backward"] = {{"symbols", symbols}, {"by_model", models_json}};
    // A decoder correcting t of r = S - K checks detects r - t: one more codeword lies d - e =
    // r + 1 - e from the received word, within t once e > r - t.
    const int checks = std::max(0, symbols - threshold);
    const models::DecodeOptions options;  // the adversarial decoder model
    out[forward ? "forward" : "backward"]["adversarial_values"] = {
        {"corrects", checks / 2},
        {"detects", checks - checks / 2},
        {"rows",
         trial_rows(models::run_decode_trials(spec, dir, options, adversarial_trials, max_errors,
                                              seed, models::ErrorValues::adversarial))}};
  }
  return out;
}

void print_trials(const nlohmann::ordered_json& j, std::ostream& out) {
  out << "decode trials (T2): " << j["trials"].get<int>() << " per row, "
      << j["errors"].get<std::string>() << "; exact = within "
      << j["exact_relative_error"].get<double>() << " relative\n";
  out << "worst-case rows: " << j["adversarial_trials"].get<int>() << " per row, "
      << j["adversarial_errors"].get<std::string>() << "\n";
  const auto print_rows = [&out](const std::string& model, const nlohmann::ordered_json& rows) {
    for (const auto& row : rows) {
      out << "  " << std::left << std::setw(12) << model << std::right << std::setw(7)
          << row["errors"].get<int>() << std::setw(8) << row["exact"].get<int>() << std::setw(10)
          << row["detected"].get<int>() << std::setw(7) << row["wrong"].get<int>() << std::setw(17)
          << row["worst_relative_error"].get<double>() << "\n";
    }
  };
  for (const char* dir : {"forward", "backward"}) {
    out << dir << " (" << j[dir]["symbols"].get<int>() << " symbols)\n";
    out << "  model        errors   exact  detected  wrong  worst_rel_error\n";
    for (const auto& [model, rows] : j[dir]["by_model"].items()) print_rows(model, rows);
    print_rows("worst-case", j[dir]["adversarial_values"]["rows"]);
  }
}

// Operations per second the trials' cost is quoted at: about what one thread of a small machine
// does on the least-squares solves and the search (a round figure, not a measurement).
constexpr double kTrialOperationsPerS = 1e9;
// Trials whose ceiling stays under this many seconds start without a word.
constexpr double kQuietTrialsS = 30.0;

// Empty when the trials fit in memory, else what is wrong; says on `err` what long trials may
// cost before they start (Ctrl-C stops them: nothing is printed before they end).
std::string preflight_trials(const models::SchemeSpec& spec, const models::SchemeSummary& summary,
                             int trials, int adversarial_trials, std::ostream& err) {
  const models::DecodeTrialsCost cost =
      models::decode_trials_cost(spec, summary, trials, adversarial_trials);
  const std::optional<double> available = available_memory_bytes();
  if (available && cost.bytes > *available) {
    std::ostringstream problem;
    problem << "--trials on this scheme needs about " << cost.bytes / (1 << 30)
            << " GiB for its trial matrices, more than the " << *available / (1 << 30)
            << " GiB available (expected a scheme with fewer or smaller blocks)";
    return problem.str();
  }
  const double ceiling_s = cost.operations / kTrialOperationsPerS;
  if (ceiling_s > kQuietTrialsS) {
    err << "codesim codes: " << cost.decodes << " decodes; with the full search bound in each "
        << "they would take " << describe_duration(ceiling_s) << " at " << kTrialOperationsPerS
        << " operations per second (most searches end sooner; Ctrl-C stops them)\n";
  }
  return {};
}

}  // namespace

int run_codes_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  const po::options_description options = codes_options();
  po::variables_map values;
  try {
    po::store(po::command_line_parser(args).options(options).run(), values);
    po::notify(values);
  } catch (const po::error& e) {
    err << "error: codesim codes: " << e.what() << " (see codesim codes --help)\n";
    return kBadInput;
  }
  if (values["help"].as<bool>()) {
    out << options << "\n";
    return kOk;
  }
  if (!values.count("scheme")) {
    err << "error: codesim codes: --scheme is required (expected " << models::scheme_names_list()
        << ")\n";
    return kBadInput;
  }
  std::variant<models::SchemeSpec, std::string> read = read_scheme_options(values);
  std::string problem = read.index() == 1 ? std::get<std::string>(read) : std::string();
  if (problem.empty()) problem = check_other_options(values);
  const int rows = values.count("rows") ? values["rows"].as<int>() : 0;
  const int cols = values.count("cols") ? values["cols"].as<int>() : 0;
  if (problem.empty()) {
    problem = models::validate_scheme(std::get<models::SchemeSpec>(read), rows, cols).message;
  }
  if (!problem.empty()) {
    err << "error: codesim codes: " << problem << "\n";
    return kBadInput;
  }
  const models::SchemeSpec& spec = std::get<models::SchemeSpec>(read);
  const models::SchemeSummary summary = models::summarize_scheme(spec, rows, cols);
  nlohmann::ordered_json report = summary_json(summary, parameters_json(values, spec), rows > 0);
  if (models::checks_at_nodes(spec)) report["local_checks"] = local_checks_json(spec, rows, cols);
  if (values.count("trials")) {
    const int trials = values["trials"].as<int>();
    const int adversarial_trials =
        values.count("adversarial-trials") ? values["adversarial-trials"].as<int>() : trials;
    problem = preflight_trials(spec, summary, trials, adversarial_trials, err);
    if (!problem.empty()) {
      err << "error: codesim codes: " << problem << "\n";
      return kBadInput;
    }
    report["decode_trials"] =
        trials_json(spec, summary, trials, adversarial_trials, values["seed"].as<std::uint64_t>());
  }
  if (values["json"].as<bool>()) {
    out << report.dump(2) << "\n";
  } else {
    print_text(report, out);
    if (report.contains("local_checks")) print_local_checks(report["local_checks"], out);
    if (report.contains("decode_trials")) print_trials(report["decode_trials"], out);
  }
  return kOk;
}

}  // namespace codesim::app
