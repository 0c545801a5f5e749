// Network topology: a Boost.Graph of nodes and switches with per-link latency and bandwidth.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sim/collective_choice.hpp"
#include "sim/flow_sharing.hpp"

namespace codesim::sim {

class NetworkCostModel;

/// One link of an explicit edge list: a and b are vertex ids, compute nodes 0..nodes-1 and then
/// the spec's switches (switch j is vertex nodes + j). Negative latency/bandwidth
/// mean "use the topology default".
struct EdgeSpec {
  int a = 0;
  int b = 0;
  double latency_s = -1.0;
  double bandwidth_Bps = -1.0;
};

/// The network shapes:
///   fully_connected  a direct link between every pair of nodes
///   star             every node linked to one switch (a single crossbar switch)
///   ring             node i linked to node (i + 1) mod nodes
///   torus2d          torus_rows x torus_cols grid with wrap-around (rows * cols == nodes)
///   fat_tree         a k-ary tree of switches (k = fat_tree_arity) with nodes at the leaves:
///                    level 1 has ceil(nodes / k) switches, switch j linking nodes jk..jk+k-1;
///                    each next level groups the previous level's switches k at a time in id
///                    order (the last group may be partial) until one root switch remains
///                    (always at least one switch). Switch ids count up from `nodes`, level by
///                    level. Links into level l have bandwidth_Bps * 2^(l-1), so a route's
///                    bottleneck is its leaf links
///   edge_list        exactly the links in `edges` between the nodes and the named `switches`
///                    (must connect every vertex; one link per pair); switches forward traffic
///                    and run no tasks
///   k_ary_fat_tree   the multi-rooted three-tier fat tree of k-port switches datacenters build
///                    (Al-Fares, Loukissas and Vahdat, SIGCOMM 2008): k pods of k/2 edge and k/2
///                    aggregation switches, (k/2)^2 core switches, k/2 hosts per edge switch
///                    (node i on edge switch i / (k/2), filling pods in order), every link alike.
///                    Routes take the path ECMP's hash of (source, destination) picks among the
///                    equal-hop ones (sim/clos_routes.hpp). Switch ids from `nodes`: edge
///                    switches pod by pod, then aggregation switches, then core switches
///   leaf_spine       a two-tier Clos: leaves of hosts_per_leaf nodes each (node i on leaf
///                    i / hosts_per_leaf), every leaf linked to every spine; host links have
///                    bandwidth_Bps, each leaf-spine link hosts_per_leaf x bandwidth_Bps /
///                    (spines x oversubscription), so a leaf's uplinks carry 1 / oversubscription
///                    of what its hosts can send. Switch ids: leaves from `nodes`, then spines.
///                    Routes between leaves cross the spine that ECMP's hash of (source,
///                    destination) picks (sim/leaf_spine.hpp)
enum class TopologyShape {
  fully_connected,
  star,
  ring,
  torus2d,
  fat_tree,
  edge_list,
  leaf_spine,
  k_ary_fat_tree
};

/// The shapes' names (in scenarios and outputs), indexed by TopologyShape.
inline constexpr std::array<std::string_view, 8> kTopologyShapeNames = {
    "fully_connected", "star",      "ring",       "torus2d",
    "fat_tree",        "edge_list", "leaf_spine", "k_ary_fat_tree"};
std::string_view to_string(TopologyShape shape);
std::optional<TopologyShape> parse_topology_shape(std::string_view name);

/// How transfers use the links (scenarios/README.md, "Network model"); a Topology makes the
/// matching NetworkCostModel (sim/network_cost_model.hpp) and every cost asks it:
///   flow      every transfer is a flow on its route; the flows crossing a link direction share
///             its bandwidth by max-min fairness (sim/flow_network.hpp), and collectives run as
///             their transfer schedules (sim/collective_schedules.hpp)
///   analytic  contention-free: a transfer takes route latency + bytes / bottleneck bandwidth
///             whatever else is moving, and collectives cost their closed forms
enum class NetworkModel { flow, analytic };
inline constexpr std::array<std::string_view, 2> kNetworkModelNames = {"flow", "analytic"};
std::string_view to_string(NetworkModel model);

/// One link of the network (an undirected cable; each direction has the full bandwidth).
struct TopologyLink {
  int a = 0;  ///< vertex ids (compute nodes 0..nodes-1, then switches)
  int b = 0;
  double latency_s = 0.0;
  double bandwidth_Bps = 0.0;
};

/// One direction of a link on a route: id = 2 * (index in Topology::links()) + (0 when the
/// route crosses it from the lower to the higher vertex id, else 1).
struct RouteLink {
  std::uint64_t id = 0;
  double latency_s = 0.0;
  double bandwidth_Bps = 0.0;
};

/// One link of a shape changed (any shape): the link joining vertices a and b (compute nodes
/// 0..nodes-1, then switches, numbered as Topology::route numbers them) takes latency_s and
/// bandwidth_Bps, each negative to keep the shape's. A star with one slow port, an edge switch
/// with a slow uplink, a torus with one long cable.
struct LinkOverride {
  int a = 0;
  int b = 0;
  double latency_s = -1.0;
  double bandwidth_Bps = -1.0;
};

/// What is wrong with link_overrides[index] (its key `field`: "a", "b", "latency_s" or
/// "bandwidth_Bps"), and what is expected.
struct OverrideProblem {
  std::size_t index = 0;
  std::string field;
  std::string message;
};

/// The flow model's solver work (FlowNetwork::solve_work: links and route hops visited, about
/// 5-40 ns each on a 2-core EPYC VM) above which a ring, Bruck or all-reduce collective gives up
/// its full schedule and runs in lockstep, noted in the results. Counted rather than timed, so
/// that results are the same on every machine: a 16,384-node fat tree's Bruck all-gather passes
/// it (its every finish re-solves the flows of the whole tree), a 2,048-node one does not.
inline constexpr std::uint64_t kFullScheduleWork = std::uint64_t{1} << 30;

/// Plain description of a network: its shape, the parameters and how transfers share links.
struct TopologySpec {
  NetworkModel model = NetworkModel::flow;
  FlowSharing sharing = FlowSharing::max_min;  ///< flow model only (sim/flow_sharing.hpp)
  CollectiveChoice collectives;                ///< the algorithms of the collectives
  TopologyShape shape = TopologyShape::fully_connected;
  int nodes = 1;
  double latency_s = 1e-6;        ///< per link, seconds (>= 0)
  double bandwidth_Bps = 1.25e9;  ///< per link, bytes per second (> 0)
  int torus_rows = 0;             ///< torus2d; 0 = choose the most square factorization
  int torus_cols = 0;
  int fat_tree_arity = 4;         ///< fat_tree: >= 2
  int leaves = 0;                 ///< leaf_spine: >= 1, or 0 for ceil(nodes / hosts_per_leaf)
  int spines = 2;                 ///< leaf_spine: >= 1
  int hosts_per_leaf = 16;        ///< leaf_spine: >= 1
  double oversubscription = 1.0;  ///< leaf_spine: hosts' bandwidth / uplinks' bandwidth, > 0
  int fat_tree_ports = 0;         ///< k_ary_fat_tree: k, even, >= 2; 0 = the least that fits
  std::vector<EdgeSpec> edges;    ///< edge_list
  /// edge_list: the switches' names (unique, as scenarios name them); switch j is vertex
  /// nodes + j.
  std::vector<std::string> switches;
  /// Applied to the shape's links. With any, routes on fully_connected, ring and torus2d are
  /// Dijkstra's over the links (their closed forms assume uniform links).
  std::vector<LinkOverride> link_overrides;
  /// Flow model: solver work above which a ring or Bruck collective runs in lockstep
  /// (kFullScheduleWork). Not read from scenarios; tests lower it.
  std::uint64_t full_schedule_work = kFullScheduleWork;
};

/// A topology with cached shortest-latency routes between compute nodes.
/// A route minimises total latency, then hop count; remaining ties take, at each vertex, the
/// lowest-id predecessor. A transfer of b bytes along a route takes the sum of its link latencies
/// plus b divided by the route's bottleneck bandwidth (cut-through, no contention), as the
/// sharing's law scales and bounds a lone flow (lone_flow_time_s).
/// Routes are closed forms on fully_connected, ring and torus2d, tree walks on trees (star,
/// fat_tree); on edge lists they are filled in lazily (one shortest-path tree per source, a
/// bounded cache), so a Topology must not be queried from several threads at once; give each
/// replica its own.
/// Links can be taken down and brought back (set_link_up, for link failures): while any link is
/// down, every route is a Dijkstra shortest path (same key and tie rule) over the surviving links
/// (one tree per source vertex, dropped on every change), and the remembered results are
/// forgotten; once every link is up again, the closed forms answer as before. Two vertices that no
/// surviving path joins keep the intact network's route: a node cut off is down (CrashProcess), but
/// the centralized protocols send to node 0, their collector, whatever its state.
class Topology {
 public:
  /// Precondition: the spec is valid (CODESIM_CHECK otherwise).
  explicit Topology(const TopologySpec& spec);
  ~Topology();
  Topology(Topology&&) noexcept;
  Topology& operator=(Topology&&) noexcept;

  int node_count() const;
  TopologyShape shape() const;
  /// Every link has the spec's latency and bandwidth (no link_overrides) and none is down.
  bool uniform_links() const;
  /// Vertices (compute nodes and switches) and links in the network.
  int vertex_count() const;
  int link_count() const;
  /// The vertices along the route from src to dst, both included (switches have ids >= nodes).
  /// src and dst, here and below, are compute-node ids in 0..node_count()-1.
  std::vector<int> route(int src, int dst) const;
  /// Sum of the route's link latencies, seconds; 0 when src == dst.
  double route_latency_s(int src, int dst) const;
  /// Smallest link bandwidth on the route, bytes per second; infinity when src == dst.
  double route_bandwidth_Bps(int src, int dst) const;
  /// Time to move `bytes` (>= 0) from src to dst alone on the network, seconds; 0 when
  /// src == dst.
  double transfer_time_s(int src, int dst, double bytes) const;

  /// The network model the spec chose, asked for every communication cost.
  const NetworkCostModel& network_cost_model() const;
  /// How flows share links under the flow model.
  FlowSharing sharing() const;
  /// The collectives' algorithms (sim/collectives.hpp asks).
  const CollectiveChoice& collectives() const;
  /// The directed links of route(src, dst) in order (empty when src == dst). Here src and dst
  /// may also be switches (vertex ids >= node_count(), which only star and fat_tree have; the
  /// root is vertex_count() - 1): on these trees a route between a node and a switch is the
  /// path between them, and its links carry the same ids as on routes between nodes, so that
  /// flows to a switch share links with the rest of the traffic.
  std::vector<RouteLink> route_links(int src, int dst) const;
  /// Every link, in the order RouteLink ids count them (fully_connected: pairs (a, b), a < b, in
  /// lexicographic order, built on each call).
  std::vector<TopologyLink> links() const;

  /// Takes link `link` (an index into links()) down (up = false) or brings it back.
  void set_link_up(int link, bool up);
  bool link_up(int link) const;
  /// Links currently down.
  int links_down() const;
  /// Per compute node: true when it is cut off from the main part of the network, the connected
  /// component (over the links up, switches included) holding the most compute nodes (ties: the
  /// one holding the lowest node id). All false while every link is up.
  std::vector<char> cut_off_nodes() const;

  /// What a network model simplified while costing on this topology (a collective too large for
  /// one schedule run step by step): set once, kept, and written into the run's results as the
  /// note `network_simplified` (add_network_notes), so that no simplification is silent.
  void note_simplification(const std::string& what) const;
  const std::string& simplification() const;

  /// Results computed from this topology alone, remembered by a caller-made key (the flow runs of
  /// transfer schedules, which rounds repeat thousands of times): nullptr when not remembered.
  /// At most about 2^22 words (values, and keys in 8-byte words: 32 MiB) are kept; beyond that
  /// the memory is cleared and refilled.
  const std::vector<double>* remembered(const std::string& key) const;
  void remember(std::string key, std::vector<double> values) const;
  /// Appends a plain value's bytes to such a key.
  template <typename T>
  static void append_to_key(std::string& key, const T& value) {
    key.append(reinterpret_cast<const char*>(&value), sizeof value);
  }

 private:
  // While links are down only the routes that crossed one change: the links taken away lengthen
  // no other path and leave the tie rule's choice among the rest, so an intact route whose links
  // are all up is also the shortest path over the surviving links (the test
  // "only the routes that crossed a failed link change" compares with Dijkstra over them). The
  // intact route's links when none is down; nullopt when one is.
  std::optional<std::vector<RouteLink>> unbroken_route(int src, int dst) const;
  /// Whether src -> dst takes a detour: links are down, its intact route crosses one and a path
  /// of links up joins them.
  bool detours(int src, int dst) const;
  /// The route and its links with every link up (the closed forms, tree walks or Dijkstra).
  std::vector<int> intact_route(int src, int dst) const;
  std::vector<RouteLink> intact_route_links(int src, int dst) const;
  /// The links joining `vertices` in order, from the surviving links' index when `detour`.
  std::vector<RouteLink> route_links_along(const std::vector<int>& vertices, bool detour) const;
  /// Latency (s) and bottleneck bandwidth (B/s) of route(src, dst).
  std::pair<double, double> route_cost(int src, int dst) const;

  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// The most ports a k_ary_fat_tree's switches may have: 1,024,000 hosts, 2 million links and
/// 32,000 switches (a build of about 1.3 s and 0.4 GB); its fabric is built whole.
inline constexpr int kMaxFatTreePorts = 160;

/// The least even k whose k_ary_fat_tree holds `nodes` hosts (k^3 / 4 >= nodes).
int fat_tree_ports_to_fit(int nodes);

/// leaf_spine: the bandwidth of each leaf-to-spine uplink, hosts_per_leaf x bandwidth_Bps /
/// (spines x oversubscription), so that the uplinks carry 1 / oversubscription of what the hosts
/// can send. validate_topology refuses a spec where it is not finite and positive.
double leaf_spine_uplink_Bps(const TopologySpec& spec);

/// Checks a topology spec; returns an empty string when valid, else what is wrong and what is
/// expected. fully_connected allows at most 65536 nodes (its link count must fit an int).
std::string validate_topology(const TopologySpec& spec);

/// The first link override that names no link of the shape or gives a bad value; nullopt when
/// all are good. Precondition: the rest of the spec is valid.
std::optional<OverrideProblem> find_override_problem(const TopologySpec& spec);

}  // namespace codesim::sim
