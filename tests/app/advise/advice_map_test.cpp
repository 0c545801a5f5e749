// codesim advise --map: the axes it parses, the family of each strategy, cells that agree with
// advise on each cell alone, the same map for any --jobs, and bad axes at their pointer.
#include "app/advise/advice_map.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <string>

#include "app/advise/advise_scenarios.hpp"
#include "app/config/scenario_loader.hpp"
#include "app/exec/runner.hpp"
#include "support/cli_runner.hpp"
#include "support/temp_directory.hpp"

namespace codesim::app {
namespace {

Json small_scenario() { return test::small_advise_scenario(6, 0.003, 0.0); }

const Json& resolved_small() {
  static const Json resolved =
      make_experiment(small_scenario(), "small.json").points.front().scenario.resolved;
  return resolved;
}

constexpr const char* kEps = "/faults/targets/weights/probability_per_operation";

}  // namespace

TEST_CASE("a map axis spaces its points geometrically over a decade, else linearly") {
  const MapAxis log = parse_map_axis(std::string(kEps) + "=1e-4..1e-2:3", resolved_small(), "f");
  CHECK(log.logarithmic);
  REQUIRE(log.values.size() == 3);
  CHECK(log.values[0] == doctest::Approx(1e-4));
  CHECK(log.values[1] == doctest::Approx(1e-3));
  CHECK(log.values[2] == 1e-2);
  const MapAxis linear = parse_map_axis(std::string(kEps) + "=0..0.01", resolved_small(), "f");
  CHECK(!linear.logarithmic);
  CHECK(linear.values.size() == static_cast<std::size_t>(kDefaultMapPoints));
  CHECK(linear.values[1] == doctest::Approx(0.002));
  // An integer of the scenario takes integers; a null rate can be mapped.
  const MapAxis nodes = parse_map_axis("/cluster/nodes=2..6:3", resolved_small(), "f");
  CHECK(nodes.integer);
  CHECK(nodes.values == std::vector<double>{2, 4, 6});
  CHECK(parse_map_axis("/cluster/crashes/mtbf_s=1..10:2", resolved_small(), "f").values.size() ==
        2);
}

TEST_CASE("a map axis that is not a number of the scenario or spans nothing is refused there") {
  const auto refused = [](const std::string& text, const std::string& expected) {
    CAPTURE(text);
    try {
      parse_map_axis(text, resolved_small(), "small.json");
      FAIL("accepted");
    } catch (const ScenarioError& e) {
      CHECK(std::string(e.what()).find(expected) != std::string::npos);
    }
  };
  refused("/cluster/nodez=1..2", "small.json: /cluster/nodez: --map: not a value of the scenario");
  refused("/cluster/network=1..2", "/cluster/network: --map: the scenario holds an object");
  refused("/cluster/nodes=4..2", "/cluster/nodes: --map range \"4..2\" is empty");
  refused("/cluster/nodes=2..4:0", "is empty");
  refused("/cluster/nodes=2..4:1", "N = 1 needs LO = HI");
  refused("/cluster/nodes=2..3:5", "gives fewer than 5 distinct integers");
  refused("/cluster/nodes=a..3", "--map range \"a..3\" is malformed");
  refused("cluster/nodes=1..3", "is malformed");
  // Every axis takes distinct values: a float axis too (three identical cells before).
  refused(std::string(kEps) + "=1e-3..1e-3:3", "gives fewer than 3 distinct values");
  refused("/cluster/nodes=2.2..2.8:2", "holds no integer");
  // The count's real limit, not "malformed".
  refused("/cluster/nodes=2..6:10000",
          "--map range \"2..6:10000\" asks for 10000 points (expected N in 1..1000");
}

TEST_CASE("an integer axis stays inside its range and is written as integers") {
  // 100.5..200.5 rounded 101, 151, 201 before: 201 beyond HI, and written as floats.
  const MapAxis iterations =
      parse_map_axis("/workload/iterations=100.5..200.5:3", resolved_small(), "f");
  CHECK(iterations.integer);
  CHECK(iterations.values == std::vector<double>{101, 151, 200});
  AdviceMap map;
  map.axes = {iterations};
  map.scenario = resolved_small();
  const Json j = to_json(map);
  const Json& values = j["axes"][0]["values"];
  CHECK(values.dump() == "[101,151,200]");
  CHECK(values[0].is_number_integer());
}

TEST_CASE("a strategy's family comes from its descriptor and its checkpoints") {
  const auto family = [](const char* strategy, CheckpointChoiceKind kind) {
    const Json document = [&] {
      Json d = small_scenario();
      d["strategy"] = Json::parse(strategy);
      return d;
    }();
    const Experiment e = make_experiment(document, "f.json");
    const Scenario& scenario = e.points.front().scenario;
    const Configuration c{training_of(scenario.workload)->spec.scheme, {kind, 1.0}, true, false};
    return strategy_family(c, scenario.checkpoint);
  };
  using K = CheckpointChoiceKind;
  CHECK(family(R"({"scheme": "uncoded", "m": 1, "n": 2})", K::none) == StrategyFamily::uncoded);
  CHECK(family(R"({"scheme": "uncoded", "m": 1, "n": 2})", K::daly) ==
        StrategyFamily::checkpointing);
  // The scenario checkpoints every 20 iterations.
  CHECK(family(R"({"scheme": "uncoded", "m": 1, "n": 2})", K::scenario) ==
        StrategyFamily::checkpointing);
  CHECK(family(R"({"scheme": "replication", "m": 1, "n": 1, "copies": 2})", K::none) ==
        StrategyFamily::replication);
  CHECK(family(R"({"scheme": "gpd", "m": 1, "n": 2, "nodes": 5})", K::none) ==
        StrategyFamily::coding);
  CHECK(family(R"({"scheme": "abft", "m": 1, "n": 2})", K::young) == StrategyFamily::abft);
  CHECK(family(R"({"scheme": "abft_codenet", "m": 1, "n": 2, "grid_rows": 2, "grid_cols": 3})",
               K::none) == StrategyFamily::coding_abft);
  // A grid without a parity row or column adds no code to ABFT.
  CHECK(family(R"({"scheme": "abft_codenet", "m": 1, "n": 2, "grid_rows": 1, "grid_cols": 2})",
               K::none) == StrategyFamily::abft);
}

TEST_CASE("every cell of a map recommends what advise recommends on that cell alone") {
  const MapAxis eps = parse_map_axis(std::string(kEps) + "=0..0.01:2", resolved_small(), "f");
  const MapAxis mtbf = parse_map_axis("/cluster/crashes/mtbf_s=2..20:2", resolved_small(), "f");
  const std::unique_ptr<UnitExecutor> executor = make_local_executor();
  std::size_t progress_calls = 0;
  const AdviceMap map = advise_map(small_scenario(), "small.json", {eps, mtbf}, AdviseOptions{},
                                   *executor, 2, [&](std::size_t, std::size_t total) {
                                     CHECK(total == 4);
                                     ++progress_calls;
                                   });
  REQUIRE(map.cells.size() == 4);
  CHECK(progress_calls == 4);
  const Json json = to_json(map);
  CHECK(json["kind"] == "advice_map");
  CHECK(json["axes"][1]["scale"] == "log");
  std::size_t cell = 0;
  for (double e : eps.values) {
    for (double m : mtbf.values) {
      Json document = small_scenario();
      document["faults"]["targets"]["weights"]["probability_per_operation"] = e;
      document["cluster"]["crashes"] = {{"mtbf_s", m}};
      const Advice alone = advise(make_experiment(document, "cell.json"), AdviseOptions{});
      const Json& row = map.cells[cell++];
      CAPTURE(row.dump());
      CHECK(row[0] == Json::array({e, m}));
      CHECK(row[1] == alone.configurations[alone.recommended].label);
      CHECK(row[8] == alone.configurations[alone.recommended].simulated->mean);
    }
  }
}

TEST_CASE("a map gives the same file for any --jobs and refuses a bad axis with exit code 2") {
  test::TempDirectory dir("advise-map");
  test::write_text(dir.path() / "small.json", small_scenario().dump());
  const std::string scenario = (dir.path() / "small.json").string();
  const std::string axis = std::string(kEps) + "=1e-3..1e-2:3";
  const auto one =
      test::cli({"advise", scenario, "--map", axis, "-o", (dir.path() / "1.json").string(), "-q"});
  const auto two = test::cli({"advise", scenario, "--map", axis, "-o",
                              (dir.path() / "2.json").string(), "-q", "--jobs", "2"});
  REQUIRE(one.code == 0);
  REQUIRE(two.code == 0);
  CHECK(test::read_file(dir.path() / "1.json") == test::read_file(dir.path() / "2.json"));
  const auto bad = test::cli({"advise", scenario, "--map", "/cluster/nodes=3..1", "-o",
                              (dir.path() / "bad.json").string()});
  CHECK(bad.code == 2);
  CHECK(bad.err.find("/cluster/nodes: --map range \"3..1\" is empty") != std::string::npos);
  CHECK(std::count(bad.err.begin(), bad.err.end(), '\n') == 1);
  CHECK(!std::filesystem::exists(dir.path() / "bad.json"));
  const auto three = test::cli({"advise", scenario, "--map", axis, "--map", axis, "--map", axis,
                                "-o", (dir.path() / "bad.json").string()});
  CHECK(three.code == 2);
  CHECK(three.err.find("--map given 3 times (expected one or two axes)") != std::string::npos);
  CHECK(!std::filesystem::exists(dir.path() / "bad.json"));
}

}  // namespace codesim::app
