// Every scheme descriptor walked through the three readers that build specs from it: the scenario
// reader (`strategy`), `codesim codes` and `codesim theory`. A new scheme needs an example here.
#include <doctest/doctest.h>

#include <map>
#include <string>
#include <vector>

#include "app/cli/codes_command.hpp"
#include "app/cli/theory_command.hpp"
#include "app/config/scenario_error.hpp"
#include "app/config/scenario_loader.hpp"
#include "app/exec/runner.hpp"
#include "models/coding/coding_scheme.hpp"
#include "support/cli_runner.hpp"
#include "support/experiment_error.hpp"

namespace {

using codesim::app::Json;
namespace models = codesim::models;

// A valid configuration of each scheme for a 40 x 40 x 40 x 10 MLP on 40 nodes, field values in
// descriptor order (choices as their index).
const std::map<std::string, std::vector<int>> kExamples = {
    {"uncoded", {5, 8}},
    {"replication", {5, 4, 2}},
    {"mds", {20, 2}},
    {"gpd", {2, 2, 12, 1}},
    {"codenet_grid", {5, 4, 7, 6}},
    {"abft", {5, 8}},
    {"abft_codenet", {5, 4, 7, 6}},
};

Json field_json(const models::SchemeField& field, int value) {
  if (field.choices.empty()) return value;
  return std::string(field.choices[static_cast<std::size_t>(value)]);
}

Json scenario_with(const models::SchemeDescriptor& d, const std::vector<int>& values) {
  Json strategy = {{"scheme", std::string(d.name)}};
  for (std::size_t i = 0; i < values.size(); ++i) {
    strategy[std::string(d.fields[i].key)] = field_json(d.fields[i], values[i]);
  }
  return Json{{"name", "walk"},
              {"seed", 3},
              {"replicas", 1},
              {"cluster", {{"nodes", 40}}},
              {"workload",
               {{"kind", "training"},
                {"dataset",
                 {{"kind", "synthetic"},
                  {"features", 40},
                  {"classes", 10},
                  {"samples", 100},
                  {"test_samples", 20}}},
                {"layers", {40, 40, 40, 10}},
                {"iterations", 2}}},
              {"strategy", strategy}};
}

std::vector<std::string> options_with(const models::SchemeDescriptor& d,
                                      const std::vector<int>& values) {
  std::vector<std::string> args = {"--scheme", std::string(d.name)};
  for (std::size_t i = 0; i < values.size(); ++i) {
    args.push_back("--" + std::string(d.fields[i].option));
    args.push_back(field_json(d.fields[i], values[i]).dump());
    if (!d.fields[i].choices.empty()) args.back() = field_json(d.fields[i], values[i]);
  }
  return args;
}

nlohmann::json json_of(const codesim::test::CliResult& result) {
  REQUIRE(result.code == 0);
  return nlohmann::json::parse(result.out);
}

}  // namespace

TEST_CASE("every scheme descriptor has an example and lists its kind in SchemeKind order") {
  const auto descriptors = models::scheme_descriptors();
  CHECK(descriptors.size() == kExamples.size());
  for (std::size_t i = 0; i < descriptors.size(); ++i) {
    CHECK(static_cast<std::size_t>(descriptors[i].kind) == i);
    CHECK(kExamples.count(std::string(descriptors[i].name)) == 1);
    CHECK(models::find_scheme(descriptors[i].name) == &descriptors[i]);
  }
}

TEST_CASE("the scenario reader, codes and theory build the same spec from every descriptor") {
  for (const models::SchemeDescriptor& d : models::scheme_descriptors()) {
    CAPTURE(d.name);
    const std::vector<int>& values = kExamples.at(std::string(d.name));
    const models::SchemeSpec expected = d.make(values);
    REQUIRE(models::validate_scheme(expected, 40, 40).empty());
    CHECK(models::kind_of(expected) == d.kind);
    CHECK(d.values(expected) == values);

    const auto experiment = codesim::app::make_experiment(scenario_with(d, values), "walk.json");
    const models::SchemeSpec& read =
        codesim::app::training_of(experiment.points.front().scenario.workload)->spec.scheme;
    CHECK(models::kind_of(read) == d.kind);
    CHECK(d.values(read) == values);

    const auto args = options_with(d, values);
    std::vector<std::string> codes_args = args;
    codes_args.push_back("--json");
    const auto codes =
        json_of(codesim::test::run_captured(codesim::app::run_codes_command, codes_args));
    CHECK(codes["scheme"] == std::string(d.name));
    CHECK(codes["nodes"] == models::summarize_scheme(expected).nodes);
    CHECK(codes["parameters"].size() == d.fields.size());
    std::vector<std::string> theory_args = args;
    theory_args.insert(theory_args.end(), {"--layers", "40,40,40,10", "--json"});
    const auto theory =
        json_of(codesim::test::run_captured(codesim::app::run_theory_command, theory_args));
    CHECK(theory["parameters"] == codes["parameters"]);
    CHECK(theory["nodes"] == codes["nodes"]);
  }
}

TEST_CASE("every integer field out of its range is rejected at its pointer and its option") {
  for (const models::SchemeDescriptor& d : models::scheme_descriptors()) {
    const std::vector<int>& example = kExamples.at(std::string(d.name));
    for (std::size_t i = 0; i < d.fields.size(); ++i) {
      const models::SchemeField& field = d.fields[i];
      if (!field.choices.empty()) continue;
      CAPTURE(d.name);
      CAPTURE(field.key);
      std::vector<int> values = example;
      values[i] = field.min - 1;
      const auto error = codesim::test::experiment_error(scenario_with(d, values), "walk.json");
      REQUIRE(error.has_value());
      CHECK(error->pointer() == "/strategy/" + std::string(field.key));
      const auto codes =
          codesim::test::run_captured(codesim::app::run_codes_command, options_with(d, values));
      CHECK(codes.code == 2);
      CHECK(codes.err.find(std::string(field.key) + " = " + std::to_string(field.min - 1)) !=
            std::string::npos);
    }
  }
}
