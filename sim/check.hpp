// CODESIM_CHECK: the one invariant check; a broken invariant aborts with file:line.
#pragma once

namespace codesim::sim::detail {
[[noreturn]] void check_failed(const char* condition, const char* message, const char* file,
                               int line);
}  // namespace codesim::sim::detail

/// Aborts with "file:line: check failed: condition: message" when `condition` is false.
#define CODESIM_CHECK(condition, message)                                            \
  do {                                                                               \
    if (!(condition))                                                                \
      ::codesim::sim::detail::check_failed(#condition, message, __FILE__, __LINE__); \
  } while (false)
