// `codesim codes`: prints the capabilities of one coding-scheme configuration.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace codesim::app {

/// Runs `codesim codes ARGS...` (ARGS without the word "codes"). Writes the report to `out`,
/// errors to `err` as one line "error: ..."; returns 0, or 2 for bad parameters.
int run_codes_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace codesim::app
