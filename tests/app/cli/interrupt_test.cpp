// SIGINT and SIGTERM during `codesim run`: the finished replicas are written atomically, marked
// "complete": false, the exit code is 130 and no temporary file is left.
#include <doctest/doctest.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

#include "support/temp_directory.hpp"

using codesim::test::read_file;
using codesim::test::TempDirectory;
namespace fs = std::filesystem;

namespace {

/// Many replicas of an iterative job, each a few milliseconds: the run lasts tens of seconds.
fs::path write_long_scenario(const fs::path& directory) {
  const fs::path path = directory / "long.json";
  std::ofstream(path) << R"({
    "name": "long", "seed": 2, "replicas": 200000,
    "cluster": {"nodes": 16, "stragglers": {"kind": "shifted_exponential", "shift": 1, "rate": 2}},
    "checkpoint": {"policy": "every_iterations", "every_iterations": 10, "write_s": 1},
    "workload": {"iterations": 200, "wait_for": 12}
  })";
  return path;
}

/// Starts codesim with `args` (stdout and stderr to files in `directory`); returns its pid once
/// the child runs codesim (signals sent earlier would reach this test's own handlers). With
/// `ignoring_sigint` it starts with SIGINT ignored, as a shell starts commands in the background.
pid_t start_codesim(const std::vector<std::string>& args, const fs::path& directory,
                    bool ignoring_sigint = false) {
  int started[2];  // closed by the exec (close-on-exec): the parent reads end of file then
  REQUIRE(pipe2(started, O_CLOEXEC) == 0);
  const pid_t pid = fork();
  if (pid == 0) {
    close(started[0]);
    if (ignoring_sigint) signal(SIGINT, SIG_IGN);
    const std::string out = (directory / "stdout.txt").string();
    const std::string err = (directory / "stderr.txt").string();
    if (!freopen(out.c_str(), "w", stdout) || !freopen(err.c_str(), "w", stderr)) _exit(99);
    std::vector<char*> argv{const_cast<char*>(CODESIM_BINARY)};
    for (const std::string& arg : args) argv.push_back(const_cast<char*>(arg.c_str()));
    argv.push_back(nullptr);
    execv(CODESIM_BINARY, argv.data());
    _exit(98);
  }
  close(started[1]);
  char byte = 0;
  while (read(started[0], &byte, 1) < 0 && errno == EINTR) {
  }
  close(started[0]);
  return pid;
}

int wait_for_exit(pid_t pid) {
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/// The exit code (128 + signal when killed) when `pid` ends within `limit`, else nullopt.
std::optional<int> wait_for_exit_within(pid_t pid, std::chrono::milliseconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  int status = 0;
  while (waitpid(pid, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > deadline) return std::nullopt;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/// wait_for_exit_within, killing `pid` when it does not end in time.
std::optional<int> end_within(pid_t pid, std::chrono::milliseconds limit) {
  const std::optional<int> code = wait_for_exit_within(pid, limit);
  if (!code) {
    kill(pid, SIGKILL);
    waitpid(pid, nullptr, 0);
  }
  return code;
}

/// A training scenario whose replica runs for hours.
fs::path write_endless_training(const fs::path& directory) {
  const fs::path scenario = directory / "train.json";
  std::ofstream(scenario) << R"({
    "name": "train", "seed": 2, "replicas": 1, "cluster": {"nodes": 4},
    "workload": {"kind": "training",
                 "dataset": {"kind": "synthetic", "features": 64, "classes": 4, "samples": 500,
                             "test_samples": 50},
                 "layers": [64, 64, 4], "iterations": 100000000},
    "strategy": {"scheme": "uncoded", "m": 2, "n": 2}
  })";
  return scenario;
}

}  // namespace

TEST_CASE("an interrupted run writes the finished replicas, marked incomplete, and exits 130") {
  REQUIRE_MESSAGE(fs::exists(CODESIM_BINARY), "build the codesim target first");
  for (int signal_number : {SIGINT, SIGTERM}) {
    CAPTURE(signal_number);
    TempDirectory dir;
    const fs::path scenario = write_long_scenario(dir.path());
    const fs::path output = dir / "out" / "results.json";
    const pid_t pid =
        start_codesim({"run", scenario.string(), "-o", output.string(), "--jobs", "2"}, dir.path());
    std::this_thread::sleep_for(std::chrono::milliseconds(800));
    kill(pid, signal_number);
    CHECK(wait_for_exit(pid) == 130);
    const std::string err = read_file(dir / "stderr.txt");
    CHECK(err.find("interrupted: finishing the running replicas") != std::string::npos);
    REQUIRE(fs::exists(output));
    const auto results = nlohmann::ordered_json::parse(read_file(output));
    CHECK(results["complete"] == false);
    const auto& replicas = results["points"][0]["replicas"];
    CHECK(replicas.size() > 0);
    CHECK(replicas.size() < 200000);
    CHECK(results["points"][0]["aggregate"]["completion_time_s"]["n"] == replicas.size());
    int files = 0;
    for ([[maybe_unused]] const auto& entry : fs::directory_iterator(dir / "out")) ++files;
    CHECK(files == 1);  // no temporary file left behind
  }
}

TEST_CASE("an interrupt abandons a training replica that is still running") {
  REQUIRE_MESSAGE(fs::exists(CODESIM_BINARY), "build the codesim target first");
  TempDirectory dir;
  const fs::path scenario = write_endless_training(dir.path());
  const fs::path output = dir / "r.json";
  const auto start = std::chrono::steady_clock::now();
  const pid_t pid = start_codesim({"run", scenario.string(), "-o", output.string()}, dir.path());
  std::this_thread::sleep_for(std::chrono::milliseconds(800));
  kill(pid, SIGINT);
  CHECK(wait_for_exit(pid) == 130);
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(30));
  const auto results = nlohmann::ordered_json::parse(read_file(output));
  CHECK(results["complete"] == false);
  CHECK(results["points"][0]["replicas"].empty());
}

TEST_CASE("an interrupt ends a run inside a flow simulation of minutes within seconds") {
  // A 10,000-node torus whose all-gather is one flow simulation of minutes: before, the replica
  // was polled only between iterations, so SIGTERM took that long to end it.
  REQUIRE_MESSAGE(fs::exists(CODESIM_BINARY), "build the codesim target first");
  TempDirectory dir;
  const fs::path scenario = dir / "torus.json";
  std::ofstream(scenario) << R"({
    "name": "torus", "replicas": 1,
    "cluster": {"nodes": 10000, "network": {"topology": "torus2d"}},
    "workload": {"kind": "iterative_job", "iterations": 3, "bytes_per_task": 1e6}
  })";
  const fs::path output = dir / "r.json";
  const pid_t pid = start_codesim({"run", scenario.string(), "-o", output.string()}, dir.path());
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  kill(pid, SIGTERM);
  CHECK(end_within(pid, std::chrono::seconds(5)) == std::optional<int>(130));
  const auto results = nlohmann::ordered_json::parse(read_file(output));
  CHECK(results["complete"] == false);
  CHECK(results["points"][0]["replicas"].empty());
}

TEST_CASE("a completed run is marked complete") {
  REQUIRE_MESSAGE(fs::exists(CODESIM_BINARY), "build the codesim target first");
  TempDirectory dir;
  const fs::path scenario = write_long_scenario(dir.path());
  const pid_t pid = start_codesim(
      {"run", scenario.string(), "-o", (dir / "r.json").string(), "--replicas", "3"}, dir.path());
  CHECK(wait_for_exit(pid) == 0);
  CHECK(nlohmann::ordered_json::parse(read_file(dir / "r.json"))["complete"] == true);
}

TEST_CASE("an interrupted run where no replica finished keeps an earlier results file") {
  REQUIRE_MESSAGE(fs::exists(CODESIM_BINARY), "build the codesim target first");
  TempDirectory dir;
  const fs::path scenario = write_endless_training(dir.path());
  const fs::path output = dir / "r.json";
  const std::string earlier = R"({"complete": true, "points": ["hours of work"]})";
  codesim::test::write_text(output, earlier);
  const pid_t pid = start_codesim({"run", scenario.string(), "-o", output.string()}, dir.path());
  std::this_thread::sleep_for(std::chrono::milliseconds(800));
  kill(pid, SIGINT);
  CHECK(wait_for_exit(pid) == 130);
  CHECK(read_file(output) == earlier);
  CHECK(read_file(dir / "stderr.txt")
            .find("interrupted before any replica finished: " + output.string() +
                  " is kept as it was (nothing written)") != std::string::npos);
}

TEST_CASE("SIGINT ends codesim while it reads its input, even when started ignoring SIGINT") {
  REQUIRE_MESSAGE(fs::exists(CODESIM_BINARY), "build the codesim target first");
  TempDirectory dir;
  // 48 MB of JSON under an unknown key: seconds of reading and parsing, then an error (exit 2).
  const fs::path scenario = dir / "big.json";
  {
    std::string text = "{\"x\": [0";
    text.reserve(48u << 20);
    while (text.size() < (48u << 20)) text += ",0";
    codesim::test::write_text(scenario, text + "]}");
  }
  for (const std::string command : {"run", "validate"}) {
    CAPTURE(command);
    const pid_t pid =
        start_codesim({command, scenario.string()}, dir.path(), /*ignoring_sigint=*/true);
    // Interrupt until it ends (the first signals may come before main() takes SIGINT back).
    std::optional<int> code;
    for (int attempt = 0; attempt < 500 && !code; ++attempt) {
      kill(pid, SIGINT);
      code = wait_for_exit_within(pid, std::chrono::milliseconds(40));
    }
    if (!code) code = end_within(pid, std::chrono::seconds(1));
    CHECK(code == std::optional<int>(128 + SIGINT));
  }
}

TEST_CASE("a scenario that is a FIFO is refused at once instead of waiting for a writer") {
  REQUIRE_MESSAGE(fs::exists(CODESIM_BINARY), "build the codesim target first");
  TempDirectory dir;
  const fs::path fifo = dir / "fifo.json";
  REQUIRE(mkfifo(fifo.c_str(), 0600) == 0);
  for (const std::string command : {"run", "validate"}) {
    CAPTURE(command);
    const pid_t pid = start_codesim({command, fifo.string()}, dir.path());
    CHECK(end_within(pid, std::chrono::seconds(10)) == std::optional<int>(2));
    CHECK(read_file(dir / "stderr.txt") ==
          "error: " + fifo.string() +
              ": /: is a FIFO, not a regular file (expected a readable scenario JSON file)\n");
  }
}

namespace {

/// A small advise scenario whose stage 2 runs tens of seconds (`iterations` per replica).
fs::path write_advise_scenario(const fs::path& directory, int iterations) {
  const fs::path path = directory / "advise.json";
  std::ofstream(path) << R"({"name": "small", "seed": 3,
    "cluster": {"nodes": 8, "speed_flops_per_s": 1e7},
    "checkpoint": {"policy": "every_iterations", "every_iterations": 20, "write_s": 0.002,
                   "restart_s": 0.002},
    "workload": {"kind": "training", "mode": "stochastic", "layers": [64, 64, 16],
                 "iterations": )"
                      << iterations << R"(},
    "strategy": {"scheme": "replication", "m": 1, "n": 1, "copies": 2},
    "faults": {"targets": {"weights": {"probability_per_operation": 0.003}}}})";
  return path;
}

/// Starts `args` and sends SIGINT after `after`; the exit code and the time it took to end after
/// the signal (killed after 30 s).
std::pair<int, double> interrupt_after(const std::vector<std::string>& args,
                                       const fs::path& directory, std::chrono::milliseconds after) {
  const pid_t pid = start_codesim(args, directory);
  std::this_thread::sleep_for(after);
  const auto signalled = std::chrono::steady_clock::now();
  kill(pid, SIGINT);
  const std::optional<int> code = end_within(pid, std::chrono::seconds(30));
  const double took_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - signalled).count();
  return {code.value_or(-1), took_s};
}

}  // namespace

TEST_CASE("an interrupted advise writes what it ranked, marked incomplete, or keeps the old file") {
  REQUIRE_MESSAGE(fs::exists(CODESIM_BINARY), "build the codesim target first");
  TempDirectory dir;
  const fs::path scenario = write_advise_scenario(dir.path(), 20000);
  const fs::path output = dir / "advice.json";
  const std::string earlier = R"({"kind": "advice", "earlier": true})";
  bool partial = false;
  // Stage 1 and the first chunk of stage 2 take a few seconds: a signal before they end keeps
  // the earlier file, one after writes what was ranked. Later signals until one lands after.
  for (const int after_ms : {300, 3000, 6000, 12000}) {
    CAPTURE(after_ms);
    codesim::test::write_text(output, earlier);
    const auto [code, took_s] = interrupt_after(
        {"advise", scenario.string(), "-o", output.string(), "--budget-s", "100000"}, dir.path(),
        std::chrono::milliseconds(after_ms));
    CAPTURE(took_s);
    REQUIRE(code == 130);  // the whole advise takes about a minute: every signal interrupts it
    CHECK(took_s < 5.0);
    const std::string err = read_file(dir / "stderr.txt");
    CHECK(err.find("interrupted: finishing the running simulations") != std::string::npos);
    if (read_file(output) == earlier) {
      CHECK(err.find("interrupted before any configuration was simulated: " + output.string() +
                     " not written (a file already there is kept)") != std::string::npos);
      continue;
    }
    const auto advice = nlohmann::ordered_json::parse(read_file(output));
    CHECK(advice["complete"] == false);
    CHECK(advice["counts"]["simulation"].get<int>() > 0);
    CHECK(advice["recommendation"]["label"].is_string());
    CHECK(err.find("interrupted: " + output.string() +
                   " holds the configurations ranked before the interruption") !=
          std::string::npos);
    partial = true;
    break;
  }
  CHECK(partial);
}

TEST_CASE("an interrupted map writes the cells that finished, marked incomplete") {
  REQUIRE_MESSAGE(fs::exists(CODESIM_BINARY), "build the codesim target first");
  TempDirectory dir;
  const fs::path scenario = write_advise_scenario(dir.path(), 2000);
  const fs::path output = dir / "map.json";
  bool partial = false;
  for (const int after_ms : {4000, 8000, 16000}) {
    CAPTURE(after_ms);
    const auto [code, took_s] = interrupt_after(
        {"advise", scenario.string(), "-o", output.string(), "--map",
         "/faults/targets/weights/probability_per_operation=1e-4..1e-2:12", "--budget-s", "20"},
        dir.path(), std::chrono::milliseconds(after_ms));
    CAPTURE(took_s);
    REQUIRE(code == 130);
    CHECK(took_s < 5.0);
    if (!fs::exists(output)) {
      CHECK(read_file(dir / "stderr.txt").find("interrupted before any cell finished") !=
            std::string::npos);
      continue;
    }
    const auto map = nlohmann::ordered_json::parse(read_file(output));
    CHECK(map["complete"] == false);
    const std::size_t cells = map["cells"]["rows"].size();
    CHECK(cells > 0);
    CHECK(cells < 12);
    CHECK(read_file(dir / "stderr.txt")
              .find("interrupted: " + output.string() + " holds the " + std::to_string(cells) +
                    " cells that finished (\"complete\": false)") != std::string::npos);
    // codesim plot draws an incomplete map: the missing cells stay blank.
    const pid_t plot =
        start_codesim({"plot", output.string(), "-o", (dir / "map.png").string()}, dir.path());
    CHECK(wait_for_exit(plot) == 0);
    partial = true;
    break;
  }
  CHECK(partial);
}
