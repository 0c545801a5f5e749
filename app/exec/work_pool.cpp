// The work pool: an atomic next-index counter shared by the calling thread and jobs - 1 helpers;
// the first failure stops the hand-out and the lowest failing index wins.
#include "app/exec/work_pool.hpp"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include "sim/check.hpp"

namespace codesim::app {

namespace {

/// State shared by the threads of one run_indexed call.
class Pool {
 public:
  Pool(std::size_t count, const std::function<void(std::size_t)>& task,
       const std::function<void(std::size_t)>& on_done)
      : count_(count), task_(task), on_done_(on_done) {}

  /// Takes indices until none are left or a task failed.
  void work() {
    while (!failed_.load()) {
      const std::size_t i = next_.fetch_add(1);
      if (i >= count_) return;
      try {
        task_(i);
        if (on_done_) {
          const std::lock_guard<std::mutex> lock(mutex_);
          on_done_(i);
        }
      } catch (...) {
        fail(i, std::current_exception());
      }
    }
  }

  /// Stops the hand-out; keeps the exception of the lowest failing index.
  void fail(std::size_t index, std::exception_ptr error) {
    const std::lock_guard<std::mutex> lock(mutex_);
    if (!error_ || index < error_index_) {
      error_ = std::move(error);
      error_index_ = index;
    }
    failed_.store(true);
  }

  /// Stops the hand-out without recording a task failure.
  void stop() { failed_.store(true); }

  void rethrow_if_failed() const {
    if (error_) std::rethrow_exception(error_);
  }

 private:
  const std::size_t count_;
  const std::function<void(std::size_t)>& task_;
  const std::function<void(std::size_t)>& on_done_;
  std::atomic<std::size_t> next_{0};
  std::atomic<bool> failed_{false};
  std::mutex mutex_;  // guards on_done_ calls and the error below
  std::exception_ptr error_;
  std::size_t error_index_ = 0;
};

}  // namespace

void run_indexed(std::size_t count, int jobs, const std::function<void(std::size_t)>& task,
                 const std::function<void(std::size_t)>& on_done) {
  CODESIM_CHECK(jobs >= 1, "run_indexed needs at least one job");
  CODESIM_CHECK(static_cast<bool>(task), "run_indexed needs a task");
  Pool pool(count, task, on_done);
  const std::size_t helpers =
      std::min(static_cast<std::size_t>(jobs - 1), count > 0 ? count - 1 : std::size_t{0});
  std::vector<std::thread> threads;
  threads.reserve(helpers);
  try {
    for (std::size_t t = 0; t < helpers; ++t) threads.emplace_back([&pool] { pool.work(); });
  } catch (...) {
    // Could not start a thread: stop the hand-out, let the started ones finish, report it.
    pool.stop();
    for (auto& thread : threads) thread.join();
    throw;
  }
  pool.work();
  for (auto& thread : threads) thread.join();
  pool.rethrow_if_failed();
}

}  // namespace codesim::app
