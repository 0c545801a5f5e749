// JSON pointers: splitting with unescaping, escaping, and setting values with object creation.
#include "app/config/json_pointer.hpp"

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "app/config/scenario_error.hpp"

using codesim::app::escape_pointer_token;
using codesim::app::Json;
using codesim::app::ScenarioError;
using codesim::app::set_at_json_pointer;
using codesim::app::split_json_pointer;

namespace {

using Tokens = std::vector<std::string>;

/// The ScenarioError `action` throws; fails the test when it throws none.
template <class Action>
ScenarioError error_of(Action action) {
  try {
    action();
  } catch (const ScenarioError& e) {
    return e;
  }
  FAIL("no ScenarioError thrown");
  return ScenarioError("", "", "");
}

}  // namespace

TEST_CASE("a pointer splits into unescaped tokens") {
  CHECK(split_json_pointer("", "f.json", "/x").empty());
  CHECK(split_json_pointer("/", "f.json", "/x") == Tokens{""});
  CHECK(split_json_pointer("/cluster/nodes", "f.json", "/x") == Tokens{"cluster", "nodes"});
  CHECK(split_json_pointer("/a~1b/c~0d/~01", "f.json", "/x") == Tokens{"a/b", "c~d", "~1"});
  CHECK(split_json_pointer("/a//b/", "f.json", "/x") == Tokens{"a", "", "b", ""});
}

TEST_CASE("a malformed pointer is an error at the place that named it") {
  for (const std::string bad : {"cluster/nodes", "/a~2", "/a~", "/~x/b"}) {
    CAPTURE(bad);
    const ScenarioError e = error_of([&] { split_json_pointer(bad, "f.json", "/sweep/grid/k"); });
    CHECK(e.file() == "f.json");
    CHECK(e.pointer() == "/sweep/grid/k");
    CHECK(e.message().find("invalid JSON pointer \"" + bad + "\"") != std::string::npos);
    CHECK(e.message().find("(expected") != std::string::npos);
  }
}

TEST_CASE("escaping a token and splitting it back gives the token") {
  for (const std::string token : {"plain", "a/b", "c~d", "~1", "/~0/", "", "~~//"}) {
    CAPTURE(token);
    const std::string pointer = "/x/" + escape_pointer_token(token);
    CHECK(split_json_pointer(pointer, "f.json", "") == Tokens{"x", token});
  }
  CHECK(escape_pointer_token("a/b~c") == "a~1b~0c");
}

TEST_CASE("setting a value creates the missing objects on the way") {
  Json document = {{"cluster", {{"nodes", 4}}}, {"empty", nullptr}};
  set_at_json_pointer(document, "/cluster/nodes", 16, "f.json", "/s");
  set_at_json_pointer(document, "/faults/targets/weights", "w", "f.json", "/s");
  set_at_json_pointer(document, "/empty/x", true, "f.json", "/s");
  set_at_json_pointer(document, "/a~1b", 1, "f.json", "/s");
  CHECK(
      document.dump() ==
      R"({"cluster":{"nodes":16},"empty":{"x":true},"faults":{"targets":{"weights":"w"}},"a/b":1})");
}

TEST_CASE("setting the empty pointer replaces the whole document") {
  Json document = {{"a", 1}};
  set_at_json_pointer(document, "", Json::array({1, 2}), "f.json", "/s");
  CHECK(document.dump() == "[1,2]");
}

TEST_CASE("array elements are set by index and - appends") {
  Json document = {{"list", {10, {{"k", 1}}}}};
  set_at_json_pointer(document, "/list/0", 11, "f.json", "/s");
  set_at_json_pointer(document, "/list/1/k", 2, "f.json", "/s");
  set_at_json_pointer(document, "/list/-", 12, "f.json", "/s");
  CHECK(document.dump() == R"({"list":[11,{"k":2},12]})");
}

TEST_CASE("a missing array element is an error at the error pointer naming the pointer") {
  Json document = {{"list", {10, 20}}, {"none", Json::array()}};
  const Json before = document;
  for (const std::string bad : {"/list/2", "/list/01", "/list/x", "/list/-/k", "/list/-1"}) {
    CAPTURE(bad);
    const ScenarioError e =
        error_of([&] { set_at_json_pointer(document, bad, 1, "f.json", "/sweep/grid/k/0"); });
    CHECK(e.pointer() == "/sweep/grid/k/0");
    CHECK(e.message().find("cannot set " + bad) != std::string::npos);
    CHECK(e.message().find("expected an index in [0, 1]") != std::string::npos);
  }
  const ScenarioError last =
      error_of([&] { set_at_json_pointer(document, "/list/5", 1, "f", ""); });
  CHECK(last.message().find("or - to append") != std::string::npos);
  const ScenarioError empty =
      error_of([&] { set_at_json_pointer(document, "/none/0", 1, "f", ""); });
  CHECK(empty.message().find("- to append to the empty array") != std::string::npos);
  CHECK(document == before);
}

TEST_CASE("setting a key inside a scalar is an error naming the scalar") {
  Json document = {{"cluster", {{"nodes", 16}}}};
  const ScenarioError e = error_of(
      [&] { set_at_json_pointer(document, "/cluster/nodes/x", 1, "f.json", "/sweep/grid/k"); });
  CHECK(e.pointer() == "/sweep/grid/k");
  CHECK(e.message() ==
        "cannot set /cluster/nodes/x: /cluster/nodes is number 16 (expected an object or an "
        "array at /cluster/nodes)");
  Json scalar = 3;
  const ScenarioError top = error_of([&] { set_at_json_pointer(scalar, "/a", 1, "f.json", ""); });
  CHECK(top.message().find("cannot set /a: / is number 3") != std::string::npos);
}
