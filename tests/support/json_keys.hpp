// Test helper for the app suites: every object key of a JSON document, to check that keys are
// documented and resolved.
#pragma once

#include <set>
#include <string>

#include "app/config/object_reader.hpp"

namespace codesim::test {

/// Adds every object key in `value` (recursively) to `keys`.
inline void collect_keys(const app::Json& value, std::set<std::string>& keys) {
  if (value.is_object()) {
    for (const auto& [key, child] : value.items()) {
      keys.insert(key);
      collect_keys(child, keys);
    }
  } else if (value.is_array()) {
    for (const auto& child : value) collect_keys(child, keys);
  }
}

}  // namespace codesim::test
