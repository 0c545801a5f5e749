// Storage outside the process for coded training: checkpoints are raw doubles in an unlinked
// temporary file, so nothing is left behind however the run ends and what is read back is bit for
// bit what was written.
#pragma once

#include <Eigen/Core>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdio>

#include "sim/check.hpp"

namespace codesim::models::detail {

/// An anonymous temporary file of raw native doubles: made by mkstemp under the system's
/// temporary directory and unlinked at once, so that it disappears with the run however the run
/// ends (an exception, a signal, a crash). Every failure throws std::runtime_error naming `what`.
class ScratchFile {
 public:
  /// `what` names the file in error messages ("checkpoint", "read-out"); it must outlive the file.
  explicit ScratchFile(const char* what);
  ScratchFile(const ScratchFile&) = delete;
  ScratchFile& operator=(const ScratchFile&) = delete;
  ~ScratchFile();

  /// Empties the file for writing from the start.
  void clear();
  /// Moves to `offset` bytes from the start, >= 0.
  void seek(std::int64_t offset);
  /// Pushes buffered writes to the file, reporting a failure (a full disk).
  void flush();
  /// Writes `bytes` bytes of `data` at the current position.
  void write(const void* data, std::size_t bytes);
  /// Reads `bytes` bytes into `data` from the current position; a short read throws.
  void read(void* data, std::size_t bytes);

  /// Writes the shape (two int64) and then the entries (column-major doubles) of `m`, a matrix
  /// or a view of one (whose columns may lie apart: they are written one after another).
  template <typename Derived>
  void write_matrix(const Eigen::MatrixBase<Derived>& m) {
    const std::array<std::int64_t, 2> shape{m.rows(), m.cols()};
    write(shape.data(), sizeof(shape));
    const auto column_bytes = static_cast<std::size_t>(m.rows()) * sizeof(double);
    if (m.outerStride() == m.rows()) {
      write(m.derived().data(), static_cast<std::size_t>(m.cols()) * column_bytes);
      return;
    }
    for (Eigen::Index c = 0; c < m.cols(); ++c)
      write(m.derived().data() + c * m.outerStride(), column_bytes);
  }
  /// Reads a matrix written by write_matrix into `m` (a matrix or a view of one, as there),
  /// which already has its shape.
  template <typename Derived>
  void read_matrix(Eigen::MatrixBase<Derived>& m) {
    std::array<std::int64_t, 2> shape{};
    read(shape.data(), sizeof(shape));
    CODESIM_CHECK(shape[0] == m.rows() && shape[1] == m.cols(), "a stored matrix keeps its shape");
    const auto column_bytes = static_cast<std::size_t>(m.rows()) * sizeof(double);
    if (m.outerStride() == m.rows()) {
      read(m.derived().data(), static_cast<std::size_t>(m.cols()) * column_bytes);
      return;
    }
    for (Eigen::Index c = 0; c < m.cols(); ++c)
      read(m.derived().data() + c * m.outerStride(), column_bytes);
  }

 private:
  [[noreturn]] void fail(const char* action) const;

  const char* what_;
  std::FILE* file_ = nullptr;
};

}  // namespace codesim::models::detail
