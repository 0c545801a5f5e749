// Reading the benchmarks' numeric options.
#pragma once

#include <string>

namespace codesim::bench {

/// The positive integer `text` spells out whole, else 0 (so callers report a bad value).
inline int positive(const std::string& text) {
  try {
    std::size_t used = 0;
    const int value = std::stoi(text, &used);
    return used == text.size() && value > 0 ? value : 0;
  } catch (...) {
    return 0;
  }
}

}  // namespace codesim::bench
