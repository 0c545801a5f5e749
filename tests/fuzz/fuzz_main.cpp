// libFuzzer entry point of one target; CODESIM_FUZZ_TARGET names its harness (see harnesses.hpp).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "harnesses.hpp"

#ifndef CODESIM_FUZZ_TARGET
#error "compile with -DCODESIM_FUZZ_TARGET=\"<target>\""
#endif

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const codesim::fuzz::Harness harness = [] {
    codesim::fuzz::Harness found = codesim::fuzz::find_harness(CODESIM_FUZZ_TARGET);
    if (found == nullptr) {
      std::fprintf(stderr, "unknown fuzz target %s\n", CODESIM_FUZZ_TARGET);
      std::abort();
    }
    return found;
  }();
  // An exception that escapes reaches std::terminate, which libFuzzer reports as a crash.
  harness({data, size});
  return 0;
}
