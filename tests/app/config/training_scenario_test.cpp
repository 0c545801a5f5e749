// Training scenarios end to end: the training, strategy and faults sections, their errors, runs
// through the CLI, fault-log replay and thread-count independence.
#include <doctest/doctest.h>

#include <algorithm>

#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "app/config/scenario_error.hpp"
#include "app/config/scenario_loader.hpp"
#include "app/config/training_sections.hpp"
#include "app/exec/runner.hpp"
#include "support/cli_runner.hpp"
#include "support/experiment_error.hpp"
#include "support/json_keys.hpp"
#include "support/temp_directory.hpp"

using codesim::app::Json;
using codesim::app::load_scenario;
using codesim::app::Scenario;
using codesim::test::cli;
using codesim::test::CliResult;
using codesim::test::read_file;
using codesim::test::TempDirectory;
namespace fs = std::filesystem;

using codesim::test::collect_keys;

namespace {

/// A training scenario on synthetic data that runs in well under a second.
Json training_scenario() {
  return Json::parse(R"({
    "name": "tiny",
    "seed": 5,
    "replicas": 2,
    "cluster": {"nodes": 8},
    "checkpoint": {"policy": "every_iterations", "every_iterations": 10, "write_s": 0.01,
                   "restart_s": 0.02},
    "workload": {"kind": "training",
                 "dataset": {"kind": "synthetic", "features": 12, "classes": 3, "samples": 300,
                             "test_samples": 60},
                 "layers": [12, 8, 3], "learning_rate": 0.05, "iterations": 60, "eval_every": 20},
    "strategy": {"scheme": "replication", "m": 1, "n": 2, "copies": 3},
    "faults": {"targets": {"weights": {"probability_per_operation": 0.01}}}
  })");
}

std::string error_of(const Json& document) {
  return codesim::test::experiment_error_message(document, "t.json");
}

std::string pointer_of_error(const Json& document) {
  return codesim::test::experiment_error_pointer(document, "t.json");
}

Json with(const std::string& assignment, Json document = training_scenario()) {
  codesim::app::apply_set(document, assignment, "t.json");
  return document;
}

fs::path write_json(const fs::path& path, const Json& document) {
  std::ofstream(path) << document.dump(2);
  return path;
}

}  // namespace

TEST_CASE("a training scenario is read with every default resolved") {
  const Scenario s = load_scenario(training_scenario(), "t.json");
  CHECK(codesim::app::training_of(s.workload) != nullptr);
  const auto& spec = std::get<codesim::app::TrainingWorkload>(s.workload).spec;
  CHECK(spec.mlp.layer_sizes == std::vector<int>{12, 8, 3});
  CHECK(spec.iterations == 60);
  REQUIRE(std::holds_alternative<codesim::models::ReplicationSpec>(spec.scheme));
  CHECK(std::get<codesim::models::ReplicationSpec>(spec.scheme).copies == 3);
  CHECK(std::get<codesim::app::TrainingWorkload>(s.workload).dataset.kind ==
        codesim::models::DatasetKind::synthetic);
  CHECK(s.resolved["workload"]["wait_for"] == "all");
  CHECK(s.resolved["workload"]["decode"]["error_model"] == "adversarial");
  CHECK(s.resolved["strategy"]["copies"] == 3);
  const Json& weights = s.resolved["faults"]["targets"]["weights"];
  CHECK(weights["probability_per_operation"] == 0.01);
  CHECK(weights["value_model"]["kind"] == "sparse_additive");
  CHECK(s.resolved["faults"]["targets"]["product"]["probability_per_operation"] == 0.0);
}

TEST_CASE("every activation's name round-trips through the reader and the resolved scenario") {
  using codesim::app::TrainingWorkload;
  using codesim::models::Activation;
  using codesim::models::kActivationNames;
  for (std::size_t i = 0; i < kActivationNames.size(); ++i) {
    const std::string name(kActivationNames[i]);
    CAPTURE(name);
    const Scenario s = load_scenario(with("/workload/hidden_activation=" + name), "t.json");
    const Activation read = std::get<TrainingWorkload>(s.workload).spec.mlp.hidden_activation;
    CHECK(read == static_cast<Activation>(i));
    CHECK(kActivationNames[static_cast<std::size_t>(read)] == name);
    // The resolved scenario, which every results file holds, names it and reads back the same.
    CHECK(s.resolved["workload"]["hidden_activation"] == name);
    const Scenario again = load_scenario(s.resolved, "t.json");
    CHECK(std::get<TrainingWorkload>(again.workload).spec.mlp.hidden_activation == read);
  }
  CHECK(
      error_of(with("/workload/hidden_activation=tanh")).find("(expected one of: relu, sigmoid)") !=
      std::string::npos);
}

TEST_CASE("the faults section defaults to the CodeNet experiment's error model") {
  Json document = training_scenario();
  document.erase("faults");
  const Scenario s = load_scenario(document, "t.json");
  const auto& weights = std::get<codesim::app::TrainingWorkload>(s.workload)
                            .faults[codesim::models::FaultTarget::weights];
  CHECK(weights.rate.probability_per_operation == 3e-4);
  CHECK(weights.model.density == 0.005);
  CHECK(weights.model.magnitude == 5.0);
}

TEST_CASE("a target's value model and a per-node override are read") {
  Json document = with(
      R"(/faults/targets/product={"rate_per_flop": 1e-9, "value_model": {"kind": "bitflip", "field": "exponent"}})");
  document = with(
      R"(/faults/overrides=[{"nodes": [2, 5], "targets": {"weights": {"probability_per_operation": 0.5}}}])",
      document);
  const Scenario s = load_scenario(document, "t.json");
  const auto& faults = std::get<codesim::app::TrainingWorkload>(s.workload).faults;
  const auto& product = faults[codesim::models::FaultTarget::product];
  CHECK(product.model.kind == codesim::models::ValueModelKind::bitflip);
  CHECK(product.model.field == codesim::models::BitField::exponent);
  CHECK(product.model.entries == 1);
  REQUIRE(faults.overrides.size() == 1);
  CHECK(faults.overrides[0].nodes == std::vector<int>{2, 5});
  CHECK(faults.overrides[0].rate.probability_per_operation == 0.5);
}

TEST_CASE("faults.off_before_first_checkpoint applies to the schemes it lists, and only to them") {
  const auto flag = [](const Json& document) {
    const Scenario s = load_scenario(document, "t.json");
    return std::get<codesim::app::TrainingWorkload>(s.workload).faults.off_before_first_checkpoint;
  };
  CHECK_FALSE(flag(training_scenario()));
  CHECK(flag(with(R"(/faults/off_before_first_checkpoint=["replication"])")));
  CHECK_FALSE(flag(with(R"(/faults/off_before_first_checkpoint=["codenet_grid", "mds"])")));
  const Scenario s =
      load_scenario(with(R"(/faults/off_before_first_checkpoint=["replication"])"), "t.json");
  CHECK(s.resolved["faults"]["off_before_first_checkpoint"] == Json::parse(R"(["replication"])"));
  CHECK(error_of(with("/faults/off_before_first_checkpoint=\"replication\"")) ==
        "t.json: /faults/off_before_first_checkpoint: wrong type: got string \"replication\" "
        "(expected a list "
        "of scheme names out of uncoded, replication, mds, gpd, codenet_grid, abft or "
        "abft_codenet, e.g. [\"replication\"])");
  CHECK(
      pointer_of_error(with(R"(/faults/off_before_first_checkpoint=["replication", "copies"])")) ==
      "/faults/off_before_first_checkpoint/1");
  CHECK(error_of(with(R"(/faults/off_before_first_checkpoint=["mds", "mds"])"))
            .find("repeats \"mds\"") != std::string::npos);
}

TEST_CASE("bad training scenarios are errors at the right pointer") {
  CHECK(pointer_of_error(with("/strategy/m=3")) == "/strategy/m");
  CHECK(error_of(with("/strategy/m=3")).find("layer 0 (8 x 12)") != std::string::npos);
  CHECK(error_of(with("/strategy/copies=5")).find("needs 10 nodes but the cluster has 8") !=
        std::string::npos);
  CHECK(pointer_of_error(with("/strategy/scheme=gdp")) == "/strategy/scheme");
  CHECK(pointer_of_error(with("/strategy/grid_rows=3")) == "/strategy/grid_rows");
  CHECK(pointer_of_error(with("/workload/layers=[12]")) == "/workload/layers");
  CHECK(pointer_of_error(with("/workload/layers/1=0")) == "/workload/layers/1");
  CHECK(pointer_of_error(with("/workload/layers/1=2.5")) == "/workload/layers/1");
  CHECK(pointer_of_error(with("/workload/dataset/kind=cifar")) == "/workload/dataset/kind");
  CHECK(pointer_of_error(with("/workload/dataset/images=x")) == "/workload/dataset/images");
  CHECK(pointer_of_error(with(R"(/workload/dataset={"kind": "idx", "labels": "l"})")) ==
        "/workload/dataset/images");
  CHECK(pointer_of_error(with("/workload/wait_for=some")) == "/workload/wait_for");
  CHECK(pointer_of_error(with("/faults/targets/weight={}")) == "/faults/targets/weight");
  CHECK(pointer_of_error(with("/faults/targets/weights/probability_per_operation=2")) ==
        "/faults/targets/weights/probability_per_operation");
  CHECK(pointer_of_error(with("/faults/value_model/magnitude=-1")) ==
        "/faults/value_model/magnitude");
  CHECK(pointer_of_error(with(R"(/faults/value_model={"kind": "bitflip", "magnitude": 1})")) ==
        "/faults/value_model/magnitude");
  CHECK(pointer_of_error(with(R"(/faults/overrides=[{"nodes": [9], "targets": {}}])")) ==
        "/faults/overrides/0/nodes/0");
  CHECK(pointer_of_error(with("/cluster/soft_errors/probability_per_operation=0.1")) ==
        "/cluster/soft_errors");
  CHECK(pointer_of_error(with("/faults/log_file=f.json")) == "/faults/log_file");
}

TEST_CASE("an unknown placeholder in faults.log_file is an error listing the known ones") {
  CHECK(error_of(with("/faults/log_file=log.{run}.{replica}.json")) ==
        "t.json: /faults/log_file: unknown placeholder \"{run}\" in \"log.{run}.{replica}.json\" "
        "(expected only {name}, {point} and {replica})");
  CHECK(error_of(with("/faults/log_file=log.{replica.json")).find("unknown placeholder \"{\"") !=
        std::string::npos);
  CHECK(error_of(with("/faults/log_file={name}/{point}.{replica}.json")).empty());
  CHECK(codesim::app::fault_log_path("{name}/p{point}/r{replica}.{replica}.json", "run", 2, 7) ==
        "run/p2/r7.7.json");
}

TEST_CASE(
    "the synthetic dataset's defaults fit together and test_samples must leave training data") {
  Json document = training_scenario();
  document["workload"]["dataset"] = {{"kind", "synthetic"}, {"features", 12}, {"classes", 3}};
  const Scenario defaults = load_scenario(document, "t.json");
  const auto& dataset = std::get<codesim::app::TrainingWorkload>(defaults.workload).dataset;
  CHECK(dataset.synthetic.samples == 1000);
  CHECK(dataset.test_samples == 200);  // a fifth of the samples
  CHECK(defaults.resolved["workload"]["dataset"]["test_samples"] == 200);
  // validate runs what run runs before simulating: the defaults load.
  TempDirectory dir;
  const fs::path scenario = write_json(dir / "defaults.json", document);
  const CliResult r = cli({"validate", scenario.string()});
  INFO(r.err);
  CHECK(r.code == 0);
  CHECK(error_of(with("/workload/dataset/test_samples=300")) ==
        "t.json: /workload/dataset/test_samples: value 300 leaves no training sample of the 300 "
        "generated (expected fewer than samples)");
}

TEST_CASE("strategy and faults belong to training workloads only") {
  Json document = training_scenario();
  document["workload"] = {{"kind", "iterative_job"}};
  CHECK(pointer_of_error(document) == "/strategy");
  document.erase("strategy");
  CHECK(pointer_of_error(document) == "/faults");
}

TEST_CASE("every training key is documented in scenarios/README.md") {
  const std::string readme = read_file(fs::path(CODESIM_SOURCE_DIR) / "scenarios" / "README.md");
  REQUIRE(!readme.empty());
  const std::vector<std::string> variants = {
      "/strategy={\"scheme\": \"gpd\", \"m\": 1, \"n\": 1, \"nodes\": 4}",
      "/strategy={\"scheme\": \"mds\", \"k\": 1, \"nodes\": 3}",
      "/strategy={\"scheme\": \"codenet_grid\", \"m\": 1, \"n\": 1, \"grid_rows\": 2, "
      "\"grid_cols\": 2}",
      "/faults/value_model={\"kind\": \"bitflip\"}",
      "/faults/value_model={\"kind\": \"random_value\"}",
      "/faults/value_model={\"kind\": \"gaussian\"}",
      "/faults/overrides=[{\"nodes\": [1], \"targets\": {\"weights\": {}}}]",
      "/workload/dataset={\"kind\": \"mnist\"}",
      "/workload/dataset={\"kind\": \"idx\", \"images\": \"i\", \"labels\": \"l\"}",
  };
  std::set<std::string> keys;
  collect_keys(load_scenario(training_scenario(), "t.json").resolved, keys);
  for (const auto& variant : variants)
    collect_keys(load_scenario(with(variant), "t.json").resolved, keys);
  // A network instead of the MLP's layers, with every layer kind.
  Json network = with(R"(/workload/network={"input": {"channels": 2, "height": 2, "width": 2},
      "layers": [{"kind": "conv2d", "channels": 2, "kernel": 1}, {"kind": "relu"},
                 {"kind": "max_pool", "kernel": 1}, {"kind": "avg_pool", "kernel": 1},
                 {"kind": "flatten"}, {"kind": "dense", "units": 3}]})");
  network["workload"].erase("layers");
  collect_keys(load_scenario(network, "t.json").resolved, keys);
  CHECK(keys.size() > 60);
  for (const auto& key : keys) {
    INFO("undocumented key: " << key);
    CHECK(readme.find("`" + key + "`") != std::string::npos);
  }
}

TEST_CASE("a training run through the CLI writes accuracy traces and a summary table") {
  TempDirectory dir;
  const fs::path scenario = write_json(dir / "tiny.json", training_scenario());
  const fs::path output = dir / "out.json";
  const CliResult r = cli({"run", scenario.string(), "-o", output.string()});
  INFO(r.err);
  REQUIRE(r.code == 0);
  CHECK(r.out.find("final accuracy (%)") != std::string::npos);
  CHECK(r.out.find("replication") != std::string::npos);
  const Json results = Json::parse(read_file(output));
  const Json& replica = results["points"][0]["replicas"][1];
  CHECK(replica["replica"] == 1);
  CHECK(replica["iterations"] == 60);
  CHECK(replica["faults_injected"].get<double>() > 0);
  CHECK(replica["accuracy_vs_time"]["columns"][0] == "time_s");
  CHECK(replica["accuracy_vs_time"]["rows"].size() == 4);  // 0, 20, 40, 60
  CHECK(results["points"][0]["aggregate"]["final_test_accuracy"]["n"] == 2);
}

TEST_CASE("a missing dataset exits with 2 at the dataset pointer and writes nothing") {
  TempDirectory dir;
  const fs::path scenario = write_json(
      dir / "missing.json", with("/workload/dataset={\"kind\": \"mnist\", \"directory\": \"" +
                                     (dir / "none").string() + "\"}",
                                 with("/workload/layers=[784, 8, 10]")));
  const fs::path output = dir / "out.json";
  const CliResult r = cli({"run", scenario.string(), "-o", output.string()});
  CHECK(r.code == 2);
  CHECK(r.err.starts_with("error: " + scenario.string() + ": /workload/dataset: MNIST file"));
  CHECK(r.err.find("scripts/setup --data") != std::string::npos);
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  CHECK(!fs::exists(output));
}

TEST_CASE("layers that do not fit the data are an error at /workload/layers") {
  TempDirectory dir;
  const fs::path scenario =
      write_json(dir / "t.json", with("/workload/layers=[10, 8, 3]", with("/strategy/n=1")));
  const CliResult r = cli({"run", scenario.string(), "-o", (dir / "o.json").string()});
  CHECK(r.code == 2);
  CHECK(r.err.find("/workload/layers: the input layer has 10 units but the data has 12") !=
        std::string::npos);
}

TEST_CASE("replaying a recorded fault log reproduces the run byte for byte") {
  TempDirectory dir;
  Json document = training_scenario();
  document["replicas"] = 3;
  document["faults"]["log_file"] = (dir / "log.{replica}.json").string();
  const fs::path recorded = dir / "recorded.json";
  REQUIRE(
      cli({"run", write_json(dir / "rec.json", document).string(), "-o", recorded.string(), "-q"})
          .code == 0);
  const Json recorded_results = Json::parse(read_file(recorded));
  const std::string log_text = read_file(dir / "log.2.json");
  REQUIRE(Json::parse(log_text)["records"].size() > 0);

  document["faults"].erase("log_file");
  document["faults"]["replay"] = (dir / "log.2.json").string();
  document["faults"]["log_file"] = (dir / "again.json").string();
  const fs::path replayed = dir / "replayed.json";
  const CliResult r =
      cli({"run", write_json(dir / "rep.json", document).string(), "-o", replayed.string(), "-q"});
  INFO(r.err);
  REQUIRE(r.code == 0);
  const Json replayed_results = Json::parse(read_file(replayed));
  REQUIRE(replayed_results["points"][0]["replicas"].size() == 1);
  CHECK(replayed_results["points"][0]["replicas"][0].dump() ==
        recorded_results["points"][0]["replicas"][2].dump());
  CHECK(read_file(dir / "again.json") == log_text);

  // The same log under another seed is refused before anything runs.
  const CliResult wrong_seed =
      cli({"run", (dir / "rep.json").string(), "-o", (dir / "x.json").string(), "--seed", "6"});
  CHECK(wrong_seed.code == 2);
  CHECK(wrong_seed.err.find("/faults/replay: the log was recorded with seed 5") !=
        std::string::npos);
  CHECK(!fs::exists(dir / "x.json"));
}

TEST_CASE("a tampered fault log stops the replay with an error at the log's pointer") {
  TempDirectory dir;
  Json document = training_scenario();
  document["replicas"] = 1;
  document["faults"]["log_file"] = (dir / "log.json").string();
  REQUIRE(cli({"run", write_json(dir / "rec.json", document).string(), "-o",
               (dir / "r.json").string(), "-q"})
              .code == 0);
  Json log = Json::parse(read_file(dir / "log.json"));
  REQUIRE(log["records"].size() > 0);
  log["records"][0]["node"] = log["records"][0]["node"].get<int>() == 0 ? 1 : 0;
  write_json(dir / "bad.json", log);
  document["faults"].erase("log_file");
  document["faults"]["replay"] = (dir / "bad.json").string();
  const CliResult r = cli(
      {"run", write_json(dir / "rep.json", document).string(), "-o", (dir / "o.json").string()});
  CHECK(r.code == 2);
  CHECK(r.err.starts_with("error: " + (dir / "bad.json").string() + ": /records/0"));
  CHECK(!fs::exists(dir / "o.json"));
}

TEST_CASE("a training sweep gives the same bytes with one and two threads") {
  TempDirectory dir;
  Json document = training_scenario();
  document["sweep"] = Json::parse(R"({"zip": [{
      "/label": ["uncoded", "replication"],
      "/strategy": [{"scheme": "uncoded", "m": 1, "n": 2},
                    {"scheme": "replication", "m": 1, "n": 2, "copies": 3}]}]})");
  const fs::path scenario = write_json(dir / "sweep.json", document);
  REQUIRE(cli({"run", scenario.string(), "-o", (dir / "one.json").string(), "-q"}).code == 0);
  REQUIRE(cli({"run", scenario.string(), "-o", (dir / "two.json").string(), "-q", "--jobs", "2"})
              .code == 0);
  const std::string one = read_file(dir / "one.json");
  CHECK(one == read_file(dir / "two.json"));
  const Json results = Json::parse(one);
  REQUIRE(results["points"].size() == 2);
  CHECK(results["points"][1]["label"] == "replication");
  CHECK(results["points"][1]["params"]["/strategy"]["copies"] == 3);
  CHECK(results["scenario"]["sweep"]["zip"].size() == 1);
  // Common random numbers: both points start from the same weights, so their first
  // accuracy rows (before any step) agree.
  CHECK(results["points"][0]["replicas"][0]["accuracy_vs_time"]["rows"][0][2] ==
        results["points"][1]["replicas"][0]["accuracy_vs_time"]["rows"][0][2]);
}

TEST_CASE("--list-points prints the sweep without running it") {
  TempDirectory dir;
  Json document = training_scenario();
  document["sweep"] = Json::parse(R"({"grid": {"/workload/learning_rate": [0.01, 0.1]}})");
  const CliResult r = cli({"run", write_json(dir / "s.json", document).string(), "--list-points",
                           "-o", (dir / "o.json").string()});
  CHECK(r.code == 0);
  CHECK(r.out ==
        "0\t2 replicas\t/workload/learning_rate=0.01\n"
        "1\t2 replicas\t/workload/learning_rate=0.1\n");
  CHECK(!fs::exists(dir / "o.json"));
}

TEST_CASE("--jobs and --threads must be positive thread counts, and nothing is written") {
  TempDirectory dir;
  const fs::path scenario = write_json(dir / "s.json", training_scenario());
  const fs::path output = dir / "o.json";
  for (const char* flag : {"--jobs", "--threads"}) {
    for (const char* bad : {"0", "x", "-1", "99999", ""}) {
      CAPTURE(flag);
      CAPTURE(bad);
      const CliResult r = cli({"run", scenario.string(), "-o", output.string(), flag, bad});
      CHECK(r.code == 2);
      CHECK(r.err.rfind(std::string("error: codesim run: ") + flag, 0) == 0);
      CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
      CHECK(!fs::exists(output));
    }
  }
}
