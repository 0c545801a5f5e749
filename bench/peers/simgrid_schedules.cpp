// SimGrid 3.32 peer of codesim's transfer schedules (sim/transfer_schedule.hpp): builds a named
// pattern on a named platform (bench/patterns), exports the platform with the very routes codesim
// takes (sim/simgrid_platform.hpp), loads it into SimGrid set to pure max-min sharing
// (simgrid_max_min.hpp) and runs the transfer graph there; prints each transfer's completion time
// as JSON. With --compare it also runs sim::run_schedule and fails when the two disagree.
//
// Each transfer is an actor on its source host, created when its last predecessor completes: it
// sleeps its route latency (the links carry none in SimGrid, see simgrid_max_min.hpp), then
// Comm::sendto's its bytes. Join points (src == dst) complete the moment they are ready.
// --latency native keeps the latencies on SimGrid's links instead (no sleep): CM02 then weighs
// each flow's share by its route latency, which shows where that differs from pure max-min.
// --sharing cm02|lv08 runs SimGrid with network/model CM02 or LV08 and every other option at its
// default (latencies on the links, the TCP window bound, cross-traffic on the routes back, which
// the platform then lists too), against codesim with cluster.network.sharing set the same.
//
// The patterns storage_write and storage_read run a global checkpoint instead: a storage server
// (sim/checkpoint_storage.hpp) hangs off vertex --storage-at of the platform (default "root", the
// root switch of a star or fat tree) by a 1 us, 5e9 B/s link, and every node sends it 1e6 bytes
// at once (or it sends them back), on the exported platform's storage host and routes; --compare
// checks the last completion against sim::storage_transfer_time_s.
#include <stdlib.h>
#include <unistd.h>
#include <simgrid/s4u.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "bench/patterns/network_patterns.hpp"
#include "bench/peers/simgrid_max_min.hpp"
#include "sim/checkpoint_storage.hpp"
#include "sim/simgrid_platform.hpp"

namespace sg4 = simgrid::s4u;
using codesim::sim::StorageSpec;
using codesim::sim::Topology;
using codesim::sim::Transfer;
using codesim::sim::TransferSchedule;

namespace {

const char* const kUsage =
    "usage: simgrid-schedules --pattern P --platform T --nodes N [--compare [--tolerance REL]]\n"
    "                         [--latency sleep|native] [--platform-file OUT.xml] [--summary]\n"
    "                         [--storage-at root|VERTEX] [--sharing max_min|cm02|lv08]\n"
    "                         [--cfg=...]\n"
    "patterns: those of bench/patterns, and storage_write, storage_read\n";

struct Options {
  std::string pattern;
  std::string platform;
  int nodes = 0;
  bool compare = false;
  double tolerance = 1e-3;    // relative, on each completion time
  std::string platform_file;  // "" = a temporary file, removed once loaded
  bool summary = false;       // no per-transfer times
  bool native_latency = false;
  std::string storage_at = "root";  // storage patterns: the server's vertex, or "root"
  codesim::sim::FlowSharing sharing = codesim::sim::FlowSharing::max_min;
};

Options parse_options(int argc, char** argv) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const bool has_value = i + 1 < argc;
    if (arg == "--compare") {
      options.compare = true;
    } else if (arg == "--summary") {
      options.summary = true;
    } else if (arg == "--pattern" && has_value) {
      options.pattern = argv[++i];
    } else if (arg == "--platform" && has_value) {
      options.platform = argv[++i];
    } else if (arg == "--nodes" && has_value) {
      options.nodes = std::stoi(argv[++i]);
    } else if (arg == "--tolerance" && has_value) {
      options.tolerance = std::stod(argv[++i]);
    } else if (arg == "--latency" && has_value) {
      const std::string mode = argv[++i];
      if (mode != "sleep" && mode != "native")
        throw std::invalid_argument("--latency sleep|native");
      options.native_latency = mode == "native";
    } else if (arg == "--sharing" && has_value) {
      const std::string name = argv[++i];
      const auto& names = codesim::sim::kFlowSharingNames;
      const auto it = std::find(names.begin(), names.end(), name);
      if (it == names.end()) throw std::invalid_argument("--sharing max_min|cm02|lv08");
      options.sharing = static_cast<codesim::sim::FlowSharing>(it - names.begin());
    } else if (arg == "--storage-at" && has_value) {
      options.storage_at = argv[++i];
    } else if (arg == "--platform-file" && has_value) {
      options.platform_file = argv[++i];
    } else {
      throw std::invalid_argument("unexpected argument '" + arg + "'");
    }
  }
  if (options.pattern.empty() || options.platform.empty() || options.nodes == 0)
    throw std::invalid_argument("--pattern, --platform and --nodes are required");
  // SimGrid's own models run latencies on the links (and weigh shares by them).
  if (options.sharing != codesim::sim::FlowSharing::max_min) options.native_latency = true;
  return options;
}

/// The node pairs that talk in `schedule` (all pairs would be nodes^2 routes), and the pairs
/// back when cross-traffic loads the routes back.
std::vector<std::pair<int, int>> talking_pairs(const TransferSchedule& schedule, bool both_ways) {
  std::vector<std::pair<int, int>> pairs;
  for (const Transfer& t : schedule.transfers()) {
    if (t.src == t.dst) continue;
    pairs.emplace_back(t.src, t.dst);
    if (both_ways) pairs.emplace_back(t.dst, t.src);
  }
  return pairs;
}

void write_platform(const Topology& topology, std::span<const std::pair<int, int>> pairs,
                    const StorageSpec& storage, const std::string& path) {
  std::ofstream out(path);
  codesim::sim::write_simgrid_platform(out, topology, pairs, {}, storage);
  out.close();
  if (!out) throw std::runtime_error("cannot write the platform to " + path);
}

/// Writes the platform (the routes of `pairs`, and the storage server's when it is shared) where
/// asked, or to a temporary .xml file (SimGrid picks its parser by the extension), loads it and
/// removes the temporary file.
void load_platform(sg4::Engine& engine, const Topology& topology,
                   std::span<const std::pair<int, int>> pairs, const StorageSpec& storage,
                   const std::string& platform_file) {
  if (!platform_file.empty()) {
    write_platform(topology, pairs, storage, platform_file);
    engine.load_platform(platform_file);
    return;
  }
  std::string path = (std::filesystem::temp_directory_path() / "simgrid-schedules-XXXXXX.xml");
  const int fd = ::mkstemps(path.data(), 4);
  if (fd < 0) throw std::runtime_error("cannot create a temporary platform file");
  ::close(fd);
  try {
    write_platform(topology, pairs, storage, path);
    engine.load_platform(path);
  } catch (...) {
    std::filesystem::remove(path);
    throw;
  }
  std::filesystem::remove(path);
}

/// The transfer graph on SimGrid: completes transfers and posts their successors as actors.
class SimgridRun {
 public:
  SimgridRun(const sg4::Engine& engine, const Topology& topology, const TransferSchedule& schedule,
             bool native_latency)
      : transfers_(schedule.transfers()),
        waiting_on_(transfers_.size()),
        successors_(transfers_.size()),
        completion_s_(transfers_.size(), -1.0) {
    for (std::size_t i = 0; i < transfers_.size(); ++i) {
      waiting_on_[i] = transfers_[i].after.size();
      for (std::size_t before : transfers_[i].after) successors_[before].push_back(i);
    }
    for (int v = 0; v < topology.node_count(); ++v)
      hosts_.push_back(engine.host_by_name("node-" + std::to_string(v)));
    latency_s_.resize(transfers_.size(), 0.0);
    for (std::size_t i = 0; i < transfers_.size() && !native_latency; ++i)
      latency_s_[i] = topology.route_latency_s(transfers_[i].src, transfers_[i].dst);
  }

  /// Posts the transfers that wait for nothing; engine.run() does the rest.
  void start() {
    for (std::size_t i = 0; i < transfers_.size(); ++i)
      if (waiting_on_[i] == 0) post(i);
  }

  const std::vector<double>& completion_s() const { return completion_s_; }

 private:
  void post(std::size_t i) {
    const Transfer& t = transfers_[i];
    if (t.src == t.dst) {
      complete(i);
      return;
    }
    sg4::Actor::create("transfer-" + std::to_string(i), hosts_[static_cast<std::size_t>(t.src)],
                       [this, i] { transfer(i); });
  }

  void transfer(std::size_t i) {
    const Transfer& t = transfers_[i];
    if (latency_s_[i] > 0.0) sg4::this_actor::sleep_for(latency_s_[i]);
    // SimGrid moves whole bytes: a fractional size is rounded (at most half a byte off).
    sg4::Comm::sendto(hosts_[static_cast<std::size_t>(t.src)],
                      hosts_[static_cast<std::size_t>(t.dst)],
                      static_cast<std::uint64_t>(std::llround(t.bytes)));
    complete(i);
  }

  void complete(std::size_t i) {
    completion_s_[i] = sg4::Engine::get_clock();
    for (std::size_t next : successors_[i])
      if (--waiting_on_[next] == 0) post(next);
  }

  std::span<const Transfer> transfers_;
  std::vector<std::size_t> waiting_on_;
  std::vector<std::vector<std::size_t>> successors_;
  std::vector<double> latency_s_;  // sum of the route's link latencies, slept before sending
  std::vector<sg4::Host*> hosts_;
  std::vector<double> completion_s_;
};

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

void print_times(const char* name, const std::vector<double>& times_s) {
  std::cout << "  \"" << name << "\": [";
  for (std::size_t i = 0; i < times_s.size(); ++i) std::cout << (i ? ", " : "") << times_s[i];
  std::cout << "],\n";
}

double makespan_of(const std::vector<double>& times_s) {
  return times_s.empty() ? 0.0 : *std::max_element(times_s.begin(), times_s.end());
}

/// The worst relative difference between codesim's and SimGrid's completion times.
double worst_difference(const std::vector<double>& codesim_s,
                        const std::vector<double>& simgrid_s) {
  double worst = 0.0;
  for (std::size_t i = 0; i < simgrid_s.size(); ++i) {
    worst = std::max(worst, std::abs(codesim_s[i] - simgrid_s[i]) / std::max(simgrid_s[i], 1e-12));
  }
  return worst;
}

// ---- storage patterns ---------------------------------------------------------------------

constexpr double kStorageBytesPerNode = 1e6;

struct StorageRun {
  Topology topology;
  StorageSpec storage;
  bool write = true;
};

/// The storage patterns' network and server, or nullopt for another pattern. The server hangs
/// off vertex options.storage_at ("root": the last vertex, the root switch of a star or fat tree)
/// by a link four times a node's (1 us, 5e9 B/s).
std::optional<StorageRun> make_storage_run(const Options& options) {
  if (options.pattern != "storage_write" && options.pattern != "storage_read") return std::nullopt;
  codesim::sim::TopologySpec platform =
      codesim::bench::make_network_platform(options.platform, options.nodes);
  platform.sharing = options.sharing;
  StorageRun run{Topology(platform), StorageSpec{}, options.pattern == "storage_write"};
  StorageSpec& storage = run.storage;
  const bool root = options.storage_at == "root";
  storage.kind = codesim::sim::StorageKind::shared;
  storage.attach_vertex = root ? run.topology.vertex_count() - 1 : std::stoi(options.storage_at);
  storage.attach_to_switch = root || storage.attach_vertex >= run.topology.node_count();
  storage.latency_s = 1e-6;
  storage.bandwidth_Bps = 5e9;
  const std::string problem = codesim::sim::validate_storage(storage, run.topology);
  if (!problem.empty())
    throw std::invalid_argument("--storage-at " + options.storage_at + ": " + problem);
  return run;
}

/// Every node's transfer to the storage host (`write`) or from it, all at once, each an actor
/// that sleeps its route's latency (unless the links keep theirs) and then sends; returns their
/// completion times.
std::vector<double> run_storage_in_simgrid(sg4::Engine& engine, const Topology& topology,
                                           const StorageSpec& storage, bool write,
                                           bool native_latency) {
  sg4::Host* server = engine.host_by_name("storage");
  std::vector<double> completion_s(static_cast<std::size_t>(topology.node_count()), -1.0);
  for (int node = 0; node < topology.node_count(); ++node) {
    double latency_s = 0.0;
    for (const auto& link : codesim::sim::storage_route_links(topology, storage, node, write))
      latency_s += native_latency ? 0.0 : link.latency_s;
    sg4::Host* host = engine.host_by_name("node-" + std::to_string(node));
    sg4::Host* src = write ? host : server;
    sg4::Host* dst = write ? server : host;
    sg4::Actor::create("storage-" + std::to_string(node), src, [=, &completion_s] {
      if (latency_s > 0.0) sg4::this_actor::sleep_for(latency_s);
      sg4::Comm::sendto(src, dst, static_cast<std::uint64_t>(kStorageBytesPerNode));
      completion_s[static_cast<std::size_t>(node)] = sg4::Engine::get_clock();
    });
  }
  engine.run();
  return completion_s;
}

/// storage_write and storage_read: SimGrid's last completion against storage_transfer_time_s.
int run_storage_pattern(sg4::Engine& engine, const Options& options, const StorageRun& run) {
  const auto& [topology, storage, write] = run;
  load_platform(engine, topology, {}, storage, options.platform_file);
  if (!options.native_latency) codesim::bench::zero_link_latencies(engine);
  const auto simgrid_start = std::chrono::steady_clock::now();
  const std::vector<double> simgrid_s =
      run_storage_in_simgrid(engine, topology, storage, write, options.native_latency);
  const double wall_s = seconds_since(simgrid_start);
  std::cout << std::setprecision(17) << "{\n  \"pattern\": \"" << options.pattern
            << "\",\n  \"platform\": \"" << options.platform
            << "\",\n  \"nodes\": " << options.nodes
            << ",\n  \"storage_vertex\": " << storage.attach_vertex
            << ",\n  \"flows\": " << simgrid_s.size() << ",\n";
  if (!options.summary) print_times("simgrid_s", simgrid_s);
  std::cout << "  \"makespan_s\": " << makespan_of(simgrid_s) << ",\n  \"wall_s\": " << wall_s;
  if (!options.compare) {
    std::cout << "\n}\n";
    return 0;
  }
  const double codesim_s = codesim::sim::storage_transfer_time_s(
      topology, storage, topology.node_count(), kStorageBytesPerNode, write);
  const double difference = std::abs(codesim_s - makespan_of(simgrid_s)) / makespan_of(simgrid_s);
  std::cout << ",\n  \"codesim_makespan_s\": " << codesim_s
            << ",\n  \"max_relative_difference\": " << difference << "\n}\n";
  return difference <= options.tolerance ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  sg4::Engine engine(&argc, argv);  // removes its --cfg=... and --log=... arguments
  Options options;
  codesim::bench::NetworkPattern pattern;
  std::optional<StorageRun> storage_run;
  try {
    options = parse_options(argc, argv);
    storage_run = make_storage_run(options);
    if (!storage_run) {
      pattern =
          codesim::bench::make_network_pattern(options.pattern, options.platform, options.nodes);
      pattern.platform.sharing = options.sharing;
    }
  } catch (const std::exception& e) {  // invalid_argument, and out_of_range from stoi/stod
    std::cerr << "error: " << e.what() << "\n" << kUsage;
    return 2;
  }
  codesim::bench::configure_sharing(options.sharing);
  if (storage_run) return run_storage_pattern(engine, options, *storage_run);
  const Topology topology(pattern.platform);
  const bool both_ways = codesim::sim::sharing_law(options.sharing).cross_traffic;
  load_platform(engine, topology, talking_pairs(pattern.schedule, both_ways), {},
                options.platform_file);
  if (!options.native_latency) codesim::bench::zero_link_latencies(engine);

  SimgridRun run(engine, topology, pattern.schedule, options.native_latency);
  run.start();
  const auto simgrid_start = std::chrono::steady_clock::now();
  engine.run();
  const double wall_s = seconds_since(simgrid_start);
  const std::vector<double>& simgrid_s = run.completion_s();

  std::size_t flows = 0;
  for (const Transfer& t : pattern.schedule.transfers()) flows += t.src != t.dst;
  std::cout << std::setprecision(17) << "{\n  \"pattern\": \"" << options.pattern
            << "\",\n  \"platform\": \"" << options.platform
            << "\",\n  \"nodes\": " << options.nodes << ",\n  \"latency\": \""
            << (options.native_latency ? "native" : "sleep") << "\",\n  \"sharing\": \""
            << codesim::sim::to_string(options.sharing) << "\",\n  \"flows\": " << flows << ",\n";
  if (!options.summary) print_times("simgrid_s", simgrid_s);
  std::cout << "  \"makespan_s\": " << makespan_of(simgrid_s) << ",\n  \"wall_s\": " << wall_s;
  if (!options.compare) {
    std::cout << "\n}\n";
    return 0;
  }
  const auto codesim_start = std::chrono::steady_clock::now();
  const codesim::sim::ScheduleTimes codesim =
      codesim::sim::run_schedule(topology, pattern.schedule);
  const double codesim_wall_s = seconds_since(codesim_start);
  const double worst = worst_difference(codesim.completion_s, simgrid_s);
  std::cout << ",\n";
  if (!options.summary) print_times("codesim_s", codesim.completion_s);
  std::cout << "  \"codesim_makespan_s\": " << codesim.makespan_s
            << ",\n  \"codesim_wall_s\": " << codesim_wall_s
            << ",\n  \"max_relative_difference\": " << worst << "\n}\n";
  return worst <= options.tolerance ? 0 : 1;
}
