// Sweep expansion: grid and zip order, params, labels, documents, and every validation error.
#include "app/config/sweep.hpp"

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "app/config/scenario_error.hpp"

using codesim::app::expand_sweep;
using codesim::app::Json;
using codesim::app::ScenarioError;
using codesim::app::SweepPoint;

namespace {

Json base_document() {
  return Json::parse(R"({"name": "t", "seed": 3, "cluster": {"nodes": 8, "topology": "star"},
                         "strategy": {"scheme": "mds"}})");
}

Json with_sweep(const Json& sweep) {
  Json document = base_document();
  document["sweep"] = sweep;
  return document;
}

std::vector<std::string> labels_of(const std::vector<SweepPoint>& points) {
  std::vector<std::string> labels;
  for (const auto& point : points) labels.push_back(point.label);
  return labels;
}

/// The ScenarioError expanding `sweep` throws; fails the test when it throws none.
ScenarioError error_of(const Json& sweep) {
  try {
    expand_sweep(with_sweep(sweep), "s.json");
  } catch (const ScenarioError& e) {
    return e;
  }
  FAIL("no ScenarioError thrown");
  return ScenarioError("", "", "");
}

bool contains(const std::string& text, const std::string& fragment) {
  return text.find(fragment) != std::string::npos;
}

}  // namespace

TEST_CASE("no sweep gives one point with the document unchanged") {
  const auto points = expand_sweep(base_document(), "s.json");
  REQUIRE(points.size() == 1);
  CHECK(points[0].params == Json::object());
  CHECK(points[0].document == base_document());
  CHECK(points[0].label.empty());
}

TEST_CASE("an empty sweep gives one point without the sweep key") {
  for (const Json& sweep : {Json::object(), Json::parse(R"({"grid": {}, "zip": []})")}) {
    const auto points = expand_sweep(with_sweep(sweep), "s.json");
    REQUIRE(points.size() == 1);
    CHECK(points[0].params == Json::object());
    CHECK(points[0].document == base_document());
    CHECK(points[0].label.empty());
  }
}

TEST_CASE("a grid expands as nested loops with the first key varying slowest") {
  const Json sweep =
      Json::parse(R"({"grid": {"/cluster/nodes": [16, 32], "/faults/p": [1e-4, 3e-4, 0.5]}})");
  const auto points = expand_sweep(with_sweep(sweep), "s.json");
  REQUIRE(points.size() == 6);
  CHECK(labels_of(points) == std::vector<std::string>{
                                 "/cluster/nodes=16, /faults/p=0.0001",
                                 "/cluster/nodes=16, /faults/p=0.0003",
                                 "/cluster/nodes=16, /faults/p=0.5",
                                 "/cluster/nodes=32, /faults/p=0.0001",
                                 "/cluster/nodes=32, /faults/p=0.0003",
                                 "/cluster/nodes=32, /faults/p=0.5",
                             });
  CHECK(points[4].params.dump() == R"({"/cluster/nodes":32,"/faults/p":0.0003})");
  Json expected = base_document();
  expected["cluster"]["nodes"] = 32;
  expected["faults"] = {{"p", 3e-4}};
  CHECK(points[4].document == expected);
  CHECK_FALSE(points[4].document.contains("sweep"));
}

TEST_CASE("grid keys keep their written order, not alphabetical order") {
  const Json sweep = Json::parse(R"({"grid": {"/z": [1, 2], "/a": [1, 2]}})");
  const auto points = expand_sweep(with_sweep(sweep), "s.json");
  REQUIRE(points.size() == 4);
  CHECK(points[1].params.dump() == R"({"/z":1,"/a":2})");
  CHECK(points[2].params.dump() == R"({"/z":2,"/a":1})");
}

TEST_CASE("a zip group varies its pointers together and labels come from /label") {
  const Json sweep = Json::parse(R"({"zip": [{"/label": ["uncoded", "codenet"],
      "/strategy/scheme": ["uncoded", "codenet_grid"], "/cluster/nodes": [40, 38]}]})");
  const auto points = expand_sweep(with_sweep(sweep), "s.json");
  REQUIRE(points.size() == 2);
  CHECK(labels_of(points) == std::vector<std::string>{"uncoded", "codenet"});
  CHECK(points[1].params.dump() ==
        R"({"/label":"codenet","/strategy/scheme":"codenet_grid","/cluster/nodes":38})");
  CHECK(points[1].document["label"] == "codenet");
  CHECK(points[1].document["strategy"]["scheme"] == "codenet_grid");
  CHECK(points[1].document["cluster"]["nodes"] == 38);
  CHECK(points[0].document["cluster"]["topology"] == "star");
}

TEST_CASE("zip groups combine with each other and with the grid, grid axes first") {
  const Json sweep = Json::parse(R"({
      "zip": [{"/s": ["a", "b"], "/n": [1, 2]}, {"/r": [true, false]}],
      "grid": {"/g": [10, 20, 30]}})");
  const auto points = expand_sweep(with_sweep(sweep), "s.json");
  REQUIRE(points.size() == 12);
  CHECK(points[0].label == "/g=10, /s=a, /n=1, /r=true");
  CHECK(points[1].label == "/g=10, /s=a, /n=1, /r=false");
  CHECK(points[2].label == "/g=10, /s=b, /n=2, /r=true");
  CHECK(points[4].label == "/g=20, /s=a, /n=1, /r=true");
  CHECK(points[11].label == "/g=30, /s=b, /n=2, /r=false");
  CHECK(points[11].params.dump() == R"({"/g":30,"/s":"b","/n":2,"/r":false})");
}

TEST_CASE("labels show values as compact JSON and strings without quotes") {
  const Json sweep =
      Json::parse(R"({"grid": {"/o": [{"k": [1, 2]}], "/s": ["x y"], "/l": [null]}})");
  const auto points = expand_sweep(with_sweep(sweep), "s.json");
  REQUIRE(points.size() == 1);
  CHECK(points[0].label == R"(/o={"k":[1,2]}, /s=x y, /l=null)");
  const auto numbered = expand_sweep(with_sweep(Json::parse(R"({"grid": {"/label": [7]}})")), "f");
  CHECK(numbered[0].label == "7");
}

TEST_CASE("array elements and appends can be swept") {
  Json document = base_document();
  document["list"] = {1, 2, 3};
  document["sweep"] = Json::parse(R"({"grid": {"/list/1": [20, 21], "/list/-": [9]}})");
  const auto points = expand_sweep(document, "s.json");
  REQUIRE(points.size() == 2);
  CHECK(points[1].document["list"].dump() == "[1,21,3,9]");
}

TEST_CASE("a sweep that is not an object is rejected at /sweep") {
  const ScenarioError e = error_of(Json::array());
  CHECK(e.pointer() == "/sweep");
  CHECK(e.file() == "s.json");
  CHECK(contains(e.message(), "got an array (expected an object"));
}

TEST_CASE("an unknown key in sweep is rejected with what is expected") {
  const ScenarioError e = error_of(Json::parse(R"({"gird": {}})"));
  CHECK(e.pointer() == "/sweep/gird");
  CHECK(contains(e.message(), "did you mean \"grid\""));
  CHECK(contains(e.message(), "(expected one of: grid, zip)"));
  CHECK(error_of(Json::parse(R"({"a/b": 1})")).pointer() == "/sweep/a~1b");
}

TEST_CASE("a grid that is not an object is rejected at /sweep/grid") {
  const ScenarioError e = error_of(Json::parse(R"({"grid": [1]})"));
  CHECK(e.pointer() == "/sweep/grid");
  CHECK(contains(e.message(), "expected an object of JSON pointer -> array of values"));
}

TEST_CASE("a value list that is not an array or is empty is rejected at its key") {
  const ScenarioError scalar = error_of(Json::parse(R"({"grid": {"/cluster/nodes": 16}})"));
  CHECK(scalar.pointer() == "/sweep/grid/~1cluster~1nodes");
  CHECK(contains(scalar.message(), "got number 16 (expected an array of values"));
  const ScenarioError empty = error_of(Json::parse(R"({"grid": {"/cluster/nodes": []}})"));
  CHECK(empty.pointer() == "/sweep/grid/~1cluster~1nodes");
  CHECK(contains(empty.message(), "empty list of values"));
  const ScenarioError in_zip = error_of(Json::parse(R"({"zip": [{"/a": [1]}, {"/b": {}}]})"));
  CHECK(in_zip.pointer() == "/sweep/zip/1/~1b");
}

TEST_CASE("a zip that is not an array is rejected at /sweep/zip") {
  const ScenarioError e = error_of(Json::parse(R"({"zip": {"/a": [1]}})"));
  CHECK(e.pointer() == "/sweep/zip");
  CHECK(contains(e.message(), "got an object (expected an array of groups"));
}

TEST_CASE("a zip group that is not an object or is empty is rejected at the group") {
  const ScenarioError scalar = error_of(Json::parse(R"({"zip": [{"/a": [1]}, [1, 2]]})"));
  CHECK(scalar.pointer() == "/sweep/zip/1");
  CHECK(contains(scalar.message(), "got an array (expected an object"));
  const ScenarioError empty = error_of(Json::parse(R"({"zip": [{}]})"));
  CHECK(empty.pointer() == "/sweep/zip/0");
  CHECK(contains(empty.message(), "empty group"));
}

TEST_CASE("lists of different lengths in one zip group are rejected with both lengths") {
  const ScenarioError e =
      error_of(Json::parse(R"({"zip": [{"/label": ["a", "b"], "/cluster/nodes": [1, 2, 3]}]})"));
  CHECK(e.pointer() == "/sweep/zip/0/~1cluster~1nodes");
  CHECK(contains(e.message(), "/cluster/nodes has 3 values but /label has 2"));
  CHECK(contains(e.message(), "(expected every list of a zip group to have the same length)"));
}

TEST_CASE("a key that is not a valid JSON pointer or is empty is rejected at the key") {
  const ScenarioError relative = error_of(Json::parse(R"({"grid": {"cluster/nodes": [1]}})"));
  CHECK(relative.pointer() == "/sweep/grid/cluster~1nodes");
  CHECK(contains(relative.message(), "invalid JSON pointer \"cluster/nodes\""));
  const ScenarioError escape = error_of(Json::parse(R"({"zip": [{"/a~2": [1]}]})"));
  CHECK(escape.pointer() == "/sweep/zip/0/~1a~02");
  CHECK(contains(escape.message(), "invalid JSON pointer"));
  const ScenarioError whole = error_of(Json::parse(R"({"grid": {"": [1]}})"));
  CHECK(whole.pointer() == "/sweep/grid/");
  CHECK(contains(whole.message(), "whole scenario"));
}

TEST_CASE("sweeping /sweep, /name or /seed is rejected, the seed with its reason") {
  const ScenarioError seed = error_of(Json::parse(R"({"grid": {"/seed": [1, 2]}})"));
  CHECK(seed.pointer() == "/sweep/grid/~1seed");
  CHECK(contains(seed.message(), "common random numbers"));
  const ScenarioError name = error_of(Json::parse(R"({"zip": [{"/name": ["a"]}]})"));
  CHECK(name.pointer() == "/sweep/zip/0/~1name");
  CHECK(contains(name.message(), "expected a pointer outside /sweep, /name and /seed"));
  const ScenarioError sweep = error_of(Json::parse(R"({"grid": {"/sweep/grid": [1]}})"));
  CHECK(sweep.pointer() == "/sweep/grid/~1sweep~1grid");
  CHECK(contains(sweep.message(), "cannot sweep /sweep/grid"));
}

TEST_CASE("the same pointer on two axes is rejected at the second") {
  const ScenarioError e = error_of(Json::parse(
      R"({"grid": {"/cluster/nodes": [1, 2]}, "zip": [{"/a": [1], "/cluster/nodes": [3]}]})"));
  CHECK(e.pointer() == "/sweep/zip/0/~1cluster~1nodes");
  CHECK(contains(e.message(), "already swept at /sweep/grid/~1cluster~1nodes"));
}

TEST_CASE("more than 10000 points is rejected with the count") {
  Json values = Json::array();
  for (int i = 0; i < 1000; ++i) values.push_back(i);
  Json sweep = {{"grid", {{"/a", values}, {"/b", values}}}};
  const ScenarioError e = error_of(sweep);
  CHECK(e.pointer() == "/sweep");
  CHECK(contains(e.message(), "1000000 points (1000 x 1000)"));
  CHECK(contains(e.message(), "expected at most 10000)"));
  // 2^14 points of a few values each (a finding of the scenario fuzzer: built point by point,
  // such a sweep took seconds before it was refused).
  Json binary = {{"grid", Json::object()}};
  for (int axis = 0; axis < 14; ++axis) binary["grid"]["/d" + std::to_string(axis)] = {6, 8};
  CHECK(contains(error_of(binary).message(), "16384 points (2 x 2 x"));
  for (int axis = 0; axis < 8; ++axis) sweep["grid"]["/c" + std::to_string(axis)] = values;
  CHECK(contains(error_of(sweep).message(), "more than 18446744073709551615 points"));
}

TEST_CASE("a set that cannot be made is an error at the sweep value that asked for it") {
  const ScenarioError e = error_of(Json::parse(R"({"grid": {"/cluster/nodes/x": [1, 2]}})"));
  CHECK(e.pointer() == "/sweep/grid/~1cluster~1nodes~1x/0");
  CHECK(contains(e.message(), "cannot set /cluster/nodes/x: /cluster/nodes is number 8"));
  Json document = base_document();
  document["list"] = Json::array({1});
  document["sweep"] = Json::parse(R"({"zip": [{"/list/3": [1]}]})");
  try {
    expand_sweep(document, "s.json");
    FAIL("no ScenarioError thrown");
  } catch (const ScenarioError& error) {
    CHECK(error.pointer() == "/sweep/zip/0/~1list~13/0");
    CHECK(contains(error.message(), "no array element /list/3"));
  }
}

TEST_CASE("an error in a sweep point names the point and where its swept values are in the file") {
  using codesim::app::in_sweep_point;
  using codesim::app::SweepSource;
  const std::vector<SweepSource> sources = {{"/strategy", "/sweep/zip/0/~1strategy/1"},
                                            {"/cluster/nodes", "/sweep/grid/~1cluster~1nodes/0"}};
  const auto message = [&](const std::string& pointer) {
    return in_sweep_point(ScenarioError("s.json", pointer, "bad (expected good)"), 3, "L", sources)
        .what();
  };
  CHECK(std::string(message("/strategy/m")) ==
        "s.json: /strategy/m: in sweep point 3 (L), swept at /sweep/zip/0/~1strategy/1/m: bad "
        "(expected good)");
  CHECK(std::string(message("/strategy")) ==
        "s.json: /strategy: in sweep point 3 (L), swept at /sweep/zip/0/~1strategy/1: bad "
        "(expected good)");
  CHECK(std::string(message("/cluster")) ==
        "s.json: /cluster: in sweep point 3 (L), swept at /sweep/grid/~1cluster~1nodes/0: bad "
        "(expected good)");
  CHECK(std::string(message("/strategyx")) ==
        "s.json: /strategyx: in sweep point 3 (L): bad (expected good)");
  // Without swept values (no sweep) the error is unchanged.
  CHECK(std::string(in_sweep_point(ScenarioError("s.json", "/a", "bad"), 0, "", {}).what()) ==
        "s.json: /a: bad");
}

TEST_CASE("every point records where its swept values are in the file") {
  const auto points = expand_sweep(with_sweep(Json::parse(R"({"grid": {"/cluster/nodes": [16, 32]},
                                 "zip": [{"/strategy": [{"m": 1}, {"m": 2}]}]})")),
                                   "s.json");
  REQUIRE(points.size() == 4);
  REQUIRE(points[3].sources.size() == 2);
  CHECK(points[3].sources[0].pointer == "/cluster/nodes");
  CHECK(points[3].sources[0].where == "/sweep/grid/~1cluster~1nodes/1");
  CHECK(points[3].sources[1].pointer == "/strategy");
  CHECK(points[3].sources[1].where == "/sweep/zip/0/~1strategy/1");
}
