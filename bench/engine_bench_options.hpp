// Command-line options of the engine benchmark, shared by codesim-bench and its SimGrid peer.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace codesim::bench {

constexpr double kEngineBenchSpeedFlopsPerS = 1e9;  ///< every node's speed
constexpr double kEngineBenchBaseFlops = 1e9;       ///< a task is base * (1 + Exp(1)) flops

struct EngineBenchOptions {
  long nodes = 64;
  long tasks = 2000;
  std::uint64_t seed = 1;
  bool json = false;
  bool help = false;
};

/// Parses a whole decimal integer >= `min`, else throws std::invalid_argument saying what is wrong.
inline long parse_bench_integer(const std::string& flag, const std::string& text, long min) {
  std::size_t used = 0;
  long value = 0;
  try {
    value = std::stol(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != text.size() || value < min) {
    throw std::invalid_argument(flag + " expects an integer >= " + std::to_string(min) + " (got '" +
                                text + "')");
  }
  return value;
}

/// `--nodes N --tasks K [--seed S] [--json] [--help]`; throws std::invalid_argument when malformed.
inline EngineBenchOptions parse_engine_bench_options(const std::vector<std::string>& args) {
  EngineBenchOptions options;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    auto value = [&]() -> const std::string& {
      if (i + 1 >= args.size()) throw std::invalid_argument(arg + " expects a value");
      return args[++i];
    };
    if (arg == "--nodes") {
      options.nodes = parse_bench_integer(arg, value(), 1);
    } else if (arg == "--tasks") {
      options.tasks = parse_bench_integer(arg, value(), 1);
    } else if (arg == "--seed") {
      options.seed = static_cast<std::uint64_t>(parse_bench_integer(arg, value(), 0));
    } else if (arg == "--json") {
      options.json = true;
    } else if (arg == "--help" || arg == "-h") {
      options.help = true;
    } else {
      throw std::invalid_argument("unknown argument '" + arg + "'");
    }
  }
  return options;
}

}  // namespace codesim::bench
