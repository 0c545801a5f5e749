// SimGrid 3.32 peer of codesim's routes: exports a named network (sim/simgrid_platform.hpp), loads
// it into SimGrid and checks that the route SimGrid takes between two hosts (s4u::Host::route_to)
// crosses the links of Topology::route_links in the same order and directions, with the same
// latency (within rounding), for every ordered pair of nodes or a deterministic sample of them;
// with --storage-at, also each node's routes to and from the storage server
// (storage_route_links).
// The export is what codesim export-platform writes: SimGrid's Dijkstra over one-hop routes where
// it reproduces codesim's routes, explicit routes elsewhere (there limited to the checked pairs
// when sampling, so that a 2,048-node leaf-spine need not list 4 million routes).
// Prints one JSON object: the form, sizes, the times taken and the first mismatches; exits 1 on
// any mismatch, 2 on bad arguments.
#include <unistd.h>
#include <simgrid/s4u.hpp>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <optional>
#include <random>
#include <span>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "bench/patterns/network_patterns.hpp"
#include "sim/checkpoint_storage.hpp"
#include "sim/simgrid_platform.hpp"

namespace sg4 = simgrid::s4u;
using codesim::sim::RouteLink;
using codesim::sim::StorageSpec;
using codesim::sim::Topology;
using codesim::sim::TopologyShape;
using codesim::sim::TopologySpec;

namespace {

const char* const kUsage =
    "usage: simgrid-routes --platform P --nodes N [--sample PAIRS] [--storage-at root|VERTEX]\n"
    "                      [--platform-file OUT.xml]\n"
    "platforms: those of bench/patterns (star, star_slow_port, fat_tree, torus2d, dumbbell,\n"
    "  leaf_spine), ring, torus2d_long_cable (one link 10x slower) and edge_list_cycles (a ring\n"
    "  with chords of unequal latency)\n"
    "--sample: check this many pairs (deterministic) instead of all nodes * (nodes - 1)\n";

struct Options {
  std::string platform;
  int nodes = 0;
  std::uint64_t sample = 0;  // 0: every ordered pair
  std::string storage_at;    // "" : no storage server
  std::string platform_file;
};

Options parse_options(int argc, char** argv) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const bool has_value = i + 1 < argc;
    if (arg == "--platform" && has_value) {
      options.platform = argv[++i];
    } else if (arg == "--nodes" && has_value) {
      options.nodes = std::stoi(argv[++i]);
    } else if (arg == "--sample" && has_value) {
      options.sample = std::stoull(argv[++i]);
    } else if (arg == "--storage-at" && has_value) {
      options.storage_at = argv[++i];
    } else if (arg == "--platform-file" && has_value) {
      options.platform_file = argv[++i];
    } else {
      throw std::invalid_argument("unexpected argument '" + arg + "'");
    }
  }
  if (options.platform.empty() || options.nodes < 2)
    throw std::invalid_argument("--platform and --nodes (>= 2) are required");
  return options;
}

/// The named network: bench/patterns' platforms, and three more whose routes have ties or cycles.
TopologySpec make_platform(const std::string& name, int nodes) {
  if (name != "ring" && name != "torus2d_long_cable" && name != "edge_list_cycles")
    return codesim::bench::make_network_platform(name, nodes);
  TopologySpec spec = codesim::bench::make_network_platform("torus2d", nodes);
  if (name == "ring") {
    spec.shape = TopologyShape::ring;
  } else if (name == "torus2d_long_cable") {
    spec.link_overrides = {{0, 1, 10 * spec.latency_s, -1.0}};
  } else {
    // A ring, and a chord from every 7th node a third of the way round, of three latencies.
    spec.shape = TopologyShape::edge_list;
    for (int v = 0; v < nodes; ++v) spec.edges.push_back({v, (v + 1) % nodes, -1.0, -1.0});
    for (int v = 0; v < nodes; v += 7) {
      const int to = (v + nodes / 3) % nodes;
      if (to != v && (to + 1) % nodes != v && (v + 1) % nodes != to)
        spec.edges.push_back({v, to, spec.latency_s * (1 + v % 3), -1.0});
    }
  }
  const std::string problem = codesim::sim::validate_topology(spec);
  if (!problem.empty()) throw std::invalid_argument(problem);
  return spec;
}

/// Every ordered pair of distinct nodes, or `sample` of them drawn by a fixed-seed generator.
std::vector<std::pair<int, int>> pairs_to_check(int nodes, std::uint64_t sample) {
  std::vector<std::pair<int, int>> pairs;
  if (sample == 0) {
    for (int src = 0; src < nodes; ++src)
      for (int dst = 0; dst < nodes; ++dst)
        if (src != dst) pairs.emplace_back(src, dst);
    return pairs;
  }
  std::mt19937_64 random(20260415);  // the same pairs on every machine (no distribution)
  const auto n = static_cast<std::uint64_t>(nodes);
  while (pairs.size() < sample) {
    const auto src = static_cast<int>(random() % n);
    const auto dst = static_cast<int>(random() % n);
    if (src != dst) pairs.emplace_back(src, dst);
  }
  return pairs;
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

/// SimGrid's name of a direction of a split-duplex link: link-K_UP or _DOWN, link-storage_...
std::string simgrid_link_name(const Topology& topology, const RouteLink& link) {
  const std::uint64_t k = link.id / 2;
  const std::string base =
      k < static_cast<std::uint64_t>(topology.link_count()) ? std::to_string(k) : "storage";
  return "link-" + base + (link.id % 2 == 0 ? "_UP" : "_DOWN");
}

/// Compares SimGrid's route between two hosts with `expected`; "" when they agree, else both.
std::string route_mismatch(const sg4::Host* src, const sg4::Host* dst, const Topology& topology,
                           const std::vector<RouteLink>& expected) {
  std::vector<sg4::Link*> links;
  double latency_s = 0.0;
  src->route_to(dst, links, &latency_s);
  std::string want;
  std::string got;
  double want_latency_s = 0.0;
  for (const RouteLink& link : expected) {
    want += simgrid_link_name(topology, link) + " ";
    want_latency_s += link.latency_s;
  }
  for (const sg4::Link* link : links) got += link->get_name() + " ";
  // SimGrid adds the latencies in its own order (a Dijkstra route from the destination back):
  // the same sum within rounding.
  const double slack_s = 1e-12 * std::abs(want_latency_s);
  if (want == got && std::abs(want_latency_s - latency_s) <= slack_s) return "";
  std::ostringstream text;
  text << std::setprecision(17) << src->get_name() << " -> " << dst->get_name() << ": codesim "
       << want << "(" << want_latency_s << " s), simgrid " << got << "(" << latency_s << " s)";
  return text.str();
}

struct Check {
  std::uint64_t routes = 0;
  std::uint64_t mismatches = 0;
  std::vector<std::string> first;  // the first few mismatches
  void add(const std::string& mismatch) {
    ++routes;
    if (mismatch.empty()) return;
    ++mismatches;
    if (first.size() < 5) first.push_back(mismatch);
  }
};

StorageSpec make_storage(const Options& options, const Topology& topology) {
  StorageSpec storage;
  if (options.storage_at.empty()) return storage;
  storage.kind = codesim::sim::StorageKind::shared;
  storage.latency_s = 1e-6 / 3;  // unlike the network's links
  storage.bandwidth_Bps = 5e9;
  storage.attach_vertex =
      options.storage_at == "root" ? topology.vertex_count() - 1 : std::stoi(options.storage_at);
  storage.attach_to_switch = storage.attach_vertex >= topology.node_count();
  const std::string problem = codesim::sim::validate_storage(storage, topology);
  if (!problem.empty()) throw std::invalid_argument(problem);
  return storage;
}

/// Checks every pair's route, and each source's storage routes.
Check check_routes(const sg4::Engine& engine, const Topology& topology, const StorageSpec& storage,
                   const std::vector<std::pair<int, int>>& pairs) {
  std::vector<sg4::Host*> hosts;
  for (int v = 0; v < topology.node_count(); ++v)
    hosts.push_back(engine.host_by_name("node-" + std::to_string(v)));
  Check check;
  for (const auto& [src, dst] : pairs)
    check.add(route_mismatch(hosts[static_cast<std::size_t>(src)],
                             hosts[static_cast<std::size_t>(dst)], topology,
                             topology.route_links(src, dst)));
  if (storage.kind != codesim::sim::StorageKind::shared) return check;
  const sg4::Host* server = engine.host_by_name("storage");
  std::vector<char> done(hosts.size(), 0);
  for (const auto& [node, unused] : pairs) {
    if (done[static_cast<std::size_t>(node)]++) continue;
    const sg4::Host* host = hosts[static_cast<std::size_t>(node)];
    check.add(route_mismatch(host, server, topology,
                             codesim::sim::storage_route_links(topology, storage, node, true)));
    check.add(route_mismatch(server, host, topology,
                             codesim::sim::storage_route_links(topology, storage, node, false)));
  }
  return check;
}

}  // namespace

int main(int argc, char** argv) {
  sg4::Engine engine(&argc, argv);
  Options options;
  std::optional<Topology> topology;
  StorageSpec storage;
  try {
    options = parse_options(argc, argv);
    topology.emplace(make_platform(options.platform, options.nodes));
    storage = make_storage(options, *topology);
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n" << kUsage;
    return 2;
  }
  const std::vector<std::pair<int, int>> pairs = pairs_to_check(options.nodes, options.sample);
  const bool shortest = codesim::sim::shortest_paths_are_routes(*topology);
  const std::string path = options.platform_file.empty()
                               ? (std::filesystem::temp_directory_path() /
                                  ("simgrid-routes-" + std::to_string(::getpid()) + ".xml"))
                                     .string()
                               : options.platform_file;
  const auto export_start = std::chrono::steady_clock::now();
  {
    std::ofstream out(path);
    // Explicit routes: only the checked pairs when sampling.
    codesim::sim::write_simgrid_platform(
        out, *topology, options.sample > 0 ? std::span(pairs) : std::span<std::pair<int, int>>(),
        {}, storage);
  }
  const double export_s = seconds_since(export_start);
  const auto bytes = std::filesystem::file_size(path);
  const auto load_start = std::chrono::steady_clock::now();
  engine.load_platform(path);
  engine.seal_platform();  // the Dijkstra zone numbers its route graph when sealed
  const double load_s = seconds_since(load_start);
  if (options.platform_file.empty()) std::filesystem::remove(path);
  const auto check_start = std::chrono::steady_clock::now();
  const Check check = check_routes(engine, *topology, storage, pairs);
  const double check_s = seconds_since(check_start);
  std::cout << std::setprecision(4) << "{\n  \"platform\": \"" << options.platform
            << "\",\n  \"nodes\": " << options.nodes << ",\n  \"routing\": \""
            << (shortest ? "DijkstraCache" : "Full") << "\",\n  \"platform_bytes\": " << bytes
            << ",\n  \"export_s\": " << export_s << ",\n  \"load_s\": " << load_s
            << ",\n  \"routes_checked\": " << check.routes << ",\n  \"check_s\": " << check_s
            << ",\n  \"mismatches\": " << check.mismatches << ",\n  \"first_mismatches\": [";
  for (std::size_t i = 0; i < check.first.size(); ++i)
    std::cout << (i ? ",\n    \"" : "\n    \"") << check.first[i] << "\"";
  std::cout << "]\n}\n";
  return check.mismatches == 0 && check.routes > 0 ? 0 : 1;
}
