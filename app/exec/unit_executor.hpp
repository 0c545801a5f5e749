// Where work units run: on threads of this process, or on every rank of an MPI job with dynamic
// load balancing; either way the root process receives every unit's output in index order.
#pragma once

#include <cstddef>
#include <exception>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace codesim::app {

/// Called on the root after units finish: units done so far (all ranks) and the total.
using UnitProgress = std::function<void(std::size_t done, std::size_t total)>;

/// Runs numbered work units whose outputs are byte strings.
class UnitExecutor {
 public:
  virtual ~UnitExecutor() = default;
  /// Runs task(i) for every i in [0, count), `jobs` threads per process, until every unit ran or
  /// stop_requested() (then units not started are skipped and their outputs are empty). On the
  /// root returns the outputs by index; elsewhere an empty vector. When units throw, the exception
  /// of the lowest failing index is rethrown on the root (a ScenarioError stays one); other
  /// processes then throw RankFailure.
  virtual std::vector<std::string> run(std::size_t count, int jobs,
                                       const std::function<std::string(std::size_t)>& task,
                                       const UnitProgress& on_progress) = 0;
  /// True in the process that writes results and messages.
  virtual bool is_root() const = 0;
  /// Every process calls this with the failure it met (null when none) before work that needs
  /// all of them. When any failed, the root rethrows the failure of the lowest failing rank and
  /// the others throw RankFailure; otherwise it returns.
  virtual void agree(std::exception_ptr failure) = 0;
};

/// Thrown on non-root ranks when the run failed and the root reports why (with its exit code).
struct RankFailure {
  int exit_code = 1;  ///< the root's exit code
};

/// Asks every executor of this process to start no more units and the replicas that poll the
/// process-wide flag (sim::process_stop_flag) to stop (async-signal-safe: a signal handler may
/// call it); stop_requested() tells whether it was asked.
void request_stop();
bool stop_requested();

/// Threads of this process only.
std::unique_ptr<UnitExecutor> make_local_executor();
/// Every rank of the MPI job when codesim runs under an MPI launcher and was built with MPI,
/// else the local executor.
std::unique_ptr<UnitExecutor> make_default_executor();

/// Every rank of the MPI job runs every unit, in index order on one thread, each a run
/// distributed over all ranks (codesim run --distribute nodes): the root returns the outputs. A
/// unit that fails on one rank cannot be agreed on while the others wait inside it, so that rank
/// reports the failure ("error: ...", with its rank) and aborts the job with exit code 2 (bad
/// input) or 1. Null when MPI is not active.
std::unique_ptr<UnitExecutor> make_lockstep_executor();

/// Starts MPI when the process was launched by an MPI launcher (and codesim was built with MPI);
/// a no-op otherwise. Call once from main() before anything else, and mpi_finalize() at the end.
void mpi_init(int* argc, char*** argv);
void mpi_finalize();
/// This process's rank (0 without MPI) and the number of ranks (1 without MPI).
int mpi_rank();
int mpi_size();
/// Whether this codesim was built with MPI (CODESIM_MPI).
bool mpi_built();
/// Whether MPI was started (an MPI launcher started this process and codesim has MPI).
bool mpi_active();

}  // namespace codesim::app
