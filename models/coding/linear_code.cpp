// LinearCode: encoding, least-squares solves and the errors-and-erasures decode, step by step
// (the passes, the error search and the screening live in their own files).
#include "models/coding/linear_code.hpp"

#include <algorithm>
#include <cstddef>
#include <limits>
#include <optional>
#include <utility>
#include <vector>

#include "models/coding/linear_code_passes.hpp"
#include "models/coding/linear_code_search.hpp"
#include "sim/check.hpp"

namespace codesim::models {
namespace {

using detail::check_and_solve;
using detail::factor_subset;
using detail::Index;
using detail::PassResult;
using detail::SubsetFactor;
using detail::Symbols;

// Without given peaks, the first check and solve runs optimistically on every present symbol
// and measures their peaks as it reads them (one pass over the data instead of two). It is used
// when it went through all the data and the screening keeps every present symbol.
struct FirstPass {
  std::vector<double> measured;  // each symbol's peak; -1 for absent ones
  std::optional<SubsetFactor> factor;
  std::optional<PassResult> pass;  // set when the pass went through all the data
};

FirstPass optimistic_first_pass(const Matrix& generator, const DenseKernels& kernels,
                                Symbols symbols, const std::vector<int>& present, Index length,
                                const DecodeOptions& options, std::span<const int> wanted_rows) {
  FirstPass first;
  first.measured.assign(symbols.size(), -1.0);
  if (static_cast<Index>(present.size()) >= generator.cols()) {
    SubsetFactor factor = factor_subset(generator, present, options);
    if (factor.usable) {
      std::vector<double> set_peaks(present.size(), 0.0);
      PassResult pass = check_and_solve(factor, symbols, present, length, 0.0, options, kernels,
                                        wanted_rows, set_peaks);
      if (pass.complete) {
        for (std::size_t i = 0; i < present.size(); ++i) {
          first.measured[static_cast<std::size_t>(present[i])] = set_peaks[i];
        }
        first.factor = std::move(factor);
        first.pass = std::move(pass);
      }
    }
  }
  if (!first.pass) {
    for (int s : present) {
      first.measured[static_cast<std::size_t>(s)] =
          symbol_peak(symbols[static_cast<std::size_t>(s)], length);
    }
  }
  return first;
}

// The pre-screen: non-finite entries and absurd magnitudes are erroneous, treated as erasures.
struct Screening {
  std::vector<bool> screened;  // per symbol: blamed and erased
  std::vector<double> peak;    // per symbol: the peak of a usable one, else 0
};

Screening screen_symbols(Symbols symbols, const std::vector<int>& present,
                         std::span<const double> peaks, int absurd_rank, double absurd_ratio) {
  const std::size_t count = symbols.size();
  Screening screening{std::vector<bool>(count, false), std::vector<double>(count, 0.0)};
  std::vector<bool>& screened = screening.screened;
  if (absurd_rank > 0) {
    std::vector<double> present_peaks(count, -1.0);
    for (int s : present) {
      present_peaks[static_cast<std::size_t>(s)] = peaks[static_cast<std::size_t>(s)];
    }
    screened = absurd_peaks(present_peaks, absurd_rank, absurd_ratio);
  }
  std::vector<double>& peak = screening.peak;
  std::vector<double> nonzero_peaks;
  for (std::size_t s = 0; s < count; ++s) {
    if (symbols[s] == nullptr || screened[s]) continue;
    const double value = peaks[s];
    if (!(value <= std::numeric_limits<double>::max())) {
      screened[s] = true;
      continue;
    }
    peak[s] = value;
    if (peak[s] > 0.0) nonzero_peaks.push_back(peak[s]);
  }
  if (!nonzero_peaks.empty()) {
    const auto middle =
        nonzero_peaks.begin() + static_cast<std::ptrdiff_t>((nonzero_peaks.size() - 1) / 2);
    std::nth_element(nonzero_peaks.begin(), middle, nonzero_peaks.end());
    const double limit = absurd_ratio * *middle;
    for (std::size_t s = 0; s < count; ++s) {
      if (symbols[s] != nullptr && !screened[s] && peak[s] > limit) screened[s] = true;
    }
  }
  return screening;
}

// What the error path reads: the usable symbols (ascending, inconsistent as a whole), their
// peaks and the decode's request.
struct ErrorPath {
  const Matrix& generator;
  Symbols symbols;
  const std::vector<int>& usable;
  const std::vector<double>& peak;
  Index length;
  const DecodeOptions& options;
  const DenseKernels& kernels;
  std::span<const int> wanted_rows;
};

// The error search within the model's bound, then the result from the support it found;
// `result` holds the screened-out symbols and stays `detected` when the search fails.
CodeDecodeResult correct_errors(const ErrorPath& path, const SubsetFactor& factor,
                                CodeDecodeResult result) {
  const int r = static_cast<int>(factor.redundancy);
  const int max_errors = path.options.error_model == ErrorModel::adversarial ? r / 2 : r - 1;
  if (max_errors < 1) return result;
  detail::SearchOutcome outcome =
      detail::find_error_support(path.generator, path.symbols, path.usable, path.peak, path.length,
                                 path.options, path.kernels, max_errors, factor);
  result.search_work = outcome.work;
  if (!outcome.support) return result;
  detail::ErrorSupport& search = *outcome.support;
  result.erroneous_symbols.insert(result.erroneous_symbols.end(), search.blamed.begin(),
                                  search.blamed.end());
  std::sort(result.erroneous_symbols.begin(), result.erroneous_symbols.end());
  result.status = DecodeStatus::corrected;
  if (path.wanted_rows.empty()) {
    result.message = std::move(search.message);
  } else {
    result.message.resize(static_cast<Index>(path.wanted_rows.size()), path.length);
    for (std::size_t i = 0; i < path.wanted_rows.size(); ++i) {
      result.message.row(static_cast<Index>(i)) = search.message.row(path.wanted_rows[i]);
    }
  }
  result.condition_number = search.condition;
  return result;
}

}  // namespace

LinearCode::LinearCode(Matrix generator, Arithmetic arithmetic)
    : generator_(std::move(generator)), kernels_(arithmetic) {
  CODESIM_CHECK(generator_.cols() >= 1 && generator_.rows() >= generator_.cols(),
                "a generator needs S >= K >= 1");
  CODESIM_CHECK(generator_.allFinite(), "generator entries must be finite");
}

Matrix LinearCode::encode(const Matrix& message) const {
  CODESIM_CHECK(message.rows() == generator_.cols(), "message must have K rows");
  return generator_ * message;
}

CodeDecodeResult LinearCode::decode(std::span<const std::optional<Eigen::RowVectorXd>> symbols,
                                    const DecodeOptions& options) const {
  CODESIM_CHECK(static_cast<int>(symbols.size()) == symbol_count(), "one entry per symbol");
  Index length = 0;
  bool any = false;
  std::vector<const double*> views(symbols.size(), nullptr);
  for (std::size_t s = 0; s < symbols.size(); ++s) {
    if (!symbols[s]) continue;
    if (!any) length = symbols[s]->size();
    any = true;
    CODESIM_CHECK(symbols[s]->size() == length, "every present symbol must have the same length");
    views[s] = symbols[s]->data();
  }
  return decode(views, length, options);
}

CodeDecodeResult LinearCode::decode(std::span<const double* const> symbols, Index length,
                                    const DecodeOptions& options, std::span<const int> wanted_rows,
                                    std::span<const double> peaks, int absurd_rank) const {
  CODESIM_CHECK(static_cast<int>(symbols.size()) == symbol_count(), "one entry per symbol");
  CODESIM_CHECK(length >= 0, "symbol length >= 0");
  CODESIM_CHECK(options.inner_dimension >= 1, "inner_dimension >= 1");
  CODESIM_CHECK(options.tolerance_factor >= 0.0, "tolerance_factor >= 0");
  CODESIM_CHECK(options.absurd_ratio > 0.0, "absurd_ratio > 0");
  CODESIM_CHECK(peaks.empty() || peaks.size() == symbols.size(), "one peak per symbol");
  const int k = dimension();
  for (std::size_t i = 0; i < wanted_rows.size(); ++i) {
    CODESIM_CHECK(wanted_rows[i] >= 0 && wanted_rows[i] < k, "wanted rows in [0, K)");
  }
  const auto count = static_cast<std::size_t>(symbol_count());
  std::vector<int> present;
  for (std::size_t s = 0; s < count; ++s) {
    if (symbols[s] != nullptr) present.push_back(static_cast<int>(s));
  }
  FirstPass first;
  if (peaks.empty()) {
    first =
        optimistic_first_pass(generator_, kernels_, symbols, present, length, options, wanted_rows);
    peaks = first.measured;
  }
  const Screening screening =
      screen_symbols(symbols, present, peaks, absurd_rank, options.absurd_ratio);

  CodeDecodeResult result;
  std::vector<int> usable;
  for (std::size_t s = 0; s < count; ++s) {
    if (screening.screened[s]) result.erroneous_symbols.push_back(static_cast<int>(s));
    if (symbols[s] != nullptr && !screening.screened[s]) usable.push_back(static_cast<int>(s));
  }
  const auto a = static_cast<int>(usable.size());
  if (a < k) return result;

  // The first check and solve on all usable symbols: the optimistic one when it kept them all.
  const bool optimistic = first.pass && usable == present;
  const SubsetFactor factor =
      optimistic ? std::move(*first.factor) : factor_subset(generator_, usable, options);
  if (!factor.usable) return result;
  double magnitude = 0.0;
  for (int s : usable) magnitude = std::max(magnitude, screening.peak[static_cast<std::size_t>(s)]);
  PassResult pass = optimistic ? std::move(*first.pass)
                               : check_and_solve(factor, symbols, usable, length, magnitude,
                                                 options, kernels_, wanted_rows);
  if (pass.consistent) {
    result.status =
        result.erroneous_symbols.empty() ? DecodeStatus::clean : DecodeStatus::corrected;
    result.message = std::move(pass.message);
    result.condition_number = factor.condition;
    return result;
  }
  const ErrorPath path{generator_, symbols, usable,   screening.peak,
                       length,     options, kernels_, wanted_rows};
  return correct_errors(path, factor, std::move(result));
}

Matrix LinearCode::solve_from(std::span<const int> indices, const Matrix& symbol_rows) const {
  const auto n = static_cast<Index>(indices.size());
  CODESIM_CHECK(n >= generator_.cols(), "solve_from needs at least K symbols");
  CODESIM_CHECK(symbol_rows.rows() == n, "one symbol row per listed index");
  Matrix rows(n, generator_.cols());
  for (Index i = 0; i < n; ++i) {
    const int s = indices[static_cast<std::size_t>(i)];
    CODESIM_CHECK(s >= 0 && s < symbol_count(), "symbol index out of range");
    rows.row(i) = generator_.row(s);
  }
  return Eigen::HouseholderQR<Matrix>(rows).solve(symbol_rows);
}

int LinearCode::correctable_errors(ErrorModel model, int erasures) const {
  CODESIM_CHECK(erasures >= 0, "erasures >= 0");
  const int redundancy = symbol_count() - dimension() - erasures;
  if (redundancy <= 0) return 0;
  return model == ErrorModel::adversarial ? redundancy / 2 : redundancy - 1;
}

int LinearCode::detectable_errors(int erasures) const {
  CODESIM_CHECK(erasures >= 0, "erasures >= 0");
  return std::max(0, symbol_count() - dimension() - erasures);
}

}  // namespace codesim::models
