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
  // No fast bins: the small objects the protocol frees on every task (closures, index lists)
  // would sit there, and glibc consolidates them before every allocation of 1 KiB or more (a
  // node's product at batch 1); small allocations are still served by the thread cache.
  mallopt(M_MXFAST, 0);
#endif
}

}  // namespace codesim::models
