// codesim-bench: dispatches `codesim-bench BENCHMARK ARGS...` to the benchmark of that name.
#include <iostream>
#include <string>
#include <vector>

#include "bench/benchmarks.hpp"
#include "models/linalg/dense_kernels.hpp"
#include "models/linalg/memory_reuse.hpp"

namespace {
constexpr const char* kUsage =
    "usage: codesim-bench engine --nodes N --tasks K [--seed S] [--json]\n"
    "       codesim-bench codes [--json] [--quick] [--abft-only]\n"
    "       codesim-bench training [--overhead | --memory] [options] (see training --help)\n"
    "       codesim-bench cnn [--agree] [options] (see cnn --help)\n"
    "       codesim-bench floor [--iterations N] [--runs R] [--threads T] [--triad-mib M] "
    "[--json]\n"
    "       codesim-bench stochastic [--case paper|large] [--iterations N] [--runs R] [--json]\n"
    "       codesim-bench topology [--shapes LIST] [--nodes LIST] [--iterations N] [--runs R] "
    "[--json]\n"
    "       codesim-bench network --pattern P --platform T --nodes N [--runs R] [--peer PATH] "
    "[--json]\n"
    "       codesim-bench network --small [--runs R] [--json]\n"
    "Every benchmark also takes --arithmetic auto|portable|avx2_fma|avx512 (default auto: the\n"
    "fastest this CPU runs): the build of the dense kernels, as `codesim run --arithmetic`.\n";

// Removes `--arithmetic KIND` from args into `arithmetic`; false (after a message) when invalid.
bool take_arithmetic(std::vector<std::string>& args, codesim::models::Arithmetic& arithmetic) {
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (args[i] != "--arithmetic") continue;
    const auto kind =
        i + 1 < args.size() ? codesim::models::parse_arithmetic(args[i + 1]) : std::nullopt;
    if (!kind || !codesim::models::arithmetic_available(*kind)) {
      std::cerr << "error: --arithmetic expects " << codesim::models::kArithmeticNames
                << " (avx2_fma needs AVX2 and FMA, avx512 AVX-512 F, DQ and VL)\n";
      return false;
    }
    arithmetic = *kind;
    args.erase(args.begin() + static_cast<std::ptrdiff_t>(i),
               args.begin() + static_cast<std::ptrdiff_t>(i) + 2);
    return true;
  }
  return true;
}
}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << kUsage;
    return 2;
  }
  codesim::models::keep_freed_memory_for_reuse();  // as codesim itself does
  const std::string name = argv[1];
  std::vector<std::string> args(argv + 2, argv + argc);
  auto arithmetic = codesim::models::fastest_arithmetic();  // --arithmetic auto
  if (!take_arithmetic(args, arithmetic)) return 2;
  if (name == "engine") return codesim::bench::run_engine_bench(args, std::cout);
  if (name == "codes") return codesim::bench::run_codes_bench(args, arithmetic, std::cout);
  if (name == "training") return codesim::bench::run_training_bench(args, arithmetic, std::cout);
  if (name == "cnn") return codesim::bench::run_cnn_bench(args, arithmetic, std::cout);
  if (name == "floor") return codesim::bench::run_floor_bench(args, arithmetic, std::cout);
  if (name == "stochastic") return codesim::bench::run_stochastic_bench(args, std::cout);
  if (name == "topology") return codesim::bench::run_topology_bench(args, std::cout);
  if (name == "network") return codesim::bench::run_network_bench(args, argv[0], std::cout);
  if (name == "--help" || name == "-h") {
    std::cout << kUsage;
    return 0;
  }
  std::cerr << "error: unknown benchmark '" << name
            << "' (expected engine, codes, training, cnn, floor, stochastic, topology or network)\n"
            << kUsage;
  return 2;
}
