// ThreadTeam: workers wait for a new generation, take indices under the mutex, report when done.
#include "models/linalg/thread_team.hpp"

#include "sim/check.hpp"

namespace codesim::models {

ThreadTeam::ThreadTeam(int threads) {
  CODESIM_CHECK(threads >= 1, "a team has at least one thread");
  workers_.reserve(static_cast<std::size_t>(threads - 1));
  for (int i = 1; i < threads; ++i) workers_.emplace_back([this] { work(); });
}

ThreadTeam::~ThreadTeam() {
  {
    const std::lock_guard lock(mutex_);
    quit_ = true;
  }
  start_.notify_all();
  for (std::thread& worker : workers_) worker.join();
}

void ThreadTeam::parallel_for(int count, const std::function<void(int)>& body) {
  if (count <= 0) return;
  if (workers_.empty() || count == 1) {
    for (int i = 0; i < count; ++i) body(i);
    return;
  }
  {
    const std::lock_guard lock(mutex_);
    body_ = &body;
    count_ = count;
    next_ = 0;
    failed_index_ = -1;
    failure_ = nullptr;
    busy_workers_ = static_cast<int>(workers_.size());
    ++generation_;
  }
  start_.notify_all();
  run_tasks();
  std::unique_lock lock(mutex_);
  done_.wait(lock, [this] { return busy_workers_ == 0; });
  body_ = nullptr;
  if (failure_) std::rethrow_exception(failure_);
}

void ThreadTeam::work() {
  std::uint64_t seen = 0;
  for (;;) {
    {
      std::unique_lock lock(mutex_);
      start_.wait(lock, [&] { return quit_ || generation_ != seen; });
      if (quit_) return;
      seen = generation_;
    }
    run_tasks();
    {
      const std::lock_guard lock(mutex_);
      --busy_workers_;
    }
    done_.notify_one();
  }
}

void ThreadTeam::run_tasks() {
  for (;;) {
    int index = 0;
    {
      const std::lock_guard lock(mutex_);
      if (next_ >= count_ || failure_) return;
      index = next_++;
    }
    try {
      (*body_)(index);
    } catch (...) {
      const std::lock_guard lock(mutex_);
      if (!failure_ || index < failed_index_) {
        failed_index_ = index;
        failure_ = std::current_exception();
      }
    }
  }
}

}  // namespace codesim::models
