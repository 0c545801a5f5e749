// Reporting half of CODESIM_CHECK.
#include "sim/check.hpp"

#include <cstdio>
#include <cstdlib>

namespace codesim::sim::detail {
void check_failed(const char* condition, const char* message, const char* file, int line) {
  std::fprintf(stderr, "%s:%d: check failed: %s: %s\n", file, line, condition, message);
  std::abort();
}
}  // namespace codesim::sim::detail
