// SIGINT and SIGTERM during long work (run, advise, maps): the first asks the work to stop and
// write what finished, the second ends the process at once.
#pragma once

namespace codesim::app {

/// The exit code of work that a signal interrupted (128 + SIGINT, as shells report it).
inline constexpr int kInterrupted = 130;

/// Installs the handler for its lifetime and restores the previous ones after. The first signal
/// calls request_stop() (app/exec/unit_executor.hpp) and prints `message` on stderr; a second
/// one ends the process by the default disposition. `message` must outlive the guard.
class InterruptGuard {
 public:
  explicit InterruptGuard(const char* message);
  ~InterruptGuard();
  InterruptGuard(const InterruptGuard&) = delete;
  InterruptGuard& operator=(const InterruptGuard&) = delete;

 private:
  void (*previous_int_)(int) = nullptr;
  void (*previous_term_)(int) = nullptr;
};

}  // namespace codesim::app
