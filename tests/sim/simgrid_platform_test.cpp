// The SimGrid platform writer: its elements, routes that follow route_links, exact numbers.
#include "sim/simgrid_platform.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "sim/checkpoint_storage.hpp"
#include "sim/topology.hpp"

using codesim::sim::PlatformRoutes;
using codesim::sim::StorageSpec;
using codesim::sim::Topology;
using codesim::sim::TopologyShape;
using codesim::sim::TopologySpec;
using codesim::sim::write_simgrid_platform;

namespace {

int count(const std::string& text, const std::string& what) {
  int n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TopologySpec small_star(int nodes) {
  TopologySpec spec;
  spec.shape = TopologyShape::star;
  spec.nodes = nodes;
  spec.latency_s = 1e-6 / 3;  // not a short decimal: must still read back exactly
  spec.bandwidth_Bps = 1.25e9;
  return spec;
}

std::string platform_of(const Topology& topology,
                        const std::vector<std::pair<int, int>>& pairs = {},
                        PlatformRoutes routes = PlatformRoutes::automatic) {
  std::ostringstream out;
  write_simgrid_platform(out, topology, pairs, {}, {}, routes);
  return out.str();
}

/// The explicit form (a route per pair), whatever the shape.
std::string explicit_platform_of(const Topology& topology,
                                 const std::vector<std::pair<int, int>>& pairs = {}) {
  return platform_of(topology, pairs, PlatformRoutes::explicit_routes);
}

/// The text of the route element from src to dst ("" when there is none).
std::string route_text(const std::string& xml, int src, int dst) {
  const std::string open = "<route src=\"node-" + std::to_string(src) + "\" dst=\"node-" +
                           std::to_string(dst) + "\" symmetrical=\"NO\">";
  const std::size_t begin = xml.find(open);
  if (begin == std::string::npos) return "";
  return xml.substr(begin, xml.find("</route>", begin) - begin);
}

/// The link_ctn lines route_links(src, dst) should give.
std::string expected_hops(const Topology& topology, int src, int dst) {
  std::string hops;
  for (const auto& link : topology.route_links(src, dst)) {
    hops += "<link_ctn id=\"link-" + std::to_string(link.id / 2) + "\" direction=\"" +
            (link.id % 2 == 0 ? "UP" : "DOWN") + "\"/>";
  }
  return hops;
}

std::string hops_of(const std::string& route) {
  std::string hops;
  for (std::size_t at = route.find("<link_ctn"); at != std::string::npos;
       at = route.find("<link_ctn", at + 1))
    hops += route.substr(at, route.find("/>", at) + 2 - at);
  return hops;
}

}  // namespace

TEST_CASE(
    "an explicit star platform has a host per node, a router, a link per cable and every route") {
  const Topology star(small_star(4));
  const std::string xml = explicit_platform_of(star);
  CHECK(xml.rfind("<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM "
                  "\"https://simgrid.org/simgrid.dtd\">\n<platform version=\"4.1\">\n",
                  0) == 0);
  CHECK(xml.find("<zone id=\"codesim\" routing=\"Full\">") != std::string::npos);
  CHECK(xml.ends_with("  </zone>\n</platform>\n"));
  CHECK(count(xml, "<host id=\"node-") == 4);
  CHECK(count(xml, "<router id=\"switch-4\"/>") == 1);
  CHECK(count(xml, "<router ") == 1);
  CHECK(count(xml, "<link id=\"link-") == 4);
  CHECK(count(xml, "sharing_policy=\"SPLITDUPLEX\"") == 4);
  CHECK(count(xml, "<route ") == 12);  // 4 x 3 ordered pairs
  CHECK(count(xml, "</route>") == 12);
  CHECK(count(xml, "<link_ctn ") == 24);  // two hops each: up to the switch, down to the node
}

TEST_CASE("each explicit route lists route_links in order, direction 0 as UP and 1 as DOWN") {
  const Topology star(small_star(4));
  const std::string xml = explicit_platform_of(star);
  for (int src = 0; src < 4; ++src) {
    for (int dst = 0; dst < 4; ++dst) {
      if (src == dst) continue;
      CAPTURE(src);
      CAPTURE(dst);
      const std::string route = route_text(xml, src, dst);
      REQUIRE(!route.empty());
      CHECK(hops_of(route) == expected_hops(star, src, dst));
      // Leaving a node climbs towards the switch (UP); arriving at one comes down (DOWN).
      CHECK(route.find("direction=\"UP\"") < route.find("direction=\"DOWN\""));
    }
  }
}

TEST_CASE("bandwidths and latencies are written with units and read back as the same doubles") {
  TopologySpec spec;
  spec.shape = TopologyShape::edge_list;
  spec.nodes = 3;
  spec.latency_s = 1e-6 / 3;
  spec.bandwidth_Bps = 1.25e9 / 7;
  spec.edges = {{0, 1}, {1, 2, 2.5e-6, 1e8 / 3}};
  const Topology line(spec);
  const std::string xml = platform_of(line);
  std::vector<std::pair<double, double>> read;  // (bandwidth, latency) per link line
  for (std::size_t at = xml.find("<link id="); at != std::string::npos;
       at = xml.find("<link id=", at + 1)) {
    const std::size_t bw = xml.find("bandwidth=\"", at) + 11;
    const std::size_t lat = xml.find("latency=\"", at) + 9;
    char* end = nullptr;
    const double bandwidth = std::strtod(xml.c_str() + bw, &end);
    CHECK(std::string(end, 4) == "Bps\"");
    const double latency = std::strtod(xml.c_str() + lat, &end);
    CHECK(std::string(end, 2) == "s\"");
    read.emplace_back(bandwidth, latency);
  }
  const auto links = line.links();
  REQUIRE(read.size() == links.size());
  for (std::size_t k = 0; k < links.size(); ++k) {
    CHECK(read[k].first == links[k].bandwidth_Bps);
    CHECK(read[k].second == links[k].latency_s);
  }
}

TEST_CASE("given pairs, only their routes are written, each once") {
  const Topology star(small_star(5));
  const std::string xml = explicit_platform_of(star, {{0, 3}, {3, 0}, {0, 3}, {4, 1}});
  CHECK(count(xml, "<route ") == 3);
  CHECK(!route_text(xml, 0, 3).empty());
  CHECK(!route_text(xml, 3, 0).empty());
  CHECK(!route_text(xml, 4, 1).empty());
  CHECK(route_text(xml, 1, 4).empty());
  CHECK(count(xml, "<host ") == 5);  // every host is still declared
}

TEST_CASE("host speeds come from the given speeds, 1 Gflop/s by default") {
  const Topology star(small_star(2));
  CHECK(count(platform_of(star), "speed=\"1000000000f\"") == 2);
  std::ostringstream out;
  const std::vector<double> speeds = {2e9, 3.5e10};
  write_simgrid_platform(out, star, {}, speeds);
  CHECK(out.str().find("<host id=\"node-0\" speed=\"2000000000f\"/>") != std::string::npos);
  CHECK(out.str().find("<host id=\"node-1\" speed=\"35000000000f\"/>") != std::string::npos);
}

TEST_CASE("explicit shared storage adds its host, its link and a route each way per node") {
  TopologySpec spec;
  spec.shape = TopologyShape::fat_tree;
  spec.fat_tree_arity = 2;
  spec.nodes = 8;
  const Topology tree(spec);
  StorageSpec storage;
  storage.kind = codesim::sim::StorageKind::shared;
  storage.attach_vertex = 14;  // the root switch
  storage.attach_to_switch = true;
  storage.latency_s = 1e-5 / 3;
  storage.bandwidth_Bps = 2e9;
  std::ostringstream out;
  write_simgrid_platform(out, tree, {}, {}, storage, PlatformRoutes::explicit_routes);
  const std::string xml = out.str();
  CHECK(count(xml, "<host id=\"storage\" speed=\"1000000000f\"/>") == 1);
  const std::string link = "<link id=\"link-storage\" bandwidth=\"2000000000Bps\" latency=\"";
  REQUIRE(count(xml, link) == 1);
  CHECK(std::strtod(xml.c_str() + xml.find(link) + link.size(), nullptr) == storage.latency_s);
  CHECK(xml.find("sharing_policy=\"SPLITDUPLEX\"/>  <!-- UP: switch-14 to storage -->") !=
        std::string::npos);
  CHECK(count(xml, "<route ") == 8 * 7 + 2 * 8);
  const std::string server_up = "<link_ctn id=\"link-storage\" direction=\"UP\"/>";
  const std::string server_down = "<link_ctn id=\"link-storage\" direction=\"DOWN\"/>";
  for (int node = 0; node < 8; ++node) {
    CAPTURE(node);
    const std::string host = "node-" + std::to_string(node);
    const auto route = [&xml](const std::string& src, const std::string& dst) {
      const std::string open = "<route src=\"" + src + "\" dst=\"" + dst + "\" symmetrical=\"NO\">";
      const std::size_t begin = xml.find(open);
      return begin == std::string::npos ? ""
                                        : xml.substr(begin, xml.find("</route>", begin) - begin);
    };
    // The writes climb the node's route to the root, then cross the server link UP.
    CHECK(hops_of(route(host, "storage")) == expected_hops(tree, node, 14) + server_up);
    CHECK(hops_of(route("storage", host)) == server_down + expected_hops(tree, 14, node));
  }
  // Without shared storage the platform is as before.
  CHECK(platform_of(tree).find("storage") == std::string::npos);
}

namespace {

TopologySpec shape_spec(TopologyShape shape, int nodes) {
  TopologySpec spec;
  spec.shape = shape;
  spec.nodes = nodes;
  spec.hosts_per_leaf = 4;  // leaf_spine: 2 spines
  return spec;
}

/// The one-hop routes of a shortest-form platform, as (src, dst, link_ctn) in file order.
struct OneHop {
  std::string src;
  std::string dst;
  std::string hop;
};
std::vector<OneHop> one_hop_routes(const std::string& xml) {
  std::vector<OneHop> routes;
  const std::string open = "<route src=\"";
  for (std::size_t at = xml.find(open); at != std::string::npos; at = xml.find(open, at + 1)) {
    const std::size_t src = at + open.size();
    const std::size_t dst = xml.find("dst=\"", src) + 5;
    const std::string route = xml.substr(at, xml.find("</route>", at) - at);
    routes.push_back({xml.substr(src, xml.find('"', src) - src),
                      xml.substr(dst, xml.find('"', dst) - dst), hops_of(route)});
  }
  return routes;
}

}  // namespace

TEST_CASE("trees, uniform rings and uniform tori are written as one-hop routes for Dijkstra") {
  for (const auto& [shape, nodes] :
       {std::pair{TopologyShape::star, 6}, std::pair{TopologyShape::fat_tree, 11},
        std::pair{TopologyShape::ring, 8}, std::pair{TopologyShape::torus2d, 12}}) {
    CAPTURE(codesim::sim::to_string(shape));
    const Topology topology(shape_spec(shape, nodes));
    CHECK(codesim::sim::shortest_paths_are_routes(topology));
    const std::string xml = platform_of(topology, {{0, 1}});  // pairs: ignored here
    CHECK(count(xml, "<zone id=\"codesim\" routing=\"DijkstraCache\">") == 1);
    const std::vector<OneHop> routes = one_hop_routes(xml);
    const auto links = topology.links();
    REQUIRE(routes.size() == 2 * links.size());
    CHECK(count(xml, "<link_ctn ") == static_cast<int>(routes.size()));  // one hop each
    for (std::size_t i = 0; i < routes.size(); i += 2) {
      // Each link UP from its lower end, then DOWN back.
      const std::string id = routes[i].hop.substr(0, routes[i].hop.find("\" direction"));
      const auto k = std::stoul(id.substr(id.find("link-") + 5));
      REQUIRE(k < links.size());
      const int low = std::min(links[k].a, links[k].b);
      const int high = std::max(links[k].a, links[k].b);
      const auto name = [nodes](int v) {
        return (v < nodes ? "node-" : "switch-") + std::to_string(v);
      };
      CHECK(routes[i].src == name(low));
      CHECK(routes[i].dst == name(high));
      CHECK(routes[i].hop.find("direction=\"UP\"") != std::string::npos);
      CHECK(routes[i + 1].src == name(high));
      CHECK(routes[i + 1].dst == name(low));
      CHECK(routes[i + 1].hop == id + "\" direction=\"DOWN\"/>");
    }
  }
}

TEST_CASE("the one-hop routes name the vertices first in id order, SimGrid's tie order") {
  // SimGrid numbers its route graph's vertices as the routes first name them and, among equal
  // costs, settles the lowest number first: in id order that is codesim's lowest-id rule.
  for (const auto& [shape, nodes] :
       {std::pair{TopologyShape::ring, 10}, std::pair{TopologyShape::torus2d, 20}}) {
    CAPTURE(codesim::sim::to_string(shape));
    const Topology topology(shape_spec(shape, nodes));
    std::vector<std::string> named;
    for (const OneHop& route : one_hop_routes(platform_of(topology)))
      for (const std::string& v : {route.src, route.dst})
        if (std::find(named.begin(), named.end(), v) == named.end()) named.push_back(v);
    REQUIRE(named.size() == static_cast<std::size_t>(nodes));
    for (int v = 0; v < nodes; ++v)
      CHECK(named[static_cast<std::size_t>(v)] == "node-" + std::to_string(v));
  }
}

TEST_CASE("leaf-spines, edge lists with cycles and tori with overrides keep explicit routes") {
  TopologySpec cycle = shape_spec(TopologyShape::edge_list, 4);
  cycle.edges = {{0, 1}, {1, 2}, {2, 3}, {3, 0}};
  TopologySpec long_cable = shape_spec(TopologyShape::torus2d, 9);
  long_cable.link_overrides = {{0, 1, 5e-6, -1.0}};
  TopologySpec ring_override = shape_spec(TopologyShape::ring, 6);
  ring_override.link_overrides = {{2, 3, -1.0, 1e8}};  // bandwidth only: still explicit
  for (const TopologySpec& spec : {shape_spec(TopologyShape::leaf_spine, 12), cycle, long_cable,
                                   ring_override, shape_spec(TopologyShape::fully_connected, 4)}) {
    CAPTURE(codesim::sim::to_string(spec.shape));
    const Topology topology(spec);
    CHECK_FALSE(codesim::sim::shortest_paths_are_routes(topology));
    const std::string xml = platform_of(topology);
    CHECK(count(xml, "routing=\"Full\"") == 1);
    CHECK(count(xml, "<route ") == spec.nodes * (spec.nodes - 1));
    CHECK(hops_of(route_text(xml, 1, 0)) == expected_hops(topology, 1, 0));
  }
}

TEST_CASE("an edge list or a leaf-spine that is a tree takes one-hop routes, overrides and all") {
  TopologySpec line = shape_spec(TopologyShape::edge_list, 4);
  line.edges = {{0, 1}, {1, 2, 3e-6, 1e8}, {3, 2}};
  TopologySpec one_spine = shape_spec(TopologyShape::leaf_spine, 8);
  one_spine.spines = 1;
  TopologySpec slow_port = small_star(5);
  slow_port.link_overrides = {{1, 5, 5e-6, 1e8}};
  for (const TopologySpec& spec : {line, one_spine, slow_port}) {
    CAPTURE(codesim::sim::to_string(spec.shape));
    const Topology topology(spec);
    CHECK(codesim::sim::shortest_paths_are_routes(topology));
    CHECK(count(platform_of(topology), "<route ") == 2 * topology.link_count());
  }
}

TEST_CASE("in the one-hop form the storage server has a route each way at its attach vertex") {
  const Topology ring(shape_spec(TopologyShape::ring, 6));
  StorageSpec storage;
  storage.kind = codesim::sim::StorageKind::shared;
  storage.attach_vertex = 4;
  storage.latency_s = 1e-5 / 3;
  std::ostringstream out;
  write_simgrid_platform(out, ring, {}, {}, storage);
  const std::vector<OneHop> routes = one_hop_routes(out.str());
  REQUIRE(routes.size() == 2 * 6 + 2);
  CHECK(routes[12].src == "node-4");
  CHECK(routes[12].dst == "storage");
  CHECK(routes[12].hop == "<link_ctn id=\"link-storage\" direction=\"UP\"/>");
  CHECK(routes[13].src == "storage");
  CHECK(routes[13].dst == "node-4");
  CHECK(routes[13].hop == "<link_ctn id=\"link-storage\" direction=\"DOWN\"/>");
  CHECK(count(out.str(), "<host id=\"storage\"") == 1);
}

TEST_CASE("the explicit size estimate is near the size written, and grows as nodes squared") {
  for (const TopologySpec& spec :
       {shape_spec(TopologyShape::leaf_spine, 40), shape_spec(TopologyShape::fat_tree, 90),
        shape_spec(TopologyShape::ring, 70)}) {
    CAPTURE(codesim::sim::to_string(spec.shape));
    const Topology topology(spec);
    const auto written = static_cast<double>(explicit_platform_of(topology).size());
    const auto estimate =
        static_cast<double>(codesim::sim::estimate_explicit_platform_bytes(topology));
    CHECK(estimate > 0.9 * written);
    CHECK(estimate < 1.1 * written);
  }
  const auto at = [](int nodes) {
    return static_cast<double>(codesim::sim::estimate_explicit_platform_bytes(
        Topology(shape_spec(TopologyShape::leaf_spine, nodes))));
  };
  CHECK(at(4096) > 3.9 * at(2048));
  CHECK(at(2048) > 1e9);  // 2,048 leaf-spine nodes: about 1.1 GB of routes
  CHECK(at(2048) < 1.5e9);
}
