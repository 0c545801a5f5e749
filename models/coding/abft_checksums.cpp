// ABFT checks: residuals of each column's checksums, one wrong entry located from their ratios.
#include "models/coding/abft_checksums.hpp"

#include <array>
#include <cmath>
#include <cstddef>
#include <cstring>

#include "models/linalg/dense_kernels.hpp"

namespace codesim::models::abft {
namespace {

constexpr double kUnitRoundoff = 0x1p-53;

struct Residuals {
  std::array<double, kChecksums> value{};      // sum_i weight(k, i) y_i - s_k
  std::array<double, kChecksums> threshold{};  // the round-off allowance of each
  bool significant(int k) const { return !(std::abs(value[k]) <= threshold[k]); }  // NaN too
};

Residuals residuals(const Eigen::Ref<const Eigen::VectorXd>& column, Eigen::Index length,
                    const CheckOptions& options) {
  const double scale = options.tolerance_factor * kUnitRoundoff * options.inner_dimension;
  // One pass for the three checksums (each summed in entry order, as before).
  std::array<double, kChecksums> sum{};
  std::array<double, kChecksums> magnitude{};
  for (Eigen::Index i = 0; i < length; ++i) {
    const double w = static_cast<double>(i + 1);
    const std::array<double, kChecksums> weight_of = {1.0, w, w * w};
    const double value = column[i];
    for (int k = 0; k < kChecksums; ++k) {
      sum[k] += weight_of[k] * value;
      magnitude[k] += weight_of[k] * std::abs(value);
    }
  }
  Residuals r;
  for (int k = 0; k < kChecksums; ++k) {
    const double checksum = column[length + k];
    r.value[k] = sum[k] - checksum;
    r.threshold[k] = scale * (magnitude[k] + std::abs(checksum));
    // NaN or Inf anywhere makes the residual non-finite: an error that nothing locates.
    if (!std::isfinite(r.value[k])) r.threshold[k] = -1.0;
  }
  return r;
}

bool consistent(const Eigen::Ref<const Eigen::VectorXd>& column, Eigen::Index length,
                const CheckOptions& options) {
  const Residuals r = residuals(column, length, options);
  for (int k = 0; k < kChecksums; ++k)
    if (r.significant(k)) return false;
  return true;
}

enum class ColumnOutcome { clean, value, checksum, detected };

// One column: clean, one wrong value corrected, one wrong checksum recomputed, or detected.
ColumnOutcome check_column(Eigen::Ref<Eigen::VectorXd> column, Eigen::Index length,
                           const CheckOptions& options) {
  const Residuals r = residuals(column, length, options);
  int significant = 0;
  int last = 0;
  for (int k = 0; k < kChecksums; ++k) {
    if (r.significant(k)) {
      ++significant;
      last = k;
    }
  }
  if (significant == 0) return ColumnOutcome::clean;
  Eigen::VectorXd corrected = column;
  if (significant == 1) {
    // One checksum off and the values agree with the others: the checksum is the wrong entry.
    corrected[length + last] += r.value[last];
    if (!consistent(corrected, length, options)) return ColumnOutcome::detected;
    column = corrected;
    return ColumnOutcome::checksum;
  }
  // One wrong value d at entry i gives residuals d, (i + 1) d, (i + 1)^2 d.
  if (r.value[1] == 0.0) return ColumnOutcome::detected;
  const double position = std::round(r.value[2] / r.value[1]);
  if (!(position >= 1.0 && position <= static_cast<double>(length))) {
    return ColumnOutcome::detected;
  }
  const auto entry = static_cast<Eigen::Index>(position) - 1;
  corrected[entry] -= r.value[1] / position;
  // Two or more wrong entries never fit one: the corrected column would still disagree.
  if (!consistent(corrected, length, options)) return ColumnOutcome::detected;
  column = corrected;
  return ColumnOutcome::value;
}

void merge(CheckResult& result, ColumnOutcome outcome) {
  switch (outcome) {
    case ColumnOutcome::clean:
      return;
    case ColumnOutcome::value:
      ++result.corrected_values;
      break;
    case ColumnOutcome::checksum:
      ++result.corrected_checksums;
      break;
    case ColumnOutcome::detected:
      ++result.detected_columns;
      result.verdict = Verdict::detected;
      return;
  }
  if (result.verdict == Verdict::clean) result.verdict = Verdict::corrected;
}

// Coefficients of the screen's allowance: a column passes the screen when, for every k,
//   |s'_k - c_k| <= of_sum |s'_k| + of_checksum |c_k|
// where s'_k is its weighted sum in the kernel's order and c_k its checksum. This must imply that
// the full check passes it: |s_k - c_k| <= scale (M_k + |c_k|), with s_k and M_k = sum_i w_i |y_i|
// summed in entry order (residuals()). Why it does (n = length, u = 2^-53, no overflow or
// underflow): a floating-point sum of n products w_i y_i in any order and with or without FMA is
// within g M of the exact sum, g = gamma_{n + 8} = (n + 8) u / (1 - (n + 8) u) (n roundings per
// term at most; the 8 spare cover the few roundings of the residuals and allowances themselves).
// Hence |s_k - s'_k| <= 2 g M, M >= |s'_k| / (1 + g), the full check's computed M_k >= (1 - g) M,
// and the screen passing gives
//   |s_k - c_k| <= |s'_k - c_k| + 2 g M <= (of_sum (1 + g) + 2 g) M + of_checksum |c_k|,
// within scale ((1 - g) M + |c_k|) for the coefficients below (with a (1 - g) to spare for their
// own rounding). Since |s'_k| <= M, the screen is stricter than the full check; when round-off
// alone could reach the allowance (of_sum < 0: a column far longer than its inner dimension),
// there is no screen and every column gets the full check.
struct ScreenAllowance {
  double of_sum = 0.0;
  double of_checksum = 0.0;
  bool usable() const { return of_sum >= 0.0; }
};

ScreenAllowance screen_allowance(double scale, Eigen::Index length) {
  const double terms_u = static_cast<double>(length + 8) * kUnitRoundoff;
  if (!(terms_u < 0.5)) return {.of_sum = -1.0};
  const double g = terms_u / (1.0 - terms_u);
  ScreenAllowance out;
  out.of_sum =
      (scale * (1.0 - g) * (1.0 - g) - 2.0 * g * (1.0 + g)) / ((1.0 + g) * (1.0 + g)) * (1.0 - g);
  out.of_checksum = scale * (1.0 - g) * (1.0 - g);
  return out;
}

}  // namespace

Matrix weights(Eigen::Index length) {
  Matrix w(length, kChecksums);
  for (Eigen::Index i = 0; i < length; ++i)
    for (int k = 0; k < kChecksums; ++k) w(i, k) = weight(k, i);
  return w;
}

Matrix with_checksums(const Eigen::Ref<const Matrix>& values) {
  // weights(length), kept per thread for the last four lengths asked (an update asks two per
  // layer: its delta's and its input's): rebuilding them per call cost a few us, several percent
  // of a rank-1 update. Transposed in the same expression as before, so the same bits.
  thread_local std::array<Matrix, 4> cache;
  thread_local std::size_t oldest = 0;
  const Matrix* cached = nullptr;
  for (const Matrix& w : cache) {
    if (w.cols() == kChecksums && w.rows() == values.rows()) cached = &w;
  }
  if (cached == nullptr) {
    cache[oldest] = weights(values.rows());
    cached = &cache[oldest];
    oldest = (oldest + 1) % cache.size();
  }
  Matrix out(values.rows() + kChecksums, values.cols());
  out.topRows(values.rows()) = values;
  out.bottomRows(kChecksums).noalias() = cached->transpose() * values;
  return out;
}

Matrix augment(const Eigen::Ref<const Matrix>& block) {
  const Eigen::Index rows = block.rows();
  const Eigen::Index cols = block.cols();
  Matrix out(rows + kChecksums, cols + kChecksums);
  out.topLeftCorner(rows, cols) = block;
  out.topRightCorner(rows, kChecksums).noalias() = block * weights(cols);
  out.bottomRows(kChecksums).noalias() =
      weights(rows).transpose() * out.topRows(rows);  // checksums of both kinds of columns
  return out;
}

CheckResult check_columns(Eigen::Ref<Matrix> product, Eigen::Index length,
                          const CheckOptions& options) {
  CheckResult result;
  if (product.cols() == 0) return result;
  const double scale = options.tolerance_factor * kUnitRoundoff * options.inner_dimension;
  const ScreenAllowance allowance = screen_allowance(scale, length);
  if (!allowance.usable()) {
    for (Eigen::Index c = 0; c < product.cols(); ++c)
      merge(result, check_column(product.col(c), length, options));
    return result;
  }
  // The weighted sums of every column in one pass (the column-by-column loop below was 10-20x
  // slower than the product it checks). It runs on the fastest kernels this CPU has whatever the
  // run's arithmetic: the sums only decide which columns get the full check (in entry order, the
  // same bits everywhere); their summation order is the kernel's, which screen_allowance allows.
  static const DenseKernels screen_kernels(fastest_arithmetic());
  const Eigen::Matrix<double, kChecksums, Eigen::Dynamic> sums =
      screen_kernels.weighted_column_sums(product.topRows(length));
  for (Eigen::Index c = 0; c < product.cols(); ++c) {
    bool suspect = false;
    for (int k = 0; k < kChecksums; ++k) {
      const double checksum = product(length + k, c);
      // NaN and Inf (whose allowance would be Inf or NaN) fail it.
      const double residual = sums(k, c) - checksum;
      suspect |= !std::isfinite(residual) ||
                 !(std::abs(residual) <= allowance.of_sum * std::abs(sums(k, c)) +
                                             allowance.of_checksum * std::abs(checksum));
    }
    if (suspect) merge(result, check_column(product.col(c), length, options));
  }
  return result;
}

void drop_checksum_rows(Matrix& product, Eigen::Index length) {
  const Eigen::Index cols = product.cols();
  const Eigen::Index stride = product.rows();
  if (length == 0 || cols == 0) {
    product.resize(length, cols);
    return;
  }
  // Columns moved down in place (each to a lower address: memmove, the first stays), then the
  // allocation cut without a copy: resize to the same size only relabels the shape (documented by
  // Eigen), and conservativeResize of a single row reallocates (realloc, which shrinks in place;
  // Eigen's aligned realloc keeps the data 32-byte aligned, as a fresh allocation would be, so
  // the AVX2 kernels that read the partial later split their loops where they did before).
  // conservativeResize(length, cols) on the matrix as it was would allocate and copy it all:
  // 24-45 us per 819 x 64 partial, 0.5% of the product.
  double* data = product.data();
  for (Eigen::Index c = 1; c < cols; ++c) {
    std::memmove(data + c * length, data + c * stride,
                 static_cast<std::size_t>(length) * sizeof(double));
  }
  product.resize(1, stride * cols);
  product.conservativeResize(1, length * cols);
  product.resize(length, cols);
}

CheckResult check_block(Eigen::Ref<Matrix> augmented, Eigen::Index rows, Eigen::Index cols,
                        const CheckOptions& options) {
  // W's columns against the checksum rows first. When they agree (after at most one correction
  // each), W is right and its checksum columns follow from it: any that disagree (which products
  // forward never read) are recomputed. Otherwise W's rows against the checksum columns, then the
  // columns again. The corner (checksums of checksums) is read by no product and locates
  // nothing: it is recomputed at the end.
  const auto columns = [&] {
    return check_columns(augmented.topLeftCorner(rows + kChecksums, cols), rows, options);
  };
  CheckResult result = columns();
  Matrix core_rows = augmented.topRows(rows).transpose();
  const CheckResult by_rows = check_columns(core_rows, cols, options);
  if (result.verdict != Verdict::detected) {
    if (by_rows.verdict != Verdict::clean) {
      augmented.topRightCorner(rows, kChecksums) =
          augmented.topLeftCorner(rows, cols) * weights(cols);
      result.corrected_checksums += by_rows.corrected_checksums + by_rows.detected_columns;
      result.verdict = Verdict::corrected;
    }
  } else {
    augmented.topRows(rows) = core_rows.transpose();
    const CheckResult confirmed = columns();
    result.verdict = by_rows.verdict == Verdict::detected || confirmed.verdict == Verdict::detected
                         ? Verdict::detected
                         : Verdict::corrected;
    result.detected_columns = confirmed.detected_columns + by_rows.detected_columns;
    for (const CheckResult* part : {&by_rows, &confirmed}) {
      result.corrected_values += part->corrected_values;
      result.corrected_checksums += part->corrected_checksums;
    }
  }
  augmented.bottomRightCorner(kChecksums, kChecksums) =
      augmented.bottomLeftCorner(kChecksums, cols) * weights(cols);
  return result;
}

}  // namespace codesim::models::abft
