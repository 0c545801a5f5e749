// codesim.run: the command line's run of a scenario document on a thread of its own, while the
// calling thread (which holds the interpreter) waits without the GIL, calls the progress callback
// and turns Ctrl-C into a stop of this run alone (the replicas that finished are kept).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <pybind11/pybind11.h>

#include "app/cli/run_request.hpp"
#include "app/exec/runner.hpp"

namespace codesim::python {

/// codesim.run's arguments, as the command line's options.
struct RunArguments {
  std::string text;  ///< the scenario document (JSON), its --set values applied
  std::string file;  ///< names it in errors: the path it was read from, or "<scenario>"
  std::string arithmetic = "auto";
  int jobs = 1;
  int threads = 1;
  bool force = false;
  double memory_limit_gb = 0;  ///< 0 = the available memory
};

/// The request `codesim run` makes of the same options (quiet: nothing is printed).
app::RunRequest run_request(const RunArguments& arguments);

/// The experiment of the document on the requested arithmetic and threads per run.
app::Experiment load_for_run(const RunArguments& arguments, const app::RunRequest& request);

/// A file or directory a run read, which its results must not overwrite: the path made absolute
/// when the run ended (a later chdir changes nothing), how messages name it, and whether it is a
/// directory whose files are all inputs (a dataset's).
struct RunInput {
  std::string path;
  std::string name;
  bool directory = false;
};

/// What a run returns to Python.
struct RunOutcome {
  std::string results_json;  ///< the bytes `codesim run -o` writes
  bool complete = true;
  std::vector<std::string> warnings;
  std::vector<std::string> errors;  ///< outputs that could not be written (fault logs, traces)
  std::vector<std::string> fault_logs;
  std::vector<std::string> traces;
  std::vector<RunInput> inputs;  ///< what the run read besides the scenario file
};

/// Runs the document. `progress` (None or a callable taking replicas done and total, points done
/// and total, and simulated iterations) is called from this thread whenever they change, at most
/// ten times a second and once at the end. Returns (RunOutcome, None) or, when a signal handler
/// (Ctrl-C: KeyboardInterrupt) or `progress` raised, (RunOutcome of the replicas that finished,
/// the exception), after the run stopped.
pybind11::tuple run(const RunArguments& arguments, const pybind11::object& progress);

}  // namespace codesim::python
