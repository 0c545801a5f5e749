// A real linear code over vector symbols, and its errors-and-erasures decoder.
#pragma once

#include <Eigen/Dense>
#include <optional>
#include <span>
#include <vector>

namespace codesim::models {

using Matrix = Eigen::MatrixXd;

/// What a decode concluded. `detected` means detected-uncorrectable: the caller must not use
/// the product (CodeNet rolls back).
enum class DecodeStatus { clean, corrected, detected };

/// How erroneous values are assumed to behave.
///   adversarial: arbitrary values; corrects up to floor((a - K) / 2) errors among a received
///                symbols, flags more (up to a - K) as detected.
///   random:      values from a continuous distribution; corrects up to a - K - 1 errors by
///                finding the consistent set (probability one).
enum class ErrorModel { adversarial, random };

struct DecodeOptions {
  ErrorModel error_model = ErrorModel::adversarial;
  /// Length of the dot products that produced each symbol entry (sets the round-off scale of the
  /// consistency threshold); >= 1.
  int inner_dimension = 1;
  /// Multiplier on the round-off estimate: residual threshold =
  /// tolerance_factor * unit_roundoff * inner_dimension * condition * magnitude of the symbols.
  double tolerance_factor = 64.0;
  /// A finite symbol entry larger than this times the median symbol magnitude is treated as
  /// erroneous (an "absurd magnitude"), like NaN and Inf.
  double absurd_ratio = 1e12;
};

/// Outcome of decoding one codeword.
struct CodeDecodeResult {
  DecodeStatus status = DecodeStatus::detected;
  /// K x L message (row k = coefficient k); empty when status == detected.
  Matrix message;
  /// Indices of the symbols judged erroneous (including NaN/Inf/absurd ones), ascending.
  std::vector<int> erroneous_symbols;
  /// 2-norm condition number of the generator rows finally used to solve for the message.
  double condition_number = 0.0;
};

/// A code with generator G (S x K): symbol s = G.row(s) * message, each symbol a row vector of
/// length L (callers flatten matrices into rows). Any K rows of G must be independent (MDS).
class LinearCode {
 public:
  explicit LinearCode(Matrix generator);

  int symbol_count() const { return static_cast<int>(generator_.rows()); }
  int dimension() const { return static_cast<int>(generator_.cols()); }
  const Matrix& generator() const { return generator_; }

  /// Encodes a K x L message into S x L symbols.
  Matrix encode(const Matrix& message) const;
  /// Decodes from `symbols` (S entries; nullopt = erasure, each a 1 x L row or L x 1 column is
  /// NOT accepted: every present symbol must be a row vector of the same length L).
  /// Never returns a wrong message silently: inconsistent patterns beyond the model's
  /// correction bound give `detected`. Fewer than K usable symbols also give `detected`.
  CodeDecodeResult decode(std::span<const std::optional<Eigen::RowVectorXd>> symbols,
                          const DecodeOptions& options) const;
  /// Recovers the message from exactly the listed symbol indices (no error checking); used for
  /// regeneration. Precondition: |indices| >= K.
  Matrix solve_from(std::span<const int> indices, const Matrix& symbol_rows) const;

  /// Largest number of errors the model corrects with `erasures` erasures.
  int correctable_errors(ErrorModel model, int erasures = 0) const;
  /// Largest number of errors always detected (S - K - erasures).
  int detectable_errors(int erasures = 0) const;

 private:
  Matrix generator_;
};

/// P Chebyshev points cos((2p + 1) pi / (2P)), p = 0..P-1, in (-1, 1).
std::vector<double> chebyshev_points(int count);
/// The S x K Vandermonde matrix V(s, k) = points[s]^k.
Matrix vandermonde(std::span<const double> points, int columns);
/// A systematic S x K generator [I_K; R] with R i.i.d. N(0, 1) drawn from `seed` (Boost.Random).
Matrix systematic_gaussian_generator(int symbols, int dimension, std::uint64_t seed);

}  // namespace codesim::models
