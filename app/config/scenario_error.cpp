// ScenarioError: formats "FILE: /pointer: message".
#include "app/config/scenario_error.hpp"

#include <utility>

namespace codesim::app {

namespace {
std::string format(const std::string& file, const std::string& pointer,
                   const std::string& message) {
  return file + ": " + (pointer.empty() ? std::string("/") : pointer) + ": " + message;
}
}  // namespace

ScenarioError::ScenarioError(std::string file, std::string pointer, std::string message)
    : std::runtime_error(format(file, pointer, message)),
      file_(std::move(file)),
      pointer_(std::move(pointer)),
      message_(std::move(message)) {}

}  // namespace codesim::app
