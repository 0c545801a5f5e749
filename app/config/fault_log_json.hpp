// Fault logs as JSON: a bit-exact writer and a strict reader whose errors name the JSON pointer.
#pragma once

#include <string>

#include "app/config/object_reader.hpp"
#include "app/config/scenario_error.hpp"
#include "models/faults/fault_log.hpp"

namespace codesim::app {

/// The JSON form of `log`. Every value is written twice: "old"/"new" as a decimal number (or the
/// string "nan", "-nan", "inf", "-inf", which JSON numbers cannot hold) and "old_bits"/"new_bits"
/// as the IEEE-754 pattern in hex ("0x" + 16 digits for float64, 8 for float32). The bits are
/// authoritative, so NaN payloads, signalling NaNs and -0.0 survive; times are finite decimals,
/// which round-trip exactly. "summary" holds models::summarize(log) for readers.
Json fault_log_to_json(const models::FaultLog& log);

/// Reads the JSON form of a log. Either of "old"/"old_bits" (and of "new"/"new_bits") may be
/// omitted; when both are given they must agree. "summary" is ignored. Throws ScenarioError
/// (`file`, pointer, message) on anything malformed, including what models::check_fault_log
/// rejects.
models::FaultLog fault_log_from_json(const Json& document, const std::string& file);

/// Writes fault_log_to_json(log) to `path` atomically; throws std::runtime_error on failure.
void write_fault_log_file(const models::FaultLog& log, const std::string& path);
/// Reads, parses and checks the log file at `path`; every problem is a ScenarioError.
models::FaultLog read_fault_log_file(const std::string& path);

/// `error` (from a replaying models::FaultInjector) as bad input in the log file `file`.
ScenarioError to_scenario_error(const models::FaultLogError& error, const std::string& file);

}  // namespace codesim::app
