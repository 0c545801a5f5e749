// Trace files a scenario names (CSV, one line per event or step): the availability trace of
// `cluster.availability_trace`, the speed trace of `cluster.speed_trace` and the soft-error rate
// trace of `faults.rate_trace`. Errors name the file and line.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "app/config/object_reader.hpp"
#include "sim/crash_process.hpp"
#include "sim/step_trace.hpp"

namespace codesim::app {

/// Parses the text of an availability trace (header node,down_s,up_s; `file` names it in errors)
/// for `nodes` nodes: one vector of down intervals per node.
std::vector<std::vector<sim::DownInterval>> parse_availability_trace(const std::string& text,
                                                                     const std::string& file,
                                                                     int nodes);

/// What a step trace multiplies: a speed (every multiplier > 0) or a rate (>= 0).
enum class StepTraceKind { speed, rate };

/// Parses a step trace (header node,from_s,multiplier) for `nodes` nodes, repeating every
/// `period_s` (infinity: no repeat): one trace per node, empty for a node it does not name.
std::vector<sim::StepTrace> parse_step_trace(const std::string& text, const std::string& file,
                                             int nodes, double period_s, StepTraceKind kind);

/// Reads `key` of `r` when given: a path to a step trace, or {"file": path, "period_s": s}.
/// Empty when the key is absent (recorded only when given).
std::vector<sim::StepTrace> read_step_trace(ObjectReader& r, std::string_view key, int nodes,
                                            StepTraceKind kind);

}  // namespace codesim::app
