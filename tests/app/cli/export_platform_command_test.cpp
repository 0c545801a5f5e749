// codesim export-platform: a scenario's network as a SimGrid platform file, or one error line and
// no file.
#include "app/cli/export_platform_command.hpp"

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "support/cli_runner.hpp"
#include "support/temp_directory.hpp"

namespace fs = std::filesystem;
using codesim::test::cli;
using codesim::test::CliResult;
using codesim::test::read_file;
using codesim::test::TempDirectory;

namespace {

/// A 6-node star scenario; `network` replaces its network section.
fs::path write_scenario(const fs::path& directory,
                        const std::string& network = R"({"topology": "star"})") {
  const fs::path path = directory / "net.json";
  std::ofstream(path) << R"({"name": "net", "cluster": {"nodes": 6, "speed_flops_per_s": 2e9,
                             "network": )"
                      << network << R"(}, "workload": {"iterations": 1, "task_flops": 1e9}})";
  return path;
}

int count(const std::string& text, const std::string& what) {
  int n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

}  // namespace

TEST_CASE("export-platform writes every host, link and ordered route of the scenario's network") {
  TempDirectory dir;
  const fs::path output = dir / "platform.xml";
  const CliResult r =
      cli({"export-platform", write_scenario(dir.path()).string(), "-o", output.string()});
  CHECK(r.code == 0);
  CHECK(r.err.empty());
  CHECK(r.out == "platform: " + output.string() + "\n");
  const std::string xml = read_file(output);
  CHECK(xml.starts_with("<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM"));
  CHECK(count(xml, "<host ") == 6);
  CHECK(count(xml, "speed=\"2000000000f\"") == 6);  // the scenario's node speed
  CHECK(count(xml, "<router ") == 1);
  CHECK(count(xml, "<link id=") == 6);
  CHECK(count(xml, "<route ") == 30);
  CHECK(xml.ends_with("</platform>\n"));
}

TEST_CASE("export-platform -o - writes the platform to standard output, --set and --point apply") {
  TempDirectory dir;
  const fs::path scenario = write_scenario(dir.path());
  const CliResult r = cli({"export-platform", scenario.string(), "-o", "-", "--set",
                           "/cluster/nodes=3", "--set", "/cluster/network/latency_s=0.25"});
  CHECK(r.code == 0);
  CHECK(count(r.out, "<host ") == 3);
  CHECK(count(r.out, "latency=\"0.25s\"") == 3);
  const CliResult sweep = cli({"export-platform", scenario.string(), "-o", "-", "--point", "1",
                               "--set", R"(/sweep={"grid": {"/cluster/nodes": [2, 4]}})"});
  CHECK(sweep.code == 0);
  CHECK(count(sweep.out, "<host ") == 4);
}

TEST_CASE("export-platform without -o or a scenario is bad input and writes nothing") {
  TempDirectory dir;
  const fs::path scenario = write_scenario(dir.path());
  const CliResult no_output = cli({"export-platform", scenario.string()});
  CHECK(no_output.code == 2);
  CHECK(no_output.err ==
        "error: codesim export-platform: no output file given (expected -o OUT.xml, or -o - for "
        "standard output)\n");
  const CliResult no_scenario = cli({"export-platform", "-o", (dir / "p.xml").string()});
  CHECK(no_scenario.code == 2);
  CHECK(no_scenario.err.find("no scenario file given") != std::string::npos);
  CHECK_FALSE(fs::exists(dir / "p.xml"));
}

TEST_CASE("export-platform of a bad scenario names the key, exits 2 and leaves -o untouched") {
  TempDirectory dir;
  const fs::path output = dir / "platform.xml";
  codesim::test::write_text(output, "old");
  const fs::path bad = write_scenario(dir.path(), R"({"topology": "torus2d", "torus_rows": 4})");
  const CliResult r = cli({"export-platform", bad.string(), "-o", output.string()});
  CHECK(r.code == 2);
  CHECK(r.err == "error: " + bad.string() +
                     ": /cluster/network/torus_rows: value 4 does not divide 6 nodes (expected a "
                     "divisor of nodes, or 0 to choose)\n");
  CHECK(read_file(output) == "old");
  const CliResult missing =
      cli({"export-platform", (dir / "nope.json").string(), "-o", output.string()});
  CHECK(missing.code == 2);
  CHECK(missing.err.find("nope.json: /: no such file") != std::string::npos);
  CHECK(read_file(output) == "old");
}

TEST_CASE("export-platform refuses too many nodes, a bad point and -o naming a directory") {
  TempDirectory dir;
  const fs::path scenario = write_scenario(dir.path());
  const fs::path output = dir / "platform.xml";
  const CliResult big = cli({"export-platform", scenario.string(), "-o", output.string(), "--set",
                             "/cluster/nodes=1025"});
  CHECK(big.code == 2);
  CHECK(big.err == "error: " + scenario.string() +
                       ": /cluster/nodes: 1025 nodes are too many to export: the platform lists a "
                       "route per ordered pair of nodes (expected at most 1024 nodes)\n");
  const CliResult point =
      cli({"export-platform", scenario.string(), "-o", output.string(), "--point", "1"});
  CHECK(point.code == 2);
  CHECK(point.err.find(": /sweep: --point 1 is not a sweep point (expected 0..0)") !=
        std::string::npos);
  const CliResult not_number =
      cli({"export-platform", scenario.string(), "-o", output.string(), "--point", "-1"});
  CHECK(not_number.code == 2);
  CHECK_FALSE(fs::exists(output));
  const CliResult directory =
      cli({"export-platform", scenario.string(), "-o", dir.path().string()});
  CHECK(directory.code == 2);
  CHECK(directory.err.find("the platform file") != std::string::npos);
}
