// codesim-bench: dispatches `codesim-bench BENCHMARK ARGS...` to the benchmark of that name.
#include <iostream>
#include <string>
#include <vector>

#include "bench/benchmarks.hpp"

namespace {
constexpr const char* kUsage =
    "usage: codesim-bench engine --nodes N --tasks K [--seed S] [--json]\n"
    "       codesim-bench codes [--json] [--quick]\n"
    "       codesim-bench training [--overhead | --memory] [options] (see training --help)\n"
    "       codesim-bench stochastic [--case paper|large] [--iterations N] [--runs R] [--json]\n";
}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << kUsage;
    return 2;
  }
  const std::string name = argv[1];
  const std::vector<std::string> args(argv + 2, argv + argc);
  if (name == "engine") return codesim::bench::run_engine_bench(args, std::cout);
  if (name == "codes") return codesim::bench::run_codes_bench(args, std::cout);
  if (name == "training") return codesim::bench::run_training_bench(args, std::cout);
  if (name == "stochastic") return codesim::bench::run_stochastic_bench(args, std::cout);
  if (name == "--help" || name == "-h") {
    std::cout << kUsage;
    return 0;
  }
  std::cerr << "error: unknown benchmark '" << name
            << "' (expected engine, codes, training or stochastic)\n"
            << kUsage;
  return 2;
}
