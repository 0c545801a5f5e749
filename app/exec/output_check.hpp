// Output checks before a run starts: every file the run will write can be written there, replaces
// no directory, device, FIFO or input of the run, and no two outputs are the same file.
#pragma once

#include <string>
#include <vector>

#include "app/exec/runner.hpp"

namespace codesim::app {

/// A file a run reads: no output may replace it (nor go inside it, for a `directory`).
struct RunInput {
  std::string path;  ///< as the scenario names it
  std::string name;  ///< what it is, for messages: "the scenario file", "a trace read by ..."
  bool directory = false;
};

/// Every file `experiment` reads: its scenario file (first), the traces its points read, the
/// fault log a training point replays, and a numeric training point's dataset files or
/// directory.
std::vector<RunInput> run_inputs(const Experiment& experiment);

/// Checks the results file `results_path` ("" or "-": none) and the fault logs of `prepared`:
/// each may exist only as a regular file that is not an input of the run (the scenario file, a
/// fault log it replays, an idx dataset file), no two are the same file, and a probe file can be
/// created and removed in the directory each goes to (or in its nearest existing parent, when
/// the run would create the directory). The first problem is a ScenarioError in the scenario
/// file, at /faults/log_file for a fault log.
void check_outputs(const Experiment& experiment, const PreparedRun& prepared,
                   const std::string& results_path);

/// The same checks for the one file a command other than run writes from the experiment's
/// scenario, given with -o: `path` ("-": none) must be a regular file or a new one that is not
/// the scenario file, in a directory where files can be created. `name` says what it is in
/// messages (e.g. "the platform file"). The first problem is a ScenarioError in the scenario
/// file.
void check_output_file(const Experiment& experiment, const std::string& path,
                       const std::string& name);

}  // namespace codesim::app
