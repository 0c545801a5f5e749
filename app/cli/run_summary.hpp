// The short human summary `codesim run` prints after a run: an iterative job's completion time
// and events, or a training run's table of strategies.
#pragma once

#include <ostream>

#include "app/exec/runner.hpp"

namespace codesim::app {

/// Prints what a reader wants first from `results` of `experiment`: for a training run one table
/// row per point (label, final test accuracy, simulated time, rollbacks, corrected, energy); for
/// an iterative job the completion time, events, time shares and energy with its shares (per point
/// when there is a sweep).
void print_run_summary(const Experiment& experiment, const Json& results, std::ostream& out);

}  // namespace codesim::app
