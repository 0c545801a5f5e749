// `codesim export-platform SCENARIO -o platform.xml`: the scenario's network as a SimGrid 3.32
// platform (sim/simgrid_platform.hpp), so the same cluster can be run in SimGrid.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace codesim::app {

/// Runs `codesim export-platform` with `args` (after the command name). Exit codes: 0 ok,
/// 1 the file could not be written, 2 bad input (options, scenario, too many nodes), after one
/// "error: " line; on any error no output file is written or changed.
int run_export_platform_command(const std::vector<std::string>& args, std::ostream& out,
                                std::ostream& err);

}  // namespace codesim::app
