// Test helper for the `codesim theory` suites: runs the command in process, as text or as JSON.
#pragma once

#include <doctest/doctest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "app/cli/theory_command.hpp"
#include "support/cli_runner.hpp"

namespace codesim::test {

inline CliResult theory(const std::vector<std::string>& args) {
  return run_captured(codesim::app::run_theory_command, args);
}

/// `codesim theory ARGS --json`, which must succeed without a word on stderr.
inline nlohmann::json theory_json(std::vector<std::string> args) {
  args.push_back("--json");
  const CliResult outcome = theory(args);
  REQUIRE(outcome.code == 0);
  REQUIRE(outcome.err.empty());
  return nlohmann::json::parse(outcome.out);
}

}  // namespace codesim::test
