// Output checks before a run: results and fault logs that would replace a directory, a FIFO or an
// input, that collide, or whose directory cannot be written are refused before anything runs.
#include "app/exec/output_check.hpp"

#include <doctest/doctest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "app/config/scenario_error.hpp"
#include "app/exec/unit_executor.hpp"
#include "support/experiment_error.hpp"
#include "support/temp_directory.hpp"

using codesim::app::check_outputs;
using codesim::app::Experiment;
using codesim::app::Json;
using codesim::app::PreparedRun;
using codesim::test::TempDirectory;
namespace fs = std::filesystem;

namespace {

/// A tiny training experiment whose two replicas write their fault logs to `log_file`.
Experiment training_experiment(const std::string& file, const std::string& log_file) {
  Json document = Json::parse(R"({
    "name": "out", "replicas": 2, "cluster": {"nodes": 2},
    "workload": {"kind": "training", "layers": [4, 4, 2], "iterations": 2,
                 "dataset": {"kind": "synthetic", "features": 4, "classes": 2, "samples": 20}}
  })");
  document["faults"]["log_file"] = log_file;
  return codesim::app::make_experiment(document, file);
}

/// The message of the error check_outputs throws, "" when it accepts the outputs.
std::string outputs_error(const Experiment& experiment, const std::string& results) {
  const auto executor = codesim::app::make_local_executor();
  const PreparedRun prepared = codesim::app::prepare_run(experiment, *executor);
  return codesim::test::scenario_error_message(
      [&] { check_outputs(experiment, prepared, results); });
}

}  // namespace

TEST_CASE("new files in writable directories, existing regular files and - are accepted") {
  TempDirectory dir;
  const Experiment experiment =
      training_experiment((dir / "s.json").string(), (dir / "new/logs/{replica}.json").string());
  codesim::test::write_text(dir / "old.json", "{}");
  CHECK(outputs_error(experiment, (dir / "old.json").string()).empty());
  CHECK(outputs_error(experiment, (dir / "a/b/c.json").string()).empty());
  CHECK(outputs_error(experiment, "-").empty());
  CHECK(outputs_error(experiment, "").empty());
  CHECK_FALSE(fs::exists(dir / "new"));  // checking creates no directory
  int entries = 0;
  for ([[maybe_unused]] const auto& entry : fs::directory_iterator(dir.path())) ++entries;
  CHECK(entries == 1);  // and leaves no probe file
}

TEST_CASE("a fault log that would replace a directory or a FIFO is refused at log_file") {
  TempDirectory dir;
  fs::create_directory(dir / "1.json");
  REQUIRE(::mkfifo((dir / "0.json").c_str(), 0600) == 0);
  const Experiment experiment = training_experiment("s.json", (dir / "{replica}.json").string());
  CHECK(outputs_error(experiment, "") ==
        "s.json: /faults/log_file: the fault log \"" + (dir / "0.json").string() +
            "\" is a FIFO, not a regular file (expected a log_file pattern naming regular files "
            "or new ones)");
  fs::remove(dir / "0.json");
  const std::string directory = (dir / "1.json").string();
  CHECK(outputs_error(experiment, "").find(directory + "\" is a directory, not a regular file") !=
        std::string::npos);
}

TEST_CASE("an output that is an input of the run or another output is refused") {
  TempDirectory dir;
  const fs::path scenario = dir / "s.json";
  codesim::test::write_text(scenario, "{}");
  const Experiment experiment =
      training_experiment(scenario.string(), (dir / "log.{replica}.json").string());
  CHECK(outputs_error(experiment, (dir / "log.1.json").string()) ==
        scenario.string() + ": /faults/log_file: the fault log \"" + (dir / "log.1.json").string() +
            "\" is written twice (by -o and faults.log_file) (expected a log_file pattern naming "
            "regular files or new ones)");
  const fs::path scenario0 = dir / "s0.json";
  codesim::test::write_text(scenario0, "{}");
  const Experiment logs_over_scenario =
      training_experiment(scenario0.string(), (dir / "s{replica}.json").string());
  CHECK(outputs_error(logs_over_scenario, "") ==
        scenario0.string() + ": /faults/log_file: the fault log \"" + scenario0.string() +
            "\" is the scenario file \"" + scenario0.string() +
            "\" (expected a log_file pattern naming regular files or new ones)");
}

TEST_CASE("an output directory where no file can be created is refused") {
  TempDirectory dir;
  const Experiment experiment = training_experiment("s.json", "");
  codesim::test::write_text(dir / "file", "x");
  CHECK(outputs_error(experiment, (dir / "file/sub/r.json").string()) ==
        "s.json: /: the results file \"" + (dir / "file/sub/r.json").string() +
            "\" cannot be written: \"" + (dir / "file").string() +
            "\" is not a directory (expected -o in a directory where files can be created)");
  if (::geteuid() != 0) {  // root writes in read-only directories
    fs::create_directory(dir / "ro");
    fs::permissions(dir / "ro", fs::perms::owner_read | fs::perms::owner_exec);
    CHECK(outputs_error(experiment, (dir / "ro/r.json").string())
              .find("cannot be written: cannot create a file in") != std::string::npos);
    fs::permissions(dir / "ro", fs::perms::owner_all);
  }
}

TEST_CASE("an output over a trace CSV the run reads is refused, its bytes kept") {
  TempDirectory dir;
  const fs::path speeds = dir / "speeds.csv";
  const fs::path rates = dir / "rates.csv";
  const fs::path down = dir / "down.csv";
  codesim::test::write_text(speeds, "node,from_s,multiplier\n0,1,0.5\n");
  codesim::test::write_text(rates, "node,from_s,multiplier\n1,1,2\n");
  codesim::test::write_text(down, "node,down_s,up_s\n1,5,6\n");
  Json document = Json::parse(R"({
    "name": "out", "cluster": {"nodes": 2},
    "workload": {"kind": "training", "layers": [4, 4, 2], "iterations": 2,
                 "dataset": {"kind": "synthetic", "features": 4, "classes": 2, "samples": 20}}
  })");
  document["cluster"]["speed_trace"] = {{"file", speeds.string()}, {"period_s", 10}};
  document["cluster"]["availability_trace"] = down.string();
  document["faults"]["rate_trace"] = rates.string();
  const Experiment experiment = codesim::app::make_experiment(document, "s.json");
  for (const fs::path& input : {speeds, rates, down}) {
    CAPTURE(input);
    const std::string error = outputs_error(experiment, input.string());
    CHECK(error.find("is a trace read by /") != std::string::npos);
    CHECK(error.starts_with("s.json: /: the results file"));
  }
  CHECK(codesim::test::read_file(speeds) == "node,from_s,multiplier\n0,1,0.5\n");
}

TEST_CASE("an output inside the dataset directory the run reads is refused") {
  TempDirectory dir;
  Json document = Json::parse(R"({
    "name": "out", "cluster": {"nodes": 2},
    "workload": {"kind": "training", "layers": [784, 4, 10], "iterations": 2,
                 "dataset": {"kind": "fashion-mnist"}}
  })");
  document["workload"]["dataset"]["directory"] = dir.path().string();
  const Experiment experiment = codesim::app::make_experiment(document, "s.json");
  const PreparedRun prepared;  // no data needed: the check reads the scenario
  const std::string error = codesim::test::scenario_error_message(
      [&] { check_outputs(experiment, prepared, (dir / "sub/train-images.gz").string()); });
  CHECK(error.find("is inside the dataset directory (/workload/dataset)") != std::string::npos);
  CHECK(codesim::test::scenario_error_message([&] {
          check_outputs(experiment, prepared, (dir.path().parent_path() / "r.json").string());
        }).empty());
}

TEST_CASE("an output whose file name a directory cannot hold is refused before the run") {
  TempDirectory dir;
  const Experiment experiment = training_experiment("s.json", "");
  const std::string long_name(256, 'r');
  CHECK(outputs_error(experiment, (dir / long_name).string()) ==
        "s.json: /: the results file \"" + (dir / long_name).string() +
            "\" has a file name of 256 bytes, more than the 255 a directory entry holds "
            "(expected -o naming a regular file or a new one, or - for standard output)");
  // 255 bytes fit, and so does the temporary file the results are written through.
  CHECK(outputs_error(experiment, (dir / std::string(255, 'r')).string()).empty());
}
