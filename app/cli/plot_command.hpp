// `codesim plot FILE.json [-o DIR]`: runs the matplotlib dispatcher of analysis/plots on a
// results file (or the ADVICE.json and MAP.json of codesim advise) and passes its output and
// exit code through.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace codesim::app {

/// Runs `codesim plot` with `args` (after the command name). Exit codes: those of the plot
/// script (0 ok, 1 matplotlib missing or a figure not written, 2 bad input), 2 for bad options.
int run_plot_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace codesim::app
