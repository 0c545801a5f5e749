// SIGINT and SIGTERM during `codesim run`: the finished replicas are written atomically, marked
// "complete": false, the exit code is 130 and no temporary file is left.
#include <doctest/doctest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
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

/// Starts codesim with `args` (stdout and stderr to files in `directory`); returns its pid.
pid_t start_codesim(const std::vector<std::string>& args, const fs::path& directory) {
  const pid_t pid = fork();
  if (pid == 0) {
    const std::string out = (directory / "stdout.txt").string();
    const std::string err = (directory / "stderr.txt").string();
    if (!freopen(out.c_str(), "w", stdout) || !freopen(err.c_str(), "w", stderr)) _exit(99);
    std::vector<char*> argv{const_cast<char*>(CODESIM_BINARY)};
    for (const std::string& arg : args) argv.push_back(const_cast<char*>(arg.c_str()));
    argv.push_back(nullptr);
    execv(CODESIM_BINARY, argv.data());
    _exit(98);
  }
  return pid;
}

int wait_for_exit(pid_t pid) {
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
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
