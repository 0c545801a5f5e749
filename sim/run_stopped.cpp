// The process-wide stop request and the poll of a thread's stop flag.
#include "sim/run_stopped.hpp"

#include <atomic>
#include <string>

namespace codesim::sim {
namespace {

std::atomic<bool> g_stop_requested{false};
static_assert(std::atomic<bool>::is_always_lock_free, "set from a signal handler");
thread_local const std::atomic<bool>* t_polling = nullptr;

}  // namespace

std::atomic<bool>& process_stop_flag() noexcept { return g_stop_requested; }
void note_stop_request() noexcept { g_stop_requested.store(true, std::memory_order_relaxed); }
void clear_stop_request() noexcept { g_stop_requested.store(false, std::memory_order_relaxed); }

StopPolling::StopPolling(const std::atomic<bool>& flag) : was_polling_(t_polling) {
  t_polling = &flag;
}
StopPolling::~StopPolling() { t_polling = was_polling_; }

void poll_stop(const char* where) {
  if (t_polling != nullptr && t_polling->load(std::memory_order_relaxed))
    throw RunStopped(std::string("stopped on request in ") + where);
}

}  // namespace codesim::sim
