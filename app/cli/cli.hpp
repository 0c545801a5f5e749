// The codesim command line: run, validate, codes, --help and --version.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace codesim::app {

/// Runs `codesim ARGS...` (ARGS without the program name). Output goes to `out`, errors to `err`
/// as one line "error: ...". Returns the exit code: 0 ok, 1 runtime failure, 2 bad input. Never
/// throws for bad input; a bad scenario writes no output file.
int run_cli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

/// Where `codesim run` writes when no -o is given: "results/<name>.json".
std::string default_output_path(const std::string& scenario_name);

}  // namespace codesim::app
