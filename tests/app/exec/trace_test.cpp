// codesim run --trace and the `trace` section: the timeline agrees with the replica's metrics, it
// changes no result, its window and cap work, and bad trace settings stop the run before it starts.
#include <doctest/doctest.h>
#include <sys/resource.h>

#include <algorithm>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "support/cli_runner.hpp"
#include "support/temp_directory.hpp"

namespace {

namespace fs = std::filesystem;
using codesim::test::cli;
using codesim::test::CliResult;
using codesim::test::read_file;
using codesim::test::TempDirectory;
using Json = nlohmann::json;

/// A small numeric run with stragglers, crashes, faults, checkpoints and rollbacks.
fs::path write_traced_scenario(const fs::path& directory, const std::string& extra = "") {
  const fs::path path = directory / "traced.json";
  std::ofstream(path) << R"({"name": "traced", "seed": 3, "replicas": 1,
    "cluster": {"nodes": 6, "speed_flops_per_s": 1e6,
                "stragglers": {"kind": "shifted_exponential", "shift": 1, "rate": 2},
                "crashes": {"mtbf_s": 0.5, "repair_s": 0.01}},
    "checkpoint": {"policy": "every_iterations", "every_iterations": 3, "write_s": 0.001,
                   "restart_s": 0.002},
    "workload": {"kind": "training", "layers": [20, 16, 10], "iterations": 30, "batch": 4,
                 "eval_every": 10, "wait_for": "k",
                 "dataset": {"kind": "synthetic", "samples": 200}},
    "strategy": {"scheme": "gpd", "m": 2, "n": 1, "nodes": 6},
    "faults": {"targets": {"weights": {"probability_per_operation": 0.02},
                           "product": {"probability_per_operation": 0.02}}})"
                      << extra << "}";
  return path;
}

CliResult run(const fs::path& scenario, const fs::path& output, std::vector<std::string> extra) {
  std::vector<std::string> args = {"run", scenario.string(), "-o", output.string(), "-q"};
  args.insert(args.end(), extra.begin(), extra.end());
  return cli(args);
}

std::size_t count_lines(const std::string& text) {
  return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
}

/// The events of a trace that are not metadata.
std::vector<Json> events_of(const Json& trace) {
  std::vector<Json> events;
  for (const Json& e : trace["traceEvents"])
    if (e["ph"] != "M") events.push_back(e);
  return events;
}

std::size_t count_named(const std::vector<Json>& events, const std::string& phase,
                        const std::string& name) {
  return static_cast<std::size_t>(std::count_if(events.begin(), events.end(), [&](const Json& e) {
    return e["ph"] == phase && e["name"] == name;
  }));
}

}  // namespace

TEST_CASE("a trace agrees with its replica's metrics and lies inside the run") {
  TempDirectory dir;
  const fs::path scenario = write_traced_scenario(dir.path());
  const CliResult r = run(scenario, dir / "out.json", {"--trace", (dir / "t.json").string()});
  INFO(r.err);
  REQUIRE(r.code == 0);
  const Json results = Json::parse(read_file(dir / "out.json"));
  const Json& replica = results["points"][0]["replicas"][0];
  const Json trace = Json::parse(read_file(dir / "t.json"));
  CHECK(trace["otherData"]["truncated"] == false);
  CHECK_FALSE(fs::exists(dir / "t.json.partial"));
  const std::vector<Json> events = events_of(trace);
  const double end_us = replica["completion_time_s"].get<double>() * 1e6;
  // Per node (pid), the compute lane's slices, to check they do not overlap.
  std::map<int, std::vector<std::pair<double, double>>> compute;
  for (const Json& e : events) {
    const double ts = e["ts"].get<double>();
    CHECK(ts >= 0.0);
    CHECK(ts <= end_us * (1 + 1e-12));
    if (e["ph"] != "X") continue;
    const double end = ts + e["dur"].get<double>();
    CHECK(end <= end_us * (1 + 1e-12));
    if (e["tid"] == 0) compute[e["pid"].get<int>()].push_back({ts, end});
  }
  CHECK(compute.size() == 6);
  for (auto& [node, slices] : compute) {
    std::sort(slices.begin(), slices.end());
    for (std::size_t i = 1; i < slices.size(); ++i) {
      INFO("node " << node << " slice " << i);
      CHECK(slices[i].first >= slices[i - 1].second * (1 - 1e-12));
    }
  }
  const auto metric = [&](const char* name) {
    return static_cast<std::size_t>(replica[name].get<double>());
  };
  CHECK(metric("faults_injected") > 0);
  CHECK(metric("rollbacks") > 0);
  CHECK(count_named(events, "i", "fault") == metric("faults_injected"));
  CHECK(count_named(events, "i", "rollback") == metric("rollbacks"));
  CHECK(count_named(events, "i", "correction") == metric("corrected"));
  CHECK(count_named(events, "i", "detection") == metric("detected"));
  CHECK(count_named(events, "i", "crash") == metric("crashes"));
  CHECK(count_named(events, "i", "iteration done") >= 30);
  CHECK(count_named(events, "X", "decode") > 0);
  CHECK(count_named(events, "X", "checkpoint write") > 0);
  CHECK(count_named(events, "C", "test_accuracy") == 4);  // at 0, 10, 20 and 30 iterations
  // Energy spent so far: at the start and at every iteration's end, ending at the run's energy.
  std::vector<double> energy_J;
  for (const Json& e : events)
    if (e["ph"] == "C" && e["name"] == "energy_J") energy_J.push_back(e["args"]["energy_J"]);
  CHECK(energy_J.size() == count_named(events, "i", "iteration done") + 1);
  CHECK(std::is_sorted(energy_J.begin(), energy_J.end()));
  CHECK(energy_J.back() == doctest::Approx(replica["energy_J"].get<double>()).epsilon(1e-12));
}

namespace {

/// Per node, the [start, end] of its protocol-lane slices named `name`, microseconds.
std::map<int, std::vector<std::pair<double, double>>> protocol_slices(
    const std::vector<Json>& events, const std::string& name) {
  std::map<int, std::vector<std::pair<double, double>>> slices;
  for (const Json& e : events)
    if (e["ph"] == "X" && e["tid"] == 1 && e["name"] == name) {
      const double ts = e["ts"].get<double>();
      slices[e["pid"].get<int>()].push_back({ts, ts + e["dur"].get<double>()});
    }
  return slices;
}

bool inside(const std::vector<std::pair<double, double>>& slices, double t) {
  return std::any_of(slices.begin(), slices.end(), [t](const auto& s) {
    return t >= s.first * (1 - 1e-12) && t <= s.second * (1 + 1e-12);
  });
}

/// Checks that every "coded result" flow starts in a communication slice of its sender and ends
/// in one of its receiver, no earlier than it starts; returns how many there are.
std::size_t check_round_flows(const Json& trace) {
  const std::vector<Json> events = events_of(trace);
  const auto communication = protocol_slices(events, "communication");
  std::map<std::uint64_t, std::pair<int, double>> starts;
  std::size_t flows = 0;
  for (const Json& e : events) {
    if (e["name"] != "coded result") continue;
    const int node = e["pid"].get<int>();
    const double ts = e["ts"].get<double>();
    INFO("flow " << e["id"] << " at node " << node << ", " << ts << " us");
    CHECK(inside(
        communication.count(node) ? communication.at(node) : decltype(communication)::mapped_type{},
        ts));
    if (e["ph"] == "s") {
      starts[e["id"].get<std::uint64_t>()] = {node, ts};
    } else {
      REQUIRE(e["ph"] == "f");
      const auto& [from, from_ts] = starts.at(e["id"].get<std::uint64_t>());
      CHECK(from != node);
      CHECK(ts >= from_ts);
      ++flows;
    }
  }
  CHECK(starts.size() == flows);
  return flows;
}

}  // namespace

TEST_CASE("a round's transfers are arrows from sender to receiver inside its communication") {
  TempDirectory dir;
  const fs::path scenario = write_traced_scenario(dir.path());
  for (const std::string decentralized : {"true", "false"}) {
    INFO("decentralized " << decentralized);
    const fs::path trace = dir / ("t-" + decentralized + ".json");
    const CliResult r =
        run(scenario, dir / "out.json",
            {"--trace", trace.string(), "--set", "/workload/decentralized=" + decentralized});
    INFO(r.err);
    REQUIRE(r.code == 0);
    CHECK(check_round_flows(Json::parse(read_file(trace))) > 100);
  }
}

TEST_CASE("a trace without flows keeps every slice and is smaller") {
  TempDirectory dir;
  const fs::path scenario = write_traced_scenario(dir.path());
  REQUIRE(run(scenario, dir / "a.json", {"--trace", (dir / "with.json").string()}).code == 0);
  REQUIRE(run(scenario, dir / "b.json",
              {"--trace", (dir / "without.json").string(), "--trace-no-flows"})
              .code == 0);
  const auto phases = [](const Json& trace, const std::string& phase) {
    std::size_t count = 0;
    for (const Json& e : events_of(trace)) count += e["ph"] == phase;
    return count;
  };
  const Json with = Json::parse(read_file(dir / "with.json"));
  const Json without = Json::parse(read_file(dir / "without.json"));
  CHECK(phases(with, "s") > 100);
  CHECK(phases(without, "s") == 0);
  CHECK(phases(without, "f") == 0);
  CHECK(phases(without, "X") == phases(with, "X"));
  CHECK(fs::file_size(dir / "without.json") < fs::file_size(dir / "with.json"));
  // The scenario's trace section says the same with "flows": false.
  const fs::path section = write_traced_scenario(
      dir.path(),
      R"(, "trace": {"file": ")" + (dir / "section.json").string() + R"(", "flows": false})");
  REQUIRE(run(section, dir / "c.json", {}).code == 0);
  CHECK(phases(Json::parse(read_file(dir / "section.json")), "s") == 0);
}

TEST_CASE("a trace that cannot be written loses only itself: the results are written, exit 1") {
  // Files may grow to 256 KiB here (as on a full disk, the trace's writes fail, with EFBIG);
  // the results are far smaller, the trace far larger.
  TempDirectory dir;
  const fs::path scenario = write_traced_scenario(dir.path());
  rlimit saved{};
  REQUIRE(::getrlimit(RLIMIT_FSIZE, &saved) == 0);
  const auto previous = std::signal(SIGXFSZ, SIG_IGN);
  rlimit small = saved;
  small.rlim_cur = 256 * 1024;
  REQUIRE(::setrlimit(RLIMIT_FSIZE, &small) == 0);
  const CliResult r = run(scenario, dir / "out.json", {"--trace", (dir / "t.json").string()});
  ::setrlimit(RLIMIT_FSIZE, &saved);
  std::signal(SIGXFSZ, previous);
  INFO(r.err);
  CHECK(r.code == 1);
  CHECK(r.err.starts_with("error: cannot write the trace " + (dir / "t.json").string() +
                          ": File too large (the results are written without it)"));
  CHECK(Json::parse(read_file(dir / "out.json"))["complete"] == true);
  CHECK_FALSE(fs::exists(dir / "t.json"));
  for (const auto& entry : fs::directory_iterator(dir.path()))  // no temporary file is left
    CHECK(entry.path().filename().string().find(".tmp-") == std::string::npos);
}

TEST_CASE("a run stopped by its time limit has a trace that ends at the limit") {
  TempDirectory dir;
  const fs::path scenario = write_traced_scenario(dir.path(), R"(, "allow_unfinished": true)");
  const CliResult r =
      run(scenario, dir / "out.json",
          {"--trace", (dir / "t.json").string(), "--set", "/workload/time_limit_s=0.05"});
  INFO(r.err);
  REQUIRE(r.code == 0);
  const Json results = Json::parse(read_file(dir / "out.json"));
  const Json& replica = results["points"][0]["replicas"][0];
  REQUIRE(replica["completed"] == 0.0);
  CHECK(replica["completion_time_s"] == 0.05);
  const Json trace = Json::parse(read_file(dir / "t.json"));
  const std::vector<Json> events = events_of(trace);
  CHECK(trace["otherData"]["truncated"] == false);
  double last_end_us = 0.0;
  for (const Json& e : events) {
    const double end = e["ts"].get<double>() + (e["ph"] == "X" ? e["dur"].get<double>() : 0.0);
    CHECK(end <= 0.05e6 * (1 + 1e-12));
    last_end_us = std::max(last_end_us, end);
  }
  CHECK(last_end_us == doctest::Approx(0.05e6));  // open tasks end at the limit
  const auto metric = [&](const char* name) {
    return static_cast<std::size_t>(replica[name].get<double>());
  };
  CHECK(count_named(events, "i", "fault") == metric("faults_injected"));
  CHECK(count_named(events, "i", "rollback") == metric("rollbacks"));
  CHECK(count_named(events, "i", "crash") == metric("crashes"));
  CHECK(count_named(events, "i", "iteration done") <= 30);
  check_round_flows(trace);
}

TEST_CASE("results are byte-identical with and without --trace") {
  TempDirectory dir;
  const fs::path scenario = write_traced_scenario(dir.path());
  REQUIRE(run(scenario, dir / "plain.json", {}).code == 0);
  REQUIRE(run(scenario, dir / "with_trace.json", {"--trace", (dir / "t.json").string()}).code == 0);
  REQUIRE(run(scenario, dir / "capped.json",
              {"--trace", (dir / "c.json").string(), "--trace-max-events", "10"})
              .code == 0);
  const std::string plain = read_file(dir / "plain.json");
  CHECK(!plain.empty());
  CHECK(read_file(dir / "with_trace.json") == plain);
  CHECK(read_file(dir / "capped.json") == plain);
}

TEST_CASE("the cap stops the trace with a warning and the trace says it was truncated") {
  TempDirectory dir;
  const fs::path scenario = write_traced_scenario(dir.path());
  const CliResult r = run(scenario, dir / "out.json",
                          {"--trace", (dir / "t.json").string(), "--trace-max-events", "25"});
  CHECK(r.code == 0);
  CHECK(r.err.find("warning: the trace \"" + (dir / "t.json").string() +
                   "\" stopped at its cap of 25 events") != std::string::npos);
  CHECK(count_lines(r.err) == 1);
  const Json trace = Json::parse(read_file(dir / "t.json"));
  CHECK(events_of(trace).size() == 25);
  CHECK(trace["otherData"]["truncated"] == true);
  CHECK(trace["otherData"]["events_dropped"].get<double>() > 0);
}

TEST_CASE("a window in seconds or iterations keeps only the events inside it") {
  TempDirectory dir;
  const fs::path scenario = write_traced_scenario(dir.path());
  REQUIRE(run(scenario, dir / "out.json",
              {"--trace", (dir / "s.json").string(), "--trace-window", "0.02,0.04"})
              .code == 0);
  const std::vector<Json> in_seconds = events_of(Json::parse(read_file(dir / "s.json")));
  CHECK(!in_seconds.empty());
  for (const Json& e : in_seconds) {
    const double ts = e["ts"].get<double>();
    const double end = ts + (e["ph"] == "X" ? e["dur"].get<double>() : 0.0);
    CHECK(end >= 0.02e6 * (1 - 1e-12));
    CHECK(ts <= 0.04e6 * (1 + 1e-12));
  }
  REQUIRE(run(scenario, dir / "out.json",
              {"--trace", (dir / "i.json").string(), "--trace-iterations", "2,4"})
              .code == 0);
  const std::vector<Json> in_iterations = events_of(Json::parse(read_file(dir / "i.json")));
  std::vector<int> done;
  for (const Json& e : in_iterations)
    if (e["name"] == "iteration done") done.push_back(e["args"]["iteration"].get<int>());
  // Iterations 3 and 4 finish while 2 and 3 are done (a rollback may repeat them).
  CHECK(!done.empty());
  for (int iteration : done) CHECK((iteration == 3 || iteration == 4));
}

TEST_CASE("the trace section writes one trace per replica from its pattern") {
  TempDirectory dir;
  const std::string pattern = (dir / "t-{replica}.json").string();
  const fs::path scenario =
      write_traced_scenario(dir.path(), R"(, "trace": {"file": ")" + pattern + R"("})");
  const CliResult r =
      cli({"run", scenario.string(), "-o", (dir / "out.json").string(), "--replicas", "2", "-q"});
  INFO(r.err);
  REQUIRE(r.code == 0);
  CHECK(events_of(Json::parse(read_file(dir / "t-0.json"))).size() > 0);
  CHECK(events_of(Json::parse(read_file(dir / "t-1.json"))).size() > 0);
  const fs::path fixed = write_traced_scenario(
      dir.path(), R"(, "trace": {"file": ")" + (dir / "one.json").string() + R"("})");
  const CliResult clash =
      cli({"run", fixed.string(), "-o", (dir / "out2.json").string(), "--replicas", "2"});
  CHECK(clash.code == 2);
  CHECK(clash.err.starts_with("error: " + fixed.string() + ": /trace/file: every replica would"));
  CHECK(count_lines(clash.err) == 1);
}

TEST_CASE("--trace sets the file and keeps the trace section's other settings") {
  // --trace replaced the whole section before: its cap of 5 events was lost.
  TempDirectory dir;
  const fs::path scenario = write_traced_scenario(
      dir.path(),
      R"(, "trace": {"file": ")" + (dir / "section.json").string() + R"(", "max_events": 5})");
  const CliResult r = run(scenario, dir / "out.json", {"--trace", (dir / "t.json").string()});
  INFO(r.err);
  REQUIRE(r.code == 0);
  CHECK_FALSE(fs::exists(dir / "section.json"));
  CHECK(events_of(Json::parse(read_file(dir / "t.json"))).size() == 5);
  CHECK(r.err.find("stopped at its cap of 5 events") != std::string::npos);
}

TEST_CASE("bad trace settings exit 2 with one error line and write nothing") {
  TempDirectory dir;
  const fs::path scenario = write_traced_scenario(dir.path());
  const fs::path out = dir / "out.json";
  const fs::path blocker = dir / "blocker";
  std::ofstream(blocker) << "a file, not a directory";
  const auto refused = [&](const std::vector<std::string>& extra, const std::string& words) {
    const CliResult r = run(scenario, out, extra);
    INFO(r.err);
    CHECK(r.code == 2);
    CHECK(r.err.starts_with("error: "));
    CHECK(r.err.find(words) != std::string::npos);
    CHECK(count_lines(r.err) == 1);
    CHECK_FALSE(fs::exists(out));
  };
  refused({"--trace", (blocker / "t.json").string()}, "the trace");
  refused({"--trace", (dir / "t.json").string(), "--trace-window", "5,2"}, "--trace-window");
  refused({"--trace", (dir / "t.json").string(), "--trace-window", "x"}, "--trace-window");
  refused({"--trace", (dir / "t.json").string(), "--trace-iterations", "1.5,3"},
          "--trace-iterations");
  refused({"--trace", (dir / "t.json").string(), "--trace-max-events", "0"}, "--trace-max-events");
  refused({"--trace-window", "0,1"}, "needs --trace");
  refused({"--trace", (dir / "t.json").string(), "--set", "/workload/mode=stochastic", "--set",
           "/cluster/crashes/mtbf_s=null"},
          "numeric");
  refused({"--trace", (dir / "t.json").string(), "--replicas", "2"}, "every replica would");
  // Accepted literally before, while trace.file refused the same pattern.
  refused({"--trace", (dir / "t{bogus}.json").string()}, "not {bogus}");
  CHECK_FALSE(fs::exists(dir / "t{bogus}.json"));
  CHECK_FALSE(fs::exists(dir / "t.json"));
  CHECK_FALSE(fs::exists(dir / "t.json.partial"));
}
