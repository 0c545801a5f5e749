// Failure domains and availability traces in scenarios: the formats, the resolved form, and each
// bad input rejected at its JSON pointer or at the trace's file and line.
#include "app/config/failure_sections.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <variant>
#include <vector>

#include "app/config/scenario_error.hpp"
#include "app/config/scenario_loader.hpp"
#include "app/config/trace_files.hpp"
#include "support/experiment_error.hpp"
#include "support/temp_directory.hpp"

using codesim::app::apply_set;
using codesim::app::Json;
using codesim::app::load_scenario;
using codesim::app::parse_availability_trace;
using codesim::app::parse_step_trace;
using codesim::app::Scenario;
using codesim::app::StepTraceKind;

namespace {

Json scenario_with(const std::string& assignment) {
  Json document = Json::parse(R"({
    "cluster": {"nodes": 10, "crashes": {"mtbf_s": 500, "repair_s": 10}},
    "workload": {"kind": "iterative_job", "iterations": 5}
  })");
  if (!assignment.empty()) apply_set(document, assignment, "s.json");
  return document;
}

std::string error_of(const Json& document) {
  return codesim::test::scenario_error_message([&] { load_scenario(document, "s.json"); });
}

std::string trace_error(const std::string& text, int nodes = 4) {
  return codesim::test::scenario_error_message(
      [&] { parse_availability_trace(text, "t.csv", nodes); });
}

constexpr const char* kLaw = R"("failure": {"law": "exponential", "mean_s": 1000})";

/// A trace file in a fresh temporary directory, removed at the end of the test.
struct TraceFile {
  codesim::test::TempDirectory directory{"trace-test"};
  std::string path;
  explicit TraceFile(const std::string& text) : path((directory / "trace.csv").string()) {
    std::ofstream(path) << text;
  }
};

}  // namespace

TEST_CASE("a domain lists its nodes and takes the failure and repair laws of cluster.crashes") {
  const Scenario s = load_scenario(
      scenario_with(std::string(R"(/cluster/domains=[{"name": "psu", "nodes": [7, 2], )") + kLaw +
                    R"(, "repair": {"law": "lognormal", "mean_s": 60, "sigma": 1}}])"),
      "s.json");
  const auto& domains = s.cluster.shared_failures.domains;
  REQUIRE(domains.size() == 1);
  CHECK(domains[0].name == "psu");
  CHECK(domains[0].nodes == std::vector<int>{7, 2});
  CHECK(std::get<codesim::sim::ExponentialLaw>(domains[0].failure).mean_s == 1000.0);
  CHECK(std::get<codesim::sim::LogNormalLaw>(domains[0].repair).mean_s == 60.0);
  CHECK(s.resolved["cluster"]["domains"][0]["repair"]["sigma"] == 1.0);
  CHECK(s.cluster.shared_failures.trace.empty());
}

TEST_CASE("group_size makes one domain per group of consecutive nodes, the last one smaller") {
  const Scenario s = load_scenario(
      scenario_with(std::string(R"(/cluster/domains=[{"name": "rack", "group_size": 4, )") + kLaw +
                    "}]"),
      "s.json");
  const auto& domains = s.cluster.shared_failures.domains;
  REQUIRE(domains.size() == 3);
  CHECK(domains[0].nodes == std::vector<int>{0, 1, 2, 3});
  CHECK(domains[1].nodes == std::vector<int>{4, 5, 6, 7});
  CHECK(domains[2].nodes == std::vector<int>{8, 9});
  CHECK(domains[2].name == "rack[2]");
  // The repair defaults to none (fixed 0 s) and is resolved so.
  CHECK(std::get<codesim::sim::FixedLaw>(domains[0].repair).value_s == 0.0);
  CHECK(s.resolved["cluster"]["domains"][0]["repair"] ==
        Json::parse(R"({"law": "fixed", "value_s": 0.0})"));
}

TEST_CASE("a scenario without domains or trace resolves its cluster as before") {
  const Scenario s = load_scenario(scenario_with(""), "s.json");
  CHECK_FALSE(s.resolved["cluster"].contains("domains"));
  CHECK_FALSE(s.resolved["cluster"].contains("availability_trace"));
  CHECK(s.cluster.shared_failures.domains.empty());
}

TEST_CASE("bad domains exit with the pointer of what is wrong") {
  const auto domain = [](const std::string& body) {
    return error_of(scenario_with("/cluster/domains=[{" + body + "}]"));
  };
  CHECK(domain(std::string(R"("nodes": [3, 10], )") + kLaw) ==
        "s.json: /cluster/domains/0/nodes/1: node id 10 does not exist (expected a node id in "
        "[0, 9])");
  CHECK(domain(std::string(R"("nodes": [], )") + kLaw) ==
        "s.json: /cluster/domains/0/nodes: no node ids given (expected a non-empty array of node "
        "ids in [0, 9])");
  CHECK(domain(std::string(R"("nodes": [4, 5, 4], )") + kLaw) ==
        "s.json: /cluster/domains/0/nodes/2: node id 4 is listed twice (expected distinct ids)");
  CHECK(domain(std::string(R"("group_size": 0, )") + kLaw)
            .starts_with("s.json: /cluster/domains/0/group_size: value 0 is out of range"));
  CHECK(domain(std::string(R"("group_size": 11, )") + kLaw)
            .starts_with("s.json: /cluster/domains/0/group_size: value 11 is out of range"));
  CHECK(domain(kLaw).starts_with("s.json: /cluster/domains/0: no members given"));
  CHECK(domain(std::string(R"("nodes": [1], "group_size": 2, )") + kLaw)
            .starts_with("s.json: /cluster/domains/0/group_size: nodes and group_size both"));
  CHECK(domain(R"("nodes": [1])")
            .starts_with("s.json: /cluster/domains/0/failure: missing required key"));
  CHECK(domain(R"("nodes": [1], "failure": {"law": "weibull", "shape": 0, "scale_s": 1})")
            .starts_with("s.json: /cluster/domains/0/failure/shape: value 0 is out of range"));
  CHECK(domain(std::string(R"("nodes": [1], "repair": {"law": "fixed"}, )") + kLaw)
            .starts_with("s.json: /cluster/domains/0/repair/value_s: missing required key"));
  CHECK(domain(std::string(R"("nodes": [1], "rack": 2, )") + kLaw)
            .starts_with("s.json: /cluster/domains/0/rack: unknown key"));
  CHECK(error_of(scenario_with("/cluster/domains=3"))
            .starts_with("s.json: /cluster/domains: wrong type: got number 3"));
}

TEST_CASE("an availability trace gives each node its down intervals, open-ended ones infinite") {
  const auto trace = parse_availability_trace(
      "node,down_s,up_s\r\n2,0,7.125\n0,1.5,2.25\n0, 2.25 ,2.5\n\n0,3,\n3,4,inf\n", "t.csv", 4);
  REQUIRE(trace.size() == 4);
  REQUIRE(trace[0].size() == 3);
  CHECK(trace[0][1].down_s == 2.25);
  CHECK(trace[0][1].up_s == 2.5);
  CHECK(std::isinf(trace[0][2].up_s));
  CHECK(trace[1].empty());
  CHECK(trace[2][0].up_s == 7.125);
  CHECK(std::isinf(trace[3][0].up_s));
}

TEST_CASE("bad availability traces exit with the file and line of what is wrong") {
  CHECK(trace_error("") ==
        "t.csv:1: the first line is \"\" (expected the header "
        "\"node,down_s,up_s\")");
  CHECK(trace_error("node,up_s,down_s\n").starts_with("t.csv:1: the first line is"));
  // A spreadsheet's byte-order mark before the header was refused with a message that showed the
  // header as expected: it is read as the header now.
  CHECK(trace_error("\xEF\xBB\xBFnode,down_s,up_s\n0,1,2\n").empty());
  CHECK(trace_error("node,down_s,up_s\n0,1,2\n4,1,2\n") ==
        "t.csv:3: node 4 does not exist (expected a node id in [0, 3])");
  CHECK(trace_error("node,down_s,up_s\n-1,1,2\n").starts_with("t.csv:2: node -1 does not exist"));
  CHECK(trace_error("node,down_s,up_s\nx,1,2\n").starts_with("t.csv:2: node \"x\""));
  CHECK(trace_error("node,down_s,up_s\n1,1\n") ==
        "t.csv:2: 2 fields (expected 3: node,down_s,up_s)");
  CHECK(trace_error("node,down_s,up_s\n1,-1,2\n").starts_with("t.csv:2: down_s \"-1\""));
  CHECK(trace_error("node,down_s,up_s\n1,inf,\n").starts_with("t.csv:2: down_s \"inf\""));
  CHECK(trace_error("node,down_s,up_s\n1,1,soon\n").starts_with("t.csv:2: up_s \"soon\""));
  CHECK(trace_error("node,down_s,up_s\n1,5,5\n") ==
        "t.csv:2: up_s 5 is not after down_s 5 (expected down_s < up_s)");
  CHECK(trace_error("node,down_s,up_s\n1,0,5\n2,0,1\n\n1,4,6\n") ==
        "t.csv:5: node 1 is already down from 0 to 5 s (expected its intervals in order of time, "
        "not overlapping)");
  CHECK(trace_error("node,down_s,up_s\n1,0,\n1,10,11\n")
            .starts_with("t.csv:3: node 1 is already down from 0 to inf s"));
}

TEST_CASE("cluster.availability_trace reads the file at its path and records the path") {
  const TraceFile file("node,down_s,up_s\n9,10,20\n");
  const Scenario s =
      load_scenario(scenario_with("/cluster/availability_trace=" + file.path), "s.json");
  REQUIRE(s.cluster.shared_failures.trace.size() == 10);
  CHECK(s.cluster.shared_failures.trace[9].size() == 1);
  CHECK(s.resolved["cluster"]["availability_trace"] == file.path);
  const TraceFile bad("node,down_s,up_s\n9,10,20\n12,1,2\n");
  CHECK(error_of(scenario_with("/cluster/availability_trace=" + bad.path)) ==
        bad.path + ":3: node 12 does not exist (expected a node id in [0, 9])");
  CHECK(error_of(scenario_with("/cluster/availability_trace=" + bad.path + ".missing"))
            .starts_with(bad.path + ".missing: /: no such file"));
  // An empty name said ": /: no such file", naming neither the file nor the key.
  CHECK(error_of(scenario_with("/cluster/availability_trace=\"\"")) ==
        "s.json: /cluster/availability_trace: an empty file name (expected the path of an "
        "availability trace CSV)");
  CHECK(error_of(scenario_with("/cluster/speed_trace={\"file\": \"\"}"))
            .starts_with("s.json: /cluster/speed_trace/file: an empty file name (expected the "
                         "path of a speed trace"));
}

TEST_CASE("a speed trace gives each node it names its steps, looping with period_s") {
  const TraceFile file("node,from_s,multiplier\n3,0,0.5\n3,60,1\n7, 10 ,4\n");
  const Scenario s = load_scenario(
      scenario_with("/cluster/speed_trace={\"file\": \"" + file.path + "\", \"period_s\": 120}"),
      "s.json");
  REQUIRE(s.cluster.speed_traces.size() == 10);
  CHECK(s.cluster.speed_traces[0].empty());
  REQUIRE(s.cluster.speed_traces[3].steps.size() == 2);
  CHECK(s.cluster.speed_traces[3].value_at(130.0) == 0.5);
  CHECK(s.cluster.speed_traces[7].steps[0].value == 4.0);
  CHECK(s.cluster.speed_traces[7].period_s == 120.0);
  CHECK(s.resolved["cluster"]["speed_trace"]["period_s"] == 120.0);
  // A bare path: no loop.
  const Scenario plain =
      load_scenario(scenario_with("/cluster/speed_trace=" + file.path), "s.json");
  CHECK(std::isinf(plain.cluster.speed_traces[3].period_s));
  CHECK(load_scenario(scenario_with(""), "s.json").cluster.speed_traces.empty());
}

TEST_CASE("bad step traces exit with the file and line of what is wrong") {
  const auto step_error = [](const std::string& text, StepTraceKind kind, double period_s) {
    return codesim::test::scenario_error_message(
        [&] { parse_step_trace(text, "s.csv", 4, period_s, kind); });
  };
  const auto speed = [&](const std::string& text, double period_s = INFINITY) {
    return step_error(text, StepTraceKind::speed, period_s);
  };
  CHECK(speed("node,down_s,up_s\n").starts_with("s.csv:1: the first line is"));
  CHECK(speed("node,from_s,multiplier\n0,5,1\n0,5,2\n") ==
        "s.csv:3: node 0 already has a step from 5 s (expected its steps in increasing order of "
        "from_s)");
  CHECK(speed("node,from_s,multiplier\n0,5,1\n0,4,2\n").starts_with("s.csv:3: node 0 already"));
  CHECK(speed("node,from_s,multiplier\n0,-1,1\n") ==
        "s.csv:2: from_s \"-1\" (expected a finite number of seconds >= 0)");
  CHECK(speed("node,from_s,multiplier\n4,1,1\n") ==
        "s.csv:2: node 4 does not exist (expected a node id in [0, 3])");
  CHECK(speed("node,from_s,multiplier\n1,1,0\n") ==
        "s.csv:2: multiplier \"0\" (expected a finite number > 0: a node never stops)");
  CHECK(speed("node,from_s,multiplier\n1,1\n") ==
        "s.csv:2: 2 fields (expected 3: node,from_s,multiplier)");
  CHECK(speed("node,from_s,multiplier\n1,10,2\n", 10.0) ==
        "s.csv:2: from_s 10 is not inside the period of 10 s (expected from_s < period_s)");
  // A rate may be 0 (a node that stops erring), not negative.
  CHECK(step_error("node,from_s,multiplier\n1,1,0\n", StepTraceKind::rate, INFINITY).empty());
  CHECK(step_error("node,from_s,multiplier\n1,1,-2\n", StepTraceKind::rate, INFINITY) ==
        "s.csv:2: multiplier \"-2\" (expected a finite number >= 0)");
  CHECK(error_of(scenario_with("/cluster/speed_trace={\"file\": \"x.csv\", \"period_s\": 0}")) ==
        "s.json: /cluster/speed_trace/period_s: value 0 is out of range (expected a number >= "
        "1e-09, or null for infinity)");
}

TEST_CASE("a speed trace that would stall the clock is refused at its pointer") {
  // A period the clock cannot add to itself looped forever; 5e-324 s aborted the run.
  const TraceFile file("node,from_s,multiplier\n3,0,0.5\n");
  for (const char* period : {"1e-300", "5e-324"}) {
    CAPTURE(period);
    CHECK(error_of(scenario_with("/cluster/speed_trace={\"file\": \"" + file.path +
                                 "\", \"period_s\": " + period + "}"))
              .starts_with("s.json: /cluster/speed_trace/period_s: value "));
  }
  // Speeds whose work over a period underflows to 0: the node would never finish a task.
  const TraceFile slow("node,from_s,multiplier\n3,0,1e-320\n");
  CHECK(error_of(scenario_with("/cluster/speed_trace={\"file\": \"" + slow.path +
                               "\", \"period_s\": 1e-9}")) ==
        "s.json: /cluster/speed_trace: node 3's speeds do no work over a period of 1e-09 s "
        "(expected multipliers whose work over the period is > 0)");
}

TEST_CASE("link failures take the failure and repair laws of cluster.crashes, repair fixed 0") {
  const Scenario s = load_scenario(
      scenario_with(std::string(R"(/cluster/network={"topology": "ring", "link_failures": {)") +
                    kLaw + "}}"),
      "s.json");
  REQUIRE(s.cluster.shared_failures.links.has_value());
  CHECK(std::get<codesim::sim::ExponentialLaw>(s.cluster.shared_failures.links->failure).mean_s ==
        1000.0);
  CHECK(std::get<codesim::sim::FixedLaw>(s.cluster.shared_failures.links->repair).value_s == 0.0);
  CHECK(s.resolved["cluster"]["network"]["link_failures"]["repair"] ==
        Json::parse(R"({"law": "fixed", "value_s": 0.0})"));
  const Scenario without = load_scenario(scenario_with(""), "s.json");
  CHECK_FALSE(without.cluster.shared_failures.links.has_value());
  CHECK_FALSE(without.resolved["cluster"]["network"].contains("link_failures"));
}

TEST_CASE("bad link failures exit with the pointer of what is wrong") {
  const auto links = [](const std::string& body) {
    return error_of(
        scenario_with(R"(/cluster/network={"topology": "star", "link_failures": )" + body + "}"));
  };
  CHECK(links(R"({"failure": {"law": "weibull", "shape": 0, "scale_s": 1}})")
            .starts_with("s.json: /cluster/network/link_failures/failure/shape: value 0 is out of "
                         "range"));
  CHECK(links(R"({"repair": {"law": "fixed", "value_s": 1}})")
            .starts_with("s.json: /cluster/network/link_failures/failure: missing required key"));
  CHECK(links(std::string("{") + kLaw + R"(, "repair": {"law": "fixed", "value_s": -1}})")
            .starts_with("s.json: /cluster/network/link_failures/repair/value_s: value -1"));
  CHECK(links(std::string("{") + kLaw + R"(, "mtbf_s": 3})")
            .starts_with("s.json: /cluster/network/link_failures/mtbf_s: unknown key"));
  CHECK(links("5").starts_with("s.json: /cluster/network/link_failures: wrong type"));
  CHECK(error_of(scenario_with(
                     std::string(R"(/cluster={"nodes": 2000, "network": {"link_failures": {)") +
                     kLaw + "}}, \"crashes\": {\"mtbf_s\": 500}}"))
            .starts_with("s.json: /cluster/network/link_failures: link failures on a "
                         "fully_connected network of 2000 nodes"));
}
