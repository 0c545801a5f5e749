// The typed theory reports: the text printers read the fields of a hand-built report (no JSON in
// between), and to_json writes null where the checkpoint model is infinite or NaN.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <sstream>
#include <string>

#include "app/cli/theory_report.hpp"
#include "app/cli/theory_tables.hpp"

namespace {

using codesim::app::TheoryReport;

constexpr double kInf = std::numeric_limits<double>::infinity();

// A small report whose every printed field is set by hand.
TheoryReport hand_built_report() {
  TheoryReport r;
  r.scheme = "gpd";
  r.parameters = {{"m", 2}, {"n", 3}, {"nodes", 11}, {"orientation", std::string("mirrored")}};
  r.nodes = 11;
  r.layers = {12, 18, 6};
  r.eps = 0.25;
  r.error_model = codesim::models::ErrorModel::random;
  r.first_layer_backward = true;
  r.opportunities_per_iteration = 77;
  r.opportunities = {{.forward = 9, .backward = 10, .update = 11}, {9, 8, 30}};
  r.latent_blocks = 3;
  codesim::app::TheoryDecode backward;
  backward.layer = 1;
  backward.direction = codesim::models::Direction::backward;
  backward.symbols = 11;
  backward.codewords = 1;
  backward.correctable = 2;
  backward.strikes_per_symbol = {1};
  backward.failure = 0.125;
  backward.corrected = 0.5;
  codesim::app::TheoryDecode uncoded;  // detects nothing
  uncoded.symbols = 6;
  uncoded.detects = false;
  uncoded.silent = 0.75;
  r.decodes = {backward, uncoded};
  r.rollback_per_iteration = 0.125;
  r.rollback_first_iteration = 0.0625;
  r.expected_strikes_per_iteration = 19.25;
  r.expected_corrected_decodes_per_iteration = 1.5;
  r.silent_probability_per_iteration = 0.375;
  r.silent_expected_per_iteration = 2.5;
  r.costs = {.iteration_s = 1.5, .checkpoint_s = 0.0, .rollback_s = 4.0};
  r.intervals = {{.tau = 3,
                  .executions_per_iteration = 1.25,
                  .time_per_iteration_s = kInf,
                  .verification_failure = 0.5,
                  .protocol_executions_per_iteration = std::nan(""),
                  .protocol_time_per_iteration_s = 2.0,
                  .protocol_energy_per_iteration_J = std::nullopt}};
  r.requested_tau = 3;
  r.optimal = {.tau = 7, .time_per_iteration_s = 3.5, .at_bound = false};
  r.optimal_stationary = {.tau = 1000000, .time_per_iteration_s = kInf, .at_bound = true};
  r.classic = {.mtbf_s = 12.0,
               .young_iterations = kInf,
               .daly_iterations = 0.0,
               .daly_time_per_iteration_s = std::nan("")};
  return r;
}

std::string text_of(const auto& report) {
  std::ostringstream out;
  codesim::app::print_text(report, out);
  return out.str();
}

}  // namespace

TEST_CASE("theory report text is printed from the typed fields") {
  const std::string text = text_of(hand_built_report());
  const std::string expected =
      "scheme: gpd (m 2, n 3, nodes 11, orientation mirrored)\n"
      "nodes: 11\n"
      "layers: 12,18,6 (2 weight layers; every layer has backward round)\n"
      "eps: 0.25 per opportunity (weights, before each forward and backward product and after "
      "each update)\n"
      "error model: random\n"
      "opportunities per iteration: 77\n"
      "  layer 0: forward 9, backward 10, update 11\n"
      "  layer 1: forward 9, backward 8, update 30\n"
      "latent blocks (read only by the verification pass): 3\n"
      "decodes of a steady iteration (failure = detected, rollback):\n"
      "  layer  direction  symbols  correctable  failure     corrected   silent\n"
      "  1      backward   11       2            0.125       0.5         0\n"
      "  0      forward    6        none         0           0           0.75\n"
      "rollback probability per iteration: p = 0.125 (first iteration after a checkpoint or "
      "rollback: 0.0625)\n"
      "expected strikes per iteration: 19.25\n"
      "expected corrected decodes per iteration: 1.5\n"
      "silent corruptions per iteration: 2.5 expected (probability 0.375)\n"
      "checkpoint model: T_it 1.5 s, T_ck 0 s, T_rb 4 s\n"
      "  stationary p (docs/reproduction.md, checkpoint model): E_exec/tau and E[T]; protocol: "
      "first iteration and the verification pass included\n"
      "      tau   E_exec/tau       E[T]_s     p_verify protocol_E_exec/tau   protocol_E[T]_s\n"
      "        3         1.25          inf          0.5                 inf                 2\n"
      "optimal tau (protocol): 7, E[T] 3.5 s per useful iteration\n"
      "optimal tau (stationary p): 1000000 (search bound), E[T] inf s per useful iteration\n"
      "young: inf iterations, daly: 0 iterations (MTBF T_it / p = 12 s); daly E[T] inf s per "
      "useful iteration\n";
  CHECK(text == expected);
}

TEST_CASE("theory report JSON keeps the fields in order and writes null for inf and NaN") {
  const auto json = codesim::app::to_json(hand_built_report());
  CHECK(json["parameters"].dump() == R"({"m":2,"n":3,"nodes":11,"orientation":"mirrored"})");
  CHECK(json["error_model"] == "random");
  CHECK(json["opportunities"]["per_layer"][1]["total"] == 47);
  CHECK(json["decodes"][1]["direction"] == "forward");
  CHECK(json["decodes"][1]["detects"] == false);
  CHECK(json["intervals"][0]["time_per_iteration_s"].is_null());
  CHECK(json["intervals"][0]["protocol_executions_per_iteration"].is_null());
  CHECK(json["intervals"][0]["protocol_time_per_iteration_s"] == 2.0);
  CHECK(json["requested_tau"] == 3);
  CHECK(json["optimal_stationary"]["time_per_iteration_s"].is_null());
  CHECK(json["classic"]["young_iterations"].is_null());
  CHECK(json["classic"]["daly_time_per_iteration_s"].is_null());
  CHECK(json["classic"]["mtbf_s"] == 12.0);
  std::string keys;
  for (const auto& [key, value] : json.items()) keys += key + " ";
  CHECK(keys ==
        "scheme parameters nodes layers eps error_model first_layer_backward opportunities "
        "latent_blocks decodes rollback_probability expected_strikes_per_iteration "
        "expected_corrected_decodes_per_iteration silent_corruption costs intervals "
        "requested_tau optimal optimal_stationary classic ");
}

TEST_CASE("step energies add the expected energy per useful iteration, E[T]'s form in joules") {
  codesim::app::TheoryInputs in;
  in.spec = codesim::models::codenet_grid_spec(2, 2, 4, 4);
  in.layers = {40, 40, 40, 10};
  in.eps = 1e-3;
  in.costs = {.iteration_s = 1.0, .checkpoint_s = 2.0, .rollback_s = 0.5};
  in.tau = 12;
  // Joules equal to the seconds: every energy equals the protocol's expected time.
  in.energy = codesim::analysis::EnergyCosts{1.0, 2.0, 0.5};
  const TheoryReport r = codesim::app::theory_report(in);
  REQUIRE(r.energy_at_optimal_J.has_value());
  CHECK(*r.energy_at_optimal_J == doctest::Approx(r.optimal.time_per_iteration_s));
  for (const codesim::app::TheoryInterval& i : r.intervals) {
    CAPTURE(i.tau);
    CHECK(*i.protocol_energy_per_iteration_J == doctest::Approx(i.protocol_time_per_iteration_s));
  }
  const std::string text = text_of(r);
  CHECK(text.find("expected energy per useful iteration (protocol) at tau ") != std::string::npos);
  CHECK(text.find(", at tau 12: ") != std::string::npos);
  CHECK(codesim::app::to_json(r)["energy"]["iteration_J"] == 1.0);
  // Without step energies the report has none.
  in.energy.reset();
  CHECK_FALSE(codesim::app::theory_report(in).energy_at_optimal_J.has_value());
}

TEST_CASE("theory tables print from the typed rows") {
  codesim::app::ThresholdsTable thresholds;
  thresholds.rows = {{{.m = 3, .n = 2, .forward = 7, .backward = 10}, ""},
                     {{.m = 1, .n = 1, .forward = 1, .backward = 1}, "a note"}};
  CHECK(text_of(thresholds) ==
        "GPD recovery thresholds: any K of the P nodes decode (T1)\n"
        "   m   n   K_ff   K_bp   K_ff_mirrored   K_bp_mirrored\n"
        "   3   2      7     10               0               0\n"
        "   1   1      1      1               0               0   a note\n");

  codesim::app::ToleranceReport tolerance;
  tolerance.m = 2;
  tolerance.n = 3;
  tolerance.mirrored = true;
  codesim::models::ToleranceRow codenet_row;
  codenet_row.nodes = 9;
  codenet_row.gpd_forward = 1;
  codenet_row.codenet = 1;
  codenet_row.codenet_nodes = 8;
  codesim::models::ToleranceRow replication_row;
  replication_row.nodes = 12;
  replication_row.replication_copies = 2;
  replication_row.replication_correctable = 0;
  replication_row.replication_detectable = 1;
  tolerance.rows = {codenet_row, replication_row};
  codesim::models::RatioRow ratio;
  ratio.m = 2;
  ratio.n = 2;
  ratio.gpd_at_2mn = 1;
  ratio.detection_ratio_at_2mn = 2.5;
  tolerance.ratio = {ratio};
  const std::string text = text_of(tolerance);
  CHECK(text.find("(T3): m 2, n 3, orientation mirrored;") != std::string::npos);
  CHECK(text.find("\n     9       1       -              -              -           1 (8)    "
                  "-  -\n") != std::string::npos);
  CHECK(text.find("\n    12       -       -              -              -               -    "
                  "-  2: 0/1\n") != std::string::npos);
  CHECK(text.find("\n   2   2    4        1               0               2.5        0        0"
                  "          0           0                   0\n") != std::string::npos);
  const auto json = codesim::app::to_json(tolerance);
  CHECK(json["orientation"] == "mirrored");
  CHECK(json["rows"][0]["gpd_backward"].is_null());
  CHECK(json["rows"][1]["replication_detectable"] == 1);
  CHECK(json["ratio"][0]["blocks"] == 4);
}
