// SimGrid platform XML from a Topology: hosts, routers, split-duplex links, explicit routes.
#include "sim/simgrid_platform.hpp"

#include <cstdint>
#include <iomanip>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "sim/check.hpp"

namespace codesim::sim {

namespace {

constexpr double kDefaultSpeed_flops_per_s = 1e9;
constexpr std::string_view kStorageName = "storage";  // the storage host, and link-storage

std::string vertex_name(const Topology& topology, int vertex) {
  return (vertex < topology.node_count() ? "node-" : "switch-") + std::to_string(vertex);
}

// One-way route between two hosts, listing `links`: link K's direction d has id 2K + d, d = 0
// (lower to higher vertex id) being SimGrid's UP; the ids after the topology's are the storage
// server's link (storage_route_links).
void write_route_links(std::ostream& out, const Topology& topology, std::string_view src,
                       std::string_view dst, const std::vector<RouteLink>& links) {
  out << "    <route src=\"" << src << "\" dst=\"" << dst << "\" symmetrical=\"NO\">\n";
  const auto topology_links = static_cast<std::uint64_t>(topology.link_count());
  for (const RouteLink& link : links) {
    const std::uint64_t k = link.id / 2;
    out << "      <link_ctn id=\"link-"
        << (k < topology_links ? std::to_string(k) : std::string(kStorageName)) << "\" direction=\""
        << (link.id % 2 == 0 ? "UP" : "DOWN") << "\"/>\n";
  }
  out << "    </route>\n";
}

void write_route(std::ostream& out, const Topology& topology, int src, int dst) {
  CODESIM_CHECK(src != dst && src >= 0 && dst >= 0 && src < topology.node_count() &&
                    dst < topology.node_count(),
                "a platform route joins two different compute nodes");
  write_route_links(out, topology, vertex_name(topology, src), vertex_name(topology, dst),
                    topology.route_links(src, dst));
}

// The storage server's routes to and from every compute node.
void write_storage_routes(std::ostream& out, const Topology& topology, const StorageSpec& storage) {
  for (int node = 0; node < topology.node_count(); ++node) {
    const std::string host = vertex_name(topology, node);
    write_route_links(out, topology, host, kStorageName,
                      storage_route_links(topology, storage, node, true));
    write_route_links(out, topology, kStorageName, host,
                      storage_route_links(topology, storage, node, false));
  }
}

}  // namespace

void write_simgrid_platform(std::ostream& out, const Topology& topology,
                            std::span<const std::pair<int, int>> pairs,
                            std::span<const double> speeds_flops_per_s,
                            const StorageSpec& storage) {
  const int nodes = topology.node_count();
  CODESIM_CHECK(
      speeds_flops_per_s.empty() || speeds_flops_per_s.size() == static_cast<std::size_t>(nodes),
      "one speed per compute node, or none");
  const bool shared = storage.kind == StorageKind::shared;
  CODESIM_CHECK(validate_storage(storage, topology).empty(), "a usable storage spec");
  const std::streamsize old_precision = out.precision(17);  // doubles read back exactly
  out << "<?xml version='1.0'?>\n"
      << "<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
      << "<platform version=\"4.1\">\n"
      << "  <zone id=\"codesim\" routing=\"Full\">\n";
  for (int i = 0; i < nodes; ++i) {
    const double speed = speeds_flops_per_s.empty()
                             ? kDefaultSpeed_flops_per_s
                             : speeds_flops_per_s[static_cast<std::size_t>(i)];
    out << "    <host id=\"node-" << i << "\" speed=\"" << speed << "f\"/>\n";
  }
  if (shared)
    out << "    <host id=\"" << kStorageName << "\" speed=\"" << kDefaultSpeed_flops_per_s
        << "f\"/>\n";
  for (int j = nodes; j < topology.vertex_count(); ++j)
    out << "    <router id=\"switch-" << j << "\"/>\n";
  const std::vector<TopologyLink> links = topology.links();
  for (std::size_t k = 0; k < links.size(); ++k) {
    out << "    <link id=\"link-" << k << "\" bandwidth=\"" << links[k].bandwidth_Bps
        << "Bps\" latency=\"" << links[k].latency_s
        << "s\" sharing_policy=\"SPLITDUPLEX\"/>  <!-- UP: " << vertex_name(topology, links[k].a)
        << " to " << vertex_name(topology, links[k].b) << " -->\n";
  }
  if (shared) {
    out << "    <link id=\"link-" << kStorageName << "\" bandwidth=\"" << storage.bandwidth_Bps
        << "Bps\" latency=\"" << storage.latency_s
        << "s\" sharing_policy=\"SPLITDUPLEX\"/>  <!-- UP: "
        << vertex_name(topology, storage.attach_vertex) << " to " << kStorageName << " -->\n";
  }
  if (pairs.empty()) {
    for (int src = 0; src < nodes; ++src)
      for (int dst = 0; dst < nodes; ++dst)
        if (src != dst) write_route(out, topology, src, dst);
  } else {
    std::set<std::pair<int, int>> written;  // SimGrid refuses a route declared twice
    for (const auto& pair : pairs)
      if (written.insert(pair).second) write_route(out, topology, pair.first, pair.second);
  }
  if (shared) write_storage_routes(out, topology, storage);
  out << "  </zone>\n"
      << "</platform>\n";
  out.precision(old_precision);
}

}  // namespace codesim::sim
