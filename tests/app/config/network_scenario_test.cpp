// Training scenarios with workload.network: the layers read with their defaults, their
// errors at the offending layer and field, and a coded network run through the CLI.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "app/config/network_section.hpp"
#include "app/config/scenario_loader.hpp"
#include "support/cli_runner.hpp"
#include "support/experiment_error.hpp"
#include "support/temp_directory.hpp"

using codesim::app::Json;
using codesim::app::load_scenario;
using codesim::test::cli;
using codesim::test::CliResult;
using codesim::test::read_file;
using codesim::test::TempDirectory;
namespace fs = std::filesystem;

namespace {

// Synthetic data of 8 features read as 2 x 2 x 2 images; every weight matrix splits 2 x 2
// (conv 4@2x2: 4 x 8, conv 4@2x2: 4 x 16, dense 8 x 4 and 4 x 8).
Json network_scenario() {
  return Json::parse(R"({
    "name": "tiny_cnn",
    "seed": 5,
    "cluster": {"nodes": 8},
    "checkpoint": {"policy": "every_iterations", "every_iterations": 5},
    "workload": {"kind": "training",
                 "dataset": {"kind": "synthetic", "features": 8, "classes": 4, "samples": 300,
                             "test_samples": 60},
                 "network": {"input": {"channels": 2, "height": 2, "width": 2},
                             "layers": [{"kind": "conv2d", "channels": 4, "kernel": 2,
                                         "padding": 1},
                                        {"kind": "relu"},
                                        {"kind": "max_pool", "stride": 1},
                                        {"kind": "conv2d", "channels": 4, "kernel": 2},
                                        {"kind": "flatten"},
                                        {"kind": "dense", "units": 8},
                                        {"kind": "relu"},
                                        {"kind": "dense", "units": 4}]},
                 "learning_rate": 0.05, "batch": 4, "iterations": 20, "eval_every": 10,
                 "audit": true},
    "strategy": {"scheme": "codenet_grid", "m": 2, "n": 2, "grid_rows": 3, "grid_cols": 3},
    "faults": {"targets": {"weights": {"probability_per_operation": 0.01}}}
  })");
}

Json with(const std::string& assignment, Json document = network_scenario()) {
  codesim::app::apply_set(document, assignment, "t.json");
  return document;
}

std::string pointer_of_error(const Json& document) {
  return codesim::test::experiment_error_pointer(document, "t.json");
}

std::string error_of(const Json& document) {
  return codesim::test::experiment_error_message(document, "t.json");
}

fs::path write_json(const fs::path& path, const Json& document) {
  std::ofstream(path) << document.dump(2);
  return path;
}

}  // namespace

TEST_CASE("a network's layers are read with their defaults resolved") {
  const Json resolved = load_scenario(network_scenario(), "t.json").resolved;
  const Json& layers = resolved["workload"]["network"]["layers"];
  REQUIRE(layers.size() == 8);
  CHECK(layers[0]["stride"] == 1);
  CHECK(layers[0]["padding"] == 1);
  CHECK(layers[2]["kernel"] == 2);  // max_pool: kernel 2 by default, its own stride
  CHECK(layers[2]["stride"] == 1);
  CHECK(layers[3]["padding"] == 0);
  CHECK(resolved["workload"]["network"]["input"]["channels"] == 2);
  CHECK(!resolved["workload"].contains("layers"));
  CHECK(!resolved["workload"].contains("hidden_activation"));
}

TEST_CASE("bad network layers are errors at the offending layer and field") {
  const std::string layers = "/workload/network/layers";
  // A kernel larger than the (padded) input, a stride of 0, a missing field, an unknown kind.
  CHECK(pointer_of_error(with(layers + "/3/kernel=3")) == layers + "/3/kernel");
  CHECK(error_of(with(layers + "/3/kernel=3")).find("kernel 3 is larger than the 2 x 2 input") !=
        std::string::npos);
  CHECK(pointer_of_error(with(layers + "/0/stride=0")) == layers + "/0/stride");
  CHECK(pointer_of_error(with(layers + "/0/padding=-1")) == layers + "/0/padding");
  CHECK(pointer_of_error(with(layers + "/5={\"kind\": \"dense\"}")) == layers + "/5/units");
  CHECK(pointer_of_error(with(layers + "/1/kind=\"tanh\"")) == layers + "/1/kind");
  CHECK(pointer_of_error(with(layers + "/1={}")) == layers + "/1/kind");
  CHECK(pointer_of_error(with(layers + "/1=7")) == layers + "/1");
  CHECK(pointer_of_error(with(layers + "/0/units=3")) == layers + "/0/units");  // unknown key
  // Shapes that do not chain: a dense layer before the flatten, a conv after it.
  CHECK(pointer_of_error(with(layers + "/4={\"kind\": \"relu\"}")) == layers + "/5");
  CHECK(error_of(with(layers + "/4={\"kind\": \"relu\"}")).find("dense layer before flatten") !=
        std::string::npos);
  CHECK(pointer_of_error(with(layers + "/6={\"kind\": \"conv2d\", \"channels\": 2, \"kernel\": "
                                       "1}")) == layers + "/6");
  CHECK(pointer_of_error(with(layers + "=[]")) == layers);
  CHECK(error_of(with(layers + "=[]")).find("an empty array of layers (expected a non-empty") !=
        std::string::npos);
  CHECK(pointer_of_error(with("/workload/network/input/width=0")) ==
        "/workload/network/input/width");
  // The last layer gives the logits.
  CHECK(pointer_of_error(with(layers + "/7={\"kind\": \"relu\"}")) == layers + "/7");
}

TEST_CASE("every layer kind's name and fields round-trip through the reader and the writers") {
  using codesim::app::ObjectReader;
  namespace models = codesim::models;
  for (const models::LayerDescriptor& kind : models::layer_descriptors()) {
    CAPTURE(kind.name);
    // Every field given, each off its default and in range.
    Json given = {{"kind", kind.name}};
    std::vector<int> values;
    for (const models::LayerField& field : kind.fields) {
      values.push_back(std::min(field.max, field.min + 2 + static_cast<int>(values.size())));
      given[std::string(field.key)] = values.back();
    }
    ObjectReader reader(&given, "/layer", "t.json");
    const models::Layer layer = codesim::app::read_layer(reader);
    const Json resolved = reader.finish();
    CHECK(models::layer_kind_name(layer) == kind.name);
    CHECK(models::layer_descriptor(layer).values(layer) == values);
    CHECK(models::describe(layer).starts_with(std::string(kind.name)));  // the run summary's
    // The resolved layer, which every results file holds, is what was given and reads back.
    CHECK(resolved == given);
    ObjectReader again(&resolved, "/layer", "t.json");
    const models::Layer reread = codesim::app::read_layer(again);
    CHECK(reread.index() == layer.index());
    CHECK(models::layer_descriptor(reread).values(reread) == values);
  }
  const std::string layers = "/workload/network/layers";
  CHECK(error_of(with(layers + "/1={}")) ==
        "t.json: " + layers +
            "/1/kind: missing required key (expected one of \"conv2d\", \"max_pool\", "
            "\"avg_pool\", \"flatten\", \"dense\", \"relu\")");
}

TEST_CASE("a network is refused with layers or hidden_activation") {
  CHECK(pointer_of_error(with("/workload/layers=[8, 4]")) == "/workload/layers");
  CHECK(pointer_of_error(with("/workload/hidden_activation=\"sigmoid\"")) ==
        "/workload/hidden_activation");
}

TEST_CASE("a network runs in stochastic mode, costing what the numeric mode charges") {
  // Without faults the two modes run the same rounds at the same simulated times: the conv
  // layers' products on positions x batch columns in both.
  TempDirectory dir;
  Json numeric = with("/faults/targets/weights/probability_per_operation=0");
  numeric["workload"].erase("audit");
  Json stochastic = numeric;
  stochastic["workload"]["mode"] = "stochastic";
  stochastic["workload"].erase("dataset");
  stochastic["workload"].erase("eval_every");
  const auto completion_s = [&dir](const Json& scenario, const std::string& name) {
    const fs::path path = write_json(dir / (name + ".json"), scenario);
    const CliResult r = cli({"run", path.string(), "-q", "-o", (dir / (name + ".out")).string()});
    INFO(r.err);
    REQUIRE(r.code == 0);
    const Json results = Json::parse(read_file(dir / (name + ".out")));
    return results["points"][0]["replicas"][0]["completion_time_s"].get<double>();
  };
  const double numeric_s = completion_s(numeric, "numeric");
  CHECK(numeric_s > 0.0);
  CHECK(completion_s(stochastic, "stochastic") == doctest::Approx(numeric_s).epsilon(1e-12));
}

TEST_CASE("channels that the code's split does not divide are an error at the strategy") {
  // 3 output channels of the first conv do not split in m = 2 block rows.
  const Json bad = with("/workload/network/layers/0/channels=3");
  CHECK(pointer_of_error(bad) == "/strategy/m");
  CHECK(error_of(bad).find("/workload/network/layers/0 (3 x 8)") != std::string::npos);
}

TEST_CASE("a coded network trains through the CLI, the same bytes on one and two threads") {
  TempDirectory dir;
  const fs::path scenario = write_json(dir / "cnn.json", network_scenario());
  const CliResult one = cli({"run", scenario.string(), "-o", (dir / "one.json").string()});
  INFO(one.err);
  REQUIRE(one.code == 0);
  CHECK(one.out.find("network 2x2x2 conv2d 4@2x2+1 relu max_pool 2/1 conv2d 4@2x2 flatten "
                     "dense 8 relu dense 4") != std::string::npos);
  const Json results = Json::parse(read_file(dir / "one.json"));
  const Json& replica = results["points"][0]["replicas"][0];
  CHECK(replica["iterations"] == 20);
  CHECK(replica["faults_injected"].get<double>() > 0);
  CHECK(replica["silent_corruptions"] == 0);
  CHECK(replica["accuracy_vs_time"]["rows"].size() >= 3);  // 0, 10, 20 (and again after rollbacks)
  const CliResult two =
      cli({"run", scenario.string(), "--threads", "2", "-o", (dir / "two.json").string()});
  REQUIRE(two.code == 0);
  CHECK(read_file(dir / "one.json") == read_file(dir / "two.json"));
}

TEST_CASE("a network whose input does not match the data exits with 2 and writes nothing") {
  TempDirectory dir;
  const fs::path scenario = write_json(dir / "t.json", with("/workload/network/input/channels=3"));
  const CliResult r = cli({"run", scenario.string(), "-o", (dir / "o.json").string()});
  CHECK(r.code == 2);
  CHECK(r.err.find("/workload/network: the input layer has 12 units but the data has 8") !=
        std::string::npos);
  CHECK(!fs::exists(dir / "o.json"));
}
