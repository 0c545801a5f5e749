// Fault log JSON: the round trip is bit-exact (NaN payloads, signalling NaNs, -0.0, infinities,
// subnormals, float32), a recorded run replays identically from its file, and malformed logs are
// rejected at their JSON pointer.
#include "app/config/fault_log_json.hpp"

#include <doctest/doctest.h>

#include <unistd.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>

#include "models/faults/fault_injector.hpp"
#include "support/temp_directory.hpp"

using codesim::app::fault_log_from_json;
using codesim::app::fault_log_to_json;
using codesim::app::Json;
using codesim::app::read_fault_log_file;
using codesim::app::ScenarioError;
using codesim::app::write_fault_log_file;
using namespace codesim::models;

namespace {

/// A log full of awkward values.
FaultLog awkward_log() {
  FaultLog log;
  log.seed = 0xFFFFFFFFFFFFFFFFULL;  // above 2^63: must survive as an unsigned integer
  log.replica = 4;
  log.opportunities = 1000;
  log.sequence_digest = 0x0123456789ABCDEFULL;
  FaultRecord a;
  a.opportunity = 7;
  a.time_s = 0.1 + 0.2;
  a.node = 3;
  a.operation = "forward";
  a.layer = 1;
  a.target = FaultTarget::weights;
  a.model = ValueModelKind::sparse_additive;
  a.rows = 4;
  a.cols = 5;
  a.sequence_digest = 0xFFFFFFFFFFFFFFFFULL;
  a.entries = {
      {0, -1, bits_of(0.1), 0x7FF0000000000001ULL},                       // signalling NaN
      {1, -1, 0xFFF8000000000123ULL, bits_of(-0.0)},                      // -NaN with payload
      {2, -1, bits_of(std::numeric_limits<double>::infinity()), 0x1ULL},  // smallest subnormal
      {3, -1, bits_of(-std::numeric_limits<double>::infinity()),
       bits_of(std::numeric_limits<double>::max())},
      {19, -1, bits_of(-1e-310), bits_of(123456789.123456789)},
  };
  log.records.push_back(a);
  FaultRecord b;
  b.opportunity = 8;
  b.time_s = std::numeric_limits<double>::denorm_min();
  b.node = 0;
  b.operation = "activation";
  b.layer = -1;
  b.target = FaultTarget::activation;
  b.model = ValueModelKind::bitflip;
  b.scalar = ScalarType::float32;
  b.rows = 3;
  b.cols = 1;
  b.entries = {
      {0, 0, 0x7F800000ULL, 0x7F800001ULL},  // +inf -> signalling NaN
      {0, 22, 0x7F800001ULL, 0x7FC00001ULL},
      {2, 31, bits_of(0.1f), bits_of(-0.1f)},
  };
  log.records.push_back(b);
  FaultRecord c;
  c.opportunity = 999;
  c.time_s = 1e300;
  c.node = 37;
  c.operation = "update";
  c.layer = 2;
  c.target = FaultTarget::update;
  c.model = ValueModelKind::stuck_at_zero;
  c.rows = 0;
  c.cols = 0;
  log.records.push_back(c);
  return log;
}

/// A valid one-record document the malformed cases below break one field at a time.
Json base_document() {
  return Json::parse(R"({
    "format": "codesim fault log",
    "version": 1,
    "opportunities": 10,
    "records": [
      {"opportunity": 2, "time_s": 0.5, "node": 1, "operation": "forward", "layer": 0,
       "target": "weights", "model": "bitflip", "scalar": "float64", "rows": 2, "cols": 2,
       "entries": [{"index": 3, "bit": 62, "old": 1.0, "old_bits": "0x3ff0000000000000",
                    "new": "inf", "new_bits": "0x7ff0000000000000"}]},
      {"opportunity": 5, "time_s": 1.5, "node": 0, "operation": "update", "target": "weights",
       "model": "sparse_additive", "rows": 1, "cols": 1,
       "entries": [{"index": 0, "old": 0.25, "new_bits": "0x3ff0000000000000"}]}
    ]
  })");
}

/// The pointer of the error reading `document` gives, or "(accepted)".
std::string pointer_of_error(const Json& document) {
  try {
    fault_log_from_json(document, "log.json");
  } catch (const ScenarioError& e) {
    CHECK(e.file() == "log.json");
    return e.pointer();
  }
  return "(accepted)";
}

std::string message_of_error(const Json& document) {
  try {
    fault_log_from_json(document, "log.json");
  } catch (const ScenarioError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("a fault log round-trips through JSON text bit for bit") {
  const FaultLog log = awkward_log();
  const std::string text = fault_log_to_json(log).dump(2);
  const FaultLog back = fault_log_from_json(Json::parse(text), "log.json");
  CHECK(back == log);
  for (std::size_t i = 0; i < log.records.size(); ++i) {
    CHECK(std::bit_cast<std::uint64_t>(back.records[i].time_s) ==
          std::bit_cast<std::uint64_t>(log.records[i].time_s));
  }
  // The decimal forms are there for readers.
  const Json document = Json::parse(text);
  const Json& entries = document["records"][0]["entries"];
  CHECK(entries[0]["new"] == "nan");
  CHECK(entries[0]["new_bits"] == "0x7ff0000000000001");
  CHECK(entries[1]["old"] == "-nan");
  CHECK(entries[1]["new"].dump() == "-0.0");
  CHECK(entries[2]["old"] == "inf");
  CHECK(entries[3]["old"] == "-inf");
  CHECK(document["records"][1]["entries"][0]["old_bits"] == "0x7f800000");
  CHECK(document["records"][1]["scalar"] == "float32");
  CHECK(document["summary"]["nan_values"] == 2);  // record 0 entry 0 and record 1 entry 0
  CHECK(document["summary"]["inf_values"] == 0);
  CHECK(document["sequence_digest"] == "0x0123456789abcdef");
}

TEST_CASE("a recorded run replays identically from its log file") {
  FaultConfig config = default_fault_config();
  config[FaultTarget::weights].rate.probability_per_operation = 0.1;
  config[FaultTarget::product].rate.probability_per_operation = 0.1;
  config[FaultTarget::product].model = value_model_defaults(ValueModelKind::bitflip);
  config[FaultTarget::product].model.field = BitField::exponent;
  auto run = [](FaultInjector& injector) {
    Eigen::MatrixXd w = Eigen::MatrixXd::Constant(5, 4, 0.5);
    std::vector<double> outputs;
    for (int i = 0; i < 300; ++i) {
      const Eigen::VectorXd x = Eigen::VectorXd::Constant(4, 0.01 * i);
      const int node = i % 3;
      injector.inject({0.25 * i, node, "forward", 0, FaultTarget::weights, 40.0}, w);
      Eigen::MatrixXd y = w * x;
      injector.inject({0.25 * i, node, "forward", 0, FaultTarget::product, 40.0}, y);
      w -= 1e-3 * y * x.transpose();
      outputs.insert(outputs.end(), y.data(), y.data() + y.size());
    }
    outputs.insert(outputs.end(), w.data(), w.data() + w.size());
    return outputs;
  };
  FaultInjector recorder(config, 3, 21, 0);
  const std::vector<double> recorded = run(recorder);
  REQUIRE(recorder.summary().records > 20);
  const codesim::test::TempDirectory dir("fault-log");
  const std::string path = (dir / "run.faults.json").string();
  write_fault_log_file(recorder.log(), path);
  const FaultLog loaded = read_fault_log_file(path);
  CHECK(loaded == recorder.log());
  FaultInjector replayer(loaded);
  const std::vector<double> replayed = run(replayer);
  CHECK_NOTHROW(replayer.finish());
  REQUIRE(replayed.size() == recorded.size());
  CHECK(std::memcmp(replayed.data(), recorded.data(), recorded.size() * sizeof(double)) == 0);
}

TEST_CASE("a log written by hand with decimal values only is read") {
  const FaultLog log = fault_log_from_json(base_document(), "log.json");
  REQUIRE(log.records.size() == 2);
  CHECK(log.opportunities == 10);
  CHECK(!log.sequence_digest.has_value());
  CHECK(!log.seed.has_value());
  CHECK(!log.replica.has_value());
  CHECK(log.records[0].entries[0].new_bits == 0x7FF0000000000000ULL);
  CHECK(log.records[1].layer == -1);
  CHECK(log.records[1].scalar == ScalarType::float64);
  CHECK(log.records[1].entries[0].bit == -1);
  CHECK(log.records[1].entries[0].old_bits == bits_of(0.25));
  Json nan_only = base_document();
  nan_only["records"][1]["entries"][0]["new"] = "nan";
  nan_only["records"][1]["entries"][0].erase("new_bits");
  CHECK(fault_log_from_json(nan_only, "log.json").records[1].entries[0].new_bits ==
        0x7FF8000000000000ULL);
}

TEST_CASE("a malformed fault log is rejected at its JSON pointer") {
  auto broken = [](auto change) {
    Json document = base_document();
    change(document);
    return pointer_of_error(document);
  };
  CHECK(broken([](Json&) {}) == "(accepted)");
  CHECK(pointer_of_error(Json::array()) == "");
  CHECK(broken([](Json& d) { d["format"] = "something else"; }) == "/format");
  CHECK(broken([](Json& d) { d["version"] = 2; }) == "/version");
  CHECK(broken([](Json& d) { d.erase("records"); }) == "/records");
  CHECK(broken([](Json& d) { d["records"] = Json::object(); }) == "/records");
  CHECK(broken([](Json& d) { d["opportunities"] = -3; }) == "/opportunities");
  CHECK(broken([](Json& d) { d["records"][0].erase("entries"); }) == "/records/0/entries");
  CHECK(broken([](Json& d) { d["records"][0]["time_s"] = "soon"; }) == "/records/0/time_s");
  CHECK(broken([](Json& d) { d["records"][0]["node"] = -1; }) == "/records/0/node");
  CHECK(broken([](Json& d) { d["records"][0]["node"] = 1.5; }) == "/records/0/node");
  CHECK(broken([](Json& d) { d["records"][0]["target"] = "weight"; }) == "/records/0/target");
  CHECK(broken([](Json& d) { d["records"][0]["scalar"] = "float16"; }) == "/records/0/scalar");
  CHECK(broken([](Json& d) { d["records"][0]["nodee"] = 1; }) == "/records/0/nodee");
  CHECK(broken([](Json& d) { d["records"][1]["opportunity"] = 2; }) == "/records/1/opportunity");
  CHECK(broken([](Json& d) { d["records"][0]["entries"][0]["index"] = 4; }) ==
        "/records/0/entries/0/index");
  CHECK(broken([](Json& d) { d["records"][0]["entries"][0]["bit"] = 64; }) ==
        "/records/0/entries/0/bit");
  CHECK(broken([](Json& d) { d["records"][0]["entries"][0]["old_bits"] = "0xZZ"; }) ==
        "/records/0/entries/0/old_bits");
  CHECK(broken([](Json& d) { d["records"][0]["entries"][0]["old_bits"] = "3ff0"; }) ==
        "/records/0/entries/0/old_bits");
  CHECK(broken([](Json& d) {
          d["records"][0]["entries"][0]["old_bits"] = "0x13ff0000000000000";
        }) == "/records/0/entries/0/old_bits");
  // The decimal disagrees with the bits.
  CHECK(broken([](Json& d) { d["records"][0]["entries"][0]["old"] = 2.0; }) ==
        "/records/0/entries/0/old");
  CHECK(broken([](Json& d) { d["records"][0]["entries"][0]["new"] = "-inf"; }) ==
        "/records/0/entries/0/new");
  CHECK(broken([](Json& d) { d["records"][0]["entries"][0]["new"] = "infinity"; }) ==
        "/records/0/entries/0/new");
  // A bitflip whose new pattern is not the old one with the bit flipped.
  CHECK(broken([](Json& d) {
          d["records"][0]["entries"][0].erase("new");
          d["records"][0]["entries"][0]["new_bits"] = "0x7ff0000000000001";
        }) == "/records/0/entries/0/new_bits");
  CHECK(broken([](Json& d) {
          d["records"][1]["entries"][0].erase("old");
          d["records"][1]["entries"][0].erase("old_bits");
        }) == "/records/1/entries/0/old_bits");
  CHECK(broken([](Json& d) { d["records"][1]["entries"][0]["bit"] = 3; }) ==
        "/records/1/entries/0/bit");
  // float32 patterns and values must fit float32.
  CHECK(broken([](Json& d) {
          d["records"][1]["scalar"] = "float32";
          d["records"][1]["entries"][0]["new_bits"] = "0x3ff0000000000000";
        }) == "/records/1/entries/0/new_bits");
  CHECK(broken([](Json& d) {
          d["records"][1]["scalar"] = "float32";
          d["records"][1]["entries"][0]["old"] = 0.1;
          d["records"][1]["entries"][0]["new_bits"] = "0x3f800000";
        }) == "/records/1/entries/0/old");
}

TEST_CASE("fault log errors explain what was expected") {
  Json document = base_document();
  document["records"][0]["nodee"] = 1;
  CHECK(message_of_error(document).find("did you mean \"node\"?") != std::string::npos);
  document = base_document();
  document["records"][0]["target"] = "weight";
  CHECK(message_of_error(document) ==
        "log.json: /records/0/target: unknown value \"weight\", did you mean \"weights\"? "
        "(expected one of: product, weights, activation, decode, update)");
  document = base_document();
  document["records"][1]["opportunity"] = 2;
  CHECK(message_of_error(document).find("strictly ascending") != std::string::npos);
}

TEST_CASE("fault log files that are missing or not JSON are rejected") {
  const codesim::test::TempDirectory dir("fault-log");
  CHECK_THROWS_AS(read_fault_log_file((dir / "absent.json").string()), ScenarioError);
  const std::string bad = (dir / "bad.json").string();
  std::ofstream(bad) << "{\"format\": \n";
  try {
    read_fault_log_file(bad);
    FAIL("accepted invalid JSON");
  } catch (const ScenarioError& e) {
    CHECK(e.file() == bad);
    CHECK(std::string(e.what()).find("line") != std::string::npos);
  }
}

TEST_CASE("a replay mismatch becomes a scenario error in the log file") {
  const FaultLogError error("/records/4/node", "node 2 does not match");
  const ScenarioError e = codesim::app::to_scenario_error(error, "faults.json");
  CHECK(e.file() == "faults.json");
  CHECK(e.pointer() == "/records/4/node");
  CHECK(std::string(e.what()) == "faults.json: /records/4/node: node 2 does not match");
}
