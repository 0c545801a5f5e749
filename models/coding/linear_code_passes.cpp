// The decoder's passes over the data: subset factorization, check-and-solve, reduced syndrome.
#include "models/coding/linear_code_passes.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "models/coding/symbol_screening.hpp"
#include "models/linalg/dense_kernels.hpp"

namespace codesim::models::detail {
namespace {

using ConstRowMap = Eigen::Map<const Eigen::RowVectorXd>;

// Columns of the symbols processed per block: keeps the gathered a x w block in cache and avoids
// any a x L copy of the received symbols.
constexpr Index kChunkColumns = 256;

// True when `wanted` asks for all K rows in their natural order (or is empty).
bool all_rows_in_order(std::span<const int> wanted, Index k) {
  bool all_rows = wanted.empty() || static_cast<Index>(wanted.size()) == k;
  for (std::size_t i = 0; all_rows && i < wanted.size(); ++i) {
    all_rows = wanted[i] == static_cast<int>(i);
  }
  return all_rows;
}

// The rows applied to the data when only `wanted` are solved: the parity check, then the wanted
// solver rows.
Matrix partial_rows(const SubsetFactor& factor, std::span<const int> wanted) {
  const Index r = factor.redundancy;
  const auto w = static_cast<Index>(wanted.size());
  Matrix partial(r + w, factor.combined.cols());
  partial.topRows(r) = factor.combined.topRows(r);
  for (Index i = 0; i < w; ++i) {
    partial.row(r + i) = factor.combined.row(r + wanted[static_cast<std::size_t>(i)]);
  }
  return partial;
}

// Raises each member's peak with this chunk's (`sources`, `width` entries each); returns the
// largest peak read so far, starting from `peak`.
double measure_chunk_peaks(const std::vector<const double*>& sources, Index width,
                           std::span<double> set_peaks, double peak) {
  for (std::size_t i = 0; i < sources.size(); ++i) {
    double& member_peak = set_peaks[i];
    member_peak = std::max(member_peak, symbol_peak(sources[i], width));
    peak = std::max(peak, member_peak);
  }
  return peak;
}

// Folds the peaks of one chunk's output rows (the r syndrome rows, then the solver rows) into
// `syndrome_peak` and `row_peak`. False when a row holds NaN or Inf: overflow (finite but
// enormous symbols) can never be certified consistent.
bool fold_row_peaks(const RowMajorMatrix& product, Index r, Index width, double& syndrome_peak,
                    Eigen::VectorXd& row_peak) {
  for (Index row = 0; row < product.rows(); ++row) {
    const double row_max = symbol_peak(product.row(row).data(), width);
    if (std::isinf(row_max)) return false;
    if (row < r) {
      syndrome_peak = std::max(syndrome_peak, row_max);
    } else {
      row_peak(row - r) = std::max(row_peak(row - r), row_max);
    }
  }
  return true;
}

// tau from the solved rows' peaks: unit * max_s sum_k |G_sk| row_peak_k over the rows solved.
double pass_threshold(const SubsetFactor& factor, const Eigen::VectorXd& row_peak,
                      std::span<const int> wanted, bool all_rows, double unit) {
  if (all_rows) return unit * (factor.abs_rows * row_peak).maxCoeff();
  const auto w = static_cast<Index>(wanted.size());
  Matrix abs_wanted(factor.abs_rows.rows(), w);
  for (Index i = 0; i < w; ++i) {
    abs_wanted.col(i) = factor.abs_rows.col(wanted[static_cast<std::size_t>(i)]);
  }
  return unit * (abs_wanted * row_peak).maxCoeff();
}

}  // namespace

SubsetFactor factor_subset(const Matrix& generator, std::span<const int> set,
                           const DecodeOptions& options) {
  const auto n = static_cast<Index>(set.size());
  const Index k = generator.cols();
  Matrix rows(n, k);
  for (Index i = 0; i < n; ++i) rows.row(i) = generator.row(set[static_cast<std::size_t>(i)]);
  const Eigen::HouseholderQR<Matrix> qr(rows);
  const Matrix q = qr.householderQ();
  const Matrix r1 = qr.matrixQR().topLeftCorner(k, k).triangularView<Eigen::Upper>();
  const Eigen::VectorXd singular = Eigen::JacobiSVD<Matrix>(r1).singularValues();

  SubsetFactor factor;
  factor.redundancy = n - k;
  const double smallest = singular(k - 1);
  factor.condition = smallest > 0.0 ? singular(0) / smallest : kInfinity;
  // Rows so ill-conditioned that cond * tolerance reaches 1 cannot be checked or solved at this
  // tolerance: treat them as singular.
  factor.usable =
      std::isfinite(factor.condition) && unit_threshold(options) * factor.condition < 1.0;
  if (!factor.usable) return factor;
  factor.combined.resize(n, n);
  factor.combined.topRows(n - k) = q.rightCols(n - k).transpose();
  factor.combined.bottomRows(k) =
      r1.triangularView<Eigen::Upper>().solve(Matrix(q.leftCols(k).transpose()));
  factor.abs_rows = rows.cwiseAbs();
  factor.term_bound =
      (factor.abs_rows * factor.combined.bottomRows(k).cwiseAbs()).rowwise().sum().maxCoeff();
  return factor;
}

PassResult check_and_solve(const SubsetFactor& factor, Symbols symbols, std::span<const int> set,
                           Index length, double peak, const DecodeOptions& options,
                           const DenseKernels& kernels, std::span<const int> wanted,
                           std::span<double> set_peaks) {
  const auto n = static_cast<Index>(set.size());
  const Index r = factor.redundancy;
  const Index k = n - r;
  const bool all_rows = all_rows_in_order(wanted, k);
  const Index w = all_rows ? k : static_cast<Index>(wanted.size());
  const Matrix partial = all_rows ? Matrix() : partial_rows(factor, wanted);
  const Matrix& applied = all_rows ? factor.combined : partial;
  const double unit = unit_threshold(options);
  // Factor 2 absorbs the round-off of the bound itself; it only decides when to stop early.
  double early_exit = 2.0 * unit * factor.term_bound * peak;
  PassResult result;
  result.message.resize(w, length);
  Eigen::VectorXd row_peak = Eigen::VectorXd::Zero(w);
  double syndrome_peak = 0.0;
  // Row-major so each output row is contiguous: the product is accumulated symbol by symbol
  // straight from the received data (no gathered copy; for these few rows this beats a GEMM).
  RowMajorMatrix product(r + w, std::min(kChunkColumns, length));
  std::vector<const double*> sources(static_cast<std::size_t>(n));
  for (Index start = 0; start < length; start += kChunkColumns) {
    const Index width = std::min(kChunkColumns, length - start);
    for (Index i = 0; i < n; ++i) {
      sources[static_cast<std::size_t>(i)] = symbols[static_cast<std::size_t>(set[i])] + start;
    }
    if (!set_peaks.empty()) {
      peak = measure_chunk_peaks(sources, width, set_peaks, peak);
      early_exit = 2.0 * unit * factor.term_bound * peak;
    }
    kernels.combine_rows(applied, sources, width, product.data(), product.cols());
    if (!fold_row_peaks(product, r, width, syndrome_peak, row_peak) || syndrome_peak > early_exit) {
      result.message.resize(0, 0);
      return result;
    }
    result.message.middleCols(start, width) = product.bottomLeftCorner(w, width);
  }
  result.complete = true;
  const double threshold = pass_threshold(factor, row_peak, wanted, all_rows, unit);
  result.consistent = std::isfinite(threshold) && syndrome_peak <= threshold;
  if (!result.consistent && !all_rows) {
    // Inconclusive lower bound: decide on the full message and keep the wanted rows.
    PassResult full = check_and_solve(factor, symbols, set, length, peak, options, kernels);
    result.consistent = full.consistent;
    if (full.consistent) {
      for (Index i = 0; i < w; ++i) {
        result.message.row(i) = full.message.row(wanted[static_cast<std::size_t>(i)]);
      }
    }
  }
  if (!result.consistent) result.message.resize(0, 0);
  return result;
}

Matrix reduced_syndrome(const SubsetFactor& factor, Symbols symbols, std::span<const int> set,
                        Index length, double inverse_scale) {
  const auto n = static_cast<Index>(set.size());
  const Index r = factor.redundancy;
  const Matrix parity = inverse_scale * factor.combined.topRows(r);
  Matrix folded(0, r);
  Matrix gathered(n, std::min(kChunkColumns, length));
  Matrix syndrome(r, gathered.cols());
  for (Index start = 0; start < length; start += kChunkColumns) {
    const Index width = std::min(kChunkColumns, length - start);
    for (Index i = 0; i < n; ++i) {
      gathered.row(i).head(width) =
          ConstRowMap(symbols[static_cast<std::size_t>(set[i])] + start, width);
    }
    syndrome.leftCols(width).noalias() = parity * gathered.leftCols(width);
    Matrix stacked(folded.rows() + width, r);
    stacked.topRows(folded.rows()) = folded;
    stacked.bottomRows(width) = syndrome.leftCols(width).transpose();
    const Eigen::HouseholderQR<Matrix> qr(stacked);
    const Index keep = std::min(stacked.rows(), r);
    folded = qr.matrixQR().topRows(keep).triangularView<Eigen::Upper>();
  }
  return folded.transpose();
}

}  // namespace codesim::models::detail
