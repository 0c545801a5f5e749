// ObjectReader: typed reads with defaults and ranges, resolved values, unknown keys, suggestions.
#include "app/config/object_reader.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include "app/config/scenario_error.hpp"
#include "support/experiment_error.hpp"

using codesim::app::above;
using codesim::app::at_least;
using codesim::app::between;
using codesim::app::closest_match;
using codesim::app::edit_distance;
using codesim::app::Json;
using codesim::app::ObjectReader;

using codesim::test::scenario_error_message;

TEST_CASE("edit distance counts insertions, deletions and substitutions") {
  CHECK(edit_distance("nodes", "nodes") == 0);
  CHECK(edit_distance("nodez", "nodes") == 1);
  CHECK(edit_distance("node", "nodes") == 1);
  CHECK(edit_distance("kitten", "sitting") == 3);
  CHECK(edit_distance("", "abc") == 3);
}

TEST_CASE("closest match suggests near typos and prefixes but not unrelated words") {
  const std::vector<std::string> keys = {"nodes", "speed_flops_per_s", "network", "crashes"};
  CHECK(closest_match("nodez", keys) == "nodes");
  CHECK(closest_match("netwrk", keys) == "network");
  CHECK(closest_match("speed", keys) == "speed_flops_per_s");
  CHECK(closest_match("banana", keys).empty());
}

TEST_CASE("ranges describe themselves the way error messages need") {
  CHECK(above(0).describe() == "> 0");
  CHECK(at_least(1).describe() == ">= 1");
  CHECK(between(0, 1).describe() == "in [0, 1]");
  CHECK(at_least(1e-6).describe() == ">= 1e-06");
  CHECK(above(0).contains(1e-300));
  CHECK_FALSE(above(0).contains(0));
  CHECK(between(0, 1).contains(1));
}

TEST_CASE("missing fields take their defaults and every value read is recorded") {
  const Json object = {{"b", 2.5}};
  ObjectReader reader(&object, "/x", "f.json");
  CHECK(reader.integer("a", 7, 0, 10) == 7);
  CHECK(reader.number("b", 1.0, above(0)) == 2.5);
  CHECK(reader.boolean("c", true));
  const Json resolved = reader.finish();
  CHECK(resolved.dump() == R"({"a":7,"b":2.5,"c":true})");
}

TEST_CASE("a missing section reads as all defaults") {
  ObjectReader reader(nullptr, "/missing", "f.json");
  CHECK(reader.string("s", "hello") == "hello");
  CHECK(reader.finish().dump() == R"({"s":"hello"})");
}

TEST_CASE("a required field without a value is an error at its pointer") {
  const Json object = Json::object();
  ObjectReader reader(&object, "/x", "f.json");
  CHECK(scenario_error_message([&] { reader.number("n", std::nullopt, above(0)); }) ==
        "f.json: /x/n: missing required key (expected a number > 0)");
}

TEST_CASE("whole floats are accepted as integers but fractions are not") {
  const Json object = {{"a", 1e6}, {"b", 2.5}};
  ObjectReader reader(&object, "", "f.json");
  CHECK(reader.integer("a", 0, 0, 10000000) == 1000000);
  CHECK(scenario_error_message([&] { reader.integer("b", 0, 0, 10); }) ==
        "f.json: /b: wrong type: got number 2.5 (expected an integer in [0, 10])");
}

TEST_CASE("null stands for infinity where infinity is allowed and is recorded as null") {
  const Json object = {{"mtbf_s", nullptr}};
  ObjectReader reader(&object, "", "f.json");
  CHECK(std::isinf(reader.number_or_infinity("mtbf_s", 5.0, above(0))));
  CHECK(reader.number_or_infinity("other_s", INFINITY, above(0)) == INFINITY);
  CHECK(reader.finish().dump() == R"({"mtbf_s":null,"other_s":null})");
}

TEST_CASE("unknown keys are rejected after reading, with the known keys listed") {
  const Json object = {{"alpha", 1}, {"betta", 2}};
  ObjectReader reader(&object, "/s", "f.json");
  reader.integer("alpha", 0, 0, 5);
  reader.integer("beta", 0, 0, 5);
  reader.set_unknown_key_note("for kind \"k\"");
  CHECK(scenario_error_message([&] { reader.finish(); }) ==
        "f.json: /s/betta: unknown key \"betta\" for kind \"k\", did you mean \"beta\"? "
        "(expected one of: alpha, beta)");
}

TEST_CASE("expect_keys rejects unknown keys before any read, listing the declared keys") {
  const Json object = {{"alpha", "not a number"}, {"betta", 2}};
  ObjectReader reader(&object, "/s", "f.json");
  reader.set_unknown_key_note("in a thing");
  CHECK(scenario_error_message([&] {
          reader.expect_keys({"alpha", "beta"});
        }) ==
        "f.json: /s/betta: unknown key \"betta\" in a thing, did you mean \"beta\"? "
        "(expected one of: alpha, beta)");
}

TEST_CASE("a reader can refuse whole floats as integers") {
  const Json object = {{"a", 2.0}, {"b", 3.0}};
  ObjectReader reader(&object, "", "f.json");
  reader.accept_whole_floats(false);
  CHECK(scenario_error_message([&] { reader.integer("a", 0, 0, 10); }) ==
        "f.json: /a: wrong type: got number 2.0 (expected an integer in [0, 10])");
  CHECK(scenario_error_message([&] { reader.unsigned_integer("b", 0); }) ==
        "f.json: /b: wrong type: got number 3.0 (expected an integer in [0, "
        "18446744073709551615])");
}

TEST_CASE("an unbounded number asks for a finite number") {
  const Json object = {{"x", "y"}};
  ObjectReader reader(&object, "", "f.json");
  CHECK(scenario_error_message([&] { reader.number("x", 0.0, codesim::app::any_number()); }) ==
        "f.json: /x: wrong type: got string \"y\" (expected a finite number)");
}

TEST_CASE("keys with slashes and tildes are escaped in pointers") {
  const Json object = {{"a/b~c", 1}};
  ObjectReader reader(&object, "", "f.json");
  CHECK(scenario_error_message([&] {
          reader.finish();
        }).starts_with("f.json: /a~1b~0c: unknown key"));
}

TEST_CASE("a section that is not an object is a wrong type") {
  const Json value = {1, 2};
  CHECK(scenario_error_message([&] { ObjectReader reader(&value, "/cluster", "f.json"); }) ==
        "f.json: /cluster: wrong type: got an array (expected an object)");
}

TEST_CASE("an unsigned integer built in code as a signed JSON number is read when not negative") {
  const Json object = {{"seed", 3}, {"bad", -3}};
  ObjectReader r(&object, "", "f.json");
  CHECK(r.unsigned_integer("seed", std::nullopt) == 3);
  CHECK(scenario_error_message([&] { r.unsigned_integer("bad", std::nullopt); }) ==
        "f.json: /bad: value -3 is out of range (expected an integer in [0, "
        "18446744073709551615])");
}
