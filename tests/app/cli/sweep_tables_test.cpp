// `codesim theory --table` tradeoff, tolerance_grid, conditioning and stragglers: text, JSON and
// their options.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "app/cli/theory_command.hpp"
#include "support/cli_runner.hpp"
#include "tests/app/cli/theory_cli.hpp"

namespace {

using codesim::test::CliResult;

using codesim::test::theory;
using codesim::test::theory_json;

}  // namespace

TEST_CASE("theory --table tradeoff lists four schemes per split with thresholds and traffic") {
  const auto j = theory_json({"--table", "tradeoff"});
  CHECK(j["table"] == "tradeoff");
  CHECK(j["redundancy"] == 3);
  REQUIRE(j["rows"].size() == 64);
  const auto& gpd22 = j["rows"][4 * 5];  // (2, 2): rows of (1, 1..4) then (2, 1) come first
  CHECK(gpd22["scheme"] == "gpd");
  CHECK(gpd22["forward"]["threshold_nodes"] == 5);
  CHECK(gpd22["backward"]["threshold_nodes"] == 6);
  CHECK(gpd22["forward"]["sent_per_node"] == 0.5);
  const CliResult text = theory({"--table", "tradeoff"});
  CHECK(text.code == 0);
  CHECK(text.out.find("recovery threshold (nodes)") == 0);
}

TEST_CASE("theory --table tolerance_grid has MDS at every point") {
  const auto j = theory_json({"--table", "tolerance_grid"});
  CHECK(j["table"] == "tolerance_grid");
  for (const auto& row : j["rows"]) CHECK_FALSE(row["mds"].is_null());
  CHECK(j["rows"][0]["m"] == 1);
  CHECK(j["rows"][0]["nodes"] == 2);
}

TEST_CASE("theory --table conditioning reports each code's worst conditioning and accuracy") {
  const auto j = theory_json({"--table", "conditioning"});
  CHECK(j["table"] == "conditioning");
  CHECK(j["target_relative_accuracy"] == 1e-8);
  CHECK(j["points"].size() == 27);  // 9 splits x 3 codes
  CHECK(j["accurate_up_to"].size() == 3);
  for (const auto& a : j["accurate_up_to"]) CHECK(a["nodes"].get<int>() >= 3);
}

TEST_CASE("theory --table stragglers gives the K-th fastest for K = 1..P with a Monte Carlo") {
  const auto j = theory_json({"--table", "stragglers", "--nodes", "6"});
  CHECK(j["nodes"] == 6);
  REQUIRE(j["laws"].size() == 5);
  CHECK(j["laws"][0]["law"] == "shifted_exponential");
  CHECK(j["laws"][0]["parameters"]["rate"] == 0.5);
  REQUIRE(j["laws"][0]["rows"].size() == 6);
  CHECK(j["laws"][0]["rows"][0]["expected"].get<double>() == doctest::Approx(1.0 + 2.0 / 6));
  const CliResult text = theory({"--table", "stragglers", "--nodes", "3"});
  CHECK(text.out.find("shifted_exponential(shift 1, rate 0.5)") != std::string::npos);
}

TEST_CASE("theory --table stragglers gives each compared scheme's structural wait beside its K") {
  const auto j = theory_json({"--table", "stragglers"});
  CHECK(j["nodes"] == 12);
  const auto& schemes = j["laws"][0]["schemes"];  // 1 + Exp(0.5)
  REQUIRE(schemes.size() == 4);
  double harmonic_12 = 0.0;
  for (int i = 1; i <= 12; ++i) harmonic_12 += 1.0 / i;
  for (const auto& s : schemes) {
    CAPTURE(s["scheme"].get<std::string>());
    CHECK(s["nodes"] == 12);
    const auto& ff = s["forward"];
    if (s["scheme"] == "gpd" || s["scheme"] == "mds") {
      // Any K nodes decode: the wait is the K-th fastest, exact.
      CHECK(ff["any_k_nodes"] == true);
      CHECK(ff["expected"].get<double>() == doctest::Approx(ff["kth_fastest"].get<double>()));
    } else {
      CHECK(ff["any_k_nodes"] == false);
      CHECK(ff["expected"].is_null());
    }
  }
  const auto& replication = schemes[2];
  CHECK(replication["scheme"] == "replication");
  CHECK(replication["configuration"] == "3 copies");
  CHECK(replication["forward"]["threshold_nodes"] == 10);
  // E[X_(10:12)] = 1 + 2 (H_12 - H_2) = 4.21, against a structural wait of 2.89.
  CHECK(replication["forward"]["kth_fastest"].get<double>() ==
        doctest::Approx(1.0 + 2.0 * (harmonic_12 - 1.5)));
  CHECK(replication["forward"]["monte_carlo"].get<double>() ==
        doctest::Approx(2.8945).epsilon(0.02));
  const auto& grid = schemes[3];
  CHECK(grid["configuration"] == "grid 4 x 4 (t = 1)");
  CHECK(grid["forward"]["participants"] == 8);
  CHECK(grid["forward"]["monte_carlo"].get<double>() == doctest::Approx(3.1071).epsilon(0.02));
  const CliResult text = theory({"--table", "stragglers"});
  CHECK(text.out.find("structure wait") != std::string::npos);
  CHECK(text.out.find("grid 4 x 4 (t = 1)") != std::string::npos);
}

TEST_CASE("the straggler table compares only the schemes that fit its nodes") {
  // 6 nodes: GPD (K 5 and 6) and the uncoded 2 x 2 grid (t = 0); no MDS k = 8, no copies.
  const auto j = theory_json({"--table", "stragglers", "--nodes", "6"});
  std::vector<std::string> names;
  for (const auto& s : j["laws"][0]["schemes"]) names.push_back(s["scheme"].get<std::string>());
  CHECK(names == std::vector<std::string>{"gpd", "codenet_grid"});
  CHECK(j["laws"][0]["schemes"][1]["nodes"] == 4);
}

TEST_CASE("the sweep tables refuse options they do not take") {
  for (const auto& args :
       std::vector<std::vector<std::string>>{{"--table", "tradeoff", "--m", "2"},
                                             {"--table", "conditioning", "--nodes", "4"},
                                             {"--table", "stragglers", "--nodes", "0"},
                                             {"--table", "stragglers", "--m", "2"},
                                             {"--table", "tolerance_grid", "--eps", "0.1"}}) {
    const CliResult o = theory(args);
    CHECK(o.code == 2);
    CHECK(o.err.rfind("error: codesim theory: ", 0) == 0);
    CHECK(o.err.find("(expected") != std::string::npos);
  }
}
