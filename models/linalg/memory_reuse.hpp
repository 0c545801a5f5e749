// Freed buffers kept for the next allocation instead of being returned to the system.
//
// glibc serves an allocation above its mmap threshold (dynamic, at most 32 MiB by default) with
// fresh pages from the system and returns them at free(), and gives the top of the heap back once
// more than its trim threshold lies free there. A coded round of a convolutional network
// allocates and frees tens of MB per step (im2col patches, partials, decoded products), so every
// step page-faulted on all of them: LeNet-5's train_coded ran at 3.3 steps/s, 55.6 with freed
// memory kept (bench/README.md, "Coded LeNet-5"). Results do not depend on it: Eigen aligns
// every allocation to 64 bytes wherever it comes from.
#pragma once

namespace codesim::models {

/// Serves allocations below 32 MiB from the heap (reusing freed ones) and returns the heap's top
/// to the system only beyond 256 MiB free; larger allocations (the paper configuration's blocks)
/// keep their own pages, returned at free(). Turns off glibc's fast bins (their consolidation
/// cost 3-5% of an uncoded batch-1 step: bench/README.md, "The overhead target met at batch 1").
/// A no-op where the C library offers no such settings. Call once, at the start of main.
void keep_freed_memory_for_reuse();

}  // namespace codesim::models
