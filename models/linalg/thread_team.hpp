// ThreadTeam: a few persistent threads that split one dense kernel call between them (codesim
// run --threads N). Splitting never changes a bit: see DenseKernels for how calls are cut.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace codesim::models {

/// A fork-join team of `size()` threads: the caller of parallel_for and size() - 1 workers that
/// sleep between calls. One caller at a time (a run owns its team; runs in parallel own theirs).
class ThreadTeam {
 public:
  /// threads >= 1; 1 runs everything on the caller, with no worker.
  explicit ThreadTeam(int threads);
  ~ThreadTeam();
  ThreadTeam(const ThreadTeam&) = delete;
  ThreadTeam& operator=(const ThreadTeam&) = delete;

  int size() const { return static_cast<int>(workers_.size()) + 1; }
  /// Runs body(i) for every i in [0, count), spread over the team, and returns when all are done.
  /// Rethrows the exception of the lowest failing index, after every task has stopped.
  void parallel_for(int count, const std::function<void(int)>& body);

 private:
  void work();
  // Takes indices until none is left; records the first failure by index.
  void run_tasks();

  std::mutex mutex_;
  std::condition_variable start_;
  std::condition_variable done_;
  const std::function<void(int)>* body_ = nullptr;
  int count_ = 0;
  int next_ = 0;  // next index to hand out (under mutex_)
  int busy_workers_ = 0;
  std::uint64_t generation_ = 0;  // counts calls, so that a worker runs each call once
  bool quit_ = false;
  int failed_index_ = -1;
  std::exception_ptr failure_;
  std::vector<std::thread> workers_;
};

}  // namespace codesim::models
