// ScenarioError: formats "FILE: /pointer: message".
#include "app/config/scenario_error.hpp"

#include <utility>

namespace codesim::app {

namespace {

std::string format(const std::string& file, const std::string& pointer,
                   const std::string& message) {
  return printable(file + ": " + (pointer.empty() ? std::string("/") : pointer) + ": " + message);
}

/// The length of the well-formed UTF-8 sequence at text[at], or 0 when it is not one.
std::size_t utf8_length(std::string_view text, std::size_t at) {
  const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(text[i]); };
  const unsigned char lead = byte(at);
  std::size_t length = 0;
  unsigned char low = 0x80;  // the allowed range of the second byte (no overlongs, surrogates)
  unsigned char high = 0xBF;
  if (lead < 0x80) return 1;
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    if (lead == 0xE0) low = 0xA0;
    if (lead == 0xED) high = 0x9F;
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    if (lead == 0xF0) low = 0x90;
    if (lead == 0xF4) high = 0x8F;
  } else {
    return 0;
  }
  if (at + length > text.size() || byte(at + 1) < low || byte(at + 1) > high) return 0;
  for (std::size_t i = 2; i < length; ++i)
    if (byte(at + i) < 0x80 || byte(at + i) > 0xBF) return 0;
  return length;
}

}  // namespace

std::string printable(std::string_view text) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string shown;
  shown.reserve(text.size());
  const auto escape = [&](const char* prefix, unsigned char code) {
    shown += prefix;
    shown += kHex[code >> 4];
    shown += kHex[code & 0xF];
  };
  for (std::size_t at = 0; at < text.size();) {
    const auto c = static_cast<unsigned char>(text[at]);
    const std::size_t length = utf8_length(text, at);
    if (length == 0) {
      escape("\\x", c);
      ++at;
      continue;
    }
    // C1 controls (U+0080..U+009F) are C2 80..C2 9F in UTF-8; terminals obey some of them.
    const auto second = length == 2 ? static_cast<unsigned char>(text[at + 1]) : 0;
    if (length == 1 && (c < 0x20 || c == 0x7F)) {
      escape("\\u00", c);
    } else if (c == 0xC2 && second < 0xA0) {
      escape("\\u00", second);
    } else {
      shown.append(text.substr(at, length));
    }
    at += length;
  }
  return shown;
}

ScenarioError::ScenarioError(std::string file, std::string pointer, std::string message)
    : std::runtime_error(format(file, pointer, message)),
      file_(std::move(file)),
      pointer_(std::move(pointer)),
      message_(std::move(message)) {}

ScenarioError::ScenarioError(Formatted what, std::string file, std::string message)
    : std::runtime_error(what.text), file_(std::move(file)), message_(std::move(message)) {}

ScenarioError ScenarioError::at_line(std::string file, std::size_t line, std::string message) {
  Formatted what{printable(file + ":" + std::to_string(line) + ": " + message)};
  return ScenarioError(std::move(what), std::move(file), std::move(message));
}

}  // namespace codesim::app
