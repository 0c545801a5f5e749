// SimGrid platform XML from a Topology: hosts, routers, split-duplex links, and the routes either
// as one-hop routes for SimGrid's Dijkstra or listed pair by pair.
#include "sim/simgrid_platform.hpp"

#include <algorithm>
#include <cstdint>
#include <iomanip>
#include <numeric>
#include <set>
#include <sstream>
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

// The link indices in the order the shortest form declares their one-hop routes: by the higher
// end's id, then the lower end's. Declaring lower end first, SimGrid's route graph then numbers
// a vertex when the first link to a lower vertex (or the first link at all) names it.
std::vector<int> links_by_higher_end(const std::vector<TopologyLink>& links) {
  std::vector<int> order(links.size());
  std::iota(order.begin(), order.end(), 0);
  const auto key = [&links](int k) {
    const TopologyLink& link = links[static_cast<std::size_t>(k)];
    return std::pair{std::max(link.a, link.b), std::min(link.a, link.b)};
  };
  std::stable_sort(order.begin(), order.end(), [&key](int x, int y) { return key(x) < key(y); });
  return order;
}

// Whether SimGrid's route graph, built from the one-hop routes in links_by_higher_end order,
// numbers the vertices 0, 1, 2, ... as codesim does: its tie rule (lowest index first) is then
// codesim's (lowest id first).
bool names_vertices_in_id_order(const std::vector<TopologyLink>& links, int vertices) {
  std::vector<char> named(static_cast<std::size_t>(vertices), 0);
  int next = 0;
  for (int k : links_by_higher_end(links)) {
    const TopologyLink& link = links[static_cast<std::size_t>(k)];
    for (int v : {std::min(link.a, link.b), std::max(link.a, link.b)}) {
      if (named[static_cast<std::size_t>(v)]) continue;
      if (v != next) return false;
      named[static_cast<std::size_t>(v)] = 1;
      ++next;
    }
  }
  return next == vertices;
}

// The shortest form's routes: each link UP from its lower end and DOWN back, in
// links_by_higher_end order; then the storage server's link, from attach_vertex and back.
void write_one_hop_routes(std::ostream& out, const Topology& topology,
                          const std::vector<TopologyLink>& links, const StorageSpec& storage) {
  for (int k : links_by_higher_end(links)) {
    const TopologyLink& link = links[static_cast<std::size_t>(k)];
    const std::uint64_t up = 2 * static_cast<std::uint64_t>(k);
    const std::string low = vertex_name(topology, std::min(link.a, link.b));
    const std::string high = vertex_name(topology, std::max(link.a, link.b));
    write_route_links(out, topology, low, high,
                      {RouteLink{up, link.latency_s, link.bandwidth_Bps}});
    write_route_links(out, topology, high, low,
                      {RouteLink{up + 1, link.latency_s, link.bandwidth_Bps}});
  }
  if (storage.kind != StorageKind::shared) return;
  const std::uint64_t server_link = 2 * links.size();
  const std::string attach = vertex_name(topology, storage.attach_vertex);
  write_route_links(out, topology, attach, kStorageName,
                    {RouteLink{server_link, storage.latency_s, storage.bandwidth_Bps}});
  write_route_links(out, topology, kStorageName, attach,
                    {RouteLink{server_link + 1, storage.latency_s, storage.bandwidth_Bps}});
}

// The explicit form's routes: every ordered pair of nodes, or `pairs`; then the storage routes.
void write_explicit_routes(std::ostream& out, const Topology& topology,
                           std::span<const std::pair<int, int>> pairs, const StorageSpec& storage) {
  const int nodes = topology.node_count();
  if (pairs.empty()) {
    for (int src = 0; src < nodes; ++src)
      for (int dst = 0; dst < nodes; ++dst)
        if (src != dst) write_route(out, topology, src, dst);
  } else {
    std::set<std::pair<int, int>> written;  // SimGrid refuses a route declared twice
    for (const auto& pair : pairs)
      if (written.insert(pair).second) write_route(out, topology, pair.first, pair.second);
  }
  if (storage.kind == StorageKind::shared) write_storage_routes(out, topology, storage);
}

// Hosts, routers and links (the storage server's included): what both forms share.
void write_elements(std::ostream& out, const Topology& topology,
                    const std::vector<TopologyLink>& links,
                    std::span<const double> speeds_flops_per_s, const StorageSpec& storage) {
  const int nodes = topology.node_count();
  const bool shared = storage.kind == StorageKind::shared;
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
}

// A Topology is connected (validate_topology), so vertices - 1 links make a tree: one path
// between each two vertices.
bool is_tree(const Topology& topology) {
  return topology.link_count() + 1 == topology.vertex_count();
}

bool is_torus(const Topology& topology) {
  return topology.shape() == TopologyShape::ring || topology.shape() == TopologyShape::torus2d;
}

// Whether the shortest form fits, given the topology's links (shortest_paths_are_routes).
bool shortest_form_fits(const Topology& topology, const std::vector<TopologyLink>& links) {
  if (is_tree(topology)) return true;
  return is_torus(topology) && topology.uniform_links() &&
         names_vertices_in_id_order(links, topology.vertex_count());
}

}  // namespace

bool shortest_paths_are_routes(const Topology& topology) {
  // links() of a fully connected network is nodes^2 / 2 entries: only build what can be a tree
  // or a torus.
  if (!is_tree(topology) && !is_torus(topology)) return false;
  return shortest_form_fits(topology, topology.links());
}

std::uint64_t estimate_explicit_platform_bytes(const Topology& topology,
                                               const StorageSpec& storage) {
  const auto nodes = static_cast<std::uint64_t>(topology.node_count());
  if (nodes < 2) return 0;
  // Up to 64 sources evenly spread, each to up to 64 destinations evenly spread: few sources,
  // since an edge list's routes cost a shortest-path tree per source.
  const std::uint64_t sources = std::min<std::uint64_t>(64, nodes);
  const std::uint64_t per_source = std::min<std::uint64_t>(64, nodes - 1);
  std::ostringstream sample;
  sample.precision(17);
  for (std::uint64_t i = 0; i < sources; ++i) {
    const std::uint64_t src = i * nodes / sources;
    for (std::uint64_t j = 0; j < per_source; ++j) {
      const std::uint64_t dst = (src + 1 + j * (nodes - 1) / per_source) % nodes;
      write_route(sample, topology, static_cast<int>(src), static_cast<int>(dst));
    }
  }
  const double per_route_bytes =
      static_cast<double>(sample.tellp()) / static_cast<double>(sources * per_source);
  const double routes =
      static_cast<double>(nodes * (nodes - 1)) +
      (storage.kind == StorageKind::shared ? 2.0 * static_cast<double>(nodes) : 0);
  // Hosts, routers and links: about 130 bytes each.
  const double elements = 130.0 * (topology.vertex_count() + topology.link_count());
  return static_cast<std::uint64_t>(routes * per_route_bytes + elements);
}

void write_simgrid_platform(std::ostream& out, const Topology& topology,
                            std::span<const std::pair<int, int>> pairs,
                            std::span<const double> speeds_flops_per_s, const StorageSpec& storage,
                            PlatformRoutes routes) {
  CODESIM_CHECK(speeds_flops_per_s.empty() ||
                    speeds_flops_per_s.size() == static_cast<std::size_t>(topology.node_count()),
                "one speed per compute node, or none");
  CODESIM_CHECK(validate_storage(storage, topology).empty(), "a usable storage spec");
  const std::vector<TopologyLink> links = topology.links();
  const bool shortest = routes == PlatformRoutes::automatic && shortest_form_fits(topology, links);
  const std::streamsize old_precision = out.precision(17);  // doubles read back exactly
  out << "<?xml version='1.0'?>\n"
      << "<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
      << "<platform version=\"4.1\">\n"
      << "  <zone id=\"codesim\" routing=\"" << (shortest ? "DijkstraCache" : "Full") << "\">\n";
  write_elements(out, topology, links, speeds_flops_per_s, storage);
  if (shortest) {
    write_one_hop_routes(out, topology, links, storage);
  } else {
    write_explicit_routes(out, topology, pairs, storage);
  }
  out << "  </zone>\n"
      << "</platform>\n";
  out.precision(old_precision);
}

}  // namespace codesim::sim
