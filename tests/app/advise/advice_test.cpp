// codesim advise: the staged search against an exhaustive ranking, what it recommends where the
// answer is known, the same advice for any --jobs, and bad input at its pointer.
#include "app/advise/advice.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <string>

#include "app/advise/advise_scenarios.hpp"
#include "app/advise/strategy_space.hpp"
#include "app/config/scenario_loader.hpp"
#include "app/exec/runner.hpp"
#include "support/cli_runner.hpp"
#include "support/temp_directory.hpp"

namespace codesim::app {
namespace {

Json small_scenario(int nodes, double eps, double node_mtbf_s) {
  return test::small_advise_scenario(nodes, eps, node_mtbf_s);
}

Advice advise_on(const Json& document, bool prune) {
  AdviseOptions options;
  options.prune = prune;
  return advise(make_experiment(document, "small.json"), options);
}

const AdvisedConfiguration& recommended(const Advice& advice) {
  return advice.configurations[advice.recommended];
}

std::size_t count_stage(const Advice& advice, AdviseStage stage) {
  return static_cast<std::size_t>(
      std::count_if(advice.configurations.begin(), advice.configurations.end(),
                    [&](const AdvisedConfiguration& c) { return c.stage == stage; }));
}

}  // namespace

TEST_CASE("the schemes listed fit the cluster and divide every layer, and none is missed") {
  const std::vector<models::WeightShape> shapes = {{8, 8}, {4, 8}};
  const std::vector<models::SchemeSpec> specs = enumerate_schemes(shapes, 6);
  std::vector<std::string> uncoded;
  for (const models::SchemeSpec& spec : specs) {
    CHECK(models::summarize_scheme(spec).nodes <= 6);
    for (const models::WeightShape& w : shapes)
      CHECK(models::validate_scheme(spec, w.rows, w.cols).empty());
    if (models::scheme_name(spec) == "uncoded") uncoded.push_back(scheme_label(spec));
  }
  // m divides 8 and 4, n divides 8, m n <= 6.
  CHECK(uncoded == std::vector<std::string>{"uncoded m=1 n=1", "uncoded m=1 n=2", "uncoded m=1 n=4",
                                            "uncoded m=2 n=1", "uncoded m=2 n=2",
                                            "uncoded m=4 n=1"});
}

TEST_CASE("the staged search recommends what an exhaustive ranking of the whole space does") {
  struct Space {
    const char* what;
    int nodes;
    double eps;
    double mtbf_s;
  };
  for (const Space& space : {Space{"soft errors", 6, 0.003, 0.0}, Space{"crashes", 6, 0.0, 2.0},
                             Space{"many soft errors", 6, 0.02, 0.0}}) {
    CAPTURE(space.what);
    const Json document = small_scenario(space.nodes, space.eps, space.mtbf_s);
    const Advice staged = advise_on(document, true);
    const Advice exhaustive = advise_on(document, false);
    CHECK(count_stage(staged, AdviseStage::bound) > staged.configurations.size() / 2);
    CHECK(count_stage(exhaustive, AdviseStage::simulation) == exhaustive.configurations.size());
    CHECK(recommended(staged).label == recommended(exhaustive).label);
  }
}

TEST_CASE("when the budget runs out in the first round the rest stay at their bounds, unranked") {
  AdviseOptions options;
  options.prune = false;  // every configuration is a survivor: far more than one chunk
  options.ranking.budget_s = 0.0;
  const Advice advice =
      advise(make_experiment(small_scenario(6, 0.003, 0.0), "small.json"), options);
  const std::size_t simulated = count_stage(advice, AdviseStage::simulation);
  CHECK(simulated == 64);  // the first chunk always runs
  CHECK(advice.budget_exhausted);
  std::size_t waiting = 0;
  for (const AdvisedConfiguration& c : advice.configurations) {
    if (c.stage != AdviseStage::bound) continue;
    CHECK(c.rank == 0);
    CHECK(!c.simulated);
    waiting += c.reason == "the budget ran out before it was simulated" ? 1 : 0;
  }
  CHECK(waiting + simulated == advice.configurations.size());
  // The baseline runs first.
  CHECK(advice.configurations.front().simulated);
}

TEST_CASE("without faults or crashes the advice is an uncoded strategy without checkpoints") {
  const Advice advice = advise_on(small_scenario(6, 0.0, 0.0), true);
  CHECK(models::scheme_name(recommended(advice).configuration.scheme) == "uncoded");
  CHECK(recommended(advice).configuration.checkpoint.kind == CheckpointChoiceKind::none);
}

TEST_CASE("with crashes only the advice checkpoints within one search step of Daly's interval") {
  const Advice advice = advise_on(small_scenario(6, 0.0, 2.0), true);
  const CheckpointChoice& chosen = recommended(advice).configuration.checkpoint;
  CAPTURE(recommended(advice).label);
  CHECK((chosen.kind == CheckpointChoiceKind::young || chosen.kind == CheckpointChoiceKind::daly));
  CHECK(chosen.factor >= 0.5);
  CHECK(chosen.factor <= 2.0);
}

TEST_CASE("the same scenario and seed give the same advice file for any number of jobs") {
  test::TempDirectory dir("advise");
  test::write_text(dir.path() / "small.json", small_scenario(6, 0.003, 0.0).dump());
  const std::string scenario = (dir.path() / "small.json").string();
  const auto one = test::cli({"advise", scenario, "-o", (dir.path() / "one.json").string(), "-q"});
  const auto two = test::cli(
      {"advise", scenario, "-o", (dir.path() / "two.json").string(), "-q", "--jobs", "2"});
  REQUIRE(one.code == 0);
  REQUIRE(two.code == 0);
  // The recommendation says how to run it: its sections make a scenario that loads.
  const Json sections =
      Json::parse(test::read_file(dir.path() / "one.json"))["recommendation"]["scenario_sections"];
  Json document = small_scenario(6, 0.003, 0.0);
  document["strategy"] = sections["strategy"];
  document["checkpoint"] = sections["checkpoint"];
  document["workload"].update(sections["workload"]);
  CHECK_NOTHROW(make_experiment(document, "recommended.json"));
  CHECK(test::read_file(dir.path() / "one.json") == test::read_file(dir.path() / "two.json"));
}

TEST_CASE("advise rejects bad input at its pointer with exit code 2 and writes nothing") {
  test::TempDirectory dir("advise-bad");
  const auto rejected = [&](Json document, std::vector<std::string> options,
                            const std::string& expected) {
    test::write_text(dir.path() / "bad.json", document.dump());
    std::vector<std::string> args = {"advise", (dir.path() / "bad.json").string(), "-o",
                                     (dir.path() / "advice.json").string()};
    args.insert(args.end(), options.begin(), options.end());
    const test::CliResult result = test::cli(args);
    CAPTURE(result.err);
    CHECK(result.code == 2);
    CHECK(result.err.find(expected) != std::string::npos);
    CHECK(std::count(result.err.begin(), result.err.end(), '\n') == 1);
    CHECK(!std::filesystem::exists(dir.path() / "advice.json"));
  };
  Json job = Json::parse(R"({"cluster": {"nodes": 4}, "workload": {"kind": "iterative_job"}})");
  rejected(job, {}, ": /workload/kind: advise chooses a coding strategy for training");
  Json audited = small_scenario(6, 0.003, 0.0);
  audited["workload"]["audit"] = true;
  rejected(audited, {}, ": /workload/audit");
  rejected(small_scenario(6, 0.003, 0.0), {"--objective", "accuracy"},
           "--objective accuracy is not an objective (expected time, energy or time_to_accuracy)");
  rejected(small_scenario(6, 0.003, 0.0), {"--budget-s", "-1"}, "--budget-s must be");
  // A cluster too small for the scenario's own scheme (replication's 2 copies on 1 node).
  rejected(small_scenario(1, 0.003, 0.0), {}, ": /strategy: the scheme needs 2 nodes");
  rejected(small_scenario(6, 0.003, 0.0), {"--objective", "time_to_accuracy"},
           "--objective time_to_accuracy needs --confirm K");
  rejected(small_scenario(6, 0.003, 0.0), {"--objective", "time_to_accuracy", "--confirm", "2"},
           ": /workload/mode: the objective time_to_accuracy needs test accuracy");
}

}  // namespace codesim::app

namespace codesim::app {

TEST_CASE(
    "under activation strikes the advice sees abft pass them silently and ranks no abft "
    "ahead of a safe configuration") {
  // An abft checksum checks a product against its block, not the activation computed from it:
  // a struck copy of an activation reaches the products and the updates unseen.
  Json document = small_scenario(8, 0.0, 0.0);
  document["faults"]["targets"]["activation"] = {{"probability_per_operation", 3e-3}};
  const Advice advice = advise_on(document, true);
  int abft = 0;
  int worst_safe = 0;  // the last rank of a configuration not expected to corrupt silently
  for (const AdvisedConfiguration& c : advice.configurations) {
    if (!c.bound) continue;
    if (models::scheme_name(c.configuration.scheme) == "abft") {
      ++abft;
      CAPTURE(c.label);
      CHECK(c.bound->unsafe());
    } else if (c.rank > 0 && !c.bound->unsafe()) {
      worst_safe = std::max(worst_safe, c.rank);
    }
  }
  CHECK(abft > 0);
  REQUIRE(worst_safe > 0);
  for (const AdvisedConfiguration& c : advice.configurations) {
    if (models::scheme_name(c.configuration.scheme) == "abft" && c.rank > 0) {
      CAPTURE(c.label);
      CHECK(c.rank > worst_safe);
    }
  }
  CHECK(models::scheme_name(recommended(advice).configuration.scheme) != "abft");
}

TEST_CASE(
    "on T5's configuration at eps 3e-4 the advice ranks a CodeNet grid ahead of replication") {
  Json document = read_scenario_file(std::string(CODESIM_SOURCE_DIR) +
                                     "/scenarios/paper_time_vs_checkpoint.json");
  document.erase("sweep");
  const Advice advice = advise(make_experiment(document, "t5.json"), AdviseOptions{});
  int codenet = 0;  // the best rank of a CodeNet grid
  for (const AdvisedConfiguration& c : advice.configurations) {
    if (models::scheme_name(c.configuration.scheme) == "codenet_grid" && c.rank > 0)
      codenet = codenet == 0 ? c.rank : std::min(codenet, c.rank);
  }
  REQUIRE(codenet > 0);
  for (const AdvisedConfiguration& c : advice.configurations) {
    if (models::scheme_name(c.configuration.scheme) != "replication") continue;
    CAPTURE(c.label);
    // Replication is either pruned by its bounds or ranked behind the grid.
    CHECK((c.rank == 0 || c.rank > codenet));
  }
}

}  // namespace codesim::app
