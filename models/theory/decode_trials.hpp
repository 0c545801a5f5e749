// Monte Carlo of one coded product decoded with e erroneous symbols (T2): how often the decoder
// returns the exact product, detects the errors, or (never acceptable) returns a wrong product.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "models/coding/coding_scheme.hpp"
#include "sim/random_stream.hpp"

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

/// The values the erroneous symbols carry.
///   random:      independent N(0, 1) noise times the partial's peak on each struck partial, at
///                symbols chosen uniformly (errors a decoder sees as generic).
///   adversarial: the worst case for a decoder of minimum distance d = S - K + 1: a nonzero
///                codeword direction delta = G u that vanishes on K - 1 random symbols (u spans
///                their rows' null space), so that it is supported on (generically) d symbols; e
///                of them get -delta_s V, one matrix V (N(0, 1) times the first struck partial's
///                peak) shared by all, so the errors are fully correlated (a rank-one syndrome).
///                The received word is then e from the true codeword and d - e from another: a
///                decoder correcting t must correct e <= t, must detect t < e <= d - 1 - t, and is
///                fooled beyond. Repetition schemes (no generator): e copies of one random block
///                get the same V, so that they agree on a wrong value. Errors beyond delta's
///                support (e > |supp delta|) get independent random values.
enum class ErrorValues { random, adversarial };
inline constexpr std::array<std::string_view, 2> kErrorValuesNames = {"random", "adversarial"};

/// Where the adversarial model puts one trial's errors (symbol indices): `correlated` carry
/// coefficient[i] V each, `independent` their own random values.
struct AdversarialErrors {
  std::vector<int> correlated;
  std::vector<double> coefficients;  ///< -delta_s, max |delta_s| over supp delta = 1
  std::vector<int> independent;
};
/// The adversarial pattern of `errors` erroneous symbols for a code with `generator` (S x K), or,
/// when it is null, for `symbols` symbols forming `symbols / copies` repetition codewords of
/// `copies` (symbol c * blocks + b is copy c of block b). Precondition: 0 <= errors <= S.
AdversarialErrors adversarial_errors(const Matrix* generator, int symbols, int copies, int errors,
                                     sim::RandomStream& stream);

/// A scheme of `spec` on the W the trials decode: four rows and columns per block, so every block
/// product is a real sum. Precondition: validate_scheme(spec) is empty.
std::unique_ptr<CodingScheme> make_trial_scheme(const SchemeSpec& spec);

/// For e = 0 .. max_errors, `trials` decodes of the product in `dir` of make_trial_scheme's W
/// (entries N(0, 1), input N(0, 1)), every participant computing, then e distinct symbols
/// chosen uniformly at random corrupted: one member's partial result gets N(0, 1) noise times the
/// symbol's peak on every entry (random-valued errors), or, with ErrorValues::adversarial, the
/// adversarial_errors pattern. Decoded with `options`. Streams keyed (seed, 0,
/// "decode_trials.*", e); the adversarial model draws its errors from streams of its own, so the
/// random model's results do not depend on it. Preconditions: validate_scheme(spec) is empty,
/// trials >= 1, 0 <= max_errors <= the symbol count in `dir`.
std::vector<DecodeTrialCounts> run_decode_trials(const SchemeSpec& spec, Direction dir,
                                                 const DecodeOptions& options, int trials,
                                                 int max_errors, std::uint64_t seed,
                                                 ErrorValues values = ErrorValues::random);

/// An upper bound on what codes --trials costs: run_decode_trials in both directions, e = 0 ..
/// S - K + 1 (at most the symbol count S; K the recovery threshold in `summary`) in each, with
/// random values under both decoder error models (`trials` each) and adversarial values under
/// the adversarial decoder model (`adversarial_trials`), so that a caller can say so before it
/// starts.
struct DecodeTrialsCost {
  double decodes = 0.0;
  /// Every decode's least-squares solve (S K^2) plus, for a code with r = S - K > 0 checks, a
  /// full search: the lesser of kSearchWorkBudget and 2^S subsets at r r (S + r) each. Few
  /// decodes use it all, so this is a ceiling, not a forecast.
  double operations = 0.0;
  double bytes = 0.0;  ///< W, its encoded blocks and the generators held at once
};
/// Precondition: validate_scheme(spec) is empty, trials >= 1 and adversarial_trials >= 0.
DecodeTrialsCost decode_trials_cost(const SchemeSpec& spec, const SchemeSummary& summary,
                                    int trials, int adversarial_trials);

}  // namespace codesim::models
