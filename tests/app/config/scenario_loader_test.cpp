// Scenario loading: every kind of bad scenario is rejected at its JSON pointer; defaults are
// filled in; --set overrides apply before validation.
#include "app/config/scenario_loader.hpp"

#include <doctest/doctest.h>

#include <unistd.h>
#include <chrono>
#include <cmath>
#include <variant>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "app/config/scenario_error.hpp"
#include "support/json_keys.hpp"

using codesim::app::apply_set;
using codesim::app::Json;
using codesim::app::load_scenario;
using codesim::app::load_scenario_file;
using codesim::app::parse_scenario_text;
using codesim::app::read_scenario_file;
using codesim::app::Scenario;
using codesim::app::ScenarioError;

using codesim::test::collect_keys;

namespace {

/// A small valid scenario the cases below break one field at a time.
Json base_scenario() {
  return Json::parse(R"({
    "name": "small",
    "seed": 7,
    "replicas": 3,
    "cluster": {
      "nodes": 8,
      "speed_flops_per_s": 2e9,
      "network": {"topology": "star", "latency_s": 1e-5, "bandwidth_Bps": 1e9},
      "stragglers": {"kind": "pareto", "scale": 1.0, "shape": 2.5},
      "crashes": {"mtbf_s": 500, "repair_s": 10},
      "overrides": [{"nodes": [0, 1], "speed_flops_per_s": 1e9}]
    },
    "checkpoint": {"policy": "daly", "write_s": 2, "restart_s": 5},
    "workload": {"kind": "iterative_job", "iterations": 20, "wait_for": 6}
  })");
}

/// The error message load_scenario gives for `document`, or "" when it is accepted.
std::string error_of(const Json& document) {
  try {
    load_scenario(document, "s.json");
  } catch (const ScenarioError& e) {
    return e.what();
  }
  return "";
}

/// The pointer of the error load_scenario gives for `document`.
std::string pointer_of_error(const Json& document) {
  try {
    load_scenario(document, "s.json");
  } catch (const ScenarioError& e) {
    return e.pointer();
  }
  return "(accepted)";
}

Json with(const std::string& assignment) {
  Json document = base_scenario();
  apply_set(document, assignment, "s.json");
  return document;
}

}  // namespace

TEST_CASE("the base test scenario is valid") { CHECK(error_of(base_scenario()).empty()); }

TEST_CASE("an unknown key is rejected at its pointer with a did-you-mean suggestion") {
  Json document = base_scenario();
  document["cluster"]["nodez"] = 4;
  CHECK(error_of(document) ==
        "s.json: /cluster/nodez: unknown key \"nodez\", did you mean \"nodes\"? (expected one of: "
        "nodes, speed_flops_per_s, network, stragglers, crashes, soft_errors, power, overrides, "
        "domains, availability_trace, speed_trace)");
}

TEST_CASE("an unknown top-level section is rejected") {
  Json document = base_scenario();
  document["sweeps"] = Json::object();
  CHECK(pointer_of_error(document) == "/sweeps");
  CHECK(error_of(document).find("unknown key \"sweeps\"") != std::string::npos);
}

TEST_CASE("a parameter of another straggler law is an unknown key for this law") {
  const std::string error = error_of(with("/cluster/stragglers/rate=2"));
  CHECK(error ==
        "s.json: /cluster/stragglers/rate: unknown key \"rate\" for straggler kind \"pareto\" "
        "(expected one of: kind, scale, shape)");
}

TEST_CASE("a wrong type is rejected with what was given and what is expected") {
  CHECK(error_of(with("/cluster/nodes=\"16\"")) ==
        "s.json: /cluster/nodes: wrong type: got string \"16\" (expected an integer in [1, "
        "100000])");
  CHECK(error_of(with("/workload/detect_soft_errors=1")) ==
        "s.json: /workload/detect_soft_errors: wrong type: got number 1 (expected true or false)");
  CHECK(error_of(with("/cluster/network=[]")) ==
        "s.json: /cluster/network: wrong type: got an array (expected an object)");
}

TEST_CASE("an out-of-range value is rejected with the allowed range") {
  CHECK(error_of(with("/cluster/nodes=0")) ==
        "s.json: /cluster/nodes: value 0 is out of range (expected an integer in [1, 100000])");
  CHECK(error_of(with("/cluster/stragglers/shape=-1")) ==
        "s.json: /cluster/stragglers/shape: value -1 is out of range (expected a number > 0)");
  CHECK(error_of(with("/cluster/soft_errors/probability_per_operation=1.5")) ==
        "s.json: /cluster/soft_errors/probability_per_operation: value 1.5 is out of range "
        "(expected a number in [0, 1])");
  CHECK(error_of(with("/replicas=-2")) ==
        "s.json: /replicas: value -2 is out of range (expected an integer in [1, 1000000])");
  CHECK(error_of(with("/seed=-1")) ==
        "s.json: /seed: value -1 is out of range (expected an integer in [0, "
        "18446744073709551615])");
  // 2^64 parses as a float: every digit, so that it visibly lies outside (not 1.84467440737e+19).
  CHECK(error_of(with("/seed=18446744073709551616")) ==
        "s.json: /seed: value 18446744073709551616 is out of range (expected an integer in [0, "
        "18446744073709551615])");
  CHECK(error_of(with("/replicas=1e19")) ==
        "s.json: /replicas: value 10000000000000000000 is out of range (expected an integer in "
        "[1, 1000000])");
}

TEST_CASE("wait_for cannot exceed the tasks of an iteration") {
  CHECK(error_of(with("/workload/wait_for=9")) ==
        "s.json: /workload/wait_for: value 9 is out of range (expected an integer in [0, 8])");
  CHECK(error_of(with("/workload/tasks=12")).empty());
}

TEST_CASE("an invalid enum string is rejected with the allowed values and a suggestion") {
  CHECK(error_of(with("/cluster/network/topology=fat-tree")) ==
        "s.json: /cluster/network/topology: unknown value \"fat-tree\", did you mean "
        "\"fat_tree\"? (expected one of: fully_connected, star, ring, torus2d, fat_tree, "
        "edge_list, leaf_spine, k_ary_fat_tree)");
  CHECK(error_of(with("/checkpoint/policy=sometimes")) ==
        "s.json: /checkpoint/policy: unknown value \"sometimes\" (expected one of: none, "
        "every_iterations, every_seconds, young, daly, optimal_simulated)");
  CHECK(pointer_of_error(with("/workload/exchange=broadcast")) == "/workload/exchange");
  CHECK(error_of(with("/workload/kind=trainng")) ==
        "s.json: /workload/kind: unknown value \"trainng\", did you mean \"training\"? "
        "(expected one of: iterative_job, training)");
}

TEST_CASE("override node ids must exist and be distinct") {
  CHECK(error_of(with("/cluster/overrides/0/nodes/1=8")) ==
        "s.json: /cluster/overrides/0/nodes/1: node id 8 does not exist (expected a node id in "
        "[0, 7])");
  CHECK(error_of(with("/cluster/overrides/0/nodes/1=-1")).find("node id -1 does not exist") !=
        std::string::npos);
  CHECK(error_of(with("/cluster/overrides/0/nodes/1=0")) ==
        "s.json: /cluster/overrides/0/nodes/1: node id 0 is listed twice (expected distinct ids)");
  CHECK(pointer_of_error(with("/cluster/overrides/0/nodes=[]")) == "/cluster/overrides/0/nodes");
  CHECK(pointer_of_error(with("/cluster/overrides/0/nodes/0=\"a\"")) ==
        "/cluster/overrides/0/nodes/0");
  CHECK(pointer_of_error(with("/cluster/overrides/0/sped=1")) == "/cluster/overrides/0/sped");
}

TEST_CASE("overrides change only the listed nodes and start from the cluster-wide values") {
  Json document = with("/cluster/overrides/-={\"nodes\": [5], \"crashes\": {\"mtbf_s\": 50}}");
  const Scenario s = load_scenario(document, "s.json");
  REQUIRE(s.cluster.node_count() == 8);
  CHECK(s.cluster.speeds_flops_per_s[0] == 1e9);
  CHECK(s.cluster.speeds_flops_per_s[1] == 1e9);
  CHECK(s.cluster.speeds_flops_per_s[2] == 2e9);
  CHECK(s.cluster.crashes[5].mtbf_s() == 50);
  CHECK(codesim::sim::mean_s(s.cluster.crashes[5].repair) == 10);  // the cluster's repair_s
  CHECK(s.cluster.crashes[4].mtbf_s() == 500);
  CHECK(std::holds_alternative<codesim::sim::ParetoStraggler>(s.cluster.stragglers[5]));
  CHECK(s.resolved["cluster"]["overrides"][1].dump() ==
        R"({"nodes":[5],"crashes":{"mtbf_s":50.0,"repair_s":10.0}})");
}

TEST_CASE("cluster.power gives every node its draw, overrides start from it, defaults resolved") {
  Json document = with("/cluster/power={\"busy_W\": 400, \"network_J_per_B\": 1e-9}");
  apply_set(document, "/cluster/overrides/-={\"nodes\": [3], \"power\": {\"idle_W\": 90}}",
            "s.json");
  const Scenario s = load_scenario(document, "s.json");
  CHECK(s.cluster.power[0].busy_W == 400);
  CHECK(s.cluster.power[0].idle_W == 150);  // the default
  CHECK(s.cluster.power[3].busy_W == 400);  // from the cluster's
  CHECK(s.cluster.power[3].idle_W == 90);
  CHECK(s.cluster.transfer_energy.network_J_per_B == 1e-9);
  CHECK(s.cluster.transfer_energy.checkpoint_J_per_B == 3e-8);
  CHECK(s.resolved["cluster"]["power"].dump() ==
        R"({"busy_W":400.0,"idle_W":150.0,"down_W":0.0,"network_J_per_B":1e-09,)"
        R"("checkpoint_J_per_B":3e-08})");
}

TEST_CASE("negative watts and joules are rejected at their pointer") {
  CHECK(error_of(with("/cluster/power={\"idle_W\": -1}")) ==
        "s.json: /cluster/power/idle_W: value -1 is out of range (expected a number >= 0)");
  CHECK(pointer_of_error(with("/cluster/power={\"checkpoint_J_per_B\": -2}")) ==
        "/cluster/power/checkpoint_J_per_B");
  CHECK(pointer_of_error(with("/cluster/overrides/0/power={\"busy_W\": -3}")) ==
        "/cluster/overrides/0/power/busy_W");
  CHECK(pointer_of_error(with("/cluster/overrides/0/power={\"network_J_per_B\": 1}")) ==
        "/cluster/overrides/0/power/network_J_per_B");  // per byte is cluster-wide
}

TEST_CASE("a later override wins for a node listed twice") {
  Json document = with(
      "/cluster/overrides/-={\"nodes\": [1], \"stragglers\": {\"kind\": \"bimodal\", "
      "\"probability_slow\": 0.5, \"slowdown\": 4}}");
  const Scenario s = load_scenario(document, "s.json");
  CHECK(std::get<codesim::sim::BimodalStraggler>(s.cluster.stragglers[1]).slowdown == 4);
  CHECK(std::holds_alternative<codesim::sim::ParetoStraggler>(s.cluster.stragglers[0]));
}

TEST_CASE("checkpoint policies need their own parameters and a positive cost") {
  CHECK(error_of(with("/checkpoint={\"policy\": \"every_seconds\"}")) ==
        "s.json: /checkpoint/every_s: missing required key (expected a number > 0)");
  CHECK(pointer_of_error(with("/checkpoint={\"policy\": \"every_iterations\"}")) ==
        "/checkpoint/every_iterations");
  CHECK(pointer_of_error(with("/checkpoint/write_s=0")) == "/checkpoint/write_s");
  CHECK(pointer_of_error(with("/checkpoint/bytes=1e9")) == "/checkpoint/write_bandwidth_Bps");
  CHECK(error_of(with("/checkpoint/every_s=3"))
            .find("unknown key \"every_s\" for checkpoint "
                  "policy \"daly\"") != std::string::npos);
}

TEST_CASE("the flow model's sharing is read by name and refused under the analytic model") {
  const codesim::app::Scenario plain = load_scenario(base_scenario(), "s.json");
  CHECK(plain.cluster.network.sharing == codesim::sim::FlowSharing::max_min);
  const codesim::app::Scenario lv08 =
      load_scenario(with("/cluster/network/sharing=\"lv08\""), "s.json");
  CHECK(lv08.cluster.network.sharing == codesim::sim::FlowSharing::lv08);
  CHECK(error_of(with("/cluster/network/sharing=\"cm03\""))
            .starts_with("s.json: /cluster/network/sharing: "));
  CHECK(error_of(with("/cluster/network={\"model\": \"analytic\", \"sharing\": \"cm02\"}")) ==
        "s.json: /cluster/network/sharing: sharing \"cm02\" applies to the flow model, not "
        "\"analytic\" (expected \"max_min\", or model \"flow\")");
  CHECK(error_of(with("/cluster/network={\"model\": \"analytic\", \"sharing\": \"max_min\"}"))
            .empty());
}

TEST_CASE("the collectives' algorithms are read by name, each defaulting on its own") {
  const Scenario chosen = load_scenario(
      with("/cluster/network/collectives={\"broadcast\": \"scatter_all_gather\"}"), "s.json");
  CHECK(chosen.cluster.network.collectives.broadcast ==
        codesim::sim::BroadcastAlgorithm::scatter_all_gather);
  CHECK(chosen.cluster.network.collectives.all_gather ==
        codesim::sim::AllGatherAlgorithm::automatic);
  CHECK(pointer_of_error(with("/cluster/network/collectives={\"all_gather\": \"tree\"}")) ==
        "/cluster/network/collectives/all_gather");
  CHECK(pointer_of_error(with("/cluster/network/collectives={\"reduce\": \"ring\"}")) ==
        "/cluster/network/collectives/reduce");
  CHECK(pointer_of_error(with("/workload/exchange=\"all_reduce\"")) == "(accepted)");
}

TEST_CASE("a link override is read against the shape and refused at its pointer") {
  const Scenario slow_port = load_scenario(
      with("/cluster/network/link_overrides=[{\"a\": 2, \"b\": 8, \"bandwidth_Bps\": 1e8}]"),
      "s.json");
  REQUIRE(slow_port.cluster.network.link_overrides.size() == 1);
  CHECK(slow_port.cluster.network.link_overrides[0].bandwidth_Bps == 1e8);
  CHECK(slow_port.cluster.network.link_overrides[0].latency_s < 0.0);
  CHECK(error_of(with("/cluster/network/link_overrides=[{\"a\": 2, \"b\": 8, \"latency_s\": 0}, "
                      "{\"a\": 2, \"b\": 3, \"latency_s\": 1}]")) ==
        "s.json: /cluster/network/link_overrides/1/b: no link joins vertices 2 and 3 in this star "
        "(expected the two ends of one of its links)");
  CHECK(pointer_of_error(with("/cluster/network/link_overrides=[{\"a\": 2, \"b\": 8}]")) ==
        "/cluster/network/link_overrides/0");
  CHECK(pointer_of_error(
            with("/cluster/network/link_overrides=[{\"a\": 2, \"b\": 8, \"bandwidth_Bps\": 0}]")) ==
        "/cluster/network/link_overrides/0/bandwidth_Bps");
}

TEST_CASE("a leaf-spine's oversubscription and room for the nodes are checked at their keys") {
  const Scenario fits =
      load_scenario(with("/cluster/network={\"topology\": \"leaf_spine\", \"hosts_per_leaf\": 4, "
                         "\"spines\": 2, \"oversubscription\": 3}"),
                    "s.json");
  CHECK(fits.cluster.network.shape == codesim::sim::TopologyShape::leaf_spine);
  CHECK(fits.cluster.network.oversubscription == 3.0);
  CHECK(pointer_of_error(with("/cluster/network={\"topology\": \"leaf_spine\", "
                              "\"oversubscription\": 0}")) == "/cluster/network/oversubscription");
  // An uplink bandwidth that overflows (the platform export wrote "infBps") or vanishes.
  for (const char* value : {"1e-308", "1e308"}) {
    CAPTURE(value);
    const std::string message =
        error_of(with(std::string("/cluster/network={\"topology\": \"leaf_spine\", "
                                  "\"oversubscription\": ") +
                      value + "}"));
    CHECK(message.find("s.json: /cluster/network/oversubscription: ") == 0);
    CHECK(message.find("(expected an oversubscription that leaves it finite and positive)") !=
          std::string::npos);
  }
  CHECK(error_of(with("/cluster/network={\"topology\": \"leaf_spine\", \"hosts_per_leaf\": 2, "
                      "\"leaves\": 3}")) ==
        "s.json: /cluster/network/leaves: 3 leaves of 2 hosts hold 6 hosts, not the 8 nodes "
        "(expected leaves x hosts_per_leaf >= nodes, or 0 to fit them)");
  CHECK(pointer_of_error(with("/cluster/network={\"topology\": \"star\", \"spines\": 2}")) ==
        "/cluster/network/spines");
}

TEST_CASE("network parameters are checked against the shape") {
  CHECK(pointer_of_error(with("/cluster/network/fat_tree_arity=4")) ==
        "/cluster/network/fat_tree_arity");
  Json torus = with(
      "/cluster/network={\"topology\": \"torus2d\", \"torus_rows\": 3, "
      "\"torus_cols\": 3}");
  CHECK(error_of(torus) ==
        "s.json: /cluster/network/torus_cols: torus_rows x torus_cols = 3 x 3 does not match 8 "
        "nodes (expected rows x cols = nodes)");
  CHECK(error_of(with("/cluster/network={\"topology\": \"torus2d\", \"torus_rows\": 3}")) ==
        "s.json: /cluster/network/torus_rows: value 3 does not divide 8 nodes (expected a divisor "
        "of nodes, or 0 to choose)");
  CHECK(error_of(with("/cluster/network={\"topology\": \"torus2d\", \"torus_cols\": 4}")).empty());
  Json edges = with(
      "/cluster/network={\"topology\": \"edge_list\", \"edges\": [{\"a\": 0, "
      "\"b\": 9}]}");
  CHECK(pointer_of_error(edges) == "/cluster/network/edges/0/b");
  Json disconnected = with(
      "/cluster/network={\"topology\": \"edge_list\", \"edges\": [{\"a\": 0, "
      "\"b\": 1}]}");
  CHECK(pointer_of_error(disconnected) == "/cluster/network");
}

TEST_CASE("the network model is flow unless a scenario asks for the analytic one") {
  CHECK(load_scenario(base_scenario(), "s.json").cluster.network.model ==
        codesim::sim::NetworkModel::flow);
  CHECK(
      load_scenario(with("/cluster/network/model=\"analytic\""), "s.json").cluster.network.model ==
      codesim::sim::NetworkModel::analytic);
  CHECK(error_of(with("/cluster/network/model=\"packet\"")) ==
        "s.json: /cluster/network/model: unknown value \"packet\" (expected one of: flow, "
        "analytic)");
}

TEST_CASE("shared checkpoint storage hangs off an existing node and replaces the write bandwidth") {
  const Json shared = with(
      "/checkpoint/storage={\"kind\": \"shared\", \"attach_node\": 2, \"bandwidth_Bps\": 1e9}");
  const auto storage = load_scenario(shared, "s.json").checkpoint.storage;
  CHECK(storage.attach_vertex == 2);
  CHECK_FALSE(storage.attach_to_switch);
  CHECK(pointer_of_error(with("/checkpoint/storage={\"kind\": \"shared\", \"attach_node\": 8, "
                              "\"bandwidth_Bps\": 1e9}")) == "/checkpoint/storage/attach_node");
  CHECK(pointer_of_error(with("/checkpoint/storage={\"kind\": \"shared\", \"attach_node\": 0, "
                              "\"bandwidth_Bps\": 0}")) == "/checkpoint/storage/bandwidth_Bps");
  CHECK(pointer_of_error(with("/checkpoint/storage={\"kind\": \"shared\", \"attach_node\": 0}")) ==
        "/checkpoint/storage/bandwidth_Bps");
  CHECK(pointer_of_error(with("/checkpoint/storage={\"kind\": \"disk\"}")) ==
        "/checkpoint/storage/kind");
  Json both = shared;
  both["checkpoint"]["write_bandwidth_Bps"] = 1e9;
  CHECK(pointer_of_error(both) == "/checkpoint/write_bandwidth_Bps");
}

TEST_CASE("shared checkpoint storage can hang off a switch by its vertex id or as \"root\"") {
  // The base scenario's network is an 8-node star: its switch is vertex 8.
  const auto storage_of = [](const std::string& assignment) {
    return load_scenario(with(assignment), "s.json").checkpoint.storage;
  };
  const auto on_switch = storage_of(
      "/checkpoint/storage={\"kind\": \"shared\", \"attach_switch\": 8, \"bandwidth_Bps\": 1e9}");
  CHECK(on_switch.attach_vertex == 8);
  CHECK(on_switch.attach_to_switch);
  Json fat_tree = with(
      "/checkpoint/storage={\"kind\": \"shared\", \"attach_switch\": \"root\", "
      "\"bandwidth_Bps\": 1e9}");
  fat_tree["cluster"]["network"] = {{"topology", "fat_tree"}, {"fat_tree_arity", 2}};
  const Scenario loaded = load_scenario(fat_tree, "s.json");
  CHECK(loaded.checkpoint.storage.attach_vertex == 14);  // switches 8..11, 12 and 13, root 14
  CHECK(loaded.checkpoint.storage.attach_to_switch);
  CHECK(loaded.resolved["checkpoint"]["storage"]["attach_switch"] == "root");
  CHECK_FALSE(loaded.resolved["checkpoint"]["storage"].contains("attach_node"));
}

TEST_CASE("a storage server's place is one existing switch or node, else one error at its key") {
  const std::string prefix = "s.json: /checkpoint/storage/attach_switch: ";
  const auto storage_error = [](const std::string& place, const std::string& topology) {
    Json document =
        with("/checkpoint/storage={\"kind\": \"shared\", " + place + "\"bandwidth_Bps\": 1e9}");
    document["cluster"]["network"]["topology"] = topology;
    return error_of(document);
  };
  CHECK(storage_error("\"attach_switch\": \"root\", ", "ring") ==
        prefix +
            "topology ring has no switches (expected a topology with switches: star, fat_tree, "
            "leaf_spine, k_ary_fat_tree or an edge_list with switches; or attach_node for a "
            "compute node)");
  CHECK(storage_error("\"attach_switch\": 8, ", "fully_connected") ==
        prefix +
            "topology fully_connected has no switches (expected a topology with switches: star, "
            "fat_tree, leaf_spine, k_ary_fat_tree or an edge_list with switches; or "
            "attach_node for a compute node)");
  CHECK(storage_error("\"attach_switch\": 9, ", "star") ==
        prefix + "9 is not a vertex of this star (expected its only switch, 8)");
  CHECK(storage_error("\"attach_switch\": 3, ", "star") ==
        prefix + "3 is a compute node's id, not a switch's (expected its only switch, 8)");
  CHECK(storage_error("\"attach_switch\": 8, \"attach_node\": 0, ", "star") ==
        prefix +
            "attach_node and attach_switch are both given (expected exactly one: the server hangs "
            "off one place)");
  CHECK(storage_error("", "star") ==
        prefix +
            "neither attach_node nor attach_switch is given (expected exactly one: attach_node, a "
            "compute node id in 0..7, or attach_switch, a switch id or \"root\")");
  CHECK(storage_error("\"attach_switch\": \"top\", ", "star") ==
        prefix +
            "unknown value \"top\" (expected a switch's vertex id, the name of an edge list's "
            "switch, or "
            "\"root\" for the root switch)");
  CHECK(storage_error("\"attach_switch\": true, ", "star") ==
        prefix +
            "wrong type: got boolean true (expected a switch's vertex id, the name of an edge "
            "list's switch, or "
            "\"root\" for the root switch)");
  CHECK(storage_error("\"attach_switch\": 8.5, ", "star").starts_with(prefix + "wrong type"));
  CHECK(storage_error("\"attach_switch\": 1e12, ", "star").starts_with(prefix + "value"));
}

TEST_CASE("a long edge list is checked for repeated links in n log n, naming the first") {
  // 200,000 links on 100,000 nodes (a ring and its chords): comparing every pair took minutes.
  constexpr int kNodes = 100000;
  Json document = base_scenario();
  document["cluster"] = {{"nodes", kNodes}};
  Json edges = Json::array();
  for (int i = 0; i < kNodes; ++i) {
    edges.push_back({{"a", i}, {"b", (i + 1) % kNodes}});
    edges.push_back({{"a", i}, {"b", (i + 2) % kNodes}});
  }
  document["cluster"]["network"] = {{"topology", "edge_list"}, {"edges", edges}};
  document["workload"]["wait_for"] = 0;
  document["checkpoint"] = {{"policy", "none"}};
  const auto start = std::chrono::steady_clock::now();
  CHECK(error_of(document).empty());
  document["cluster"]["network"]["edges"].push_back({{"a", 7}, {"b", 6}});
  CHECK(error_of(document) ==
        "s.json: /cluster/network/edges/200000/b: the link 7-6 is already edges/12 (expected one "
        "link per pair)");
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(20));
}

TEST_CASE("every default is filled in the resolved scenario") {
  const Scenario s = load_scenario(Json::object(), "dir/my scenario.json");
  CHECK(s.name == "my_scenario");
  CHECK(s.seed == 1);
  CHECK(s.replicas == 10);
  CHECK(s.cluster.node_count() == 4);
  CHECK(std::isinf(s.cluster.crashes[0].mtbf_s()));
  CHECK(std::get<codesim::sim::IterativeJobSpec>(s.workload).iterations == 10);
  const Json& r = s.resolved;
  CHECK(r["name"] == "my_scenario");
  CHECK(r["seed"] == 1);
  CHECK(r["replicas"] == 10);
  CHECK(r["cluster"]["nodes"] == 4);
  CHECK(r["cluster"]["speed_flops_per_s"] == 1e9);
  CHECK(r["cluster"]["network"]["topology"] == "fully_connected");
  CHECK(r["cluster"]["network"]["latency_s"] == 1e-6);
  CHECK(r["cluster"]["stragglers"]["kind"] == "none");
  CHECK(r["cluster"]["crashes"]["mtbf_s"].is_null());
  CHECK(r["cluster"]["crashes"]["repair_s"] == 0.0);
  CHECK(r["cluster"]["soft_errors"]["rate_per_flop"] == 0.0);
  CHECK(r["cluster"]["overrides"] == Json::array());
  CHECK(r["checkpoint"]["policy"] == "none");
  CHECK(r["workload"]["kind"] == "iterative_job");
  CHECK(r["workload"]["exchange"] == "all_gather");
  CHECK(r["workload"]["detect_soft_errors"] == true);
  // The resolved scenario is itself a valid scenario that resolves to the same thing.
  CHECK(load_scenario(r, "again.json").resolved == r);
}

TEST_CASE("the resolved scenario keeps the given values") {
  const Scenario s = load_scenario(base_scenario(), "s.json");
  CHECK(s.resolved["cluster"]["stragglers"].dump() ==
        R"({"kind":"pareto","scale":1.0,"shape":2.5})");
  CHECK(s.resolved["checkpoint"]["mtbf_s"] == 0.0);
  CHECK(s.checkpoint.policy == codesim::sim::CheckpointKind::daly);
  CHECK(s.checkpoint.write_s == 2.0);
  CHECK(std::get<codesim::sim::IterativeJobSpec>(s.workload).wait_for == 6);
}

TEST_CASE("scenario names must be safe file names") {
  CHECK(pointer_of_error(with("/name=\"../escape\"")) == "/name");
  CHECK(pointer_of_error(with("/name=\"\"")) == "/name");
}

TEST_CASE("set overrides replace values, create sections and parse JSON or fall back to strings") {
  Json document = base_scenario();
  apply_set(document, "/cluster/nodes=32", "s.json");
  apply_set(document, "/cluster/network/topology=ring", "s.json");
  apply_set(document, "/cluster/soft_errors/rate_per_flop=1e-12", "s.json");
  apply_set(document, "/cluster/crashes/mtbf_s=null", "s.json");
  const Scenario s = load_scenario(document, "s.json");
  CHECK(s.cluster.node_count() == 32);
  CHECK(s.cluster.network.shape == codesim::sim::TopologyShape::ring);
  CHECK(s.cluster.soft_errors[31].rate_per_flop == 1e-12);
  CHECK(std::isinf(s.cluster.crashes[3].mtbf_s()));
}

TEST_CASE("a set to an unknown key is rejected like an unknown key in the file") {
  CHECK(error_of(with("/cluster/nodes_count=3"))
            .starts_with("s.json: /cluster/nodes_count: unknown key \"nodes_count\", did you "
                         "mean \"nodes\"?"));
}

TEST_CASE("malformed set assignments are errors") {
  Json document = base_scenario();
  auto set_error = [&](const std::string& assignment) {
    try {
      apply_set(document, assignment, "s.json");
    } catch (const ScenarioError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  CHECK(set_error("cluster/nodes=3") ==
        "s.json: /: --set \"cluster/nodes=3\" is malformed (expected /json/pointer=VALUE, e.g. "
        "/cluster/nodes=32)");
  CHECK(set_error("/cluster/nodes") ==
        "s.json: /cluster/nodes: --set \"/cluster/nodes\" has no value (expected "
        "/cluster/nodes=VALUE)");
  CHECK(set_error("/cluster/overrides/3/nodes=[1]")
            .starts_with("s.json: /cluster/overrides/3/nodes: cannot set "
                         "/cluster/overrides/3/nodes: no array element /cluster/overrides/3"));
  CHECK(set_error("/cluster/nodes/x=1") ==
        "s.json: /cluster/nodes/x: cannot set /cluster/nodes/x: /cluster/nodes is number 8 "
        "(expected an object or an array at /cluster/nodes)");
}

TEST_CASE("invalid JSON is reported with line and column") {
  const std::string text = "{\n  \"name\": \"x\",\n}\n";
  try {
    parse_scenario_text(text, "bad.json");
    FAIL("invalid JSON was accepted");
  } catch (const ScenarioError& e) {
    CHECK(std::string(e.what()) ==
          "bad.json: /: invalid JSON at line 3, column 1: syntax error while parsing object key - "
          "unexpected '}' (expected string literal)");
  }
  CHECK_THROWS_AS(parse_scenario_text("", "empty.json"), ScenarioError);
}

TEST_CASE("invalid JSON with a huge last token is reported without exhausting the stack") {
  // A fuzzed fault log: the parser quotes the token it stopped in, here an unterminated string
  // of 200000 characters; matching that message with std::regex overflowed the stack.
  const std::string text = "{\"records\": [\"" + std::string(200000, 'a');
  try {
    parse_scenario_text(text, "long.json");
    FAIL("invalid JSON was accepted");
  } catch (const ScenarioError& e) {
    const std::string what = e.what();
    CHECK(what.starts_with("long.json: /: invalid JSON at line 1, column 200015: "));
    CHECK(what.ends_with(")"));
  }
  // A message without a position keeps all its text.
  CHECK_THROWS_AS(parse_scenario_text("{\"a\": 1e999999}", "big.json"), ScenarioError);
}

TEST_CASE("a document that is not an object is rejected at the root") {
  CHECK(error_of(Json::array()) == "s.json: /: wrong type: got an array (expected an object)");
}

TEST_CASE("a missing scenario file is an error naming the file") {
  try {
    read_scenario_file("no/such/scenario.json");
    FAIL("a missing file was accepted");
  } catch (const ScenarioError& e) {
    CHECK(std::string(e.what()) ==
          "no/such/scenario.json: /: no such file (expected a readable scenario JSON file)");
  }
}

TEST_CASE("a scenario file is read, overridden by sets and validated") {
  const auto path = std::filesystem::temp_directory_path() /
                    ("codesim_loader_test_" + std::to_string(::getpid()) + ".json");
  {
    std::ofstream out(path);
    out << base_scenario().dump(2);
  }
  const Scenario s = load_scenario_file(path.string(), {"/replicas=5", "/seed=99"});
  std::filesystem::remove(path);
  CHECK(s.replicas == 5);
  CHECK(s.seed == 99);
  CHECK(s.resolved["replicas"] == 5);
  CHECK(s.resolved["seed"] == 99);
}

TEST_CASE("every scenario key of every kind is documented in scenarios/README.md") {
  std::ifstream in(std::string(CODESIM_SOURCE_DIR) + "/scenarios/README.md");
  REQUIRE(in);
  std::ostringstream text;
  text << in.rdbuf();
  const std::string readme = text.str();
  const std::vector<std::string> variants = {
      "/cluster/stragglers={\"kind\": \"shifted_exponential\"}",
      "/cluster/stragglers={\"kind\": \"pareto\"}",
      "/cluster/stragglers={\"kind\": \"bimodal\"}",
      "/cluster/stragglers={\"kind\": \"lognormal\"}",
      "/cluster/network={\"topology\": \"torus2d\"}",
      "/cluster/network={\"topology\": \"fat_tree\"}",
      "/cluster/network={\"topology\": \"edge_list\", \"edges\": [{\"a\": 0, \"b\": 1}]}",
      "/checkpoint={\"policy\": \"every_iterations\", \"every_iterations\": 2}",
      "/checkpoint={\"policy\": \"every_seconds\", \"every_s\": 2}",
      "/cluster/soft_errors={}",
      "/cluster/domains=[{\"nodes\": [0], \"failure\": {\"law\": \"exponential\", "
      "\"mean_s\": 5}}, {\"group_size\": 1, \"failure\": {\"law\": \"exponential\", "
      "\"mean_s\": 5}}]",
  };
  std::set<std::string> keys;
  collect_keys(load_scenario(base_scenario(), "s.json").resolved, keys);
  for (const auto& variant : variants) {
    Json document = base_scenario();
    document["cluster"]["nodes"] = 2;
    document["cluster"].erase("overrides");
    document["workload"]["wait_for"] = 0;
    apply_set(document, variant, "s.json");
    collect_keys(load_scenario(document, "s.json").resolved, keys);
  }
  CHECK(keys.size() > 40);
  for (const auto& key : keys) {
    INFO("undocumented key: " << key);
    CHECK(readme.find("`" + key + "`") != std::string::npos);
  }
}

TEST_CASE("crash laws are read from failure and repair objects, and overrides keep the rest") {
  Json document = with(
      "/cluster/crashes={\"failure\": {\"law\": \"weibull\", \"shape\": 0.7, \"scale_s\": 80}, "
      "\"repair\": {\"law\": \"lognormal\", \"mean_s\": 2, \"sigma\": 1}}");
  document["cluster"]["overrides"].push_back(
      Json::parse(R"({"nodes": [6], "crashes": {"mtbf_s": 40}})"));
  const Scenario s = load_scenario(document, "s.json");
  const auto* weibull = std::get_if<codesim::sim::WeibullLaw>(&s.cluster.crashes[0].failure);
  REQUIRE(weibull != nullptr);
  CHECK(weibull->shape == 0.7);
  CHECK(weibull->scale_s == 80);
  CHECK(s.cluster.crashes[0].mtbf_s() == doctest::Approx(80 * std::tgamma(1 + 1 / 0.7)));
  // Node 6: exponential up times of its own, the cluster-wide log-normal repairs.
  CHECK(s.cluster.crashes[6].mtbf_s() == 40);
  CHECK(std::holds_alternative<codesim::sim::LogNormalLaw>(s.cluster.crashes[6].repair));
  CHECK(s.resolved["cluster"]["crashes"]["failure"]["law"] == "weibull");
}

TEST_CASE("bad crash laws exit with the pointer of what is wrong") {
  const auto law = [](const std::string& crashes) { return with("/cluster/crashes=" + crashes); };
  CHECK(error_of(law(R"({"failure": {"law": "weibull", "shape": 0, "scale_s": 1}})")) ==
        "s.json: /cluster/crashes/failure/shape: value 0 is out of range (expected a number > 0)");
  CHECK(pointer_of_error(law(R"({"failure": {"law": "weibull", "shape": 1}})")) ==
        "/cluster/crashes/failure/scale_s");
  CHECK(pointer_of_error(law(R"({"failure": {"law": "gamma"}})")) ==
        "/cluster/crashes/failure/law");
  CHECK(pointer_of_error(law(R"({"failure": {"law": "lognormal", "mean_s": 1, "sigma": 1,
                                 "shape": 2}})")) == "/cluster/crashes/failure/shape");
  CHECK(error_of(law(R"({"mtbf_s": 5, "failure": {"law": "exponential", "mean_s": 5}})"))
            .starts_with("s.json: /cluster/crashes/mtbf_s: mtbf_s and failure both given"));
  CHECK(pointer_of_error(law(R"({"repair_s": 1, "repair": {"law": "fixed", "value_s": 1}})")) ==
        "/cluster/crashes/repair_s");
  CHECK(pointer_of_error(law(R"({"repair": {"law": "exponential", "mean_s": null}})")) ==
        "/cluster/crashes/repair/mean_s");
  CHECK(error_of(law(R"({"failure": {"law": "weibull", "shape": 1e-5, "scale_s": 1}})")) ==
        "s.json: /cluster/crashes/failure: shape is so small that the mean scale_s Gamma(1 + 1 / "
        "shape) is infinite (expected a valid failure law)");
  // A huge scale with an ordinary shape: the scale overflows the mean, not the shape.
  CHECK(error_of(law(R"({"failure": {"law": "weibull", "shape": 0.5, "scale_s": 1e308}})")) ==
        "s.json: /cluster/crashes/failure: scale_s is so large that the mean scale_s Gamma(1 + 1 "
        "/ shape) is infinite (expected a valid failure law)");
}
