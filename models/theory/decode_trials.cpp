// Decodes one product many times with symbol errors of random or adversarial (worst-case) values.
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

// The first `count` of a seeded Fisher-Yates shuffle of 0 .. n - 1.
std::vector<int> first_of_shuffle(int n, int count, sim::RandomStream& stream) {
  std::vector<int> order(static_cast<std::size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  for (int i = 0; i < count; ++i) {
    const auto j = static_cast<std::size_t>(stream.uniform_int(i, n - 1));
    std::swap(order[static_cast<std::size_t>(i)], order[j]);
  }
  order.resize(static_cast<std::size_t>(count));
  return order;
}

// A codeword direction G u vanishing on K - 1 random symbols, scaled to max |delta_s| = 1.
Eigen::VectorXd low_weight_codeword(const Matrix& generator, sim::RandomStream& stream) {
  const auto k = static_cast<int>(generator.cols());
  Eigen::VectorXd u = Eigen::VectorXd::Ones(k);
  if (k > 1) {
    const std::vector<int> zeros =
        first_of_shuffle(static_cast<int>(generator.rows()), k - 1, stream);
    Matrix rows(k - 1, k);
    for (int i = 0; i < k - 1; ++i) rows.row(i) = generator.row(zeros[static_cast<std::size_t>(i)]);
    // K - 1 rows of K columns: the last right singular vector spans their null space.
    const Eigen::JacobiSVD<Matrix> svd(rows, Eigen::ComputeFullV);
    u = svd.matrixV().col(k - 1);
  }
  Eigen::VectorXd delta = generator * u;
  return delta / delta.cwiseAbs().maxCoeff();
}

// Symbols on which a codeword direction is nonzero: entries below this, relative to its peak,
// are round-off of the K - 1 exact zeros.
constexpr double kSupportTolerance = 1e-9;

// Outcome of one trial's decode against the exact product.
void count_outcome(const ProductDecode& result, const Matrix& exact, DecodeTrialCounts& counts) {
  if (result.status == DecodeStatus::detected) {
    ++counts.detected;
    return;
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

// What the trials of one error count share.
struct TrialSetup {
  const CodingScheme& scheme;
  Direction dir;
  const DecodeOptions& decode;
  int symbols = 0;
  int copies = 0;  // repetition copies (schemes without a generator)
};

// One trial of the adversarial model: adversarial_errors on the scheme's code, each on its
// symbol's first member.
ProductDecode adversarial_trial(const TrialSetup& setup, const Matrix& input, int e,
                                sim::RandomStream& choice, sim::RandomStream& noise) {
  const AdversarialErrors errors = adversarial_errors(setup.scheme.symbol_generator(setup.dir),
                                                      setup.symbols, setup.copies, e, choice);
  std::vector<std::pair<int, double>> correlated;  // (node, coefficient)
  for (std::size_t i = 0; i < errors.correlated.size(); ++i) {
    correlated.emplace_back(setup.scheme.symbol_members(setup.dir, errors.correlated[i]).front(),
                            errors.coefficients[i]);
  }
  std::vector<int> independent;
  for (int s : errors.independent)
    independent.push_back(setup.scheme.symbol_members(setup.dir, s).front());
  Matrix shared;  // V, drawn at the first struck partial (its shape and peak)
  return compute_and_decode(
      setup.scheme, setup.dir, input, setup.decode, [&](int node, Matrix& partial) {
        const double peak = std::max(partial.cwiseAbs().maxCoeff(), 1.0);
        for (const auto& [struck, coefficient] : correlated) {
          if (struck != node) continue;
          if (shared.size() == 0) shared = peak * gaussian(partial.rows(), partial.cols(), noise);
          partial += coefficient * shared;
        }
        if (std::find(independent.begin(), independent.end(), node) != independent.end())
          partial += peak * gaussian(partial.rows(), partial.cols(), noise);
        return true;
      });
}

}  // namespace

AdversarialErrors adversarial_errors(const Matrix* generator, int symbols, int copies, int errors,
                                     sim::RandomStream& stream) {
  CODESIM_CHECK(errors >= 0 && errors <= symbols, "0 <= errors <= symbols");
  Eigen::VectorXd delta = Eigen::VectorXd::Zero(symbols);
  if (generator) {
    CODESIM_CHECK(generator->rows() == symbols, "one generator row per symbol");
    delta = low_weight_codeword(*generator, stream);
  } else {
    // A repetition codeword's generator is all ones: every copy of one block.
    CODESIM_CHECK(copies >= 1 && symbols % copies == 0, "symbols = copies x blocks");
    const int blocks = symbols / copies;
    const auto block = static_cast<int>(stream.uniform_int(0, blocks - 1));
    for (int c = 0; c < copies; ++c) delta(c * blocks + block) = 1.0;
  }
  std::vector<int> support, rest;
  for (int s = 0; s < symbols; ++s)
    (std::abs(delta(s)) > kSupportTolerance ? support : rest).push_back(s);
  AdversarialErrors out;
  const auto on_support = std::min(errors, static_cast<int>(support.size()));
  for (int i : first_of_shuffle(static_cast<int>(support.size()), on_support, stream)) {
    out.correlated.push_back(support[static_cast<std::size_t>(i)]);
    out.coefficients.push_back(-delta(support[static_cast<std::size_t>(i)]));
  }
  for (int i : first_of_shuffle(static_cast<int>(rest.size()), errors - on_support, stream))
    out.independent.push_back(rest[static_cast<std::size_t>(i)]);
  return out;
}

std::unique_ptr<CodingScheme> make_trial_scheme(const SchemeSpec& spec) {
  const auto [rows, cols] = trial_shape(spec);
  CODESIM_CHECK(validate_scheme(spec, rows, cols).empty(), "decode trials need a valid spec");
  return make_scheme(spec, rows, cols);
}

std::vector<DecodeTrialCounts> run_decode_trials(const SchemeSpec& spec, Direction dir,
                                                 const DecodeOptions& options, int trials,
                                                 int max_errors, std::uint64_t seed,
                                                 ErrorValues values) {
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

  const TrialSetup setup{*scheme, dir, decode, symbols, repetition_copies(spec)};
  std::vector<DecodeTrialCounts> out;
  for (int e = 0; e <= max_errors; ++e) {
    const auto key = static_cast<std::uint64_t>(e);
    const bool adversarial = values == ErrorValues::adversarial;
    // Streams of its own for the adversarial model: the random model's stay as they were.
    sim::RandomStream choice(
        {seed, 0, adversarial ? "decode_trials.adversarial_choice" : "decode_trials.choice", key});
    sim::RandomStream noise(
        {seed, 0, adversarial ? "decode_trials.adversarial_noise" : "decode_trials.noise", key});
    DecodeTrialCounts counts;
    counts.errors = e;
    counts.trials = trials;
    for (int t = 0; t < trials; ++t) {
      const Matrix input = gaussian(forward ? cols : rows, 1, data);
      const Matrix exact = forward ? Matrix(weights * input) : Matrix(weights.transpose() * input);
      if (adversarial) {
        count_outcome(adversarial_trial(setup, input, e, choice, noise), exact, counts);
        continue;
      }
      // The first e of a seeded shuffle (Fisher-Yates) are the erroneous symbols; their first
      // member's partial carries the error.
      std::vector<int> struck;
      for (int s : first_of_shuffle(symbols, e, choice))
        struck.push_back(scheme->symbol_members(dir, s).front());
      const ProductDecode result =
          compute_and_decode(*scheme, dir, input, decode, [&](int node, Matrix& partial) {
            if (std::find(struck.begin(), struck.end(), node) != struck.end()) {
              const double peak = std::max(partial.cwiseAbs().maxCoeff(), 1.0);
              partial += peak * gaussian(partial.rows(), partial.cols(), noise);
            }
            return true;
          });
      count_outcome(result, exact, counts);
    }
    out.push_back(counts);
  }
  return out;
}

DecodeTrialsCost decode_trials_cost(const SchemeSpec& spec, const SchemeSummary& summary,
                                    int trials, int adversarial_trials) {
  CODESIM_CHECK(trials >= 1 && adversarial_trials >= 0, "trials >= 1, adversarial_trials >= 0");
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
    // Random values under both decoder models, adversarial values under one.
    const double decodes = (2.0 * trials + adversarial_trials) * (max_errors + 1.0);
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
