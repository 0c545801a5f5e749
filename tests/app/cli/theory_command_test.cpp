// `codesim theory`: the training-model report in text and JSON, the T1 / T3 tables, and exit
// code 2 with one "error: ... (expected ...)" line for bad options.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
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

const std::vector<std::string> kCodenet = {"--scheme", "codenet_grid", "--m", "5",           "--n",
                                           "4",        "--grid-rows",  "7",   "--grid-cols", "6"};
const std::vector<std::string> kReplication = {"--scheme", "replication", "--m",      "5",
                                               "--n",      "4",           "--copies", "2"};

const std::vector<std::string> kAbft = {"--scheme", "abft", "--m", "5", "--n", "4"};

std::vector<std::string> with(std::vector<std::string> args, const std::vector<std::string>& more) {
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

}  // namespace

TEST_CASE("theory reports the CodeNet configuration in text") {
  const CliResult o = theory(kCodenet);
  CHECK(o.code == 0);
  CHECK(o.err.empty());
  CHECK(o.out.find("scheme: codenet_grid (m 5, n 4, grid-rows 7, grid-cols 6)\n") == 0);
  CHECK(o.out.find("nodes: 38\n") != std::string::npos);
  CHECK(o.out.find("layers: 784,10000,10000,10 (3 weight layers; layer 0 has no backward "
                   "round)\n") != std::string::npos);
  CHECK(o.out.find("opportunities per iteration: 258\n") != std::string::npos);
  CHECK(o.out.find("  layer 0: forward 28, backward 0, update 38\n") != std::string::npos);
  CHECK(o.out.find("latent blocks (read only by the verification pass): 10\n") !=
        std::string::npos);
  CHECK(o.out.find("rollback probability per iteration: p = 0.0004753 (first iteration") !=
        std::string::npos);
  CHECK(o.out.find("expected corrected decodes per iteration: ") != std::string::npos);
  CHECK(o.out.find("optimal tau (protocol): ") != std::string::npos);
  CHECK(o.out.find("optimal tau (stationary p): ") != std::string::npos);
  CHECK(o.out.find("young: ") != std::string::npos);
}

TEST_CASE("theory --json carries every field for CodeNet") {
  const auto j = theory_json(with(kCodenet, {"--tau", "37", "--checkpoint-s", "5"}));
  CHECK(j["scheme"] == "codenet_grid");
  CHECK(j["nodes"] == 38);
  CHECK(j["eps"].get<double>() == doctest::Approx(3e-4));
  CHECK(j["opportunities"]["per_iteration"] == 258);
  CHECK(j["opportunities"]["per_layer"].size() == 3);
  CHECK(j["opportunities"]["per_layer"][1]["backward"] == 30);
  CHECK(j["latent_blocks"] == 10);
  REQUIRE(j["decodes"].size() == 5);
  CHECK(j["decodes"][0]["direction"] == "forward");
  CHECK(j["decodes"][0]["symbols"] == 7);
  CHECK(j["decodes"][0]["strikes_per_symbol"][0] == 8);
  CHECK(j["decodes"][0]["failure"].get<double>() == doctest::Approx(1.20e-4).epsilon(0.01));
  CHECK(j["decodes"][4]["layer"] == 1);
  CHECK(j["decodes"][4]["failure"].get<double>() == doctest::Approx(5.8e-5).epsilon(0.01));
  const double p = j["rollback_probability"]["per_iteration"].get<double>();
  CHECK(p == doctest::Approx(4.753e-4).epsilon(0.001));
  CHECK(j["rollback_probability"]["first_iteration"].get<double>() < p);
  CHECK(j["expected_strikes_per_iteration"].get<double>() == doctest::Approx(0.0774));
  CHECK(j["silent_corruption"]["expected_per_iteration"].get<double>() == 0.0);
  CHECK(j["costs"]["checkpoint_s"].get<double>() == 5.0);
  // The default tau list (the columns of the overhead table in docs/reproduction.md) plus the
  // requested one, ascending.
  std::vector<int> taus;
  for (const auto& row : j["intervals"]) taus.push_back(row["tau"].get<int>());
  CHECK(taus == std::vector<int>{1, 2, 5, 10, 20, 37, 50, 100, 200, 500, 1000});
  CHECK(j["requested_tau"] == 37);
  CHECK(j["intervals"][0]["executions_per_iteration"].get<double>() ==
        doctest::Approx(1.0 / (1.0 - p)));
  CHECK(j["intervals"][10]["verification_failure"].get<double>() >
        j["intervals"][0]["verification_failure"].get<double>());
  const int best = j["optimal"]["tau"].get<int>();
  CHECK(best >= 1);
  CHECK_FALSE(j["optimal"]["at_bound"].get<bool>());
  // The latent blocks make CodeNet checkpoint more often than its steady p alone would.
  CHECK(best < j["optimal_stationary"]["tau"].get<int>());
  CHECK(j["classic"]["mtbf_s"].get<double>() == doctest::Approx(1.0 / p));
  CHECK(j["classic"]["young_iterations"].get<double>() ==
        doctest::Approx(std::sqrt(2.0 * 5.0 / p)));
}

TEST_CASE("theory models the every-layer-backward protocol and other schemes") {
  const auto every_layer = theory_json(with(kReplication, {"--first-layer-backward"}));
  CHECK(every_layer["opportunities"]["per_iteration"] == 360);
  CHECK(every_layer["rollback_probability"]["per_iteration"].get<double>() ==
        doctest::Approx(0.102).epsilon(0.005));
  const auto uncoded = theory_json({"--scheme", "uncoded", "--m", "5", "--n", "8"});
  CHECK(uncoded["rollback_probability"]["per_iteration"].get<double>() == 0.0);
  CHECK(uncoded["silent_corruption"]["expected_per_iteration"].get<double>() ==
        doctest::Approx(0.096));
  CHECK(uncoded["optimal"]["at_bound"].get<bool>());
  CHECK(uncoded["classic"]["mtbf_s"].is_null());  // infinite
  const auto gpd =
      theory_json({"--scheme", "gpd", "--m", "2", "--n", "2", "--nodes", "10", "--layers",
                   "16,16,16", "--eps", "0.01", "--error-model", "random"});
  CHECK(gpd["error_model"] == "random");
  CHECK(gpd["decodes"][0]["correctable"] == 4);
  const auto mds =
      theory_json({"--scheme", "mds", "--k", "4", "--nodes", "8", "--layers", "16,16,16"});
  CHECK(mds["opportunities"]["per_iteration"] == 56);
  CHECK(mds["latent_blocks"] == 8);
}

TEST_CASE("theory reports abft's corrections at the nodes and no silent corruption") {
  const CliResult o = theory(kAbft);
  CHECK(o.code == 0);
  CHECK(o.err.empty());
  CHECK(o.out.find("scheme: abft (m 5, n 4)\n") == 0);
  CHECK(o.out.find("corrected at the node per strike (sparse_additive): layer 0 q = ") !=
        std::string::npos);
  CHECK(o.out.find(", 1993 entries per strike;") != std::string::npos);
  CHECK(o.out.find("expected blocks corrected at their nodes per iteration: ") !=
        std::string::npos);
  CHECK(o.out.find("silent corruptions per iteration: 0 expected (probability 0)") !=
        std::string::npos);

  const nlohmann::json dense = theory_json(kAbft);
  CHECK(dense["silent_corruption"]["expected_per_iteration"] == 0.0);
  CHECK(dense["local_correction"]["value_model"] == "sparse_additive");
  CHECK(dense["local_correction"]["entries_per_strike"] == nlohmann::json({1993, 25068, 63}));
  CHECK(dense["local_correction"]["per_strike"][1] == 0.0);
  // One bit flip per strike: corrected unless an exponent flip overflows an entry of W or of a
  // checksum row.
  const nlohmann::json flips = theory_json(with(kAbft, {"--weight-fault", "bitflip"}));
  CHECK(flips["local_correction"]["entries_per_strike"] == nlohmann::json({1, 1, 1}));
  for (const auto& q : flips["local_correction"]["per_strike"]) {
    CHECK(q.get<double>() > 0.9);
    CHECK(q.get<double>() < 1.0);
  }
  CHECK(flips["rollback_probability"]["per_iteration"].get<double>() <
        dense["rollback_probability"]["per_iteration"].get<double>() / 10.0);
  const nlohmann::json two = theory_json(with(kAbft, {"--fault-entries", "2"}));
  CHECK(two["local_correction"]["entries_per_strike"] == nlohmann::json({2, 2, 2}));
  // The other schemes' reports carry no local correction.
  CHECK(!theory_json(kCodenet).contains("local_correction"));
}

TEST_CASE("theory counts every target's strikes when their probabilities are given") {
  // Two copies roll back at each strike's first read: 1040 per steady iteration of the paper's
  // 3-layer MLP (320 weights, and per node 5 products, 5 activations, 5 decodes, 3 updates).
  const nlohmann::json every =
      theory_json(with(kReplication, {"--eps", "1e-4", "--product-eps", "1e-4", "--activation-eps",
                                      "1e-4", "--decode-eps", "1e-4", "--update-eps", "1e-4"}));
  CHECK(every["rollback_probability"]["per_iteration"].get<double>() ==
        doctest::Approx(1.0 - std::pow(1.0 - 1e-4, 1040)).epsilon(1e-12));
  CHECK(every["eps_by_target"]["decode"].get<double>() == 1e-4);
  CHECK(every["opportunities_by_target"]["update"].get<int>() == 120);
  // Without them the report is the weights-only one, with no per-target fields.
  const nlohmann::json weights = theory_json(with(kReplication, {"--eps", "1e-4"}));
  CHECK_FALSE(weights.contains("eps_by_target"));
  CHECK(weights["rollback_probability"]["per_iteration"].get<double>() <
        every["rollback_probability"]["per_iteration"].get<double>());
  const CliResult text = theory(with(kCodenet, {"--product-eps", "1e-4"}));
  CHECK(text.code == 0);
  CHECK(text.out.find("every target (decentralized protocol): product 0.0001 x") !=
        std::string::npos);
}

TEST_CASE(
    "theory counts abft's strikes on copies of vectors as silent, its checksums passing them") {
  // A strike on a node's copy of an activation makes its product and its update wrong in ways
  // the checksums follow; abft's grid has no redundancy, so nothing rolls back: 5 activation
  // copies per node and iteration, 20 nodes, each strike silent.
  const nlohmann::json activation =
      theory_json(with(kAbft, {"--eps", "0", "--activation-eps", "1e-4"}));
  CHECK(activation["rollback_probability"]["per_iteration"].get<double>() == 0.0);
  CHECK(activation["silent_corruption"]["probability_per_iteration"].get<double>() ==
        doctest::Approx(1.0 - std::pow(1.0 - 1e-4, 100)).epsilon(1e-9));
  CHECK(activation["silent_corruption"]["expected_per_iteration"].get<double>() ==
        doctest::Approx(100 * 1e-4));
  // Products and updates are checked at the node: they roll back (or are corrected), never
  // silent.
  const nlohmann::json checked =
      theory_json(with(kAbft, {"--eps", "0", "--product-eps", "1e-4", "--update-eps", "1e-4"}));
  CHECK(checked["silent_corruption"]["probability_per_iteration"].get<double>() == 0.0);
  CHECK(checked["rollback_probability"]["per_iteration"].get<double>() > 0.0);
}

TEST_CASE("theory counts centralized decode strikes as silent, decentralized ones as bad symbols") {
  // Node 0's 5 decodes per iteration reach every node alike: a codeword of the wrong vector.
  const std::vector<std::string> decode = {"--eps", "0", "--decode-eps", "1e-4"};
  const nlohmann::json central = theory_json(with(with(kCodenet, decode), {"--centralized"}));
  CHECK(central["decoding"] == "centralized");
  CHECK(central["opportunities_by_target"]["decode"].get<int>() == 5);
  CHECK(central["rollback_probability"]["per_iteration"].get<double>() == 0.0);
  CHECK(central["silent_corruption"]["probability_per_iteration"].get<double>() ==
        doctest::Approx(1.0 - std::pow(1.0 - 1e-4, 5)).epsilon(1e-9));
  const nlohmann::json spread = theory_json(with(kCodenet, decode));
  CHECK_FALSE(spread.contains("decoding"));
  CHECK(spread["silent_corruption"]["probability_per_iteration"].get<double>() == 0.0);
  CHECK(spread["expected_corrected_decodes_per_iteration"].get<double>() > 0.0);
}

TEST_CASE("theory --table thresholds prints T1 in text and JSON") {
  const CliResult o = theory({"--table", "thresholds"});
  CHECK(o.code == 0);
  CHECK(o.out.find("GPD recovery thresholds") == 0);
  CHECK(o.out.find("   2   2      5      6               6               5") != std::string::npos);
  const auto j = theory_json({"--table", "thresholds"});
  CHECK(j["table"] == "thresholds");
  REQUIRE(j["rows"].size() == 16);
  CHECK(j["rows"][5]["m"] == 2);
  CHECK(j["rows"][5]["forward"] == 5);
  CHECK(j["rows"][5]["backward"] == 6);
  CHECK(j["rows"][5]["mirrored_forward"] == 6);
  CHECK(j["rows"][3]["note"] == "m = 1: MatDot, K_ff = 2n - 1");
}

TEST_CASE("theory --table tolerance prints T3 and the ratio in text and JSON") {
  const CliResult o = theory({"--table", "tolerance", "--m", "5", "--n", "4"});
  CHECK(o.code == 0);
  CHECK(o.out.find("errors tolerated per decode vs nodes P (T3): m 5, n 4") == 0);
  CHECK(o.out.find("GPD (adversarial) versus replication") != std::string::npos);
  CHECK(o.out.find("training_ratio@3mn") != std::string::npos);
  const auto j =
      theory_json({"--table", "tolerance", "--m", "5", "--n", "4", "--orientation", "mirrored"});
  CHECK(j["orientation"] == "mirrored");
  CHECK(j["rows"][0]["nodes"] == 24);  // mirrored: K_bp = mn + m - 1 = 24 < K_ff = 2mn - m = 35
  const auto& rows = j["rows"];
  const auto row38 = std::find_if(rows.begin(), rows.end(),
                                  [](const nlohmann::json& r) { return r["nodes"] == 38; });
  REQUIRE(row38 != rows.end());
  CHECK((*row38)["codenet"] == 1);
  CHECK(rows.back()["nodes"] == 80);
  CHECK(j["ratio"].size() == 8);
  // At 4 x 4 on P = 48, mirrored: the forward product binds (K_ff = 2mn - m = 28 corrects 10,
  // K_bp = mn + m - 1 = 19 corrects 14); training takes the smaller either way.
  CHECK(j["ratio"][3]["gpd_at_3mn"] == 10);
  CHECK(j["ratio"][3]["gpd_backward_at_3mn"] == 14);
  CHECK(j["ratio"][3]["training_ratio_at_3mn"] == 10.0);
}

TEST_CASE("theory --table tolerance at the largest split lists every node count up to 4mn") {
  // 32 x 32 blocks: 3,042 node counts, each validating and summarizing a GPD spec (45 s when
  // every spec derived the split's exponents anew; now they are derived once).
  const auto j = theory_json({"--table", "tolerance", "--m", "32", "--n", "32"});
  const auto& rows = j["rows"];
  REQUIRE(rows.size() == 3042);
  CHECK(rows.front()["nodes"] == 1055);  // K_ff = mn + n - 1
  CHECK(rows.back()["nodes"] == 4096);
  CHECK(rows.back()["gpd_forward"] == (4096 - 1055) / 2);
}

TEST_CASE("theory rejects bad options with exit code 2 and one error line") {
  const std::vector<std::vector<std::string>> bad = {
      {"--frobnicate"},
      {"--scheme", "codenet_grid", "--m", "5"},
      {"--scheme", "magic"},
      {},
      with(kCodenet, {"--eps", "2"}),
      with(kCodenet, {"--eps", "x"}),
      with(kCodenet, {"--layers", "784,,10"}),
      with(kCodenet, {"--layers", "784"}),
      with(kCodenet, {"--tau", "0"}),
      with(kCodenet, {"--iteration-s", "0"}),
      with(kCodenet, {"--rollback-s", "-1"}),
      with(kCodenet, {"--error-model", "optimistic"}),
      with(kCodenet, {"--copies", "2"}),
      {"--scheme", "uncoded", "--m", "5", "--n", "3"},  // 3 does not divide 784
      {"--table", "everything"},
      {"--table", "thresholds", "--m", "2"},
      {"--table", "tolerance", "--m", "2"},
      {"--table", "tolerance", "--m", "2", "--n", "2", "--eps", "0.1"},
      {"--table", "tolerance", "--m", "2", "--n", "2", "--orientation", "sideways"},
      {"--table", "thresholds", "--weight-fault", "bitflip"},
      with(kCodenet, {"--weight-fault", "bitflip"}),
      with(kAbft, {"--weight-fault", "cosmic_ray"}),
      with(kAbft, {"--fault-density", "0"}),
      with(kAbft, {"--fault-density", "1.5"}),
      with(kAbft, {"--fault-entries", "0"}),
      with(kAbft, {"--fault-entries", "2", "--fault-density", "0.1"}),
      with(kCodenet, {"--decode-eps", "1.5"}),
      with(kCodenet, {"--product-eps", "-0.1"}),
      {"--table", "thresholds", "--update-eps", "1e-4"},
      {"--table", "thresholds", "--centralized"},
  };
  for (const auto& args : bad) {
    std::string joined;
    for (const auto& a : args) joined += a + " ";
    CAPTURE(joined);
    const CliResult o = theory(args);
    CHECK(o.code == 2);
    CHECK(o.out.empty());
    CHECK(o.err.rfind("error: codesim theory: ", 0) == 0);
    CHECK(o.err.find("(expected") != std::string::npos);
    CHECK(std::count(o.err.begin(), o.err.end(), '\n') == 1);
    CHECK(o.err.back() == '\n');
  }
}

TEST_CASE("theory --help prints the options") {
  const CliResult o = theory({"--help"});
  CHECK(o.code == 0);
  CHECK(o.out.find("--first-layer-backward") != std::string::npos);
  CHECK(o.out.find("--table") != std::string::npos);
}
