// `codesim codes`: the report per scheme in text and JSON, and exit code 2 for bad combinations.
#include <doctest/doctest.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>

#include "app/cli/codes_command.hpp"
#include "support/cli_runner.hpp"
#include "support/temp_directory.hpp"

namespace {

using codesim::test::CliResult;

CliResult codes(const std::vector<std::string>& args) {
  return codesim::test::run_captured(codesim::app::run_codes_command, args);
}

nlohmann::json codes_json(std::vector<std::string> args) {
  args.push_back("--json");
  const CliResult outcome = codes(args);
  REQUIRE(outcome.code == 0);
  REQUIRE(outcome.err.empty());
  return nlohmann::json::parse(outcome.out);
}

TEST_CASE("codes reports a GPD configuration in text") {
  const CliResult o = codes({"--scheme", "gpd", "--m", "2", "--n", "2", "--nodes", "10"});
  CHECK(o.code == 0);
  CHECK(o.err.empty());
  CHECK(o.out.find("scheme: gpd (m 2, n 2, nodes 10, orientation default)\n") == 0);
  CHECK(o.out.find("nodes: 10\n") != std::string::npos);
  CHECK(o.out.find("redundancy: 2.5\n") != std::string::npos);
  CHECK(o.out.find("recovery_threshold                       5         6\n") != std::string::npos);
  CHECK(o.out.find("errors_correctable.random                4         3\n") != std::string::npos);
}

TEST_CASE("codes reports the CodeNet paper grid in JSON with element counts") {
  const auto j = codes_json({"--scheme", "codenet_grid", "--m", "5", "--n", "4", "--grid-rows", "7",
                             "--grid-cols", "6", "--rows", "1000", "--cols", "800"});
  CHECK(j["scheme"] == "codenet_grid");
  CHECK(j["nodes"] == 38);
  CHECK(j["redundancy"].get<double>() == doctest::Approx(1.9));
  CHECK(j["storage_fraction_per_node"].get<double>() == doctest::Approx(0.05));
  CHECK(j["recovery_threshold"]["forward"] == 5);
  CHECK(j["recovery_threshold"]["backward"] == 4);
  CHECK(j["errors_correctable"]["adversarial"]["forward"] == 1);
  CHECK(j["errors_correctable"]["random"]["backward"] == 1);
  CHECK(j["errors_detectable"]["forward"] == 2);
  CHECK(j["erasures_tolerated"]["backward"] == 2);
  CHECK(j["elements_sent_per_node"]["forward"].get<double>() == doctest::Approx(200));
  CHECK(j["elements_received_per_node"]["backward"].get<double>() == doctest::Approx(1200));
  CHECK(j["elements_unit"] == "elements (batch 1)");
  CHECK(j["parameters"]["grid-rows"] == 7);
}

TEST_CASE("codes reports replication, MDS, uncoded and a mirrored GPD") {
  const auto replication =
      codes_json({"--scheme", "replication", "--m", "5", "--n", "4", "--copies", "2"});
  CHECK(replication["nodes"] == 40);
  CHECK(replication["errors_detectable"]["forward"] == 1);
  CHECK(replication["errors_correctable"]["adversarial"]["forward"] == 0);
  const auto mds = codes_json({"--scheme", "mds", "--k", "4", "--nodes", "8"});
  CHECK(mds["storage_fraction_per_node"].get<double>() == doctest::Approx(0.5));
  CHECK(mds["redundancy"].get<double>() == doctest::Approx(4.0));
  const auto uncoded = codes_json({"--scheme", "uncoded", "--m", "5", "--n", "8"});
  CHECK(uncoded["nodes"] == 40);
  CHECK(uncoded["errors_detectable"]["backward"] == 0);
  const auto mirrored = codes_json(
      {"--scheme", "gpd", "--m", "3", "--n", "2", "--nodes", "12", "--orientation", "mirrored"});
  CHECK(mirrored["recovery_threshold"]["forward"] == 9);
  CHECK(mirrored["recovery_threshold"]["backward"] == 8);
  CHECK(mirrored["parameters"]["orientation"] == "mirrored");
}

TEST_CASE("codes rejects bad combinations with exit code 2 and one error line") {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--scheme", "gpd", "--m", "2", "--n", "2", "--nodes", "5"},
       "error: codesim codes: nodes = 5 is below the recovery threshold 6 (forward 5, backward "
       "6)\n"},
      {{"--scheme", "gpd", "--m", "2", "--n", "2"},
       "error: codesim codes: --scheme gpd needs --nodes (expected --nodes with an integer)\n"},
      {{"--scheme", "gpd", "--m", "2", "--n", "2", "--nodes", "9", "--copies", "2"},
       "error: codesim codes: --copies does not apply to --scheme gpd (expected only --m, --n, "
       "--nodes, --orientation)\n"},
      {{"--scheme", "mds", "--k", "4", "--nodes", "8", "--orientation", "mirrored"},
       "error: codesim codes: --orientation does not apply to --scheme mds (expected only --nodes, "
       "--k)\n"},
      {{"--scheme", "gpd", "--m", "1", "--n", "1", "--nodes", "3", "--orientation", "sideways"},
       "error: codesim codes: unknown orientation 'sideways' (expected default or mirrored)\n"},
      {{"--scheme", "polydot"},
       "error: codesim codes: unknown scheme 'polydot' (expected uncoded, replication, mds, gpd, "
       "codenet_grid, abft or abft_codenet)\n"},
      {{"--scheme", "uncoded", "--m", "3", "--n", "2", "--rows", "10", "--cols", "4"},
       "error: codesim codes: m = 3 does not divide rows = 10\n"},
      {{"--scheme", "uncoded", "--m", "3", "--n", "2", "--rows", "9"},
       "error: codesim codes: --rows and --cols go together\n"},
      // 1e9 rows ran the local checks' closed forms for minutes.
      {{"--scheme", "abft", "--m", "2", "--n", "2", "--rows", "1000000000", "--cols", "1000"},
       "error: codesim codes: --rows and --cols must be at most 1000000 (the largest layer size "
       "a scenario may give)\n"},
      {{"--scheme", "codenet_grid", "--m", "5", "--n", "4", "--grid-rows", "4", "--grid-cols", "6"},
       "error: codesim codes: grid_rows = 4 must be in [5, 4096]\n"},
      {{"--m", "2"},
       "error: codesim codes: --scheme is required (expected uncoded, replication, mds, gpd, "
       "codenet_grid, abft or abft_codenet)\n"},
  };
  for (const auto& [args, message] : cases) {
    const CliResult o = codes(args);
    CAPTURE(message);
    CHECK(o.code == 2);
    CHECK(o.out.empty());
    CHECK(o.err == message);
  }
  const CliResult unknown = codes({"--scheme", "mds", "--k", "2", "--nodes", "4", "--bogus"});
  CHECK(unknown.code == 2);
  CHECK(unknown.err.starts_with("error: codesim codes: unrecognised option '--bogus'"));
  CHECK(std::count(unknown.err.begin(), unknown.err.end(), '\n') == 1);
  const CliResult not_a_number = codes({"--scheme", "mds", "--k", "two", "--nodes", "4"});
  CHECK(not_a_number.code == 2);
}

TEST_CASE("codes --help lists every scheme's options") {
  const CliResult o = codes({"--help"});
  CHECK(o.code == 0);
  for (const char* text : {"--grid-rows", "--copies", "--orientation", "codenet_grid:"}) {
    CHECK(o.out.find(text) != std::string::npos);
  }
}

TEST_CASE("codes --trials adds decode outcomes per number of erroneous symbols") {
  const auto j =
      codes_json({"--scheme", "gpd", "--m", "2", "--n", "1", "--nodes", "6", "--trials", "5"});
  const auto& trials = j["decode_trials"];
  CHECK(trials["trials"] == 5);
  // Forward K = 2 of 6 symbols: rows for e = 0 .. S - K + 1 = 5.
  const auto& adversarial = trials["forward"]["by_model"]["adversarial"];
  REQUIRE(adversarial.size() == 6);
  CHECK(adversarial[2]["exact"] == 5);     // floor((6 - 2) / 2) = 2 corrected
  CHECK(adversarial[3]["detected"] == 5);  // 3 errors: detected
  const auto& random = trials["forward"]["by_model"]["random"];
  CHECK(random[3]["exact"] == 5);  // P - K - 1 = 3 corrected under the random model
  CHECK(random[4]["detected"] == 5);
  const CliResult bad =
      codes({"--scheme", "gpd", "--m", "2", "--n", "1", "--nodes", "6", "--trials", "0"});
  CHECK(bad.code == 2);
  CHECK(bad.err.find("--trials must be in 1..") != std::string::npos);
}

TEST_CASE(
    "codes --trials adds worst-case rows with their bounds, --adversarial-trials sizes them") {
  const auto j = codes_json({"--scheme", "gpd", "--m", "2", "--n", "1", "--nodes", "6", "--trials",
                             "3", "--adversarial-trials", "7"});
  const auto& trials = j["decode_trials"];
  CHECK(trials["adversarial_trials"] == 7);
  // Forward K = 2 of 6 symbols: r = 4 checks, corrects 2, detects 4 - 2 = 2.
  const auto& worst = trials["forward"]["adversarial_values"];
  CHECK(worst["corrects"] == 2);
  CHECK(worst["detects"] == 2);
  REQUIRE(worst["rows"].size() == 6);
  CHECK(worst["rows"][2]["exact"] == 7);
  CHECK(worst["rows"][3]["wrong"] == 7);  // another codeword d - e = 2 away: fooled
  const CliResult alone = codes(
      {"--scheme", "gpd", "--m", "2", "--n", "1", "--nodes", "6", "--adversarial-trials", "7"});
  CHECK(alone.code == 2);
  CHECK(alone.err.find("--adversarial-trials goes with --trials") != std::string::npos);
}

TEST_CASE("codes that runs out of memory says so in one line instead of a bare bad_alloc") {
  // ABFT 1000 x 1000 decode trials need about 1.3 GB; with 600 MB of address space codesim ends
  // at once, exit 1, with what to change.
  const codesim::test::TempDirectory directory("codes-memory");
  const std::string err = (directory / "err.txt").string();
  const std::string command = std::string("ulimit -v 600000; exec ") + CODESIM_BINARY +
                              " codes --scheme abft --m 1000 --n 1000 --trials 1 >/dev/null 2>" +
                              err;
  const int status = std::system(command.c_str());
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 1);
  const std::string message = codesim::test::read_file(err);
  CHECK(message.find("error: out of memory: codesim codes needed more memory") == 0);
  CHECK(std::count(message.begin(), message.end(), '\n') == 1);
}

}  // namespace

TEST_CASE("codes reports what the nodes of the ABFT schemes correct on their own") {
  const auto abft =
      codes_json({"--scheme", "abft", "--m", "5", "--n", "8", "--rows", "280", "--cols", "784"});
  const auto& checks = abft["local_checks"];
  CHECK(checks["checksum_lines"] == 3);
  CHECK(checks["block"]["rows"] == 56);
  CHECK(checks["block"]["cols"] == 98);
  CHECK(checks["stored_entries_per_node"] == 59 * 101);
  // One bit flip is one entry, corrected unless it is far too large to locate; the CodeNet
  // experiment's 0.5% of 5959 entries is 30, corrected only when they spread over the columns.
  const auto& strike = checks["one_weight_strike"];
  CHECK(strike["bitflip"]["entries_per_strike"] == 1);
  CHECK(strike["bitflip"]["corrected_at_node"].get<double>() > 0.95);
  CHECK(strike["sparse_additive"]["entries_per_strike"] == 30);
  CHECK(strike["sparse_additive"]["corrected_at_node"].get<double>() < 0.9);
  const auto hybrid = codes_json(
      {"--scheme", "abft_codenet", "--m", "5", "--n", "4", "--grid-rows", "7", "--grid-cols", "6"});
  CHECK(hybrid["local_checks"]["checksum_lines"] == 3);
  CHECK_FALSE(hybrid["local_checks"].contains("block"));  // no shape given
  CHECK(hybrid["erasures_tolerated"]["forward"] == 2);
  const auto plain = codes_json(
      {"--scheme", "codenet_grid", "--m", "5", "--n", "4", "--grid-rows", "7", "--grid-cols", "6"});
  CHECK_FALSE(plain.contains("local_checks"));
}
