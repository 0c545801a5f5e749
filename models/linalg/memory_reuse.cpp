// glibc's mallopt settings behind keep_freed_memory_for_reuse (memory_reuse.hpp says why).
#include "models/linalg/memory_reuse.hpp"

#include <cstdlib>  // defines __GLIBC__ under glibc

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace codesim::models {

void keep_freed_memory_for_reuse() {
#if defined(__GLIBC__)
  // Setting either fixes both thresholds (glibc no longer adjusts them as blocks are freed).
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, 256 << 20);
#endif
}

}  // namespace codesim::models
