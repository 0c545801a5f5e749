// Draws the progress bar from the runner's unit counts and the shared iteration counter.
#include "app/cli/progress_bar.hpp"

#include <string>

namespace codesim::app {

ProgressBar::ProgressBar(std::ostream& err, bool enabled,
                         const std::atomic<std::uint64_t>& iterations, double delay_s,
                         std::string_view units)
    : err_(err), enabled_(enabled), iterations_(iterations), delay_s_(delay_s), units_(units) {
  if (enabled_) ticker_ = std::thread([this] { tick(); });
}

ProgressBar::~ProgressBar() {
  if (ticker_.joinable()) {
    {
      const std::lock_guard lock(mutex_);
      finished_ = true;
    }
    wake_.notify_one();
    ticker_.join();
  }
  if (shown_) err_ << "\r\033[K" << std::flush;
}

void ProgressBar::update(const RunProgress& progress) {
  if (!enabled_) return;
  const std::lock_guard lock(mutex_);
  progress_ = progress;
  draw();
}

void ProgressBar::tick() {
  std::unique_lock lock(mutex_);
  while (!wake_.wait_for(lock, std::chrono::milliseconds(500), [this] { return finished_; })) {
    if (progress_.units_total > 0) draw();
  }
}

void ProgressBar::draw() {
  const double elapsed_s = std::chrono::duration<double>(Clock::now() - start_).count();
  if (elapsed_s < delay_s_ && progress_.units_done < progress_.units_total) return;
  if (progress_.units_done == progress_.units_total && !shown_) return;
  shown_ = true;
  const double fraction =
      static_cast<double>(progress_.units_done) / static_cast<double>(progress_.units_total);
  const int width = 30;
  const int filled = static_cast<int>(fraction * width);
  err_ << "\r[" << std::string(static_cast<std::size_t>(filled), '#')
       << std::string(static_cast<std::size_t>(width - filled), '.') << "] " << progress_.units_done
       << "/" << progress_.units_total << " " << units_;
  if (progress_.points_total > 1) {
    err_ << " (" << progress_.points_done << "/" << progress_.points_total << " points)";
  }
  const std::uint64_t iterations = iterations_.load(std::memory_order_relaxed);
  if (iterations > 0) err_ << ", " << iterations << " simulated iterations";
  err_ << ", " << static_cast<long>(elapsed_s) << " s elapsed";
  if (progress_.units_done > 0 && progress_.units_done < progress_.units_total) {
    err_ << ", ETA " << static_cast<long>(elapsed_s / fraction - elapsed_s) << " s";
  }
  err_ << "\033[K" << std::flush;
}

}  // namespace codesim::app
