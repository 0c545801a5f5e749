// The temporary file an output is written to before it is renamed into place: in the output's
// directory (so the rename is atomic), under a unique name that always fits (mkstemp never
// reuses or replaces a file, and the name stays under the 255-byte limit whatever the output's).
#pragma once

#include <filesystem>
#include <string>

namespace codesim::analysis {

/// An open, empty, unique file beside `path`: "." + the first 200 bytes of its name +
/// ".tmp-XXXXXX".
struct TemporaryFile {
  int fd = -1;       ///< open for writing; the caller closes it
  std::string path;  ///< where it is; the caller renames or removes it
};

/// Creates the temporary file for `path` (whose directory must exist); fd is -1 with errno set
/// when it cannot be created.
TemporaryFile make_temporary_beside(const std::filesystem::path& path);

}  // namespace codesim::analysis
