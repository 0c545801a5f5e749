// Worst condition numbers of a scheme's decoding systems over a fixed family of K-subsets.
#include "models/coding/conditioning.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <numeric>
#include <set>

#include <boost/random/mersenne_twister.hpp>
#include <boost/random/uniform_int_distribution.hpp>

#include "models/coding/scheme_support.hpp"
#include "sim/check.hpp"

namespace codesim::models {
namespace {

constexpr double kUnitRoundoff = std::numeric_limits<double>::epsilon() / 2.0;  // 2^-53

// The smallest W the spec accepts: the generators do not depend on the shape, and building the
// scheme on it costs nothing.
std::unique_ptr<CodingScheme> smallest_scheme(const SchemeSpec& spec) {
  const auto [rows, cols] = block_grid(spec);
  return make_scheme(spec, rows, cols);
}

// 2-norm condition number of the listed generator rows (as the decoder computes it: the singular
// values of R from a QR of the rows).
double rows_condition(const Matrix& generator, const std::vector<int>& subset) {
  const auto n = static_cast<Eigen::Index>(subset.size());
  const Eigen::Index k = generator.cols();
  CODESIM_CHECK(n >= k, "a subset needs at least K symbols");
  Matrix rows(n, k);
  for (Eigen::Index i = 0; i < n; ++i) {
    const int s = subset[static_cast<std::size_t>(i)];
    CODESIM_CHECK(s >= 0 && s < generator.rows(), "subset symbols in [0, S)");
    rows.row(i) = generator.row(s);
  }
  const Eigen::HouseholderQR<Matrix> qr(rows);
  const Matrix r = qr.matrixQR().topLeftCorner(k, k).triangularView<Eigen::Upper>();
  // Divide and conquer: about three times faster than Jacobi at K = 64, the same values.
  const Eigen::VectorXd singular = Eigen::BDCSVD<Matrix>(r).singularValues();
  // Numerically rank deficient (the smallest singular value is round-off of the largest):
  // singular.
  const double smallest = singular(k - 1);
  if (!(smallest > static_cast<double>(k) * kUnitRoundoff * singular(0))) {
    return std::numeric_limits<double>::infinity();
  }
  return singular(0) / smallest;
}

DirectionConditioning direction_conditioning(const CodingScheme& scheme, Direction dir) {
  DirectionConditioning out;
  const Matrix* generator = scheme.symbol_generator(dir);
  if (generator == nullptr) return out;
  const auto symbols = static_cast<int>(generator->rows());
  const auto k = static_cast<int>(generator->cols());
  out.symbols = symbols;
  out.dimension = k;

  std::vector<int> all(static_cast<std::size_t>(symbols));
  std::iota(all.begin(), all.end(), 0);
  std::vector<std::vector<int>> subsets;
  subsets.emplace_back(all.begin(), all.begin() + k);
  subsets.emplace_back(all.end() - k, all.end());
  subsets.push_back(detail::spread_selection(all, k));
  boost::random::mt19937_64 engine(kConditioningSeed);
  for (int t = 0; t < kConditioningRandomSubsets; ++t) {
    std::vector<int> shuffled = all;
    // Partial Fisher-Yates: the first K entries are a uniform K-subset.
    for (int i = 0; i < k; ++i) {
      boost::random::uniform_int_distribution<int> pick(i, symbols - 1);
      std::swap(shuffled[static_cast<std::size_t>(i)],
                shuffled[static_cast<std::size_t>(pick(engine))]);
    }
    shuffled.resize(static_cast<std::size_t>(k));
    std::sort(shuffled.begin(), shuffled.end());
    subsets.push_back(std::move(shuffled));
  }

  std::set<std::vector<int>> seen;
  out.worst_condition = 0.0;
  for (const std::vector<int>& subset : subsets) {
    if (!seen.insert(subset).second) continue;
    ++out.subsets;
    const double condition = rows_condition(*generator, subset);
    // NaN cannot occur (finite generator); the first subset sets the worst.
    if (condition > out.worst_condition || out.worst_subset.empty()) {
      out.worst_condition = condition;
      out.worst_subset = subset;
    }
  }
  return out;
}

}  // namespace

DecodingConditioning decoding_conditioning(const SchemeSpec& spec, int rows, int cols) {
  CODESIM_CHECK(validate_scheme(spec, rows, cols).empty(),
                "decoding_conditioning needs a valid spec");
  const std::unique_ptr<CodingScheme> scheme = smallest_scheme(spec);
  DecodingConditioning out;
  out.forward = direction_conditioning(*scheme, Direction::forward);
  out.backward = direction_conditioning(*scheme, Direction::backward);
  return out;
}

double subset_condition(const SchemeSpec& spec, Direction dir, const std::vector<int>& subset) {
  CODESIM_CHECK(validate_scheme(spec).empty(), "subset_condition needs a valid spec");
  const std::unique_ptr<CodingScheme> scheme = smallest_scheme(spec);
  const Matrix* generator = scheme->symbol_generator(dir);
  if (generator == nullptr) return 1.0;
  return rows_condition(*generator, subset);
}

bool may_lose_accuracy(double condition_number) {
  if (!std::isfinite(condition_number)) return true;
  return condition_number * kUnitRoundoff * kConditioningSafetyFactor >
         kDecodeRelativeAccuracyTarget;
}

}  // namespace codesim::models
