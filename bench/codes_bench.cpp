// `codesim-bench codes`: cost of the coding around the node products, and node product speed.
// For N x N weights (N = 4096; 4080 for the CodeNet grid so that 5 and 4 divide it), batch 1 and
// 64, forward and backward: GPD (2,2) and (4,2) with P = max(K_forward, K_backward) + 4 (one stored
// encoding serving both directions) and the CodeNet grid 7x6/(5,4). Reported per case (medians of
// several repetitions, single thread):
//   overhead_fraction  = (input encodings of all participants + one decode) / (all node products),
//                        the overhead as the GPD abstract counts it;
//   per_node_fraction  = (one node's input encoding + one decode) / (one node's product), what a
//                        decentralized node pays, since every node decodes;
//   product_speed      = plain Eigen GEMV/GEMM time / scheme multiply time on the same blocks.
// Nodes whose encoding is a plain slice of the input (the CodeNet grid) multiply it in place, as
// train_coded does: they have no encoding work. Then the ABFT cases (abft_overhead_bench.cpp): the
// checksums, the node's check and the checksummed update against plain blocks; --abft-only runs
// those alone.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <functional>
#include <iomanip>
#include <iostream>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <boost/random/mersenne_twister.hpp>
#include <boost/random/normal_distribution.hpp>
#include <nlohmann/json.hpp>

#include "bench/abft_overhead_bench.hpp"
#include "bench/bench_timing.hpp"
#include "bench/benchmarks.hpp"
#include "models/coding/coding_scheme.hpp"
#include "models/coding/gpd_scheme.hpp"

namespace codesim::bench {
namespace {

using models::Direction;
using models::Matrix;
using Clock = std::chrono::steady_clock;

struct CodesBenchOptions {
  bool json = false;
  bool quick = false;
  bool abft_only = false;
};

CodesBenchOptions parse_options(const std::vector<std::string>& args) {
  CodesBenchOptions options;
  for (const auto& arg : args) {
    if (arg == "--json") {
      options.json = true;
    } else if (arg == "--quick") {
      options.quick = true;
    } else if (arg == "--abft-only") {
      options.abft_only = true;
    } else {
      throw std::invalid_argument("unknown argument '" + arg +
                                  "' (expected --json, --quick or --abft-only)");
    }
  }
  return options;
}

Matrix random_matrix(Eigen::Index rows, Eigen::Index cols, std::uint64_t seed) {
  boost::random::mt19937_64 engine(seed);
  boost::random::normal_distribution<double> normal(0.0, 1.0);
  Matrix matrix(rows, cols);
  for (Eigen::Index i = 0; i < matrix.size(); ++i) matrix.data()[i] = normal(engine);
  return matrix;
}

struct BenchConfig {
  std::string name;
  models::SchemeSpec spec;
  int size = 0;  // N: W is N x N
};

// GPD (m, n) with P = max(K_forward, K_backward) + 4.
models::SchemeSpec gpd_plus_four(int m, int n) {
  const models::GpdExponents e = models::gpd_exponents(m, n, false);
  return models::gpd_spec(m, n, std::max(e.forward_threshold, e.backward_threshold) + 4);
}

std::vector<BenchConfig> configs(bool quick) {
  const int size = quick ? 1024 : 4096;
  const int grid_size = size - size % 20;
  return {{"gpd (2,2) P=10", gpd_plus_four(2, 2), size},
          {"gpd (4,2) P=18", gpd_plus_four(4, 2), size},
          {"codenet_grid 7x6/(5,4) P=38", models::codenet_grid_spec(5, 4, 7, 6, 1), grid_size}};
}

struct CaseResult {
  std::string config;
  int size = 0;
  int batch = 0;
  Direction dir = Direction::forward;
  int participants = 0;
  double encode_s = 0;    // all participants' input encodings
  double products_s = 0;  // all participants' block products
  double plain_s = 0;     // plain Eigen on copies of the same blocks
  double reduce_s = 0;    // summing partial results into symbols (the Reduce; not counted)
  double decode_s = 0;    // one decode
  double condition = 0;
  double relative_error = 0;
  std::string status;
};

// The partial results summed into the symbols of `dir` (member order).
std::vector<std::optional<Matrix>> reduce_to_symbols(const models::CodingScheme& scheme,
                                                     Direction dir,
                                                     std::vector<std::optional<Matrix>>& partials) {
  std::vector<std::optional<Matrix>> symbols(scheme.symbol_count(dir));
  for (int s = 0; s < scheme.symbol_count(dir); ++s) {
    for (int node : scheme.symbol_members(dir, s)) {
      if (symbols[s]) {
        *symbols[s] += *partials[node];
      } else {
        symbols[s] = std::move(partials[node]);
      }
    }
  }
  return symbols;
}

// The decode's status, condition number and error against the exact product.
void record_decode(CaseResult& result, const models::ProductDecode& decoded, const Matrix& weights,
                   const Matrix& input) {
  result.condition = decoded.condition_number;
  result.status = decoded.status == models::DecodeStatus::clean       ? "clean"
                  : decoded.status == models::DecodeStatus::corrected ? "corrected"
                                                                      : "detected";
  if (decoded.status != models::DecodeStatus::detected) {
    const Matrix exact = result.dir == Direction::forward ? Matrix(weights * input)
                                                          : Matrix(weights.transpose() * input);
    result.relative_error = (decoded.product - exact).norm() / exact.norm();
  }
}

CaseResult run_case(const BenchConfig& config, models::CodingScheme& scheme, const Matrix& weights,
                    int batch, Direction dir, int repetitions) {
  CaseResult result;
  result.config = config.name;
  result.size = config.size;
  result.batch = batch;
  result.dir = dir;
  const Matrix input = random_matrix(config.size, batch, 17 + batch);
  const std::vector<int> participants = scheme.participants(dir);
  result.participants = static_cast<int>(participants.size());

  // Plain Eigen on private copies of the very blocks the nodes multiply.
  std::vector<Matrix> copies;
  for (int node : participants) copies.push_back(scheme.stored_blocks(node)[0]);

  std::vector<double> encode_times, product_times, plain_times, reduce_times, decode_times;
  models::ProductDecode decoded;
  for (int rep = 0; rep < repetitions; ++rep) {
    // Nodes whose encoding is a plain slice of the input read it in place (no encoding work).
    std::vector<Matrix> encoded(participants.size());
    auto start = Clock::now();
    for (std::size_t i = 0; i < participants.size(); ++i) {
      if (!scheme.input_slice(participants[i], dir)) {
        encoded[i] = scheme.encode_input(participants[i], dir, input);
      }
    }
    encode_times.push_back(seconds_since(start));
    const auto node_input = [&](std::size_t i) -> Eigen::Ref<const Matrix> {
      if (const auto slice = scheme.input_slice(participants[i], dir)) {
        return input.middleRows(slice->first, slice->count);
      }
      return encoded[i];
    };

    std::vector<std::optional<Matrix>> partials(scheme.node_count());
    start = Clock::now();
    for (std::size_t i = 0; i < participants.size(); ++i) {
      partials[participants[i]] = scheme.multiply(participants[i], dir, node_input(i));
    }
    product_times.push_back(seconds_since(start));

    Matrix plain_out;
    start = Clock::now();
    for (std::size_t i = 0; i < participants.size(); ++i) {
      const Matrix& block = copies[i];
      if (dir == Direction::forward) {
        plain_out.resize(block.rows(), batch);
        plain_out.noalias() = block * node_input(i);
      } else {
        plain_out.resize(block.cols(), batch);
        plain_out.noalias() = block.transpose() * node_input(i);
      }
    }
    plain_times.push_back(seconds_since(start));

    start = Clock::now();
    std::vector<std::optional<Matrix>> symbols = reduce_to_symbols(scheme, dir, partials);
    reduce_times.push_back(seconds_since(start));

    start = Clock::now();
    decoded = scheme.decode(dir, symbols, models::DecodeOptions{});
    decode_times.push_back(seconds_since(start));
  }
  result.encode_s = median(encode_times);
  result.products_s = median(product_times);
  result.plain_s = median(plain_times);
  result.reduce_s = median(reduce_times);
  result.decode_s = median(decode_times);
  record_decode(result, decoded, weights, input);
  return result;
}

double overhead_fraction(const CaseResult& r) { return (r.encode_s + r.decode_s) / r.products_s; }

double per_node_fraction(const CaseResult& r) {
  return (r.encode_s / r.participants + r.decode_s) / (r.products_s / r.participants);
}

double product_speed(const CaseResult& r) { return r.plain_s / r.products_s; }

void print_table(const std::vector<CaseResult>& results, bool quick, int repetitions,
                 std::ostream& out) {
  out << "codesim-bench codes (" << (quick ? "quick, " : "") << "medians of " << repetitions
      << " repetitions, times in ms)\n";
  out << std::left << std::setw(30) << "config" << std::right << std::setw(6) << "batch"
      << std::setw(10) << "dir" << std::setw(11) << "encode" << std::setw(11) << "products"
      << std::setw(10) << "decode" << std::setw(11) << "overhead" << std::setw(10) << "per-node"
      << std::setw(8) << "speed" << std::setw(11) << "status" << std::setw(10) << "rel.err"
      << "\n";
  for (const auto& r : results) {
    out << std::left << std::setw(30) << r.config << std::right << std::setw(6) << r.batch
        << std::setw(10) << (r.dir == Direction::forward ? "forward" : "backward") << std::fixed
        << std::setprecision(3) << std::setw(11) << r.encode_s * 1e3 << std::setw(11)
        << std::setprecision(1) << r.products_s * 1e3 << std::setprecision(3) << std::setw(10)
        << r.decode_s * 1e3 << std::setprecision(2) << std::setw(10) << overhead_fraction(r) * 100
        << "%" << std::setw(9) << per_node_fraction(r) * 100 << "%" << std::setw(8)
        << product_speed(r) << std::setw(11) << r.status << std::scientific << std::setprecision(1)
        << std::setw(10) << r.relative_error << std::defaultfloat << "\n";
  }
  out << "overhead = (all input encodings + one decode) / all node products; per-node = (one "
         "encoding + one decode) / one product; speed = plain Eigen time / node product time\n";
}

}  // namespace

int run_codes_bench(const std::vector<std::string>& args, models::Arithmetic arithmetic,
                    std::ostream& out) {
  CodesBenchOptions options;
  try {
    options = parse_options(args);
  } catch (const std::invalid_argument& e) {
    std::cerr << "error: codesim-bench codes: " << e.what() << "\n";
    return 2;
  }
  const int repetitions = options.quick ? 3 : 5;
  std::vector<CaseResult> results;
  nlohmann::ordered_json encodings = nlohmann::ordered_json::array();
  for (const auto& config :
       options.abft_only ? std::vector<BenchConfig>{} : configs(options.quick)) {
    auto scheme = models::make_scheme(config.spec, config.size, config.size, arithmetic);
    const Matrix weights = random_matrix(config.size, config.size, 5);
    const auto start = Clock::now();
    scheme->encode(weights);
    encodings.push_back({{"config", config.name}, {"encode_weights_s", seconds_since(start)}});
    for (int batch : {1, 64}) {
      for (Direction dir : {Direction::forward, Direction::backward}) {
        results.push_back(run_case(config, *scheme, weights, batch, dir, repetitions));
      }
    }
  }
  // Differences of long products on a shared machine: many interleaved repetitions.
  const int abft_repetitions = options.quick ? 5 : 31;
  const std::vector<AbftOverheadCase> abft =
      run_abft_overhead(options.quick, arithmetic, abft_repetitions);

  if (options.json) {
    nlohmann::ordered_json report;
    report["benchmark"] = "codes";
    report["quick"] = options.quick;
    report["repetitions"] = repetitions;
    report["weight_encodings"] = encodings;
    report["cases"] = nlohmann::ordered_json::array();
    for (const auto& r : results) {
      report["cases"].push_back(
          {{"config", r.config},
           {"size", r.size},
           {"batch", r.batch},
           {"direction", r.dir == Direction::forward ? "forward" : "backward"},
           {"participants", r.participants},
           {"encode_inputs_s", r.encode_s},
           {"node_products_s", r.products_s},
           {"plain_eigen_s", r.plain_s},
           {"reduce_s", r.reduce_s},
           {"decode_s", r.decode_s},
           {"overhead_fraction", overhead_fraction(r)},
           {"per_node_fraction", per_node_fraction(r)},
           {"product_speed_vs_eigen", product_speed(r)},
           {"decode_status", r.status},
           {"condition_number", r.condition},
           {"relative_error", r.relative_error}});
    }
    report["abft_repetitions"] = abft_repetitions;
    report["abft"] = abft_overhead_json(abft);
    out << report.dump(2) << "\n";
    return 0;
  }
  if (!results.empty()) print_table(results, options.quick, repetitions, out);
  print_abft_overhead(abft, abft_repetitions, out);
  return 0;
}

}  // namespace codesim::bench
