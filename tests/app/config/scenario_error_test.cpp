// ScenarioError messages: one printable line whatever the keys, values and file names hold.
#include "app/config/scenario_error.hpp"

#include <doctest/doctest.h>

#include <string>

#include "support/experiment_error.hpp"

using codesim::app::Json;
using codesim::app::printable;
using codesim::app::ScenarioError;

TEST_CASE("control characters and bytes that are not UTF-8 are escaped for printing") {
  CHECK(printable("plain text, caf\xC3\xA9, \xE2\x82\xAC") ==
        "plain text, caf\xC3\xA9, \xE2\x82\xAC");
  CHECK(printable(std::string("a\0b", 3)) == "a\\u0000b");
  CHECK(printable("\x1b[31mred\x1b[0m") == "\\u001b[31mred\\u001b[0m");
  CHECK(printable("line\nbreak\r\ttab\x7f") == "line\\u000abreak\\u000d\\u0009tab\\u007f");
  CHECK(printable("\xC2\x9B"
                  "2J") == "\\u009b2J");                  // C1 CSI
  CHECK(printable("\xFF\xC3") == "\\xff\\xc3");           // not UTF-8, and a cut sequence
  CHECK(printable("\xED\xA0\x80") == "\\xed\\xa0\\x80");  // a UTF-16 surrogate
}

TEST_CASE("a key with NUL or a terminal escape is shown escaped in the whole message") {
  Json document = Json::parse(R"({"cluster": {"nodes": 4}})");
  document["cluster"][std::string("no\0des\x1b[2J", 10)] = 3;
  const std::string message = codesim::test::experiment_error_message(document, "k.json");
  CHECK(
      message.starts_with("k.json: /cluster/no\\u0000des\\u001b[2J: unknown key "
                          "\"no\\u0000des\\u001b[2J\""));
  CHECK(message.ends_with(")"));  // not cut at the NUL
  CHECK(message.find('\x1b') == std::string::npos);
  // The parts stay as given, for callers that compare pointers.
  const auto error = codesim::test::experiment_error(document, "k.json");
  REQUIRE(error);
  CHECK(error->pointer() == "/cluster/" + std::string("no\0des\x1b[2J", 10));
}
