// codesim run's --distribute and --memory-limit-gb: bad values and a run outside mpirun are refused
// in one line, and the memory limit is what the preflight compares with. (The runs over ranks
// themselves: tests/mpi/compare_distributed_run.sh.)
#include <filesystem>
#include <fstream>
#include <string>

#include <doctest/doctest.h>

#include "support/cli_runner.hpp"
#include "support/temp_directory.hpp"

namespace {

namespace fs = std::filesystem;
using codesim::test::cli;
using codesim::test::CliResult;
using codesim::test::TempDirectory;

/// A small numeric training run (a few milliseconds) on synthetic data.
fs::path write_small_scenario(const fs::path& directory) {
  const fs::path path = directory / "small_training.json";
  std::ofstream out(path);
  out << R"({
    "name": "small_training",
    "cluster": {"nodes": 4},
    "workload": {"kind": "training", "layers": [8, 12, 4], "iterations": 5,
                 "dataset": {"kind": "synthetic", "features": 8, "classes": 4, "samples": 40,
                             "test_samples": 10}},
    "strategy": {"scheme": "uncoded", "m": 2, "n": 2}
  })";
  return path;
}

}  // namespace

TEST_CASE("--distribute other than nodes, or outside an MPI job, is refused and writes nothing") {
  TempDirectory dir;
  const fs::path scenario = write_small_scenario(dir.path());
  const fs::path never = dir.path() / "never.json";
  const CliResult what =
      cli({"run", scenario.string(), "-o", never.string(), "--distribute", "gpus"});
  CHECK(what.code == 2);
  CHECK(what.err ==
        "error: codesim run: --distribute gpus is not a distribution (expected nodes)\n");
  const CliResult jobs =
      cli({"run", scenario.string(), "-o", never.string(), "--distribute", "nodes", "--jobs", "2"});
  CHECK(jobs.code == 2);
  CHECK(jobs.err.find("--jobs 2 with --distribute nodes (expected --jobs 1") != std::string::npos);
  const CliResult alone =
      cli({"run", scenario.string(), "-o", never.string(), "--distribute", "nodes"});
  CHECK(alone.code == 2);
  CHECK(alone.err.rfind("error: codesim run: --distribute nodes needs the ranks of an MPI job",
                        0) == 0);
  CHECK(alone.err.find('\n') + 1 == alone.err.size());
  CHECK_FALSE(fs::exists(never));
}

TEST_CASE("--memory-limit-gb must be a positive size and refuses a run that needs more") {
  TempDirectory dir;
  const fs::path scenario = write_small_scenario(dir.path());
  const fs::path out = dir.path() / "out.json";
  for (const std::string bad : {"0", "-1", "lots", "inf", ""}) {
    CAPTURE(bad);
    const CliResult r =
        cli({"run", scenario.string(), "-o", out.string(), "--memory-limit-gb", bad});
    CHECK(r.code == 2);
    CHECK(r.err.find("is not a memory size (expected a positive number of gigabytes)") !=
          std::string::npos);
  }
  const CliResult tight =
      cli({"run", scenario.string(), "-o", out.string(), "--memory-limit-gb", "1e-9"});
  CHECK(tight.code == 2);
  CHECK(tight.err.find("of memory") != std::string::npos);
  CHECK(tight.err.find("but 1e-09 GB is available") != std::string::npos);
  CHECK_FALSE(fs::exists(out));
  const CliResult ample =
      cli({"run", scenario.string(), "-o", out.string(), "-q", "--memory-limit-gb", "100"});
  CHECK(ample.code == 0);
  CHECK(fs::exists(out));
}
