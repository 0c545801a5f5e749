// codesim run's --trace options (the timeline trace of numeric training runs, docs in README).
#pragma once

#include <optional>
#include <ostream>

#include <boost/program_options.hpp>

#include "app/exec/runner.hpp"

namespace codesim::app {

/// Adds --trace, --trace-window, --trace-iterations and --trace-max-events.
void add_trace_options(boost::program_options::options_description& options);

/// Reads them into `trace` (left empty without --trace); false after writing one "error: " line
/// to `err` (a bad file pattern, window or cap, or a window without --trace).
bool read_trace_options(const boost::program_options::variables_map& values,
                        std::optional<TraceRequest>& trace, std::ostream& err);

}  // namespace codesim::app
