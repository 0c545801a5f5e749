// `codesim theory`: closed-form rollback odds and checkpoint intervals of coded training, and the
// recovery-threshold (T1) and error-tolerance (T3) tables.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace codesim::app {

/// Runs `codesim theory ARGS...` (ARGS without the word "theory"). Writes the report (text, or
/// JSON with --json) to `out` and errors to `err` as one line "error: ... (expected ...)";
/// returns 0, or 2 for bad options.
int run_theory_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace codesim::app
