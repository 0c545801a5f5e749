// ScenarioError: bad user input (scenario file, --set, CLI values) located by file and JSON
// pointer.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>

namespace codesim::app {

/// `text` safe to print on one line of a terminal: control characters (C0, DEL, C1) as \u00XX
/// and bytes that are not UTF-8 as \xXX; everything else unchanged.
std::string printable(std::string_view text);

/// Bad input. what() is "FILE: /json/pointer: what is wrong (expected ...)" made printable(); the
/// CLI prints it after "error: " and exits with code 2. An empty pointer (the whole document) is
/// shown as "/". file(), pointer() and message() are as given.
class ScenarioError : public std::runtime_error {
 public:
  /// `file` as the user named it, `pointer` an RFC 6901 JSON pointer ("" for the document),
  /// `message` what is wrong, ending with "(expected ...)".
  ScenarioError(std::string file, std::string pointer, std::string message);
  /// Bad input in a text file that is not JSON (an availability trace): what() is
  /// "FILE:LINE: message" made printable(); pointer() is empty.
  static ScenarioError at_line(std::string file, std::size_t line, std::string message);

  const std::string& file() const { return file_; }
  const std::string& pointer() const { return pointer_; }
  const std::string& message() const { return message_; }

 private:
  struct Formatted {
    std::string text;
  };
  ScenarioError(Formatted what, std::string file, std::string message);

  std::string file_;
  std::string pointer_;
  std::string message_;
};

}  // namespace codesim::app
