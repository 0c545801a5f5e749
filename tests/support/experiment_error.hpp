// Test helpers for the app suites: the ScenarioError an action or building an experiment raises.
#pragma once

#include <optional>
#include <string>

#include "app/config/scenario_error.hpp"
#include "app/config/scenario_loader.hpp"
#include "app/exec/runner.hpp"

namespace codesim::test {

/// The message of the ScenarioError `action` throws, or "" when it throws none.
template <typename Action>
std::string scenario_error_message(Action action) {
  try {
    action();
  } catch (const app::ScenarioError& e) {
    return e.what();
  }
  return "";
}

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

/// The message of experiment_error(document, file), or "" when the document is accepted.
inline std::string experiment_error_message(const app::Json& document, const std::string& file) {
  const auto error = experiment_error(document, file);
  return error ? error->what() : "";
}

/// The JSON pointer of experiment_error(document, file), or "(no error)".
inline std::string experiment_error_pointer(const app::Json& document, const std::string& file) {
  const auto error = experiment_error(document, file);
  return error ? error->pointer() : "(no error)";
}

}  // namespace codesim::test
