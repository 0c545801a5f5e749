// Test helper for the app suites: the ScenarioError that building an experiment raises, if any.
#pragma once

#include <optional>
#include <string>

#include "app/config/scenario_error.hpp"
#include "app/config/scenario_loader.hpp"

namespace codesim::test {

/// The error make_experiment(document, file) throws, or nullopt when the document is accepted.
inline std::optional<app::ScenarioError> experiment_error(const app::Json& document,
                                                          const std::string& file) {
  try {
    app::make_experiment(document, file);
  } catch (const app::ScenarioError& e) {
    return e;
  }
  return std::nullopt;
}

}  // namespace codesim::test
