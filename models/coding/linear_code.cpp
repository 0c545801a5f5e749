// Real linear code: encoding, least-squares solves and the errors-and-erasures decoder.
#include "models/coding/linear_code.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iterator>
#include <limits>
#include <set>
#include <utility>

#include "models/coding/linear_code_passes.hpp"
#include "sim/check.hpp"

namespace codesim::models {
namespace {

using detail::check_and_solve;
using detail::factor_subset;
using detail::Index;
using detail::kInfinity;
using detail::kUnitRoundoff;
using detail::PassResult;
using detail::reduced_syndrome;
using detail::SubsetFactor;
using detail::Symbols;
using detail::unit_threshold;

// Candidate supports screened (cheaply, on r x r data) per decode before giving up as detected.
constexpr double kEnumerationBudget = 200000.0;
// Share of that budget one search level may use, so deeper (peeled) levels keep some.
constexpr double kLevelEnumeration = 25000.0;
// Full consistency checks (each a pass over the data) per decode, and per support size within
// one search level (candidates are tried best screen value first).
constexpr int kVerificationBudget = 48;
constexpr int kSizeVerifications = 6;
// Round-off that large erroneous values leak into the reduced syndrome, in units of
// unit_roundoff * (a + r) * ||syndrome||_F; only loosens the cheap screen, never a decision.
constexpr double kLeakFactor = 16.0;

double binomial(int n, int k) {
  double value = 1.0;
  for (int i = 1; i <= k; ++i) value = value * (n - k + i) / i;
  return value;
}

// Advances `combo` (ascending positions in [0, n)) to the next combination; false at the end.
bool next_combination(std::vector<int>& combo, int n) {
  const auto t = static_cast<int>(combo.size());
  int i = t - 1;
  while (i >= 0 && combo[static_cast<std::size_t>(i)] == n - t + i) --i;
  if (i < 0) return false;
  ++combo[static_cast<std::size_t>(i)];
  for (int j = i + 1; j < t; ++j) {
    combo[static_cast<std::size_t>(j)] = combo[static_cast<std::size_t>(j - 1)] + 1;
  }
  return true;
}

std::vector<int> merged(const std::vector<int>& x, const std::vector<int>& y) {
  std::vector<int> out;
  out.reserve(x.size() + y.size());
  std::merge(x.begin(), x.end(), y.begin(), y.end(), std::back_inserter(out));
  return out;
}

// Search for the error support E, the error path of one decode. Candidates come from the
// syndrome's column space (subspace-augmented, see `level`) and pass a cheap screen on the
// reduced syndrome; each is accepted only after `attempt` finds usable \ E consistent from the
// data itself. If a level fails (for example a huge error hides small ones under its round-off),
// the symbol most implicated is set aside ("peeled") and the search repeats on a freshly
// computed syndrome of the rest.
class SupportSearch {
 public:
  SupportSearch(const Matrix& generator, Symbols symbols, std::vector<int> usable,
                const std::vector<double>& peak, Index length, const DecodeOptions& options)
      : generator_(generator),
        symbols_(symbols),
        usable_(std::move(usable)),
        peak_(peak),
        length_(length),
        options_(options) {}

  // True when some E with |E| <= max_errors leaves a consistent set; `usable` itself is known
  // to be inconsistent and factored as `factor`.
  bool run(int max_errors, const SubsetFactor& factor) {
    max_errors_ = max_errors;
    if (!level({}, usable_, factor)) return false;
    // A support found after peeling or skipping work may hold correct symbols: drop every
    // member whose return still leaves a consistent set (exact for errors above tolerance).
    if (!exhaustive_) {
      const std::vector<int> found = blamed_;
      for (int symbol : found) {
        std::vector<int> smaller;
        std::remove_copy(blamed_.begin(), blamed_.end(), std::back_inserter(smaller), symbol);
        attempt(smaller);
      }
    }
    return true;
  }

  const std::vector<int>& blamed() const { return blamed_; }
  RowMajorMatrix& message() { return message_; }
  double condition() const { return condition_; }

 private:
  // Largest symbol peak over `members` without the positions in `support`.
  double magnitude_excluding(const std::vector<int>& members,
                             const std::vector<int>& support) const {
    double magnitude = 0.0;
    std::size_t next = 0;
    for (std::size_t i = 0; i < members.size(); ++i) {
      if (next < support.size() && support[next] == static_cast<int>(i)) {
        ++next;
        continue;
      }
      magnitude = std::max(magnitude, peak_[static_cast<std::size_t>(members[i])]);
    }
    return magnitude;
  }

  // Checks usable \ excluded (symbol indices, ascending) from the data; on success records it.
  // Each set is checked at most once per decode.
  bool attempt(const std::vector<int>& excluded) {
    if (!attempted_.insert(excluded).second) return false;
    ++verifications_;
    std::vector<int> remaining;
    std::set_difference(usable_.begin(), usable_.end(), excluded.begin(), excluded.end(),
                        std::back_inserter(remaining));
    const SubsetFactor factor = factor_subset(generator_, remaining, options_);
    if (!factor.usable) return false;
    double magnitude = 0.0;
    for (int s : remaining) magnitude = std::max(magnitude, peak_[static_cast<std::size_t>(s)]);
    PassResult pass = check_and_solve(factor, symbols_, remaining, length_, magnitude, options_);
    if (!pass.consistent) return false;
    blamed_ = excluded;
    message_ = std::move(pass.message);
    condition_ = factor.condition;
    return true;
  }

  // One level: `members` = usable \ peeled (ascending), factored as `factor`, inconsistent.
  bool level(const std::vector<int>& peeled, const std::vector<int>& members,
             const SubsetFactor& factor) {
    const auto n = static_cast<int>(members.size());
    const auto r = static_cast<int>(factor.redundancy);
    const int remaining_errors = max_errors_ - static_cast<int>(peeled.size());
    if (remaining_errors < 1 || r < 1) return false;
    const Matrix parity = factor.combined.topRows(r);

    double peak_all = 0.0;
    for (int s : members) peak_all = std::max(peak_all, peak_[static_cast<std::size_t>(s)]);
    if (!(peak_all > 0.0) || !std::isfinite(peak_all)) return false;
    const double inverse_scale = std::ldexp(1.0, -std::ilogb(peak_all));
    const Matrix reduced = reduced_syndrome(factor, symbols_, members, length_, inverse_scale);
    if (!reduced.allFinite() || reduced.cols() == 0) return false;
    const Eigen::JacobiSVD<Matrix> svd(reduced, Eigen::ComputeThinU);
    const Eigen::VectorXd singular = svd.singularValues();
    const Matrix left = svd.matrixU();
    // Everything below is in units of 1 / inverse_scale.
    const double base = unit_threshold(options_) * factor.term_bound * inverse_scale;
    const double leak = kLeakFactor * kUnitRoundoff * (n + r) * reduced.norm();
    const double entries_per_row = static_cast<double>(length_);

    // ||S outside span(H_E)||_F, on the reduced syndrome.
    auto screen_value = [&](const std::vector<int>& support) {
      const auto t = static_cast<Index>(support.size());
      Matrix columns(r, t);
      for (Index j = 0; j < t; ++j) {
        columns.col(j) = parity.col(support[static_cast<std::size_t>(j)]);
      }
      const Eigen::HouseholderQR<Matrix> qr(columns);
      Matrix rotated = reduced;
      rotated.applyOnTheLeft(qr.householderQ().adjoint());
      return rotated.bottomRows(r - t).norm();
    };
    // A consistent rest has every remaining syndrome entry within its tau, hence Frobenius
    // within sqrt(entries) * tau; the screen uses this level's term bound and adds leakage.
    auto screen_slack = [&](const std::vector<int>& support) {
      const double entries =
          static_cast<double>(r - static_cast<int>(support.size())) * entries_per_row;
      return std::sqrt(entries) * base * magnitude_excluding(members, support) + leak;
    };
    auto to_symbols = [&](const std::vector<int>& support) {
      std::vector<int> symbols;
      for (int position : support) symbols.push_back(members[static_cast<std::size_t>(position)]);
      return merged(peeled, symbols);
    };
    int size_verifications = 0;
    auto try_support = [&](const std::vector<int>& support) {
      const int before = verifications_;
      const bool consistent = attempt(to_symbols(support));
      size_verifications += verifications_ - before;
      return consistent;
    };
    auto out_of_checks = [&] {
      return size_verifications >= kSizeVerifications || verifications_ >= kVerificationBudget;
    };

    // Largest singular value noise alone could reach (every entry within tau).
    const double noise_slack =
        std::sqrt(static_cast<double>(r) * entries_per_row) * base * peak_all + leak;
    // Numerical rank of S. Above remaining_errors no support within the bound explains S, and
    // peeling a symbol lowers the rank by at most one (interlacing): beyond this decoder.
    int rank = 0;
    while (rank < singular.size() && singular(rank) > noise_slack) ++rank;
    if (rank > remaining_errors) return false;
    double level_budget = kLevelEnumeration;
    std::set<std::vector<int>> screened;
    const int first = std::max(rank, 1);
    // Subspace augmentation: if J is part of E and completes span(U_rho) to span(H_E), the rest
    // of E are the columns of H lying in span(U_rho, H_J), so only |J| = t - rho symbols are
    // enumerated. Cheapest first: every size with the full rank, then each size again with one
    // signal direction fewer (in case noise was counted in the rank), down to plain enumeration.
    for (int deficit = 0; deficit <= rank; ++deficit) {
      for (int t = first; t <= remaining_errors; ++t) {
        if (verifications_ >= kVerificationBudget) return false;
        const int rho = std::min(t, rank) - deficit;
        if (rho < 0) continue;
        const double count = binomial(n, t - rho);
        if (count > std::min(enumeration_budget_, level_budget)) {
          exhaustive_ = false;
          continue;
        }
        enumeration_budget_ -= count;
        level_budget -= count;
        const Matrix basis = left.leftCols(rho);
        std::vector<std::pair<double, std::vector<int>>> passing;
        std::vector<int> chosen(static_cast<std::size_t>(t - rho));
        for (int i = 0; i < t - rho; ++i) chosen[static_cast<std::size_t>(i)] = i;
        do {
          const std::vector<int> support = complete(parity, basis, chosen);
          if (!screened.insert(support).second) continue;
          const double value = screen_value(support);
          if (value <= screen_slack(support)) passing.emplace_back(value, support);
        } while (next_combination(chosen, n));
        std::stable_sort(passing.begin(), passing.end(),
                         [](const auto& x, const auto& y) { return x.first < y.first; });
        size_verifications = 0;
        for (const auto& candidate : passing) {
          if (out_of_checks()) {
            exhaustive_ = false;
            break;
          }
          if (try_support(candidate.second)) {
            // Smaller supports were not all ruled out: the caller prunes.
            if (t > first || deficit > 0) exhaustive_ = false;
            return true;
          }
        }
      }
    }

    // Peel the symbol whose parity column is closest to the dominant syndrome direction.
    if (remaining_errors < 2 || verifications_ >= kVerificationBudget) return false;
    exhaustive_ = false;
    const std::vector<int> top = complete(parity, left.leftCols(1), {});
    const std::vector<int> next_peeled =
        merged(peeled, {members[static_cast<std::size_t>(top[0])]});
    if (attempt(next_peeled)) return true;
    std::vector<int> next_members;
    std::set_difference(usable_.begin(), usable_.end(), next_peeled.begin(), next_peeled.end(),
                        std::back_inserter(next_members));
    const SubsetFactor next_factor = factor_subset(generator_, next_members, options_);
    if (!next_factor.usable) return false;
    return level(next_peeled, next_members, next_factor);
  }

  // `chosen` (ascending positions) plus the basis.cols() other columns of H nearest (in angle)
  // to span(basis, H_chosen), as ascending positions.
  static std::vector<int> complete(const Matrix& parity, const Matrix& basis,
                                   const std::vector<int>& chosen) {
    const auto extra = static_cast<int>(basis.cols());
    if (extra == 0) return chosen;
    const auto r = parity.rows();
    const auto n = static_cast<int>(parity.cols());
    const auto t = static_cast<Index>(extra + static_cast<int>(chosen.size()));
    Matrix span(r, t);
    span.leftCols(extra) = basis;
    for (std::size_t j = 0; j < chosen.size(); ++j) {
      span.col(extra + static_cast<Index>(j)) = parity.col(chosen[j]);
    }
    const Eigen::HouseholderQR<Matrix> qr(span);
    const Matrix q = qr.householderQ() * Matrix::Identity(r, t);
    std::vector<std::pair<double, int>> distance;
    distance.reserve(static_cast<std::size_t>(n));
    std::size_t next = 0;
    for (int i = 0; i < n; ++i) {
      if (next < chosen.size() && chosen[next] == i) {
        ++next;
        continue;
      }
      const Eigen::VectorXd column = parity.col(i);
      const double norm = column.norm();
      const double off = (column - q * (q.transpose() * column)).norm();
      distance.emplace_back(norm > 0.0 ? off / norm : kInfinity, i);
    }
    std::partial_sort(distance.begin(), distance.begin() + extra, distance.end());
    std::vector<int> support = chosen;
    for (int i = 0; i < extra; ++i) support.push_back(distance[static_cast<std::size_t>(i)].second);
    std::sort(support.begin(), support.end());
    return support;
  }

  const Matrix& generator_;
  Symbols symbols_;
  std::vector<int> usable_;
  const std::vector<double>& peak_;
  Index length_;
  const DecodeOptions& options_;
  int max_errors_ = 0;
  double enumeration_budget_ = kEnumerationBudget;
  bool exhaustive_ = true;  // every smaller support was ruled out
  int verifications_ = 0;
  std::set<std::vector<int>> attempted_;
  std::vector<int> blamed_;
  RowMajorMatrix message_;
  double condition_ = 0.0;
};

}  // namespace

LinearCode::LinearCode(Matrix generator) : generator_(std::move(generator)) {
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

  // Without given peaks, the first check and solve runs optimistically on every present symbol
  // and measures their peaks as it reads them (one pass over the data instead of two). It is used
  // when it went through all the data and the screening below keeps every present symbol.
  std::vector<double> measured;
  std::optional<SubsetFactor> optimistic_factor;
  std::optional<PassResult> optimistic_pass;
  if (peaks.empty()) {
    measured.assign(count, -1.0);
    if (static_cast<int>(present.size()) >= k) {
      SubsetFactor factor = factor_subset(generator_, present, options);
      if (factor.usable) {
        std::vector<double> set_peaks(present.size(), 0.0);
        PassResult pass =
            check_and_solve(factor, symbols, present, length, 0.0, options, wanted_rows, set_peaks);
        if (pass.complete) {
          for (std::size_t i = 0; i < present.size(); ++i) {
            measured[static_cast<std::size_t>(present[i])] = set_peaks[i];
          }
          optimistic_factor = std::move(factor);
          optimistic_pass = std::move(pass);
        }
      }
    }
    if (!optimistic_pass) {
      for (int s : present) {
        measured[static_cast<std::size_t>(s)] =
            symbol_peak(symbols[static_cast<std::size_t>(s)], length);
      }
    }
    peaks = measured;
  }

  // Pre-screen: non-finite entries and absurd magnitudes are erroneous, treated as erasures.
  std::vector<bool> screened(count, false);
  if (absurd_rank > 0) {
    std::vector<double> present_peaks(count, -1.0);
    for (int s : present) {
      present_peaks[static_cast<std::size_t>(s)] = peaks[static_cast<std::size_t>(s)];
    }
    screened = absurd_peaks(present_peaks, absurd_rank, options.absurd_ratio);
  }
  std::vector<double> peak(count, 0.0);
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
    const double limit = options.absurd_ratio * *middle;
    for (std::size_t s = 0; s < count; ++s) {
      if (symbols[s] != nullptr && !screened[s] && peak[s] > limit) screened[s] = true;
    }
  }

  CodeDecodeResult result;
  std::vector<int> usable;
  for (std::size_t s = 0; s < count; ++s) {
    if (screened[s]) result.erroneous_symbols.push_back(static_cast<int>(s));
    if (symbols[s] != nullptr && !screened[s]) usable.push_back(static_cast<int>(s));
  }
  const auto a = static_cast<int>(usable.size());
  if (a < k) return result;

  const bool optimistic = optimistic_pass && usable == present;
  const SubsetFactor factor =
      optimistic ? std::move(*optimistic_factor) : factor_subset(generator_, usable, options);
  if (!factor.usable) return result;
  double magnitude = 0.0;
  for (int s : usable) magnitude = std::max(magnitude, peak[static_cast<std::size_t>(s)]);
  PassResult pass = optimistic ? std::move(*optimistic_pass)
                               : check_and_solve(factor, symbols, usable, length, magnitude,
                                                 options, wanted_rows);
  if (pass.consistent) {
    result.status =
        result.erroneous_symbols.empty() ? DecodeStatus::clean : DecodeStatus::corrected;
    result.message = std::move(pass.message);
    result.condition_number = factor.condition;
    return result;
  }

  const int r = a - k;
  const int max_errors = options.error_model == ErrorModel::adversarial ? r / 2 : r - 1;
  if (max_errors < 1) return result;
  SupportSearch search(generator_, symbols, usable, peak, length, options);
  if (!search.run(max_errors, factor)) return result;
  result.erroneous_symbols.insert(result.erroneous_symbols.end(), search.blamed().begin(),
                                  search.blamed().end());
  std::sort(result.erroneous_symbols.begin(), result.erroneous_symbols.end());
  result.status = DecodeStatus::corrected;
  if (wanted_rows.empty()) {
    result.message = std::move(search.message());
  } else {
    result.message.resize(static_cast<Index>(wanted_rows.size()), length);
    for (std::size_t i = 0; i < wanted_rows.size(); ++i) {
      result.message.row(static_cast<Index>(i)) = search.message().row(wanted_rows[i]);
    }
  }
  result.condition_number = search.condition();
  return result;
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
