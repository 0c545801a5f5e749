// codesim plot refuses, before its script starts, inputs it could not read to an end (a FIFO,
// a device) and an output directory that is a file.
#include "app/cli/plot_command.hpp"

#include <doctest/doctest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "support/cli_runner.hpp"
#include "support/temp_directory.hpp"

namespace fs = std::filesystem;
using codesim::test::cli;
using codesim::test::CliResult;
using codesim::test::TempDirectory;

TEST_CASE("plot refuses a FIFO or a device as its results at once instead of blocking") {
  TempDirectory dir;
  const fs::path fifo = dir.path() / "results.json";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  const CliResult blocked = cli({"plot", fifo.string()});
  CHECK(blocked.code == 2);
  CHECK(blocked.err ==
        "error: " + fifo.string() +
            ": /: is a FIFO, not a regular file (expected a results, advice or map JSON of "
            "codesim run or codesim advise)\n");
  const CliResult zero = cli({"plot", "--timeline", "/dev/zero"});
  CHECK(zero.code == 2);
  CHECK(zero.err.find("/dev/zero: /: is a character device, not a regular file") !=
        std::string::npos);
  CHECK(cli({"plot", (dir.path() / "missing.json").string()}).err.find("no such file") !=
        std::string::npos);
}

TEST_CASE("plot -o naming an existing file says it is not a directory") {
  TempDirectory dir;
  const fs::path results = dir.path() / "r.json";
  std::ofstream(results) << "{}";
  const fs::path file = dir.path() / "figure.png";
  std::ofstream(file) << "png";
  const CliResult r = cli({"plot", results.string(), "-o", file.string()});
  CHECK(r.code == 2);
  CHECK(r.err == "error: " + file.string() +
                     ": is a file, not a directory (expected -o DIR: the directory for the "
                     "figures)\n");
  CHECK(codesim::test::read_file(file) == "png");
}
