// q(s) by counting correctable entry sets column by column (exact), or bounding them (large s);
// Q_j from the distribution of the union of j strikes' entry sets.
#include "models/theory/abft_correction.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <tuple>
#include <variant>

#include "sim/build_once_map.hpp"
#include "sim/check.hpp"

namespace codesim::models {
namespace {

constexpr int kChecksumLines = 3;  // abft::kChecksums, without pulling Eigen into the theory
constexpr int kCornerEntries = kChecksumLines * kChecksumLines;
// Float64's top exponent bit: flipping it overflows the residuals of a weight below 1.
constexpr int kTopExponentBit = 62;
// Float64 exponent bits 4 to 9: flipping one scales a checksum of magnitude 2 to 2^16 by 2^16 or
// more (the bit is clear), past the round-off allowance of its correction.
constexpr int kChecksumOverflowBits[] = {56, 57, 58, 59, 60, 61};
// Operations an exact count may take (about C s min(R, s)^2 / 6; a fraction of a second).
constexpr double kExactBudget = 1e7;
// Below this, an upper bound on q(k) settles every rollback probability in double precision:
// no count is needed.
constexpr double kNegligible = 1e-15;

double log_choose(double n, double k) {
  if (k < 0 || k > n) return -std::numeric_limits<double>::infinity();
  return std::lgamma(n + 1) - std::lgamma(k + 1) - std::lgamma(n - k + 1);
}

// log(e^a + e^b) without overflow.
double log_add(double a, double b) {
  if (a == -std::numeric_limits<double>::infinity()) return b;
  if (b == -std::numeric_limits<double>::infinity()) return a;
  const double hi = std::max(a, b);
  return hi + std::log1p(std::exp(std::min(a, b) - hi));
}

struct Geometry {
  double rows = 0;     // R
  double cols = 0;     // C
  double height = 0;   // R + 3: the entries of one column of [W; CR]
  double free = 0;     // CC and the corner, 3 (R + 3): no column-pass constraint
  double entries = 0;  // N = (R + 3)(C + 3)
  double sound = 1.0;  // 1 - beyond_correction: a W entry the check can correct
  double checksum_sound = 1.0;
  // Correctable choices of one entry in one column of [W; CR].
  double column_choices() const { return rows * sound + kChecksumLines * checksum_sound; }
};

Geometry geometry(AbftBlockShape shape, const AbftStrikeModel& model) {
  Geometry g;
  g.rows = shape.rows;
  g.cols = shape.cols;
  g.height = shape.rows + kChecksumLines;
  g.free = kChecksumLines * g.height;
  g.entries = static_cast<double>(shape.stored_entries());
  g.sound = 1.0 - model.beyond_correction;
  g.checksum_sound = 1.0 - model.checksum_beyond_correction;
  return g;
}

// log P(every column of [W; CR] holds at most one of s entries, all of them sound).
double log_column_pass(const Geometry& g, double s) {
  double sum = -std::numeric_limits<double>::infinity();
  const double choices = g.column_choices();
  const double log_choices = choices > 0.0 ? std::log(choices) : 0.0;
  const double last = choices > 0.0 ? std::min(g.cols, s) : 0.0;
  for (double j = std::max(0.0, s - g.free); j <= last; ++j) {
    sum = log_add(sum, log_choose(g.cols, j) + j * log_choices + log_choose(g.free, s - j));
  }
  return sum - log_choose(g.entries, s);
}

// Upper bound on P(the row pass rescues a set the column pass cannot put right). The W entries
// of the bad columns lie in distinct rows, and at most C W entries lie in good columns, so the w
// struck W entries cover at least w - C distinct rows. Row-occupancy indicators of a sample
// without replacement are negatively associated: P(rows >= mu + t) <= exp(-2 t^2 / R).
double row_pass_bound(const Geometry& g, double s) {
  const double core = g.rows * g.cols;
  double bound = 0.0;
  const double log_total = log_choose(g.entries, s);
  for (double w = std::max(0.0, s - (g.entries - core)); w <= std::min(core, s); ++w) {
    double h = 1.0;
    if (w - g.cols > g.rows) {
      h = 0.0;
    } else if (w > g.cols) {
      const double empty = std::exp(log_choose(core - g.cols, w) - log_choose(core, w));
      const double t = w - g.cols - g.rows * (1.0 - empty);
      if (t > 0.0) h = std::exp(-2.0 * t * t / g.rows);
    }
    if (h == 0.0) continue;
    bound += h * std::exp(log_choose(core, w) + log_choose(g.entries - core, s - w) - log_total);
  }
  return bound;
}

double bounded_q(const Geometry& g, double s) {
  return std::min(1.0, std::exp(log_column_pass(g, s)) + row_pass_bound(g, s));
}

// P(the verification pass's all-ones products let s struck entries through): train_coded checks
// those products at the node without repairing first, and a product's check corrects one wrong
// entry per column. Forward, [W; CR] 1 holds one wrong entry per row of [W; CR] with a struck
// entry: they must lie in one row (then the node's repair puts every struck entry right: one per
// column). With none there, backward [W, CC]^T 1 holds one wrong checksum per struck checksum
// column: one column at most. The corner is read by neither.
double verification_pass(const Geometry& g, double s) {
  const double outside = kChecksumLines * g.rows + kCornerEntries;  // CC and the corner
  double sum = -std::numeric_limits<double>::infinity();
  for (double a = 1; a <= std::min(g.cols, s); ++a) {
    const double rows_weight =
        g.rows * std::pow(g.sound, a) + kChecksumLines * std::pow(g.checksum_sound, a);
    if (rows_weight <= 0.0) continue;
    sum = log_add(sum, std::log(rows_weight) + log_choose(g.cols, a) + log_choose(outside, s - a));
  }
  sum = log_add(sum, log_choose(kCornerEntries, s));
  for (double c = 1; c <= std::min(g.rows, s); ++c) {
    if (g.checksum_sound <= 0.0) break;
    sum = log_add(sum, std::log(static_cast<double>(kChecksumLines)) + log_choose(g.rows, c) +
                           c * std::log(g.checksum_sound) + log_choose(kCornerEntries, s - c));
  }
  return std::min(1.0, std::exp(sum - log_choose(g.entries, s)));
}

// Largest s <= wanted whose exact count fits the budget and long double's range.
std::int64_t exact_limit(const Geometry& g, std::int64_t wanted) {
  const double max_log = std::log(std::numeric_limits<long double>::max()) - 64.0;
  std::int64_t s = 0;
  while (s < wanted) {
    const double next = static_cast<double>(s + 1);
    const double a = std::min(g.rows, next);
    if (g.cols * next * a * a / 6 > kExactBudget) break;
    if (log_choose(g.entries, next) > max_log || next * std::log(g.rows) > max_log) break;
    ++s;
  }
  return s;
}

// rescued[t][A]: weighted counts of t sound entries in [W; CR] with A >= 0 W entries in bad
// columns, each bad column weighted 1/a! for its a W entries (their rows are placed later).
std::vector<std::vector<long double>> column_counts(const Geometry& g, int s_max, int a_max) {
  std::vector<long double> coefficient(static_cast<std::size_t>(a_max) + 1, 1.0L);
  for (int a = 1; a <= a_max; ++a) {
    coefficient[static_cast<std::size_t>(a)] =
        coefficient[static_cast<std::size_t>(a) - 1] * static_cast<long double>(g.sound) / a;
  }
  const auto single = static_cast<long double>(g.column_choices());
  const auto checksum = kChecksumLines * static_cast<long double>(g.checksum_sound);
  std::vector<std::vector<long double>> d(
      static_cast<std::size_t>(s_max) + 1,
      std::vector<long double>(static_cast<std::size_t>(a_max) + 1, 0.0L));
  d[0][0] = 1.0L;
  for (int column = 0; column < static_cast<int>(g.cols); ++column) {
    // In place, from the most entries down: a cell only feeds cells with more entries, which
    // this column is done reading. Leaving a cell as it is puts nothing in the column.
    for (int t = s_max; t >= 0; --t) {
      for (int used = 0; used <= std::min(t, a_max); ++used) {
        const long double v = d[static_cast<std::size_t>(t)][static_cast<std::size_t>(used)];
        if (v == 0.0L) continue;
        // One entry (W or CR): the column pass corrects it; its row stays free.
        if (t + 1 <= s_max) {
          d[static_cast<std::size_t>(t) + 1][static_cast<std::size_t>(used)] += single * v;
        }
        // A bad column: a >= 1 W entries in fresh rows, with no CR entry (a >= 2) or one.
        for (int a = 1; t + a <= s_max && used + a <= a_max; ++a) {
          const long double w = v * coefficient[static_cast<std::size_t>(a)];
          if (a >= 2) d[static_cast<std::size_t>(t + a)][static_cast<std::size_t>(used + a)] += w;
          if (t + a + 1 <= s_max) {
            d[static_cast<std::size_t>(t + a + 1)][static_cast<std::size_t>(used + a)] +=
                checksum * w;
          }
        }
      }
    }
  }
  return d;
}

// q(0 .. s_max) exactly: column pass, plus the row pass's rescues counted from column_counts
// (A >= 1 means a bad column) with o CC entries in distinct rows and z corner entries.
std::vector<double> exact_q(const Geometry& g, int s_max) {
  const int rows = static_cast<int>(g.rows);
  const int a_max = std::min(rows, s_max);
  const auto d = column_counts(g, s_max, a_max);
  // rescued[t][o] = sum_{A >= 1} d[t][A] (R - o)_A: the bad columns' rows, placed apart from
  // the o rows holding a CC entry.
  std::vector<std::vector<long double>> rescued(
      static_cast<std::size_t>(s_max) + 1,
      std::vector<long double>(static_cast<std::size_t>(std::min(rows, s_max)) + 1, 0.0L));
  for (int o = 0; o <= std::min(rows, s_max); ++o) {
    std::vector<long double> falling(static_cast<std::size_t>(a_max) + 1, 1.0L);
    for (int a = 1; a <= a_max; ++a) {
      falling[static_cast<std::size_t>(a)] =
          falling[static_cast<std::size_t>(a) - 1] *
          static_cast<long double>(std::max(0, rows - o - a + 1));
    }
    for (int t = 0; t <= s_max; ++t) {
      long double sum = 0.0L;
      for (int a = 1; a <= a_max; ++a) {
        sum += d[static_cast<std::size_t>(t)][static_cast<std::size_t>(a)] *
               falling[static_cast<std::size_t>(a)];
      }
      rescued[static_cast<std::size_t>(t)][static_cast<std::size_t>(o)] = sum;
    }
  }
  std::vector<double> q(static_cast<std::size_t>(s_max) + 1, 1.0);
  const long double cc_choice = kChecksumLines * static_cast<long double>(g.checksum_sound);
  for (int s = 1; s <= s_max; ++s) {
    long double rescue = 0.0L;
    for (int z = 0; z <= std::min(kCornerEntries, s); ++z) {
      for (int o = 0; o <= std::min(rows, s - z); ++o) {
        const long double ways = std::exp(static_cast<long double>(log_choose(kCornerEntries, z) +
                                                                   log_choose(g.rows, o))) *
                                 std::pow(cc_choice, static_cast<long double>(o));
        rescue += ways * rescued[static_cast<std::size_t>(s - z - o)][static_cast<std::size_t>(o)];
      }
    }
    const long double total = std::exp(static_cast<long double>(log_choose(g.entries, s)));
    const double value = std::exp(log_column_pass(g, s)) + static_cast<double>(rescue / total);
    q[static_cast<std::size_t>(s)] = std::min(1.0, value);
  }
  return q;
}

// P(the union of j strikes of k entries each has u entries), u = 0 .. j k; each new strike
// overlaps the union hypergeometrically.
std::vector<double> union_sizes(double entries, std::int64_t k, int strikes) {
  std::vector<double> p(static_cast<std::size_t>(k) * strikes + 1, 0.0);
  p[static_cast<std::size_t>(k)] = 1.0;
  for (int j = 2; j <= strikes; ++j) {
    std::vector<double> next(p.size(), 0.0);
    for (std::size_t u = 0; u < p.size(); ++u) {
      if (p[u] == 0.0) continue;
      const double log_total = log_choose(entries, static_cast<double>(k));
      for (std::int64_t x = 0; x <= k; ++x) {
        const double log_p =
            log_choose(static_cast<double>(u), static_cast<double>(x)) +
            log_choose(entries - static_cast<double>(u), static_cast<double>(k - x)) - log_total;
        if (std::isfinite(log_p))
          next[u + static_cast<std::size_t>(k - x)] += p[u] * std::exp(log_p);
      }
    }
    p = std::move(next);
  }
  return p;
}

}  // namespace

std::int64_t AbftBlockShape::stored_entries() const {
  return (static_cast<std::int64_t>(rows) + kChecksumLines) *
         (static_cast<std::int64_t>(cols) + kChecksumLines);
}

AbftStrikeModel abft_strike_model(const ValueModelSpec& spec, AbftBlockShape shape) {
  CODESIM_CHECK(validate_value_model(spec).empty(), "the strike model needs a valid value model");
  AbftStrikeModel model;
  model.entries = entries_to_corrupt(spec, shape.stored_entries());
  if (spec.kind != ValueModelKind::bitflip) return model;
  // `bits` distinct flips among the allowed positions: P(some of them in a set of `hits`).
  const std::vector<int> bits = allowed_bits(spec, ScalarType::float64);
  const auto allowed = static_cast<double>(bits.size());
  const auto any_of = [&](double hits) {
    return 1.0 - std::exp(log_choose(allowed - hits, spec.bits) - log_choose(allowed, spec.bits));
  };
  const auto count = [&bits](const int* first, const int* last) {
    return static_cast<double>(std::count_if(
        bits.begin(), bits.end(), [&](int bit) { return std::find(first, last, bit) != last; }));
  };
  const int top[] = {kTopExponentBit};
  model.beyond_correction = any_of(count(std::begin(top), std::end(top)));
  model.checksum_beyond_correction =
      any_of(count(std::begin(kChecksumOverflowBits), std::end(kChecksumOverflowBits)));
  return model;
}

std::optional<AbftBlockShape> locally_checked_block(const SchemeSpec& spec, int rows, int cols) {
  if (!checks_at_nodes(spec)) return std::nullopt;
  const auto [m, n] = block_grid(spec);
  return AbftBlockShape{.rows = rows / m, .cols = cols / n};
}

double abft_partial_correction(const ValueModelSpec& spec, int length, int batch) {
  CODESIM_CHECK(length >= 1 && batch >= 1, "a partial has values and columns");
  const AbftStrikeModel model = abft_strike_model(spec, {.rows = length, .cols = batch});
  const auto cells = static_cast<std::int64_t>(length + kChecksumLines) * batch;
  const std::int64_t entries = entries_to_corrupt(spec, cells);
  if (entries > batch) return 0.0;
  // Choose the struck columns, then one correctable entry in each, over all choices of entries.
  const double choices = length * (1.0 - model.beyond_correction) +
                         kChecksumLines * (1.0 - model.checksum_beyond_correction);
  if (choices <= 0.0) return 0.0;
  const auto e = static_cast<double>(entries);
  return std::exp(log_choose(batch, e) + e * std::log(choices) -
                  log_choose(static_cast<double>(cells), e));
}

AbftCorrection::AbftCorrection(AbftBlockShape shape, AbftStrikeModel model, int max_strikes)
    : shape_(shape), model_(model) {
  CODESIM_CHECK(shape.rows >= 1 && shape.cols >= 1 && max_strikes >= 1, "a block and a strike");
  CODESIM_CHECK(model.entries >= 1 && model.entries <= shape.stored_entries(),
                "a strike changes between one and all entries");
  CODESIM_CHECK(model.beyond_correction >= 0.0 && model.beyond_correction <= 1.0 &&
                    model.checksum_beyond_correction >= 0.0 &&
                    model.checksum_beyond_correction <= 1.0,
                "beyond_correction is a probability");
  const Geometry g = geometry(shape, model);
  const std::int64_t k = model.entries;
  const std::int64_t wanted = std::min(shape.stored_entries(), k * max_strikes);
  const std::int64_t limit = exact_limit(g, wanted);
  // Below k the count still bounds q(k) from above (q does not grow with s), unless the bound
  // already makes q(k) negligible.
  if (limit >= k || bounded_q(g, static_cast<double>(k)) > kNegligible) {
    exact_entries_ = limit;
    exact_q_ = exact_q(g, static_cast<int>(limit));
  } else {
    exact_q_ = {1.0};
  }
  given_strikes_.push_back(1.0);
  for (int j = 1; j <= max_strikes; ++j) {
    if (k * j <= exact_entries_) {
      const std::vector<double> sizes = union_sizes(g.entries, k, j);
      double sum = 0.0;
      for (std::size_t u = 0; u < sizes.size(); ++u) sum += sizes[u] * exact_q_[u];
      given_strikes_.push_back(std::min(1.0, sum));
      continue;
    }
    // The union holds the first strike's entries and the earlier strikes' union: no better.
    exact_ = false;
    given_strikes_.push_back(j == 1 ? given_entries(k) : given_strikes_.back());
  }
  at_verification_.push_back(1.0);
  for (int j = 1; j <= max_strikes; ++j) {
    if (j == 1) {
      at_verification_.push_back(verification_pass(g, static_cast<double>(k)));
      continue;
    }
    // The union's distribution costs about j k^2 operations.
    if (static_cast<double>(j) * static_cast<double>(k) * static_cast<double>(k) > kExactBudget) {
      exact_ = false;  // an approximation: the last exact value
      at_verification_.push_back(at_verification_.back());
      continue;
    }
    const std::vector<double> sizes = union_sizes(g.entries, k, j);
    double sum = 0.0;
    for (std::size_t u = 0; u < sizes.size(); ++u) {
      if (sizes[u] > 0.0) sum += sizes[u] * verification_pass(g, static_cast<double>(u));
    }
    at_verification_.push_back(std::min(1.0, sum));
  }
}

double AbftCorrection::at_verification(int strikes) const {
  CODESIM_CHECK(strikes >= 0, "strikes >= 0");
  const auto j = std::min(static_cast<std::size_t>(strikes), at_verification_.size() - 1);
  return at_verification_[j];
}

double AbftCorrection::given_entries(std::int64_t entries) const {
  CODESIM_CHECK(entries >= 0 && entries <= shape_.stored_entries(), "entries of the block");
  if (entries <= exact_entries_) return exact_q_[static_cast<std::size_t>(entries)];
  const double bound = bounded_q(geometry(shape_, model_), static_cast<double>(entries));
  return exact_entries_ > 0 ? std::min(exact_q_.back(), bound) : bound;
}

double AbftCorrection::given_strikes(int strikes) const {
  CODESIM_CHECK(strikes >= 0, "strikes >= 0");
  const auto j = std::min(static_cast<std::size_t>(strikes), given_strikes_.size() - 1);
  return given_strikes_[j];
}

const AbftCorrection& shared_abft_correction(AbftBlockShape shape, AbftStrikeModel model,
                                             int max_strikes) {
  using Key = std::tuple<int, int, std::int64_t, double, double, int>;
  static sim::BuildOnceMap<Key, AbftCorrection> tables;
  const Key key{shape.rows,
                shape.cols,
                model.entries,
                model.beyond_correction,
                model.checksum_beyond_correction,
                max_strikes};
  return tables.get(key, [&] { return AbftCorrection(shape, model, max_strikes); });
}

}  // namespace codesim::models
