// SIGINT and SIGTERM during long work (interrupt_guard.hpp).
#include "app/cli/interrupt_guard.hpp"

#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstring>

#include "app/exec/unit_executor.hpp"

namespace codesim::app {
namespace {

// Read by the handler: a lock-free atomic pointer is async-signal-safe.
std::atomic<const char*> interrupt_message{""};

extern "C" void on_interrupt(int signal_number) {
  if (stop_requested()) {
    std::signal(signal_number, SIG_DFL);
    std::raise(signal_number);
    return;
  }
  request_stop();
  const char* message = interrupt_message.load();
  [[maybe_unused]] const auto written = write(STDERR_FILENO, message, std::strlen(message));
}

}  // namespace

InterruptGuard::InterruptGuard(const char* message) {
  interrupt_message.store(message);
  previous_int_ = std::signal(SIGINT, on_interrupt);
  previous_term_ = std::signal(SIGTERM, on_interrupt);
}

InterruptGuard::~InterruptGuard() {
  std::signal(SIGINT, previous_int_);
  std::signal(SIGTERM, previous_term_);
}

}  // namespace codesim::app
