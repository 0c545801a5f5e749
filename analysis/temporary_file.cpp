// Unique temporary names beside an output, short enough for any directory.
#include "analysis/temporary_file.hpp"

#include <stdlib.h>

namespace codesim::analysis {

namespace {

// Of the output's name; with ".", ".tmp-XXXXXX" the temporary name has at most 212 bytes.
constexpr std::size_t kKeptNameBytes = 200;

}  // namespace

TemporaryFile make_temporary_beside(const std::filesystem::path& path) {
  const std::filesystem::path directory =
      path.has_parent_path() ? path.parent_path() : std::filesystem::path(".");
  // Built by appends: GCC 12 gives a false -Wrestrict on chained string concatenation.
  std::string name = ".";
  name += path.filename().string().substr(0, kKeptNameBytes);
  name += ".tmp-XXXXXX";
  TemporaryFile file;
  file.path = (directory / name).string();
  file.fd = ::mkstemp(file.path.data());
  return file;
}

}  // namespace codesim::analysis
