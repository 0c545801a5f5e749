// The benchmarks codesim-bench runs; each takes its arguments (without its own name).
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "models/linalg/dense_kernels.hpp"

namespace codesim::bench {

/// `codesim-bench engine --nodes N --tasks K [--json]`.
int run_engine_bench(const std::vector<std::string>& args, std::ostream& out);
/// `codesim-bench codes [--json] [--quick] [--abft-only]`.
int run_codes_bench(const std::vector<std::string>& args, models::Arithmetic arithmetic,
                    std::ostream& out);
/// `codesim-bench training [--overhead | --memory] ...`: train_coded steps per second, overhead
/// over the bare node arithmetic, and peak memory of the paper configuration.
int run_training_bench(const std::vector<std::string>& args, models::Arithmetic arithmetic,
                       std::ostream& out);
/// `codesim-bench cnn [--agree] ...`: LeNet-5 training steps/s against the PyTorch peer, or the
/// loss-by-loss agreement with it (bench/cnn_bench.hpp).
int run_cnn_bench(const std::vector<std::string>& args, models::Arithmetic arithmetic,
                  std::ostream& out);
/// `codesim-bench floor [--iterations N] [--runs R] [--threads T] [--triad-mib M] [--json]`:
/// the paper-size iteration's wall time against its memory floor (a STREAM-like triad).
int run_floor_bench(const std::vector<std::string>& args, models::Arithmetic arithmetic,
                    std::ostream& out);
/// `codesim-bench stochastic [--case paper|large] [--iterations N] [--runs R] [--json]`: node
/// operations per second of the stochastic training mode on one core.
int run_stochastic_bench(const std::vector<std::string>& args, std::ostream& out);
/// `codesim-bench topology [--shapes ...] [--nodes ...] [--iterations N] [--runs R] [--json]`:
/// wall time of a short all-gathering iterative job per topology shape and size.
int run_topology_bench(const std::vector<std::string>& args, std::ostream& out);
/// `codesim-bench network --pattern P --platform T --nodes N [--runs R] [--peer PATH] [--json]`:
/// flows per second of sim::run_schedule against the SimGrid peer (found next to `argv0`, the
/// path codesim-bench was started by, unless --peer names it), interleaved runs.
int run_network_bench(const std::vector<std::string>& args, const std::string& argv0,
                      std::ostream& out);
/// `codesim-bench network --small`: microseconds per call of the quickstart's collectives.
int run_small_collectives_bench(int runs, bool json, std::ostream& out);

}  // namespace codesim::bench
