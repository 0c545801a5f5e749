// Decodes one product many times with randomly placed random-valued symbol errors.
#include "models/theory/decode_trials.hpp"

#include <algorithm>
#include <cmath>
#include <memory>
#include <numeric>
#include <utility>

#include "sim/check.hpp"
#include "sim/random_stream.hpp"

namespace codesim::models {
namespace {

Matrix gaussian(Eigen::Index rows, Eigen::Index cols, sim::RandomStream& stream) {
  Matrix out(rows, cols);
  for (Eigen::Index j = 0; j < cols; ++j)
    for (Eigen::Index i = 0; i < rows; ++i) out(i, j) = stream.normal(0.0, 1.0);
  return out;
}

// W's rows and columns in the trials: four per block of the counts they must divide by.
std::pair<int, int> trial_shape(const SchemeSpec& spec) {
  const auto [row_blocks, col_blocks] = block_grid(spec);
  return {4 * row_blocks, 4 * col_blocks};
}

}  // namespace

std::unique_ptr<CodingScheme> make_trial_scheme(const SchemeSpec& spec) {
  const auto [rows, cols] = trial_shape(spec);
  CODESIM_CHECK(validate_scheme(spec, rows, cols).empty(), "decode trials need a valid spec");
  return make_scheme(spec, rows, cols);
}

std::vector<DecodeTrialCounts> run_decode_trials(const SchemeSpec& spec, Direction dir,
                                                 const DecodeOptions& options, int trials,
                                                 int max_errors, std::uint64_t seed) {
  CODESIM_CHECK(trials >= 1, "at least one trial");
  const std::unique_ptr<CodingScheme> scheme = make_trial_scheme(spec);
  const auto [rows, cols] = trial_shape(spec);
  const int symbols = scheme->symbol_count(dir);
  CODESIM_CHECK(max_errors >= 0 && max_errors <= symbols, "0 <= max_errors <= symbols");

  sim::RandomStream data({seed, 0, "decode_trials.data", 0});
  const Matrix weights = gaussian(rows, cols, data);
  scheme->encode(weights);
  const bool forward = dir == Direction::forward;
  DecodeOptions decode = options;
  decode.inner_dimension = forward ? cols : rows;

  std::vector<DecodeTrialCounts> out;
  for (int e = 0; e <= max_errors; ++e) {
    sim::RandomStream choice({seed, 0, "decode_trials.choice", static_cast<std::uint64_t>(e)});
    sim::RandomStream noise({seed, 0, "decode_trials.noise", static_cast<std::uint64_t>(e)});
    DecodeTrialCounts counts;
    counts.errors = e;
    counts.trials = trials;
    std::vector<int> order(static_cast<std::size_t>(symbols));
    for (int t = 0; t < trials; ++t) {
      const Matrix input = gaussian(forward ? cols : rows, 1, data);
      const Matrix exact = forward ? Matrix(weights * input) : Matrix(weights.transpose() * input);
      // The first e of a seeded shuffle (Fisher-Yates) are the erroneous symbols; their first
      // member's partial carries the error.
      std::iota(order.begin(), order.end(), 0);
      for (int i = 0; i < e; ++i) {
        const auto j = static_cast<std::size_t>(choice.uniform_int(i, symbols - 1));
        std::swap(order[static_cast<std::size_t>(i)], order[j]);
      }
      std::vector<int> struck;
      for (int i = 0; i < e; ++i)
        struck.push_back(scheme->symbol_members(dir, order[static_cast<std::size_t>(i)]).front());
      const ProductDecode result =
          compute_and_decode(*scheme, dir, input, decode, [&](int node, Matrix& partial) {
            if (std::find(struck.begin(), struck.end(), node) != struck.end()) {
              const double peak = std::max(partial.cwiseAbs().maxCoeff(), 1.0);
              partial += peak * gaussian(partial.rows(), partial.cols(), noise);
            }
            return true;
          });
      if (result.status == DecodeStatus::detected) {
        ++counts.detected;
        continue;
      }
      const double error = (result.product - exact).cwiseAbs().maxCoeff() /
                           std::max(exact.cwiseAbs().maxCoeff(), 1e-300);
      counts.worst_relative_error = std::max(counts.worst_relative_error, error);
      if (error <= kExactRelativeError) {
        ++counts.exact;
      } else {
        ++counts.wrong;
      }
    }
    out.push_back(counts);
  }
  return out;
}

DecodeTrialsCost decode_trials_cost(const SchemeSpec& spec, const SchemeSummary& summary,
                                    int trials) {
  const std::unique_ptr<CodingScheme> scheme = make_trial_scheme(spec);
  const auto [rows, cols] = trial_shape(spec);
  constexpr double kBytesPerValue = sizeof(double);
  DecodeTrialsCost cost;
  cost.bytes = 2.0 * rows * cols * kBytesPerValue;  // W and the encoder's working copy
  for (const BlockShape& b : scheme->block_shapes())
    cost.bytes += static_cast<double>(b.rows) * static_cast<double>(b.cols) * kBytesPerValue;
  for (const Direction dir : {Direction::forward, Direction::backward}) {
    const double symbols = scheme->symbol_count(dir);
    const Matrix* generator = scheme->symbol_generator(dir);
    const double k = generator ? static_cast<double>(generator->cols()) : symbols;
    const double threshold = dir == Direction::forward ? summary.forward.recovery_threshold
                                                       : summary.backward.recovery_threshold;
    const double max_errors = std::min(symbols, std::max(0.0, symbols - threshold + 1.0));
    const double decodes = 2.0 * trials * (max_errors + 1.0);  // both error models
    // A search screens subsets of the symbols (at most 2^S), each for at most r r (S + r)
    // operations with r = S - K checks, and gives up at the bound.
    const double checks = symbols - k;
    const double subsets = std::ldexp(1.0, static_cast<int>(std::min(symbols, 1000.0)));
    const double search =
        checks > 0.0 ? std::min(kSearchWorkBudget, subsets * checks * checks * (symbols + checks))
                     : 0.0;
    cost.decodes += decodes;
    cost.operations += decodes * (symbols * k * k + search);
    if (generator) cost.bytes += symbols * k * kBytesPerValue;
  }
  return cost;
}

}  // namespace codesim::models
