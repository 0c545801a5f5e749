// run_indexed: a small deterministic work pool; tasks are numbered and callers store results by
// index, so outputs do not depend on the thread count.
#pragma once

#include <cstddef>
#include <functional>

namespace codesim::app {

/// Runs task(i) for i in [0, count) on `jobs` threads (jobs >= 1; the calling thread is one of
/// them; jobs == 1 runs inline on the calling thread, in order). Tasks are handed out in index
/// order: a free thread takes the next index. If tasks throw, the not-yet-started tasks are
/// skipped and the exception of the lowest failing index is rethrown after all threads joined.
/// `on_done(i)` (optional) is called under a mutex after task i finished without throwing, for
/// progress reporting; an exception from it counts as a failure of task i.
void run_indexed(std::size_t count, int jobs, const std::function<void(std::size_t)>& task,
                 const std::function<void(std::size_t)>& on_done = {});

}  // namespace codesim::app
