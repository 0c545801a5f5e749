// Training scenarios in stochastic mode: read without data, run through the CLI, refused at the
// key of what the mode does not model, and estimated by the preflight without memory.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "app/config/scenario_error.hpp"
#include "app/config/scenario_loader.hpp"
#include "app/exec/preflight.hpp"
#include "app/exec/runner.hpp"
#include "support/cli_runner.hpp"
#include "support/experiment_error.hpp"
#include "support/temp_directory.hpp"

using codesim::app::Json;
using codesim::test::cli;
using codesim::test::CliResult;
using codesim::test::read_file;
using codesim::test::TempDirectory;
namespace fs = std::filesystem;

namespace {

/// CodeNet 7x6 (5, 4) in stochastic mode on the paper's layer sizes: no dataset section.
Json stochastic_scenario() {
  return Json::parse(R"({
    "name": "stochastic",
    "seed": 3,
    "replicas": 2,
    "cluster": {"nodes": 40},
    "checkpoint": {"policy": "every_iterations", "every_iterations": 5, "write_s": 0.001},
    "workload": {"kind": "training", "mode": "stochastic", "layers": [784, 10000, 10000, 10],
                 "iterations": 400},
    "strategy": {"scheme": "codenet_grid", "m": 5, "n": 4, "grid_rows": 7, "grid_cols": 6},
    "faults": {"targets": {"weights": {"probability_per_operation": 0.003}}}
  })");
}

Json with(const std::string& assignment, Json document = stochastic_scenario()) {
  codesim::app::apply_set(document, assignment, "s.json");
  return document;
}

std::string error_of(const Json& document) {
  const auto error = codesim::test::experiment_error(document, "s.json");
  return error ? error->pointer() + " | " + error->what() : "(no error)";
}

std::string pointer_of_error(const Json& document) {
  return codesim::test::experiment_error_pointer(document, "s.json");
}

}  // namespace

TEST_CASE("a stochastic training scenario needs no dataset and records its mode") {
  const codesim::app::Scenario s = codesim::app::load_scenario(stochastic_scenario(), "s.json");
  CHECK(std::get<codesim::app::TrainingWorkload>(s.workload).spec.mode ==
        codesim::models::TrainingMode::stochastic);
  CHECK(s.resolved["workload"]["mode"] == "stochastic");
  CHECK(!s.resolved["workload"].contains("dataset"));
  Json numeric = stochastic_scenario();
  numeric["workload"].erase("mode");
  const codesim::app::Scenario n = codesim::app::load_scenario(numeric, "s.json");
  CHECK(n.resolved["workload"]["mode"] == "numeric");
  CHECK(n.resolved["workload"].contains("dataset"));
  CHECK(pointer_of_error(with("/workload/mode=symbolic")) == "/workload/mode");
}

TEST_CASE("a stochastic run through the CLI writes counts and a table without accuracy") {
  TempDirectory dir;
  const fs::path scenario = dir / "s.json";
  std::ofstream(scenario) << stochastic_scenario().dump(2);
  const fs::path output = dir / "out.json";
  const CliResult r = cli({"run", scenario.string(), "-o", output.string()});
  INFO(r.err);
  REQUIRE(r.code == 0);
  CHECK(r.out.find("stochastic mode (no data)") != std::string::npos);
  // The table's row: strategy, nodes, then a dash for the accuracy stochastic mode lacks.
  std::istringstream table(r.out.substr(r.out.find("\ncodenet_grid") + 1));
  std::string strategy, nodes, accuracy;
  table >> strategy >> nodes >> accuracy;
  CHECK(nodes == "38");
  CHECK(accuracy == "-");
  const Json results = Json::parse(read_file(output));
  const Json& replica = results["points"][0]["replicas"][0];
  CHECK(replica["iterations"] == 400);
  CHECK(replica["node_operations"].get<double>() > 400 * 182);
  CHECK(replica["corrected"].get<double>() > 0);
  CHECK(!replica.contains("final_test_accuracy"));
  CHECK(!replica.contains("accuracy_vs_time"));
  // The same scenario gives the same bytes on two threads.
  const fs::path second = dir / "out2.json";
  REQUIRE(cli({"run", scenario.string(), "-o", second.string(), "-q", "--jobs", "2"}).code == 0);
  CHECK(read_file(output) == read_file(second));
}

TEST_CASE("what stochastic mode does not model is an error at its key") {
  CHECK(pointer_of_error(stochastic_scenario()) == "(no error)");
  CHECK(pointer_of_error(with("/faults/replay=log.json")) == "/faults/replay");
  CHECK(pointer_of_error(with("/faults/log_file=f.json")) == "/faults/log_file");
  CHECK(pointer_of_error(with("/workload/audit=true")) == "/workload/audit");
  CHECK(pointer_of_error(with("/workload/record_loss=true")) == "/workload/record_loss");
  CHECK(pointer_of_error(with("/workload/eval_cost_s=0.5")) == "/workload/eval_cost_s");
  CHECK(error_of(with("/workload/audit=true")).find("the audit needs the arithmetic") !=
        std::string::npos);
  // Crashes (cluster-wide or a node's), every fault target, overrides and stragglers are
  // modelled.
  CHECK(pointer_of_error(with("/faults/targets/activation/probability_per_operation=0.001")) ==
        "(no error)");
  CHECK(pointer_of_error(with("/faults/targets/decode/rate_per_flop=1e-12")) == "(no error)");
  CHECK(
      pointer_of_error(with(
          R"(/faults/overrides=[{"nodes": [1], "targets": {"weights": {}, "update": {"probability_per_operation": 0.1}}}])")) ==
      "(no error)");
  CHECK(pointer_of_error(with("/cluster/crashes/mtbf_s=1000")) == "(no error)");
  CHECK(pointer_of_error(with(
            R"(/cluster/overrides=[{"nodes": [4], "crashes": {"mtbf_s": 50}}])")) == "(no error)");
  CHECK(pointer_of_error(with("/faults/targets/product/probability_per_operation=0.001")) ==
        "(no error)");
  CHECK(pointer_of_error(with(R"(/cluster/stragglers={"kind": "pareto"})")) == "(no error)");
  // Failure domains too (the numeric mode's crash process: stochastic_crashes.hpp).
  CHECK(
      pointer_of_error(with(
          R"(/cluster/domains=[{"group_size": 2, "failure": {"law": "exponential", "mean_s": 9}}])")) ==
      "(no error)");
  // A numeric scenario keeps every feature.
  Json numeric = with("/cluster/crashes/mtbf_s=1000");
  numeric["workload"]["mode"] = "numeric";
  CHECK(pointer_of_error(numeric) == "(no error)");
}

TEST_CASE("an unmodelled feature exits with 2 and one error line naming the key") {
  TempDirectory dir;
  const fs::path scenario = dir / "s.json";
  std::ofstream(scenario) << with("/workload/audit=true").dump(2);
  const CliResult r = cli({"run", scenario.string(), "-o", (dir / "out.json").string()});
  CHECK(r.code == 2);
  CHECK(r.err.find("error: " + scenario.string() + ": /workload/audit: ") == 0);
  CHECK(r.err.find("(expected ") != std::string::npos);
  CHECK(!fs::exists(dir / "out.json"));
}

TEST_CASE("the preflight estimates stochastic runs without blocks or data") {
  const codesim::app::Experiment e = codesim::app::make_experiment(stochastic_scenario(), "s.json");
  const codesim::app::PreflightEstimate estimate = codesim::app::estimate_run(e, 2);
  CHECK(estimate.memory_bytes == 0.0);
  CHECK(estimate.blocks_bytes == 0.0);
  CHECK(estimate.dataset_bytes == 0.0);
  // Per iteration 38 nodes x (3 forward + 2 backward + 1 update) plus a verification pass of 6
  // rounds every 5 iterations; 400 iterations, 2 replicas.
  CHECK(estimate.node_operations == doctest::Approx(38.0 * (6 + 6.0 / 5) * 400 * 2));
  CHECK(estimate.flops ==
        doctest::Approx(estimate.node_operations * codesim::app::kFlopsPerNodeOperation));
}
