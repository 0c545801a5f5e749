// Local and MPI unit executors. Under MPI every rank claims the next unit from a shared counter on
// rank 0 (passive-target MPI_Fetch_and_op), runs it, and at the end sends its outputs to rank 0.
#include "app/exec/unit_executor.hpp"

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <thread>
#include <utility>

#include <nlohmann/json.hpp>

#include "app/config/scenario_error.hpp"
#include "app/exec/work_pool.hpp"
#include "sim/check.hpp"
#include "sim/run_stopped.hpp"

#ifdef CODESIM_WITH_MPI
#include <mpi.h>
#endif

namespace codesim::app {

namespace {

class LocalExecutor : public UnitExecutor {
 public:
  std::vector<std::string> run(std::size_t count, int jobs,
                               const std::function<std::string(std::size_t)>& task,
                               const UnitProgress& on_progress) override {
    std::vector<std::string> outputs(count);
    std::size_t done = 0;
    run_indexed(
        count, jobs,
        [&](std::size_t i) {
          if (!stop_requested()) outputs[i] = task(i);
        },
        [&](std::size_t) {
          ++done;
          if (on_progress) on_progress(done, count);
        });
    return outputs;
  }
  bool is_root() const override { return true; }
  void agree(std::exception_ptr failure) override {
    if (failure) std::rethrow_exception(failure);
  }
};

#ifdef CODESIM_WITH_MPI

bool g_mpi_active = false;
int g_thread_support = MPI_THREAD_SINGLE;

/// True when an MPI launcher started this process (OpenMPI, PMIx, MPICH/Hydra, Slurm).
bool launched_by_mpi() {
  for (const char* variable : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_SIZE", "PMI_RANK"})
    if (std::getenv(variable) != nullptr) return true;
  return false;
}

/// The failure of one unit, as sent to the root.
nlohmann::json failure_json(std::size_t index, const std::exception_ptr& error) {
  nlohmann::json failure = {{"index", index}};
  try {
    std::rethrow_exception(error);
  } catch (const ScenarioError& e) {
    failure["kind"] = "scenario";
    failure["file"] = e.file();
    failure["pointer"] = e.pointer();
    failure["message"] = e.message();
  } catch (const std::exception& e) {
    failure["kind"] = "runtime";
    failure["message"] = e.what();
  } catch (...) {
    failure["kind"] = "runtime";
    failure["message"] = "unknown failure";
  }
  return failure;
}

[[noreturn]] void rethrow_failure(const nlohmann::json& failure) {
  if (failure["kind"] == "scenario") {
    throw ScenarioError(failure["file"], failure["pointer"], failure["message"]);
  }
  throw std::runtime_error(failure["message"].get<std::string>());
}

void check_mpi(int code, const char* what) {
  if (code != MPI_SUCCESS) throw std::runtime_error(std::string("MPI failure in ") + what);
}

class MpiExecutor : public UnitExecutor {
 public:
  std::vector<std::string> run(std::size_t count, int jobs,
                               const std::function<std::string(std::size_t)>& task,
                               const UnitProgress& on_progress) override {
    if (jobs > 1 && g_thread_support < MPI_THREAD_SERIALIZED) {
      throw std::runtime_error(
          "this MPI library cannot be called from several threads (expected --jobs 1 under "
          "mpirun, or an MPI with MPI_THREAD_SERIALIZED support)");
    }
    const int rank = mpi_rank();
    // Counters on rank 0: [0] the next unit to claim, [1] units finished.
    std::int64_t* counters = nullptr;
    MPI_Win window;
    const MPI_Aint bytes = rank == 0 ? 2 * sizeof(std::int64_t) : 0;
    check_mpi(MPI_Win_allocate(bytes, sizeof(std::int64_t), MPI_INFO_NULL, MPI_COMM_WORLD,
                               &counters, &window),
              "MPI_Win_allocate");
    if (rank == 0) counters[0] = counters[1] = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock_all(0, window);

    std::mutex mpi_mutex;  // MPI_THREAD_SERIALIZED: one thread in MPI at a time
    auto fetch_add = [&](int slot, std::int64_t amount) {
      std::lock_guard<std::mutex> lock(mpi_mutex);
      std::int64_t before = 0;
      MPI_Fetch_and_op(&amount, &before, MPI_INT64_T, 0, slot, MPI_SUM, window);
      MPI_Win_flush(0, window);
      return before;
    };

    std::mutex results_mutex;
    nlohmann::json mine = nlohmann::json::array();  // [index, output] pairs and failures
    auto worker = [&] {
      for (;;) {
        if (stop_requested()) return;  // every rank got the signal from the launcher
        const std::int64_t claimed = fetch_add(0, 1);
        if (claimed < 0 || static_cast<std::size_t>(claimed) >= count) return;
        const auto index = static_cast<std::size_t>(claimed);
        nlohmann::json entry;
        try {
          entry = {{"index", index}, {"output", task(index)}};
        } catch (...) {
          entry = {{"failure", failure_json(index, std::current_exception())}};
          fetch_add(0, static_cast<std::int64_t>(count));  // everyone stops claiming
        }
        {
          std::lock_guard<std::mutex> lock(results_mutex);
          mine.push_back(std::move(entry));
        }
        const std::int64_t done = fetch_add(1, 1) + 1;
        if (rank == 0 && on_progress) {
          std::lock_guard<std::mutex> lock(results_mutex);
          on_progress(static_cast<std::size_t>(done), count);
        }
      }
    };
    std::vector<std::thread> threads;
    for (int t = 1; t < jobs; ++t) threads.emplace_back(worker);
    worker();
    for (auto& thread : threads) thread.join();
    MPI_Win_unlock_all(window);
    MPI_Win_free(&window);

    return collect(count, mine);
  }

  // Gathers every rank's [index, output] pairs and failures to rank 0, which returns the outputs
  // in unit order; the lowest failing unit's failure is rethrown (rank 0) or becomes a
  // RankFailure with its exit code (the other ranks).
  static std::vector<std::string> collect(std::size_t count, const nlohmann::json& mine) {
    const int rank = mpi_rank();
    const std::vector<std::string> gathered = gather_to_root(mine.dump());
    int status = 0;
    std::vector<std::string> outputs;
    std::optional<nlohmann::json> first_failure;
    if (rank == 0) {
      outputs.resize(count);
      for (const std::string& text : gathered) {
        for (const auto& entry : nlohmann::json::parse(text)) {
          if (entry.contains("failure")) {
            const auto& failure = entry["failure"];
            if (!first_failure || failure["index"] < (*first_failure)["index"])
              first_failure = failure;
          } else {
            outputs[entry["index"].get<std::size_t>()] = entry["output"].get<std::string>();
          }
        }
      }
      if (first_failure) status = (*first_failure)["kind"] == "scenario" ? 2 : 1;
    }
    MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (rank == 0 && first_failure) rethrow_failure(*first_failure);
    if (rank != 0 && status != 0) throw RankFailure{status};
    return outputs;
  }

  bool is_root() const override { return mpi_rank() == 0; }

  void agree(std::exception_ptr failure) override {
    const nlohmann::json mine =
        failure ? failure_json(static_cast<std::size_t>(mpi_rank()), failure) : nlohmann::json();
    const std::vector<std::string> all = gather_to_root(mine.dump());
    int status = 0;
    std::optional<nlohmann::json> first;
    for (const std::string& text : all) {  // rank order: the first failure is the lowest rank's
      const nlohmann::json entry = nlohmann::json::parse(text);
      if (!entry.is_null() && !first) first = entry;
    }
    if (first) status = (*first)["kind"] == "scenario" ? 2 : 1;
    MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (mpi_rank() == 0 && first) {
      if ((*first)["index"] != 0) {
        (*first)["message"] = "rank " + std::to_string((*first)["index"].get<int>()) + ": " +
                              (*first)["message"].get<std::string>();
      }
      rethrow_failure(*first);
    }
    if (status != 0) throw RankFailure{status};
  }

 private:
  /// Every rank's `text`, in rank order, on rank 0 (empty elsewhere).
  static std::vector<std::string> gather_to_root(const std::string& text) {
    const int size = mpi_size();
    const int rank = mpi_rank();
    CODESIM_CHECK(text.size() < (std::size_t{1} << 31), "one rank's outputs exceed 2 GB");
    int length = static_cast<int>(text.size());
    std::vector<int> lengths(static_cast<std::size_t>(size));
    MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
    std::vector<int> offsets(static_cast<std::size_t>(size), 0);
    std::string all;
    if (rank == 0) {
      std::int64_t total = 0;
      for (int r = 0; r < size; ++r) {
        offsets[static_cast<std::size_t>(r)] = static_cast<int>(total);
        total += lengths[static_cast<std::size_t>(r)];
      }
      CODESIM_CHECK(total < (std::int64_t{1} << 31), "the gathered outputs exceed 2 GB");
      all.resize(static_cast<std::size_t>(total));
    }
    MPI_Gatherv(text.data(), length, MPI_CHAR, all.data(), lengths.data(), offsets.data(), MPI_CHAR,
                0, MPI_COMM_WORLD);
    std::vector<std::string> texts;
    if (rank == 0) {
      for (int r = 0; r < size; ++r) {
        texts.push_back(all.substr(static_cast<std::size_t>(offsets[static_cast<std::size_t>(r)]),
                                   static_cast<std::size_t>(lengths[static_cast<std::size_t>(r)])));
      }
    }
    return texts;
  }
};

class LockstepExecutor : public MpiExecutor {
 public:
  std::vector<std::string> run(std::size_t count, int /*jobs*/,
                               const std::function<std::string(std::size_t)>& task,
                               const UnitProgress& on_progress) override {
    std::vector<std::string> outputs(count);
    for (std::size_t i = 0; i < count && !stop_requested(); ++i) {
      try {
        outputs[i] = task(i);
      } catch (...) {
        abort_job(std::current_exception());
      }
      if (on_progress && is_root()) on_progress(i + 1, count);
    }
    if (!is_root()) outputs.clear();
    return outputs;
  }

 private:
  [[noreturn]] static void abort_job(const std::exception_ptr& failure) {
    const nlohmann::json f = failure_json(0, failure);
    std::string where = f["kind"] == "scenario" ? f["file"].get<std::string>() + ": " +
                                                      f["pointer"].get<std::string>() + ": "
                                                : std::string();
    const int rank = mpi_rank();
    std::fprintf(stderr, "error: %s%s%s\n",
                 rank == 0 ? "" : ("rank " + std::to_string(rank) + ": ").c_str(), where.c_str(),
                 f["message"].get<std::string>().c_str());
    std::fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, f["kind"] == "scenario" ? 2 : 1);
    std::abort();
  }
};

#endif

}  // namespace

void request_stop() { sim::note_stop_request(); }
bool stop_requested() { return sim::process_stop_flag().load(); }

std::unique_ptr<UnitExecutor> make_local_executor() { return std::make_unique<LocalExecutor>(); }

#ifdef CODESIM_WITH_MPI

std::unique_ptr<UnitExecutor> make_default_executor() {
  if (g_mpi_active && mpi_size() > 1) return std::make_unique<MpiExecutor>();
  return make_local_executor();
}

std::unique_ptr<UnitExecutor> make_lockstep_executor() {
  if (!g_mpi_active) return nullptr;
  return std::make_unique<LockstepExecutor>();
}

bool mpi_active() { return g_mpi_active; }
bool mpi_built() { return true; }

void mpi_init(int* argc, char*** argv) {
  if (!launched_by_mpi()) return;
  MPI_Init_thread(argc, argv, MPI_THREAD_SERIALIZED, &g_thread_support);
  g_mpi_active = true;
}

void mpi_finalize() {
  if (g_mpi_active) MPI_Finalize();
  g_mpi_active = false;
}

int mpi_rank() {
  int rank = 0;
  if (g_mpi_active) MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank;
}

int mpi_size() {
  int size = 1;
  if (g_mpi_active) MPI_Comm_size(MPI_COMM_WORLD, &size);
  return size;
}

#else

std::unique_ptr<UnitExecutor> make_default_executor() { return make_local_executor(); }
std::unique_ptr<UnitExecutor> make_lockstep_executor() { return nullptr; }
bool mpi_active() { return false; }
bool mpi_built() { return false; }
void mpi_init(int*, char***) {}
void mpi_finalize() {}
int mpi_rank() { return 0; }
int mpi_size() { return 1; }

#endif

}  // namespace codesim::app
