// codesim export-platform: loads the scenario as run does, writes its network with the routes
// between compute nodes (and to and from its shared storage server, if any) to a temporary file
// and renames it over -o, so no partial file remains. Where SimGrid's shortest paths are
// codesim's routes the platform holds one-hop routes only (any size); elsewhere it lists every
// route, and a network whose list would pass kMaxExplicitPlatformBytes is refused up front.
#include "app/cli/export_platform_command.hpp"

#include <cmath>
#include <cstdint>
#include <optional>
#include <sstream>

#include <boost/program_options.hpp>

#include "analysis/results_json.hpp"
#include "app/cli/command_line.hpp"
#include "app/config/scenario_error.hpp"
#include "app/exec/output_check.hpp"
#include "app/exec/runner.hpp"
#include "sim/simgrid_platform.hpp"
#include "sim/topology.hpp"

namespace po = boost::program_options;

namespace codesim::app {

namespace {

// The explicit form lists a route per ordered pair of nodes (sim/simgrid_platform.hpp): 553 MB
// at 1,024 nodes on a 4-ary fat tree, which SimGrid 3.32 loads in 18 s, and four times that per
// doubling of the nodes. Beyond ~2 GB (about 2,048 leaf-spine nodes) the file is more than
// SimGrid can load in reasonable time and memory, and more than we want to hold in memory here.
constexpr std::uint64_t kMaxExplicitPlatformBytes = 2'000'000'000;

/// "1.2 GB": bytes in decimal gigabytes, one decimal.
std::string gigabytes(std::uint64_t bytes) {
  std::ostringstream text;
  text.precision(1);
  text << std::fixed << static_cast<double>(bytes) / 1e9 << " GB";
  return text.str();
}

struct ExportRequest {
  std::string scenario;
  std::vector<std::string> sets;
  std::string output;
  std::size_t point = 0;
};

po::options_description export_options() {
  po::options_description visible("codesim export-platform SCENARIO -o platform.xml [options]");
  visible.add_options()("output,o", po::value<std::string>()->value_name("OUT.xml"),
                        "write the platform here (- for standard output)")(
      "point", po::value<std::string>()->value_name("N"),
      "export sweep point N (default 0; codesim run SCENARIO --list-points lists them)")(
      "set", po::value<std::vector<std::string>>()->value_name("PTR=VALUE"),
      "override one scenario value, e.g. --set /cluster/nodes=32 (repeatable)")(
      "help,h", po::bool_switch(), "show this help");
  return visible;
}

/// The request of a command line that asks for an export; nullopt after printing the help or an
/// error (`code` says which).
std::optional<ExportRequest> parse_request(const std::vector<std::string>& args, std::ostream& out,
                                           std::ostream& err, int& code) {
  const po::options_description visible = export_options();
  po::options_description all;
  all.add(visible).add_options()("scenario", po::value<std::vector<std::string>>());
  po::positional_options_description positional;
  positional.add("scenario", -1);
  po::variables_map values;
  code = kBadInput;
  try {
    parse_options(args, all, positional, values);
  } catch (const po::error& e) {
    err << "error: codesim export-platform: " << printable(e.what())
        << " (expected the options of codesim export-platform --help)\n";
    return std::nullopt;
  }
  if (values["help"].as<bool>()) {
    out << visible
        << "\nWrites the network of SCENARIO as a SimGrid 3.32 platform: a host per node, a "
           "router per switch, a split-duplex link per link, and routes on which SimGrid takes "
           "exactly the routes codesim takes. Trees (star, fat_tree, tree-shaped edge lists) and "
           "rings and tori without link overrides get one-hop routes for SimGrid's Dijkstra "
           "(routing DijkstraCache, any size); other networks (leaf_spine, edge lists with "
           "cycles, rings and tori with link overrides) list the route of every ordered pair of "
           "nodes "
           "(routing Full), up to about "
        << gigabytes(kMaxExplicitPlatformBytes)
        << " (some 2,048 leaf-spine nodes). With shared checkpoint storage, also its server "
           "(host storage, link link-storage) and its routes to and from every node. "
           "docs/network.md tells how to run it in SimGrid.\n";
    code = kOk;
    return std::nullopt;
  }
  const auto scenarios = values.count("scenario")
                             ? values["scenario"].as<std::vector<std::string>>()
                             : std::vector<std::string>{};
  if (scenarios.size() != 1) {
    err << "error: codesim export-platform: "
        << (scenarios.empty() ? std::string("no scenario file given")
                              : std::to_string(scenarios.size()) + " scenario files given")
        << " (expected exactly one SCENARIO; see codesim export-platform --help)\n";
    return std::nullopt;
  }
  if (!values.count("output")) {
    err << "error: codesim export-platform: no output file given (expected -o OUT.xml, or -o - "
           "for standard output)\n";
    return std::nullopt;
  }
  ExportRequest request;
  request.scenario = scenarios.front();
  if (values.count("set")) request.sets = values["set"].as<std::vector<std::string>>();
  request.output = values["output"].as<std::string>();
  if (values.count("point")) {
    const std::string point = values["point"].as<std::string>();
    const bool digits = !point.empty() && point.size() <= 9 &&
                        point.find_first_not_of("0123456789") == std::string::npos;
    if (!digits) {
      err << "error: codesim export-platform: --point " << printable(point)
          << " is not a point number (expected 0, 1, ... as codesim run --list-points numbers "
             "them)\n";
      return std::nullopt;
    }
    request.point = std::stoul(point);
  }
  return request;
}

/// Throws when the platform would list every route (SimGrid's shortest paths are not codesim's
/// routes here) and that list would pass kMaxExplicitPlatformBytes.
void check_platform_size(const std::string& file, const sim::Topology& topology,
                         const sim::StorageSpec& storage) {
  if (sim::shortest_paths_are_routes(topology)) return;
  const std::uint64_t bytes = sim::estimate_explicit_platform_bytes(topology, storage);
  if (bytes <= kMaxExplicitPlatformBytes) return;
  const int nodes = topology.node_count();
  // The size grows as nodes squared.
  const auto fitting =
      static_cast<long long>(nodes * std::sqrt(static_cast<double>(kMaxExplicitPlatformBytes) /
                                               static_cast<double>(bytes)));
  throw ScenarioError(
      file, "/cluster/nodes",
      std::to_string(nodes) + " nodes on this " + std::string(sim::to_string(topology.shape())) +
          " network are too many to export: SimGrid's shortest paths would not take codesim's "
          "routes on it, so the platform lists a route per ordered pair of nodes, about " +
          gigabytes(bytes) + " (expected at most " + gigabytes(kMaxExplicitPlatformBytes) +
          " of routes, about " + std::to_string(fitting) +
          " nodes here; trees, and rings and tori without link overrides, export at any size)");
}

/// The platform of the requested point; bad input is a ScenarioError.
std::string platform_text(const Experiment& experiment, std::size_t point) {
  if (point >= experiment.points.size()) {
    throw ScenarioError(experiment.file, "/sweep",
                        "--point " + std::to_string(point) + " is not a sweep point (expected 0.." +
                            std::to_string(experiment.points.size() - 1) + ")");
  }
  const Scenario& scenario = experiment.points[point].scenario;
  const sim::ClusterSpec& cluster = scenario.cluster;
  const sim::Topology topology(cluster.network);
  check_platform_size(experiment.file, topology, scenario.checkpoint.storage);
  std::ostringstream text;
  sim::write_simgrid_platform(text, topology, {}, cluster.speeds_flops_per_s,
                              scenario.checkpoint.storage);
  return std::move(text).str();  // C++20: the buffer itself, not a copy of up to 2 GB
}

}  // namespace

int run_export_platform_command(const std::vector<std::string>& args, std::ostream& out,
                                std::ostream& err) {
  int code = kOk;
  const std::optional<ExportRequest> request = parse_request(args, out, err, code);
  if (!request) return code;
  std::string text;
  try {
    const Experiment experiment = load_experiment(request->scenario, request->sets);
    check_output_file(experiment, request->output, "the platform file");
    text = platform_text(experiment, request->point);
  } catch (const ScenarioError& e) {
    err << "error: " << e.what() << "\n";
    return kBadInput;
  }
  if (request->output == "-") {
    out << text << std::flush;
    return kOk;
  }
  try {
    analysis::write_text_atomically(text, request->output);
  } catch (const std::exception& e) {
    err << "error: " << printable(e.what()) << "\n";
    return kRuntimeFailure;
  }
  out << "platform: " << printable(request->output) << "\n";
  return kOk;
}

}  // namespace codesim::app
