// ScratchFile: the unlinked temporary file behind checkpoints.
#include "models/training/numeric/scratch_file.hpp"

#include <sys/types.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <string>

namespace codesim::models::detail {

ScratchFile::ScratchFile(const char* what) : what_(what) {
  std::string name = (std::filesystem::temp_directory_path() / "codesim-XXXXXX").string();
  const int descriptor = mkstemp(name.data());
  if (descriptor < 0) fail("cannot create");
  unlink(name.c_str());
  file_ = fdopen(descriptor, "w+b");
  if (file_ == nullptr) {
    close(descriptor);
    fail("cannot open");
  }
}

ScratchFile::~ScratchFile() { std::fclose(file_); }

void ScratchFile::clear() {
  seek(0);
  if (ftruncate(fileno(file_), 0) != 0) fail("cannot truncate");
}

void ScratchFile::seek(std::int64_t offset) {
  if (fseeko(file_, static_cast<off_t>(offset), SEEK_SET) != 0) fail("cannot seek in");
}

void ScratchFile::flush() {
  if (std::fflush(file_) != 0) fail("cannot write");
}

void ScratchFile::write(const void* data, std::size_t bytes) {
  if (bytes > 0 && std::fwrite(data, 1, bytes, file_) != bytes) fail("cannot write");
}

void ScratchFile::read(void* data, std::size_t bytes) {
  if (bytes > 0 && std::fread(data, 1, bytes, file_) != bytes) fail("cannot read");
}

void ScratchFile::fail(const char* action) const {
  throw std::runtime_error(std::string(action) + " the temporary " + what_ + " file in " +
                           std::filesystem::temp_directory_path().string() + ": " +
                           std::strerror(errno));
}

}  // namespace codesim::models::detail
