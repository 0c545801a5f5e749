// JSON input limits: regular files of bounded size only, duplicate keys and deep nesting refused at
// their pointer, in scenario files, --set values and fault logs alike.
#include "app/config/json_input.hpp"

#include <doctest/doctest.h>

#include <sys/stat.h>

#include <chrono>
#include <filesystem>
#include <string>

#include "app/config/fault_log_json.hpp"
#include "app/config/scenario_error.hpp"
#include "app/config/scenario_loader.hpp"
#include "app/exec/runner.hpp"
#include "support/experiment_error.hpp"
#include "support/temp_directory.hpp"

using codesim::app::Json;
using codesim::app::kMaxJsonDepth;
using codesim::app::kMaxJsonFileBytes;
using codesim::app::parse_json_text;
using codesim::test::scenario_error_message;
using codesim::test::TempDirectory;
using codesim::test::write_text;
namespace fs = std::filesystem;

namespace {

/// `levels` nested arrays around 1.
std::string nested_arrays(std::size_t levels) {
  return std::string(levels, '[') + "1" + std::string(levels, ']');
}

}  // namespace

TEST_CASE("a key given twice in one object is an error naming the key and its pointer") {
  CHECK(scenario_error_message(
            [] { parse_json_text(R"({"cluster": {"nodes": 3, "nodes": 40}})", "d.json"); }) ==
        "d.json: /cluster/nodes: duplicate key \"nodes\" (expected each key at most once in an "
        "object)");
  CHECK(scenario_error_message([] {
          parse_json_text(R"({"a": [{"x": 1}, {"x": 1, "x": 2}]})", "d.json");
        }) == "d.json: /a/1/x: duplicate key \"x\" (expected each key at most once in an object)");
  CHECK(scenario_error_message([] {
          parse_json_text(R"({"a~/b": {"k": 1, "k": 2}})", "d.json");
        }).starts_with("d.json: /a~0~1b/k: duplicate key"));
  // The same key in different objects is fine.
  CHECK(parse_json_text(R"({"a": {"x": 1}, "b": {"x": 2}, "x": [{"x": 3}, {"x": 4}]})", "d.json")
            .size() == 3);
}

TEST_CASE("a long array of objects parses in linear time") {
  // nlohmann's callback parser rescans the array at the end of each object: minutes for this.
  std::string text = "[";
  for (int i = 0; i < 400000; ++i) text += (i ? ",{\"a\": " : "{\"a\": ") + std::to_string(i) + "}";
  const auto start = std::chrono::steady_clock::now();
  const Json parsed = parse_json_text(text + "]", "d.json");
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(10));
  REQUIRE(parsed.size() == 400000);
  CHECK(parsed[399999]["a"] == 399999);
}

TEST_CASE("a duplicate key in a scenario file or a --set value stops loading it") {
  TempDirectory dir;
  write_text(dir / "s.json", R"({"cluster": {"nodes": 3, "nodes": 40}})");
  const std::string file = (dir / "s.json").string();
  CHECK(scenario_error_message([&] { codesim::app::load_experiment(file); }) ==
        file +
            ": /cluster/nodes: duplicate key \"nodes\" (expected each key at most once in an "
            "object)");
  Json document = Json::object();
  CHECK(scenario_error_message([&] {
          codesim::app::apply_set(document, R"(/cluster={"nodes": 3, "nodes": 4})", "s.json");
        }).starts_with("s.json: /cluster/nodes: duplicate key \"nodes\""));
}

TEST_CASE("nesting deeper than the limit is refused at its pointer, however deep it goes") {
  CHECK(parse_json_text(nested_arrays(kMaxJsonDepth), "d.json").is_array());
  std::string pointer;
  for (int i = 0; i < kMaxJsonDepth; ++i) pointer += "/0";
  CHECK(scenario_error_message([] {
          parse_json_text(nested_arrays(kMaxJsonDepth + 1), "d.json");
        }) == "d.json: " + pointer +
                  ": arrays and objects nested deeper than 64 levels (expected at "
                  "most 64)");
  // Far deeper input (a stack overflow in the sweep expansion once) ends the same way.
  TempDirectory dir;
  write_text(dir / "deep.json",
             R"({"sweep": {"grid": {"/cluster/nodes": )" + nested_arrays(200000) + "}}}");
  CHECK(scenario_error_message([&] {
          codesim::app::load_experiment((dir / "deep.json").string());
        }).find("nested deeper than 64 levels") != std::string::npos);
}

TEST_CASE("a --set counts its pointer towards the nesting limit") {
  Json document = Json::object();
  std::string deep_pointer;
  for (int i = 0; i <= kMaxJsonDepth; ++i) deep_pointer += "/a";
  CHECK(scenario_error_message([&] {
          codesim::app::apply_set(document, deep_pointer + "=1", "s.json");
        }).find("nested deeper than 64 levels") != std::string::npos);
  CHECK(scenario_error_message([&] {
          codesim::app::apply_set(document, "/a/b=" + nested_arrays(kMaxJsonDepth - 1), "s.json");
        }).starts_with("s.json: /a/b/0"));
}

TEST_CASE("a JSON input that is not a regular file is refused without being read") {
  TempDirectory dir;
  const fs::path fifo = dir / "fifo.json";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);  // no writer: opening it for reading would wait
  CHECK(scenario_error_message([&] { codesim::app::read_scenario_file(fifo.string()); }) ==
        fifo.string() +
            ": /: is a FIFO, not a regular file (expected a readable scenario JSON "
            "file)");
  CHECK(scenario_error_message([&] { codesim::app::read_scenario_file(dir.path().string()); }) ==
        dir.path().string() + ": /: is a directory (expected a readable scenario JSON file)");
  CHECK(scenario_error_message([&] { codesim::app::read_fault_log_file(fifo.string()); }) ==
        fifo.string() +
            ": /: is a FIFO, not a regular file (expected a readable fault log JSON "
            "file)");
}

TEST_CASE("a JSON input file larger than 64 MiB is refused before it is read") {
  TempDirectory dir;
  const fs::path big = dir / "big.json";
  write_text(big, "{}");
  fs::resize_file(big, kMaxJsonFileBytes + 1);  // sparse: no disk space used
  CHECK(scenario_error_message([&] { codesim::app::read_scenario_file(big.string()); }) ==
        big.string() +
            ": /: the file has 67108865 bytes, more than the limit of 64 MiB "
            "(expected a readable scenario JSON file of at most 67108864 bytes)");
}

TEST_CASE("a fault log larger than a scenario's limit is still read back for a replay") {
  // A 50-iteration run wrote a 77 MB log, and its replay was refused at the 64 MiB limit.
  TempDirectory dir;
  const fs::path big = dir / "log.json";
  write_text(big, "{}");
  fs::resize_file(big, kMaxJsonFileBytes + 1);  // sparse: "{}" then zero bytes
  const std::string error =
      scenario_error_message([&] { codesim::app::read_fault_log_file(big.string()); });
  CHECK(error.find("more than the limit") == std::string::npos);
  CHECK(error.find(big.string() + ": ") == 0);  // read, then refused as JSON
}
