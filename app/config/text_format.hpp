// Numbers in messages, tables and reports: one formatter, so every command prints them alike.
#pragma once

#include <string>

#include <fmt/format.h>

namespace codesim::app {

/// `value` with `digits` significant digits, as printf's %g ("0.0005", "1.5e+07", "inf").
inline std::string significant(double value, int digits) {
  return fmt::format("{:.{}g}", value, digits);
}

}  // namespace codesim::app
