// Output checks before a run starts: every file the run will write can be written there, replaces
// no directory, device, FIFO or input of the run, and no two outputs are the same file.
#pragma once

#include <string>

#include "app/exec/runner.hpp"

namespace codesim::app {

/// Checks the results file `results_path` ("" or "-": none) and the fault logs of `prepared`:
/// each may exist only as a regular file that is not an input of the run (the scenario file, a
/// fault log it replays, an idx dataset file), no two are the same file, and a probe file can be
/// created and removed in the directory each goes to (or in its nearest existing parent, when
/// the run would create the directory). The first problem is a ScenarioError in the scenario
/// file, at /faults/log_file for a fault log.
void check_outputs(const Experiment& experiment, const PreparedRun& prepared,
                   const std::string& results_path);

}  // namespace codesim::app
