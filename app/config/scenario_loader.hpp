// Scenario loading: JSON text -> validated Scenario, with --set overrides; errors are
// ScenarioError.
#pragma once

#include <string>
#include <vector>

#include "app/config/object_reader.hpp"
#include "app/config/scenario.hpp"

namespace codesim::app {

/// Parses `text` as JSON; invalid JSON is a ScenarioError naming line and column. `file` labels
/// errors.
Json parse_scenario_text(const std::string& text, const std::string& file);

/// Reads and parses the file at `path` (a missing or unreadable file is a ScenarioError).
Json read_scenario_file(const std::string& path);

/// Applies one override "/json/pointer=VALUE" to `document`. VALUE is parsed as JSON and taken
/// as a string when it is not valid JSON. Missing objects on the way are created; array indices
/// must exist ("-" appends). Whether the key is allowed is checked later by load_scenario.
void apply_set(Json& document, const std::string& assignment, const std::string& file);

/// Validates `document` and fills in every default. `file` labels errors; its stem is the
/// default scenario name.
Scenario load_scenario(const Json& document, const std::string& file);

/// read_scenario_file, then apply_set for each of `sets` in order, then load_scenario.
Scenario load_scenario_file(const std::string& path, const std::vector<std::string>& sets = {});

}  // namespace codesim::app
