// What `codesim run` was asked to do: its options and their reading, apart from the command.
#pragma once

#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include <boost/program_options.hpp>

#include "analysis/chrome_trace_writer.hpp"
#include "app/exec/runner.hpp"
#include "models/linalg/dense_kernels.hpp"

namespace codesim::app {

/// The most threads --jobs or --threads may ask for.
inline constexpr int kMaxThreadCount = 1024;

/// What `codesim run` was asked to do, from its command line.
struct RunRequest {
  std::string file;
  std::vector<std::string> sets;  ///< --set, then --seed and --replicas as sets
  std::string output;             ///< -o; "" = the default path
  std::string arithmetic_text;
  models::Arithmetic arithmetic = models::Arithmetic::portable;
  int jobs = 1;
  int threads = 1;          ///< per run (training replica); never changes a result
  bool distribute = false;  ///< --distribute nodes: each run over every rank of the MPI job
  std::optional<double> memory_limit_bytes;  ///< --memory-limit-gb: per process
  bool quiet = false;
  bool list_points = false;
  bool force = false;  ///< run even when the expected time far exceeds the time limit
  std::optional<TraceRequest> trace;  ///< --trace and its window and cap
};

/// The options of `codesim run` that fill a RunRequest (the trace and scenario options apart).
void add_run_options(boost::program_options::options_description& options);

/// The request of a parsed `codesim run` line for scenario `file` with its --set values; nullopt
/// after reporting an error.
std::optional<RunRequest> read_run_request(const boost::program_options::variables_map& values,
                                           const std::string& file, std::vector<std::string> sets,
                                           std::ostream& err);

/// --arithmetic into `request` ("auto": the fastest arithmetic this CPU runs, so that the
/// request and the results hold a concrete one); false after reporting an error.
bool read_arithmetic(const std::string& command,
                     const boost::program_options::variables_map& values, RunRequest& request,
                     std::ostream& err);

/// Switches `experiment` to the request's arithmetic and threads per run; a ScenarioError when
/// this CPU lacks the arithmetic.
void apply_arithmetic(const RunRequest& request, Experiment& experiment);

}  // namespace codesim::app
