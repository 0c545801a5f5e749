// The chance that an ABFT node puts right what weight strikes did to its stored block
// (abft::check_block, models/coding/abft_checksums.hpp), as a closed form over which entries the
// strikes chose; the training theory turns it into local corrections and erasures.
//
// check_block on a block with W's part R x C (stored (R + 3) x (C + 3): W, 3 checksum rows CR
// below it, 3 checksum columns CC beside it, the 3 x 3 corner) corrects a struck set S exactly
// when (derived from the code, for errors that are finite, above round-off and generic, so that
// two wrong entries never pass for one: the 3 weighted checksums make that a Vandermonde system):
//  - every column of [W; CR] holds at most one entry of S (the column pass; CC and the corner
//    are then recomputed from W, whatever they hold), or else
//  - after the column pass has put right the columns with one entry, every row of [W, CC] holds
//    at most one remaining entry (W entries in the "bad" columns with two or more, plus CC
//    entries), and every bad column holds at most one CR entry (the row pass, then the columns
//    again). The corner is never read and always recomputed.
// Otherwise it detects; nothing is miscorrected. The set is closed under removing entries, so
// q(s) = P(corrected | s entries chosen uniformly without replacement) does not grow with s.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "models/coding/scheme_spec.hpp"
#include "models/faults/value_model.hpp"

namespace codesim::models {

/// W's part of one node's block; the stored block adds 3 checksum rows and columns.
struct AbftBlockShape {
  int rows = 0;
  int cols = 0;
  std::int64_t stored_entries() const;  ///< (rows + 3) (cols + 3)
};

/// What one strike does to a block, as the check sees it.
struct AbftStrikeModel {
  /// Entries one strike changes: entries_to_corrupt on the stored (augmented) block, chosen
  /// uniformly without replacement over all of it, checksums included (they are stored data).
  std::int64_t entries = 1;
  /// P(one changed entry of W is beyond correction, and so detected): a flip of a float64's top
  /// exponent bit (bit 62) scales a weight of magnitude below 1 by 2^1024, which the residuals
  /// cannot locate to round-off; every other flip keeps it below 2 in magnitude. The other value
  /// models add or set moderate values: 0.
  double beyond_correction = 0.0;
  /// The same for a checksum entry (read by the column pass in CR, by the row pass in CC):
  /// checksums are sums of many weights, of magnitude 2 to 2^16, where a flip of exponent bits
  /// 56 to 61 scales them by 2^16 or more, beyond the round-off allowance. An approximation: it
  /// depends on the checksums' magnitudes.
  double checksum_beyond_correction = 0.0;
};

/// The strike model of `spec` (valid for float64) on blocks of `shape`.
AbftStrikeModel abft_strike_model(const ValueModelSpec& spec, AbftBlockShape shape);

/// W's part of one node's block of a rows x cols layer when the scheme's nodes check their own
/// blocks and correct or withhold (abft: W_rc of the m x n grid; abft_codenet: the same block of
/// its CodeNet grid, whose symbols and erasures come from the grid), else nullopt.
std::optional<AbftBlockShape> locally_checked_block(const SchemeSpec& spec, int rows, int cols);

/// The probability that a node's check of its partial (abft::check_columns: one wrong value or
/// checksum per column) corrects one strike of `spec` on it: `length` values and 3 checksums per
/// column, `batch` columns. The strike's entries (entries_to_corrupt of the whole partial) must lie
/// in distinct columns, each correctable; an entry is beyond correction with the probabilities of
/// abft_strike_model (the partial's values and checksums taken for the block's: an
/// approximation for bit flips, exact for the other value models).
double abft_partial_correction(const ValueModelSpec& spec, int length, int batch);

/// q(s) for one block shape and strike model, and Q_j, the probability that a block read after j
/// strikes (the union of their entry sets) is corrected rather than detected.
class AbftCorrection {
 public:
  /// Tables q(s) for the union sizes of up to max_strikes >= 1 strikes.
  AbftCorrection(AbftBlockShape shape, AbftStrikeModel model, int max_strikes);

  /// q(s), s >= 0 distinct entries: exact up to exact_entries(), beyond it an upper bound (the
  /// exact value at exact_entries(), or P(column pass) plus a Hoeffding bound on the row pass,
  /// whichever is smaller; 0 when no pattern of s entries is correctable). Each struck entry is
  /// beyond correction independently with the strike model's probabilities.
  double given_entries(std::int64_t entries) const;
  /// Q_j for 0 <= j (Q_0 = 1); beyond max_strikes, Q_{max_strikes} (an upper bound).
  double given_strikes(int strikes) const;
  double per_strike() const { return given_strikes(1); }
  /// V_j: the same for a read by the verification pass, which checks its all-ones products at
  /// the node before any repair and withholds a product with two wrong entries (batch 1): it
  /// lets the struck entries through only when those of [W; CR] lie in one row, or, with none
  /// there, the checksum-column entries in one column. Exact for 1 strike; beyond what the
  /// union's distribution costs, the last exact value.
  double at_verification(int strikes) const;
  /// Strikes with their own Q_j and V_j.
  int max_strikes() const { return static_cast<int>(given_strikes_.size()) - 1; }
  /// Largest s with an exact q(s) (an exact count costs C s^3 operations; bounded).
  std::int64_t exact_entries() const { return exact_entries_; }
  /// Whether every Q_j is exact (else an upper bound: rollbacks then a lower bound).
  bool exact() const { return exact_; }
  AbftBlockShape shape() const { return shape_; }
  const AbftStrikeModel& model() const { return model_; }

 private:
  AbftBlockShape shape_;
  AbftStrikeModel model_;
  std::int64_t exact_entries_ = 0;
  std::vector<double> exact_q_;          // q(0 .. exact_entries_)
  std::vector<double> given_strikes_;    // Q_0 .. Q_max_strikes
  std::vector<double> at_verification_;  // V_0 .. V_max_strikes
  bool exact_ = true;
};

/// AbftCorrection(shape, model, max_strikes), computed once per process for each distinct
/// argument and shared from then on (thread-safe): the tables of a large block cost up to a
/// second, and a search (codesim advise) or a stochastic run of many replicas asks for the same
/// ones again. The tables are a pure function of the arguments, so sharing changes no result.
const AbftCorrection& shared_abft_correction(AbftBlockShape shape, AbftStrikeModel model,
                                             int max_strikes);

}  // namespace codesim::models
