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

/// A 6-node star scenario; `network` replaces its network section, `checkpoint` (when given)
/// is its checkpoint section.
fs::path write_scenario(const fs::path& directory,
                        const std::string& network = R"({"topology": "star"})",
                        const std::string& checkpoint = "") {
  const fs::path path = directory / "net.json";
  std::ofstream(path) << R"({"name": "net", "cluster": {"nodes": 6, "speed_flops_per_s": 2e9,
                             "network": )"
                      << network << "}, "
                      << (checkpoint.empty() ? "" : R"("checkpoint": )" + checkpoint + ", ")
                      << R"("workload": {"iterations": 1, "task_flops": 1e9}})";
  return path;
}

/// A checkpoint section writing to a storage server at `place` (e.g. "attach_switch": "root").
std::string shared_storage(const std::string& place) {
  return R"({"policy": "every_iterations", "every_iterations": 1, "bytes": 1e6,
             "storage": {"kind": "shared", )" +
         place + R"(, "latency_s": 0.25, "bandwidth_Bps": 5e9}})";
}

int count(const std::string& text, const std::string& what) {
  int n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

}  // namespace

TEST_CASE("export-platform writes every host and link, and a star's one-hop routes each way") {
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
  // SimGrid's Dijkstra over the star's links takes codesim's routes: one hop each way per link.
  CHECK(count(xml, "routing=\"DijkstraCache\"") == 1);
  CHECK(count(xml, "<route ") == 12);
  CHECK(count(xml, "<link_ctn ") == 12);
  CHECK(xml.ends_with("</platform>\n"));
}

TEST_CASE(
    "export-platform lists every ordered route of a leaf-spine, whose ECMP Dijkstra would not "
    "follow") {
  TempDirectory dir;
  const fs::path scenario =
      write_scenario(dir.path(), R"({"topology": "leaf_spine", "hosts_per_leaf": 2, "spines": 2})");
  const CliResult r = cli({"export-platform", scenario.string(), "-o", "-"});
  CHECK(r.code == 0);
  CHECK(count(r.out, "routing=\"Full\"") == 1);
  CHECK(count(r.out, "<route ") == 6 * 5);
  CHECK(count(r.out, "<link_ctn ") == 6 * 2 + 24 * 4);  // on one leaf 2 hops, else 4
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

TEST_CASE("export-platform exports a 4,096-node star, whose routes are one hop each way") {
  TempDirectory dir;
  const fs::path scenario = write_scenario(dir.path());
  const CliResult r =
      cli({"export-platform", scenario.string(), "-o", "-", "--set", "/cluster/nodes=4096"});
  CHECK(r.code == 0);
  CHECK(count(r.out, "<host ") == 4096);
  CHECK(count(r.out, "<route ") == 2 * 4096);
}

TEST_CASE(
    "export-platform refuses explicit routes past 2 GB, a bad point and -o naming a directory") {
  TempDirectory dir;
  const fs::path scenario = write_scenario(
      dir.path(), R"({"topology": "leaf_spine", "hosts_per_leaf": 16, "spines": 4})");
  const fs::path output = dir / "platform.xml";
  const CliResult big = cli({"export-platform", scenario.string(), "-o", output.string(), "--set",
                             "/cluster/nodes=4096"});
  CHECK(big.code == 2);
  const std::string start =
      "error: " + scenario.string() +
      ": /cluster/nodes: 4096 nodes on this leaf_spine network are too many "
      "to export: SimGrid's shortest paths would not take codesim's routes "
      "on it, so the platform lists a route per ordered pair of nodes, about ";
  CHECK(big.err.starts_with(start));
  CHECK(big.err.find(" GB (expected at most 2.0 GB of routes, about ") != std::string::npos);
  CHECK(big.err.ends_with(
      " nodes here; trees, and rings and tori without link overrides, export at any size)\n"));
  CHECK(count(big.err, "\n") == 1);
  CHECK_FALSE(fs::exists(output));
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

TEST_CASE("export-platform writes a shared storage server with its link and routes to every node") {
  TempDirectory dir;
  const fs::path scenario =
      write_scenario(dir.path(), R"({"topology": "fat_tree", "fat_tree_arity": 2})",
                     shared_storage(R"("attach_switch": "root")"));
  const CliResult r = cli({"export-platform", scenario.string(), "-o", "-"});
  CHECK(r.code == 0);
  // 6 nodes on a 2-ary fat tree: switches 6..8, 9 and 10, root 11.
  CHECK(count(r.out, "<host ") == 7);
  CHECK(count(r.out, "<host id=\"storage\"") == 1);
  CHECK(count(r.out,
              "<link id=\"link-storage\" bandwidth=\"5000000000Bps\" latency=\"0.25s\" "
              "sharing_policy=\"SPLITDUPLEX\"/>  <!-- UP: switch-11 to storage -->") == 1);
  // A tree: one-hop routes along its 11 links each way, and the server link's from the root.
  CHECK(count(r.out, "routing=\"DijkstraCache\"") == 1);
  CHECK(count(r.out, "<route ") == 2 * 11 + 2);
  const auto route = [&r](const std::string& src, const std::string& dst) {
    const std::size_t begin =
        r.out.find("<route src=\"" + src + "\" dst=\"" + dst + "\" symmetrical=\"NO\">");
    REQUIRE(begin != std::string::npos);
    return r.out.substr(begin, r.out.find("</route>", begin) - begin);
  };
  CHECK(count(r.out, "dst=\"storage\"") == 1);
  CHECK(count(r.out, "src=\"storage\"") == 1);
  CHECK(route("switch-11", "storage").find("<link_ctn id=\"link-storage\" direction=\"UP\"/>") !=
        std::string::npos);
  CHECK(route("storage", "switch-11").find("<link_ctn id=\"link-storage\" direction=\"DOWN\"/>") !=
        std::string::npos);
  // On a leaf-spine the routes are listed: node 0 writes up its leaf, a spine and down to leaf
  // 1 (node 2's), then UP the server link; its read comes DOWN the server link first.
  const fs::path listed =
      write_scenario(dir.path(), R"({"topology": "leaf_spine", "hosts_per_leaf": 2, "spines": 2})",
                     shared_storage(R"("attach_node": 2)"));
  const CliResult l = cli({"export-platform", listed.string(), "-o", "-"});
  CHECK(l.code == 0);
  CHECK(count(l.out, "<route ") == 6 * 5 + 2 * 6);
  const std::size_t write = l.out.find("<route src=\"node-0\" dst=\"storage\"");
  REQUIRE(write != std::string::npos);
  const std::string write_route = l.out.substr(write, l.out.find("</route>", write) - write);
  CHECK(count(write_route, "<link_ctn ") == 5);
  CHECK(write_route.ends_with("<link_ctn id=\"link-storage\" direction=\"UP\"/>\n    "));
  const std::size_t read = l.out.find("<route src=\"storage\" dst=\"node-0\"");
  REQUIRE(read != std::string::npos);
  CHECK(l.out.find("<link_ctn ", read) ==
        l.out.find("<link_ctn id=\"link-storage\" direction=\"DOWN\"/>", read));
}

TEST_CASE("export-platform of a storage server at a switch the network lacks writes nothing") {
  TempDirectory dir;
  const fs::path output = dir / "platform.xml";
  const fs::path scenario = write_scenario(dir.path(), R"({"topology": "ring"})",
                                           shared_storage(R"("attach_switch": "root")"));
  const CliResult r = cli({"export-platform", scenario.string(), "-o", output.string()});
  CHECK(r.code == 2);
  CHECK(r.out.empty());
  CHECK(r.err == "error: " + scenario.string() +
                     ": /checkpoint/storage/attach_switch: topology ring has no switches (expected "
                     "a topology with switches: star, fat_tree, leaf_spine, k_ary_fat_tree or an "
                     "edge_list with switches; or attach_node for a compute node)\n");
  CHECK_FALSE(fs::exists(output));
}
