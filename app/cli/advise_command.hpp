// `codesim advise`: which strategy to run on a scenario's cluster, ranked with evidence
// (app/advise/advice.hpp).
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace codesim::app {

/// Runs `codesim advise ARGS...` (ARGS without the word "advise"): prints the ranked table to
/// `out`, writes ADVICE.json, and reports errors to `err` as one line "error: ...". Returns 0, 1
/// for a runtime failure or 2 for bad input (then nothing is written).
int run_advise_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace codesim::app
