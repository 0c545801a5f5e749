// Datacenter networks in scenarios: edge lists with named switches, the multi-rooted k-ary fat
// tree, and their errors, each at its JSON pointer.
#include <doctest/doctest.h>

#include <string>

#include "app/config/scenario_loader.hpp"
#include "support/experiment_error.hpp"

using codesim::app::Json;
using codesim::app::load_scenario;
using codesim::app::Scenario;

namespace {

// Two racks of 4 nodes, each on its top-of-rack switch, the racks joined by a core switch.
Json racks_scenario() {
  return Json::parse(R"({
    "name": "racks",
    "seed": 3,
    "replicas": 1,
    "cluster": {
      "nodes": 8,
      "network": {
        "topology": "edge_list",
        "switches": ["tor0", "tor1", "core"],
        "edges": [{"a": 0, "b": "tor0"}, {"a": 1, "b": "tor0"}, {"a": 2, "b": "tor0"},
                  {"a": 3, "b": "tor0"}, {"a": 4, "b": "tor1"}, {"a": 5, "b": "tor1"},
                  {"a": 6, "b": "tor1"}, {"a": 7, "b": "tor1"},
                  {"a": "tor0", "b": "core", "bandwidth_Bps": 4e9},
                  {"a": "tor1", "b": "core", "bandwidth_Bps": 4e9}]
      }
    },
    "workload": {"kind": "iterative_job", "iterations": 3, "exchange": "all_gather"}
  })");
}

Json with(const std::string& assignment, Json document = racks_scenario()) {
  codesim::app::apply_set(document, assignment, "s.json");
  return document;
}

// The whole error line load_scenario gives, or "" when the document is accepted.
std::string error_of(const Json& document) {
  return codesim::test::scenario_error_message([&] { load_scenario(document, "s.json"); });
}

Json fat_tree(const std::string& fields) {
  return with("/cluster/network={\"topology\": \"k_ary_fat_tree\"" + fields + "}");
}

}  // namespace

TEST_CASE("an edge list's switches are vertices after the nodes, named in its links") {
  const Scenario loaded = load_scenario(racks_scenario(), "s.json");
  const auto& network = loaded.cluster.network;
  CHECK(network.switches == std::vector<std::string>{"tor0", "tor1", "core"});
  REQUIRE(network.edges.size() == 10);
  CHECK(network.edges[0].b == 8);
  CHECK(network.edges[8].a == 8);
  CHECK(network.edges[8].b == 10);
  CHECK(loaded.resolved["cluster"]["network"]["edges"][8]["a"] == "tor0");
}

TEST_CASE("a link naming no switch, or a switch named twice, is refused at its pointer") {
  CHECK(error_of(with("/cluster/network/edges/9/b=\"spine\"")) ==
        "s.json: /cluster/network/edges/9/b: \"spine\" names no switch (expected a compute-node "
        "id in 0..7, or a name listed in switches)");
  CHECK(error_of(with("/cluster/network/switches=[\"tor0\", \"tor1\", \"tor0\"]")) ==
        "s.json: /cluster/network/switches/2: \"tor0\" is already switches/0 (expected one name "
        "per switch)");
  CHECK(error_of(with("/cluster/network/switches=[\"tor0\", 1, \"core\"]")) ==
        "s.json: /cluster/network/switches/1: wrong type: got number 1 (expected a switch's "
        "name, a non-empty string)");
  CHECK(error_of(with("/cluster/network/edges/9/b=9")) ==
        "s.json: /cluster/network/edges/9/b: value 9 is out of range (expected an integer in "
        "[0, 7])");
  // A switch no link reaches.
  CHECK(error_of(with("/cluster/network/switches=[\"tor0\", \"tor1\", \"core\", \"spare\"]")) ==
        "s.json: /cluster/network: edge_list does not connect all switches (switch 3 is "
        "unreachable from node 0) (expected a valid network)");
}

TEST_CASE("a switch used as a compute node is refused at its pointer") {
  CHECK(error_of(with("/checkpoint={\"policy\": \"none\", \"storage\": {\"kind\": \"shared\", "
                      "\"attach_node\": \"core\", \"bandwidth_Bps\": 1e9}}")) ==
        "s.json: /checkpoint/storage/attach_node: \"core\" is a switch, not a compute node "
        "(expected a compute node id in 0..7, or attach_switch for a server on a switch)");
  const Scenario on_core =
      load_scenario(with("/checkpoint={\"policy\": \"none\", \"storage\": {\"kind\": \"shared\", "
                         "\"attach_switch\": \"core\", \"bandwidth_Bps\": 1e9}}"),
                    "s.json");
  CHECK(on_core.checkpoint.storage.attach_vertex == 10);
  CHECK(on_core.checkpoint.storage.attach_to_switch);
}

TEST_CASE("a link override can name an edge list's switches") {
  const Scenario slow =
      load_scenario(with("/cluster/network/link_overrides=[{\"a\": \"tor1\", \"b\": \"core\", "
                         "\"bandwidth_Bps\": 1e9}]"),
                    "s.json");
  REQUIRE(slow.cluster.network.link_overrides.size() == 1);
  CHECK(slow.cluster.network.link_overrides[0].a == 9);
  CHECK(slow.cluster.network.link_overrides[0].b == 10);
  CHECK(error_of(with("/cluster/network/link_overrides=[{\"a\": \"tor0\", \"b\": \"tor1\", "
                      "\"latency_s\": 1}]")) ==
        "s.json: /cluster/network/link_overrides/0/b: no link joins vertices 8 and 9 in this "
        "edge_list (expected the two ends of one of its links)");
}

TEST_CASE("a k-ary fat tree's ports default to the least that fit and are checked at their key") {
  const Scenario fitted = load_scenario(fat_tree(""), "s.json");
  CHECK(fitted.cluster.network.shape == codesim::sim::TopologyShape::k_ary_fat_tree);
  CHECK(fitted.cluster.network.fat_tree_ports == 4);  // 8 nodes: 4^3 / 4 = 16 places
  CHECK(fitted.resolved["cluster"]["network"]["fat_tree_ports"] == 4);
  CHECK(error_of(fat_tree(", \"fat_tree_ports\": 5")) ==
        "s.json: /cluster/network/fat_tree_ports: value 5 is odd (expected an even number of "
        "ports k, or 0 to fit the nodes)");
  CHECK(error_of(fat_tree(", \"fat_tree_ports\": 2")) ==
        "s.json: /cluster/network/fat_tree_ports: a fat tree of 2-port switches holds 2 hosts, "
        "not the 8 nodes (expected k with k^3 / 4 >= nodes, or 0 to fit them)");
  CHECK(error_of(fat_tree(", \"fat_tree_ports\": 162")) ==
        "s.json: /cluster/network/fat_tree_ports: value 162 is out of range (expected an integer "
        "in [0, 160])");
  CHECK(error_of(fat_tree(", \"fat_tree_arity\": 4"))
            .starts_with("s.json: /cluster/network/fat_tree_arity: unknown key"));
}
