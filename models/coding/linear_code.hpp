// A real linear code over vector symbols, and its errors-and-erasures decoder.
#pragma once

#include <Eigen/Dense>
#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

// decode takes peaks as symbol_peak measures them and screens with absurd_peaks.
#include "models/coding/symbol_screening.hpp"
#include "models/linalg/dense_kernels.hpp"
// Callers build their codes from these generator matrices.
#include "models/coding/code_generators.hpp"

namespace codesim::models {

using Matrix = Eigen::MatrixXd;
/// Row-major: each row contiguous (a decoded message row is one block's flattened product).
using RowMajorMatrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

/// What a decode concluded. `detected` means detected-uncorrectable: the caller must not use
/// the product (CodeNet rolls back).
enum class DecodeStatus { clean, corrected, detected };

/// How erroneous values are assumed to behave (a usable symbols: present and not screened out).
///   adversarial: arbitrary values; corrects up to floor((a - K) / 2) errors. Patterns of more
///                errors, up to a - K, are detected when their values are random (continuous);
///                crafted values can imitate a pattern within the bound (no code both corrects
///                floor((a - K) / 2) and detects every a - K errors).
///   random:      values from a continuous distribution; corrects up to a - K - 1 errors by
///                finding the consistent set (probability one). Non-generic errors, such as
///                equal values in the same entry of several symbols, get only the adversarial
///                guarantee.
enum class ErrorModel { adversarial, random };
inline constexpr std::array<std::string_view, 2> kErrorModelNames = {"adversarial", "random"};

struct DecodeOptions {
  ErrorModel error_model = ErrorModel::adversarial;
  /// Length of the dot products that produced each symbol entry (sets the round-off scale of the
  /// consistency threshold); >= 1.
  int inner_dimension = 1;
  /// A set B of >= K symbols is consistent when every entry of its syndrome H_B Y_B (H_B an
  /// orthonormal basis of the left null space of G_B, Y_B the symbols as rows) is at most
  ///   tau = tolerance_factor * 2^-53 * inner_dimension * max_{s in B} sum_k |G_sk| max_j |M_kj|,
  /// M the least-squares message from B: the size of the terms summed into one symbol entry, a
  /// bound on its round-off per unit of inner_dimension (<= cond(G_B) times the symbol peak up to
  /// sqrt(|B| K)). Rows with tolerance_factor * 2^-53 * inner_dimension * cond(G_B) >= 1 count
  /// as singular (detected). Errors below tau may be left in, moving the message by about
  /// tau / sigma_min(G_B).
  double tolerance_factor = 64.0;
  /// A symbol with a finite entry larger than this times the lower median of the nonzero
  /// per-symbol max-abs values (over present, finite symbols) is erroneous, like NaN and Inf: it
  /// is treated as an erasure and blamed.
  double absurd_ratio = 1e12;
};

/// Outcome of decoding one codeword.
struct CodeDecodeResult {
  DecodeStatus status = DecodeStatus::detected;
  /// K x L message (row k = coefficient k; only the wanted rows when the decode asked for some);
  /// empty when status == detected.
  RowMajorMatrix message;
  /// Indices of the symbols judged erroneous (including NaN/Inf/absurd ones), ascending.
  std::vector<int> erroneous_symbols;
  /// 2-norm condition number of the generator rows finally used to solve for the message.
  double condition_number = 0.0;
  /// Work of the error search, in units of r t (n + t) per candidate support screened (r checks,
  /// t the support's size, n symbols; about a quarter of its flops); 0 when no search ran. At
  /// most kSearchWorkBudget: a search that would need more gives up (detected).
  double search_work = 0.0;
};

/// Bound on CodeDecodeResult::search_work per decode. The candidate cap alone let a code of 64
/// symbols and 45 checks search for seconds per decode (minutes for one training iteration);
/// 2e8 binds only where a candidate costs over 1,000 units (codes beyond about 25 symbols and 8
/// checks), about 0.3 s of search on one core.
inline constexpr double kSearchWorkBudget = 2e8;

/// A code with generator G (S x K): symbol s = G.row(s) * message, each symbol a row vector of
/// length L (callers flatten matrices into rows). Any K rows of G must be independent (MDS).
class LinearCode {
 public:
  /// The decoder's products run on `arithmetic`'s kernels (the run's choice).
  explicit LinearCode(Matrix generator, Arithmetic arithmetic = Arithmetic::portable);

  int symbol_count() const { return static_cast<int>(generator_.rows()); }
  int dimension() const { return static_cast<int>(generator_.cols()); }
  const Matrix& generator() const { return generator_; }

  /// Encodes a K x L message into S x L symbols.
  Matrix encode(const Matrix& message) const;
  /// Decodes from `symbols` (S entries; nullopt = erasure). Every present symbol must be a row
  /// vector of the same length L (checked).
  /// Screens out non-finite and absurd symbols (blamed, then erased); with a usable ones, a < K
  /// gives `detected` and a == K solves with no check. Otherwise the message is solved when all
  /// a are consistent (see DecodeOptions::tolerance_factor), else after finding an error
  /// support E, |E| <= the model's bound, leaving a consistent rest (candidates from the
  /// syndrome's column space, enumeration capped at 2e5 supports and 48 consistency passes;
  /// past the caps: detected, never a guess). Status: clean when nothing was blamed, else
  /// corrected. Never returns a wrong message silently for errors within the model's
  /// assumptions: inconsistent patterns beyond its bound give `detected`.
  /// Cost: clean, one blocked pass of O(a (a - K + w) L) flops (w message rows returned) with no
  /// a x L copy; corrected, a few more.
  CodeDecodeResult decode(std::span<const std::optional<Eigen::RowVectorXd>> symbols,
                          const DecodeOptions& options) const;
  /// The same decode reading the symbols in place: symbols[s] points at `length` contiguous
  /// entries (nullptr = erasure). With `wanted_rows` (in [0, K), any order; empty = all) the
  /// message holds only those rows, row i = coefficient wanted_rows[i], and only they are solved
  /// (the consistency decision stays the full-message one). `peaks`, when given (S entries), are
  /// the present symbols' max |entry|, +Inf for one holding NaN or Inf; without them the first
  /// pass measures them as it reads the data. With `absurd_rank` > 0 the symbols that
  /// absurd_peaks(peaks, absurd_rank, options.absurd_ratio) marks are screened out first.
  CodeDecodeResult decode(std::span<const double* const> symbols, Eigen::Index length,
                          const DecodeOptions& options, std::span<const int> wanted_rows = {},
                          std::span<const double> peaks = {}, int absurd_rank = 0) const;
  /// Least-squares message from exactly the listed symbols (no error checking); used for
  /// regeneration. `symbol_rows` is |indices| x L, row i = symbol indices[i]. |indices| >= K.
  Matrix solve_from(std::span<const int> indices, const Matrix& symbol_rows) const;

  /// Largest number of errors the model corrects with `erasures` erasures.
  int correctable_errors(ErrorModel model, int erasures = 0) const;
  /// Largest number of errors always detected (S - K - erasures).
  int detectable_errors(int erasures = 0) const;

 private:
  Matrix generator_;
  DenseKernels kernels_;
};

}  // namespace codesim::models
