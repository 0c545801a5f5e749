// The codesim command-line entry point: starts MPI when launched by mpirun, runs the CLI and turns
// any escaped exception into exit 1.
#include <csignal>
#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include "app/cli/cli.hpp"
#include "app/exec/unit_executor.hpp"
#include "models/linalg/memory_reuse.hpp"

int main(int argc, char** argv) {
  // SIGINT and SIGTERM end codesim at any point (a run catches them while its units run), even
  // when it was started ignoring them, as a shell does for commands run in the background.
  std::signal(SIGINT, SIG_DFL);
  std::signal(SIGTERM, SIG_DFL);
  codesim::app::mpi_init(&argc, &argv);            // a no-op unless launched by mpirun
  codesim::models::keep_freed_memory_for_reuse();  // no page faults on every step's buffers
  int code = 1;
  try {
    const std::vector<std::string> args(argv + 1, argv + argc);
    code = codesim::app::run_cli(args, std::cout, std::cerr);
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
  } catch (...) {
    std::cerr << "error: unknown failure\n";
  }
  codesim::app::mpi_finalize();
  return code;
}
