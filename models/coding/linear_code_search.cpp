// The error-locating search: candidate supports from the syndrome's column space, a cheap screen
// on the reduced syndrome, verification on the data, and peeling when a level fails.
#include "models/coding/linear_code_search.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <set>
#include <utility>

namespace codesim::models::detail {
namespace {

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

// `chosen` (ascending positions) plus the basis.cols() other columns of H nearest (in angle)
// to span(basis, H_chosen), as ascending positions.
std::vector<int> complete(const Matrix& parity, const Matrix& basis,
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

// One search level: `members` = usable \ peeled (ascending), its parity check and the reduced
// syndrome's singular structure. Magnitudes are in units of 1 / inverse_scale.
struct Level {
  Level(const std::vector<int>& peeled_symbols, const std::vector<int>& member_symbols)
      : peeled(peeled_symbols), members(member_symbols) {}

  const std::vector<int>& peeled;
  const std::vector<int>& members;
  int n = 0;
  int r = 0;
  int remaining_errors = 0;
  Matrix parity;
  Matrix reduced;
  Eigen::VectorXd singular;
  Matrix left;
  double peak_all = 0.0;
  double base = 0.0;  // tau per unit of symbol peak
  double leak = 0.0;
  double entries_per_row = 0.0;
};

// What one level's enumeration concluded.
enum class Enumeration { found, out_of_checks, not_found };

// Search for the error support E, the error path of one decode. Candidates come from the
// syndrome's column space (subspace-augmented, see `enumerate`) and pass a cheap screen on the
// reduced syndrome; each is accepted only after `attempt` finds usable \ E consistent from the
// data itself. If a level fails (for example a huge error hides small ones under its round-off),
// the symbol most implicated is set aside ("peeled") and the search repeats on a freshly
// computed syndrome of the rest.
class SupportSearch {
 public:
  SupportSearch(const Matrix& generator, Symbols symbols, std::vector<int> usable,
                const std::vector<double>& peak, Index length, const DecodeOptions& options,
                const DenseKernels& kernels)
      : generator_(generator),
        symbols_(symbols),
        usable_(std::move(usable)),
        peak_(peak),
        length_(length),
        options_(options),
        kernels_(kernels) {}

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

  ErrorSupport result() && { return {std::move(blamed_), std::move(message_), condition_}; }
  double work() const { return work_; }

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
    PassResult pass =
        check_and_solve(factor, symbols_, remaining, length_, magnitude, options_, kernels_);
    if (!pass.consistent) return false;
    blamed_ = excluded;
    message_ = std::move(pass.message);
    condition_ = factor.condition;
    return true;
  }

  // One level: `members` = usable \ peeled (ascending), factored as `factor`, inconsistent.
  bool level(const std::vector<int>& peeled, const std::vector<int>& members,
             const SubsetFactor& factor) {
    Level view(peeled, members);
    view.n = static_cast<int>(members.size());
    view.r = static_cast<int>(factor.redundancy);
    view.remaining_errors = max_errors_ - static_cast<int>(peeled.size());
    if (view.remaining_errors < 1 || view.r < 1) return false;
    if (!measure(view, factor)) return false;
    // Largest singular value noise alone could reach (every entry within tau).
    const double noise_slack =
        std::sqrt(static_cast<double>(view.r) * view.entries_per_row) * view.base * view.peak_all +
        view.leak;
    // Numerical rank of S. Above remaining_errors no support within the bound explains S, and
    // peeling a symbol lowers the rank by at most one (interlacing): beyond this decoder.
    int rank = 0;
    while (rank < view.singular.size() && view.singular(rank) > noise_slack) ++rank;
    if (rank > view.remaining_errors) return false;
    const Enumeration outcome = enumerate(view, rank);
    if (outcome != Enumeration::not_found) return outcome == Enumeration::found;
    return peel(view);
  }

  // The level's parity check, reduced syndrome and its SVD, and the screen's scales; false when
  // the syndrome cannot be measured (no finite nonzero peak, or a non-finite reduction).
  bool measure(Level& view, const SubsetFactor& factor) const {
    view.parity = factor.combined.topRows(view.r);
    for (int s : view.members) {
      view.peak_all = std::max(view.peak_all, peak_[static_cast<std::size_t>(s)]);
    }
    if (!(view.peak_all > 0.0) || !std::isfinite(view.peak_all)) return false;
    const double inverse_scale = std::ldexp(1.0, -std::ilogb(view.peak_all));
    view.reduced = reduced_syndrome(factor, symbols_, view.members, length_, inverse_scale);
    if (!view.reduced.allFinite() || view.reduced.cols() == 0) return false;
    const Eigen::JacobiSVD<Matrix> svd(view.reduced, Eigen::ComputeThinU);
    view.singular = svd.singularValues();
    view.left = svd.matrixU();
    // Everything below is in units of 1 / inverse_scale.
    view.base = unit_threshold(options_) * factor.term_bound * inverse_scale;
    view.leak = kLeakFactor * kUnitRoundoff * (view.n + view.r) * view.reduced.norm();
    view.entries_per_row = static_cast<double>(length_);
    return true;
  }

  // Subspace augmentation: if J is part of E and completes span(U_rho) to span(H_E), the rest
  // of E are the columns of H lying in span(U_rho, H_J), so only |J| = t - rho symbols are
  // enumerated. Cheapest first: every size with the full rank, then each size again with one
  // signal direction fewer (in case noise was counted in the rank), down to plain enumeration.
  Enumeration enumerate(const Level& view, int rank) {
    double level_budget = kLevelEnumeration;
    std::set<std::vector<int>> screened;
    const int first = std::max(rank, 1);
    for (int deficit = 0; deficit <= rank; ++deficit) {
      for (int t = first; t <= view.remaining_errors; ++t) {
        if (verifications_ >= kVerificationBudget) return Enumeration::out_of_checks;
        const int rho = std::min(t, rank) - deficit;
        if (rho < 0) continue;
        const double count = binomial(view.n, t - rho);
        const double work = count * view.r * t * (view.n + t);
        if (count > std::min(enumeration_budget_, level_budget) ||
            work > kSearchWorkBudget - work_) {
          exhaustive_ = false;
          continue;
        }
        enumeration_budget_ -= count;
        level_budget -= count;
        work_ += work;
        const auto passing = screen(view, t, rho, screened);
        if (verify(view, passing)) {
          // Smaller supports were not all ruled out: the caller prunes.
          if (t > first || deficit > 0) exhaustive_ = false;
          return Enumeration::found;
        }
      }
    }
    return Enumeration::not_found;
  }

  // The supports of size t completed from rho signal directions that pass the cheap screen
  // (each support screened once per level), best screen value first.
  std::vector<std::pair<double, std::vector<int>>> screen(const Level& view, int t, int rho,
                                                          std::set<std::vector<int>>& screened) {
    const Matrix basis = view.left.leftCols(rho);
    std::vector<std::pair<double, std::vector<int>>> passing;
    std::vector<int> chosen(static_cast<std::size_t>(t - rho));
    for (int i = 0; i < t - rho; ++i) chosen[static_cast<std::size_t>(i)] = i;
    do {
      const std::vector<int> support = complete(view.parity, basis, chosen);
      if (!screened.insert(support).second) continue;
      const double value = screen_value(view, support);
      if (value <= screen_slack(view, support)) passing.emplace_back(value, support);
    } while (next_combination(chosen, view.n));
    std::stable_sort(passing.begin(), passing.end(),
                     [](const auto& x, const auto& y) { return x.first < y.first; });
    return passing;
  }

  // ||S outside span(H_E)||_F, on the reduced syndrome.
  static double screen_value(const Level& view, const std::vector<int>& support) {
    const auto t = static_cast<Index>(support.size());
    Matrix columns(view.r, t);
    for (Index j = 0; j < t; ++j) {
      columns.col(j) = view.parity.col(support[static_cast<std::size_t>(j)]);
    }
    const Eigen::HouseholderQR<Matrix> qr(columns);
    Matrix rotated = view.reduced;
    rotated.applyOnTheLeft(qr.householderQ().adjoint());
    return rotated.bottomRows(view.r - t).norm();
  }

  // A consistent rest has every remaining syndrome entry within its tau, hence Frobenius
  // within sqrt(entries) * tau; the screen uses this level's term bound and adds leakage.
  double screen_slack(const Level& view, const std::vector<int>& support) const {
    const double entries =
        static_cast<double>(view.r - static_cast<int>(support.size())) * view.entries_per_row;
    return std::sqrt(entries) * view.base * magnitude_excluding(view.members, support) + view.leak;
  }

  // Tries the passing supports in order until one leaves a consistent rest, within the checks
  // left for this size and for the decode.
  bool verify(const Level& view, const std::vector<std::pair<double, std::vector<int>>>& passing) {
    int size_verifications = 0;
    for (const auto& candidate : passing) {
      if (size_verifications >= kSizeVerifications || verifications_ >= kVerificationBudget) {
        exhaustive_ = false;
        break;
      }
      std::vector<int> symbols;
      for (int position : candidate.second) {
        symbols.push_back(view.members[static_cast<std::size_t>(position)]);
      }
      const int before = verifications_;
      const bool consistent = attempt(merged(view.peeled, symbols));
      size_verifications += verifications_ - before;
      if (consistent) return true;
    }
    return false;
  }

  // Peels the symbol whose parity column is closest to the dominant syndrome direction and
  // searches the rest.
  bool peel(const Level& view) {
    if (view.remaining_errors < 2 || verifications_ >= kVerificationBudget) return false;
    exhaustive_ = false;
    const std::vector<int> top = complete(view.parity, view.left.leftCols(1), {});
    const std::vector<int> next_peeled =
        merged(view.peeled, {view.members[static_cast<std::size_t>(top[0])]});
    if (attempt(next_peeled)) return true;
    std::vector<int> next_members;
    std::set_difference(usable_.begin(), usable_.end(), next_peeled.begin(), next_peeled.end(),
                        std::back_inserter(next_members));
    const SubsetFactor next_factor = factor_subset(generator_, next_members, options_);
    if (!next_factor.usable) return false;
    return level(next_peeled, next_members, next_factor);
  }

  const Matrix& generator_;
  Symbols symbols_;
  std::vector<int> usable_;
  const std::vector<double>& peak_;
  Index length_;
  const DecodeOptions& options_;
  const DenseKernels& kernels_;
  int max_errors_ = 0;
  double enumeration_budget_ = kEnumerationBudget;
  double work_ = 0.0;       // of the candidates screened so far
  bool exhaustive_ = true;  // every smaller support was ruled out
  int verifications_ = 0;
  std::set<std::vector<int>> attempted_;
  std::vector<int> blamed_;
  RowMajorMatrix message_;
  double condition_ = 0.0;
};

}  // namespace

SearchOutcome find_error_support(const Matrix& generator, Symbols symbols, std::vector<int> usable,
                                 const std::vector<double>& peak, Index length,
                                 const DecodeOptions& options, const DenseKernels& kernels,
                                 int max_errors, const SubsetFactor& factor) {
  SupportSearch search(generator, symbols, std::move(usable), peak, length, options, kernels);
  SearchOutcome outcome;
  const bool found = search.run(max_errors, factor);
  outcome.work = search.work();
  if (found) outcome.support = std::move(search).result();
  return outcome;
}

}  // namespace codesim::models::detail
