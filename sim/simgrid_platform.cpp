// SimGrid platform XML from a Topology: hosts, routers, split-duplex links, explicit routes.
#include "sim/simgrid_platform.hpp"

#include <iomanip>
#include <set>
#include <string>
#include <vector>

#include "sim/check.hpp"

namespace codesim::sim {

namespace {

constexpr double kDefaultSpeed_flops_per_s = 1e9;

std::string vertex_name(const Topology& topology, int vertex) {
  return (vertex < topology.node_count() ? "node-" : "switch-") + std::to_string(vertex);
}

void write_route(std::ostream& out, const Topology& topology, int src, int dst) {
  CODESIM_CHECK(src != dst && src >= 0 && dst >= 0 && src < topology.node_count() &&
                    dst < topology.node_count(),
                "a platform route joins two different compute nodes");
  out << "    <route src=\"node-" << src << "\" dst=\"node-" << dst << "\" symmetrical=\"NO\">\n";
  for (const RouteLink& link : topology.route_links(src, dst)) {
    // Link K's direction d has id 2K + d; d = 0 (lower to higher vertex id) is SimGrid's UP.
    out << "      <link_ctn id=\"link-" << link.id / 2 << "\" direction=\""
        << (link.id % 2 == 0 ? "UP" : "DOWN") << "\"/>\n";
  }
  out << "    </route>\n";
}

}  // namespace

void write_simgrid_platform(std::ostream& out, const Topology& topology,
                            std::span<const std::pair<int, int>> pairs,
                            std::span<const double> speeds_flops_per_s) {
  const int nodes = topology.node_count();
  CODESIM_CHECK(
      speeds_flops_per_s.empty() || speeds_flops_per_s.size() == static_cast<std::size_t>(nodes),
      "one speed per compute node, or none");
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
  for (int j = nodes; j < topology.vertex_count(); ++j)
    out << "    <router id=\"switch-" << j << "\"/>\n";
  const std::vector<TopologyLink> links = topology.links();
  for (std::size_t k = 0; k < links.size(); ++k) {
    out << "    <link id=\"link-" << k << "\" bandwidth=\"" << links[k].bandwidth_Bps
        << "Bps\" latency=\"" << links[k].latency_s
        << "s\" sharing_policy=\"SPLITDUPLEX\"/>  <!-- UP: " << vertex_name(topology, links[k].a)
        << " to " << vertex_name(topology, links[k].b) << " -->\n";
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
  out << "  </zone>\n"
      << "</platform>\n";
  out.precision(old_precision);
}

}  // namespace codesim::sim
