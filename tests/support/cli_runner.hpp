// Test helper for the app suites: runs a codesim command-line entry point in process and captures
// its exit code and both output streams.
#pragma once

#include <sstream>
#include <string>
#include <vector>

#include "app/cli/cli.hpp"

namespace codesim::test {

/// What one in-process run returned and printed.
struct CliResult {
  int code = -1;    ///< exit code
  std::string out;  ///< everything written to standard output
  std::string err;  ///< everything written to standard error
};

/// Runs `entry(args, out, err)`, where `entry` is run_cli or a subcommand's entry point
/// (run_codes_command, run_theory_command, ...), and captures what it printed.
template <typename Entry>
CliResult run_captured(Entry entry, const std::vector<std::string>& args) {
  std::ostringstream out;
  std::ostringstream err;
  CliResult result;
  result.code = entry(args, out, err);
  result.out = out.str();
  result.err = err.str();
  return result;
}

/// Runs `codesim <args>` in process (codesim::app::run_cli).
inline CliResult cli(const std::vector<std::string>& args) {
  return run_captured(codesim::app::run_cli, args);
}

}  // namespace codesim::test
