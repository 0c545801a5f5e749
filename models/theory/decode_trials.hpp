// Monte Carlo of one coded product decoded with e erroneous symbols (T2): how often the decoder
// returns the exact product, detects the errors, or (never acceptable) returns a wrong product.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "models/coding/coding_scheme.hpp"

namespace codesim::models {

/// Outcomes of the trials with `errors` erroneous symbols.
struct DecodeTrialCounts {
  int errors = 0;  ///< erroneous symbols per trial
  int trials = 0;
  int exact = 0;     ///< clean or corrected, within kExactRelativeError of W X (W^T D)
  int detected = 0;  ///< status detected: no product returned
  int wrong = 0;     ///< a product returned that is not within kExactRelativeError
  double worst_relative_error = 0.0;  ///< max |decoded - exact| / max |exact| over returned ones
};

/// Relative error below which a returned product counts as exact.
inline constexpr double kExactRelativeError = 1e-8;

/// A scheme of `spec` on the W the trials decode: four rows and columns per block, so every block
/// product is a real sum. Precondition: validate_scheme(spec) is empty.
std::unique_ptr<CodingScheme> make_trial_scheme(const SchemeSpec& spec);

/// For e = 0 .. max_errors, `trials` decodes of the product in `dir` of make_trial_scheme's W
/// (entries N(0, 1), input N(0, 1)), every participant computing, then e distinct symbols
/// chosen uniformly at random corrupted: one member's partial result gets N(0, 1) noise times the
/// symbol's peak on every entry (random-valued errors). Decoded with `options`. Streams keyed
/// (seed, 0, "decode_trials.*", e). Preconditions: validate_scheme(spec) is empty, trials >= 1,
/// 0 <= max_errors <= the symbol count in `dir`.
std::vector<DecodeTrialCounts> run_decode_trials(const SchemeSpec& spec, Direction dir,
                                                 const DecodeOptions& options, int trials,
                                                 int max_errors, std::uint64_t seed);

/// An upper bound on what codes --trials costs: run_decode_trials in both directions, with both
/// error models, e = 0 .. S - K + 1 (at most the symbol count S; K the recovery threshold in
/// `summary`) in each, so that a caller can say so before it starts.
struct DecodeTrialsCost {
  double decodes = 0.0;
  /// Every decode's least-squares solve (S K^2) plus, for a code with r = S - K > 0 checks, a
  /// full search: the lesser of kSearchWorkBudget and 2^S subsets at r r (S + r) each. Few
  /// decodes use it all, so this is a ceiling, not a forecast.
  double operations = 0.0;
  double bytes = 0.0;  ///< W, its encoded blocks and the generators held at once
};
/// Precondition: validate_scheme(spec) is empty and trials >= 1.
DecodeTrialsCost decode_trials_cost(const SchemeSpec& spec, const SchemeSummary& summary,
                                    int trials);

}  // namespace codesim::models
