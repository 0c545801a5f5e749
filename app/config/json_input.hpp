// JSON input with limits: regular files of bounded size only, and documents whose keys are unique
// and whose nesting is bounded, checked while parsing (before any recursive pass over them).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

#include "app/config/object_reader.hpp"

namespace codesim::app {

/// The largest input file read (scenarios, trace CSVs, results to plot): 64 MiB.
inline constexpr std::uintmax_t kMaxJsonFileBytes = std::uintmax_t{64} << 20;
/// The largest fault log a run replays: the logs runs write grow with their faults (77 MB for 50
/// iterations of a heavily faulted run), and one codesim wrote must be read back.
inline constexpr std::uintmax_t kMaxFaultLogBytes = std::uintmax_t{4} << 30;
/// The deepest nesting of arrays and objects accepted in any JSON input (a scenario needs 6).
inline constexpr int kMaxJsonDepth = 64;

/// "a directory", "a FIFO", "a character device", ... for messages about a file of `type`.
std::string describe_file_type(std::filesystem::file_type type);

/// Parses `text`. Invalid JSON (with line and column), a key given twice in one object and
/// nesting deeper than kMaxJsonDepth levels are ScenarioErrors in `file`; the last two at their
/// pointer. `at` is where the text goes in a larger document (a --set value): its tokens count
/// towards the depth and prefix the pointers.
Json parse_json_text(std::string_view text, const std::string& file, std::string_view at = "");

/// The text of the file at `path`. Anything but a regular file of at most kMaxJsonFileBytes (a
/// directory, a device, a FIFO) is a ScenarioError saying so; the file is not opened when it is
/// not a regular file. `expected` says what the file should be, e.g. "an availability trace".
/// A larger limit (`max_bytes`) is for files codesim writes itself and reads back (fault logs).
std::string read_input_file(const std::string& path, const std::string& expected,
                            std::uintmax_t max_bytes = kMaxJsonFileBytes);

/// What read_input_file checks before it opens a file, for a file another program reads (a
/// plot's results or trace): it exists, is a regular file (never a FIFO or a device, which would
/// block or never end) and has at most `max_bytes` bytes; else a ScenarioError saying so.
void check_input_path(const std::string& path, const std::string& expected,
                      std::uintmax_t max_bytes);

/// Reads the file at `path` with read_input_file (`expected` e.g. "a readable scenario JSON
/// file") and parses it with parse_json_text.
Json read_json_file(const std::string& path, const std::string& expected,
                    std::uintmax_t max_bytes = kMaxJsonFileBytes);

}  // namespace codesim::app
