// JSON pointers (RFC 6901): split, escape and set a value at a pointer, creating objects on the
// way.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "app/config/object_reader.hpp"

namespace codesim::app {

/// The unescaped tokens of `pointer` ("~0" -> "~", "~1" -> "/"); "" gives no tokens. A pointer
/// that is neither "" nor starts with '/', or holds a '~' not followed by 0 or 1, is a
/// ScenarioError in `file` at `error_pointer` (the place in the user's input that named it).
std::vector<std::string> split_json_pointer(std::string_view pointer, const std::string& file,
                                            const std::string& error_pointer);

/// Sets the value at `pointer` inside `document` ("" replaces the whole document). Missing object
/// members are created and null values on the way become objects; array elements must exist,
/// except "-" as the last token, which appends. Naming a member of a scalar, a missing array
/// element or a malformed pointer is a ScenarioError in `file` at `error_pointer` whose message
/// names `pointer`.
void set_at_json_pointer(Json& document, std::string_view pointer, Json value,
                         const std::string& file, const std::string& error_pointer);

}  // namespace codesim::app
