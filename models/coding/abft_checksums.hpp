// Algorithm-based fault tolerance (ABFT; Huang and Abraham, IEEE Trans. Computers 33(6), 1984):
// a node's block of W carries checksum rows and columns, so that every product it computes
// carries checksums that locate and correct one wrong entry at the node, and a rank-B update
// keeps every checksum current without re-encoding. The arithmetic of the `abft` strategy.
#pragma once

#include <Eigen/Dense>

namespace codesim::models::abft {

using Matrix = Eigen::MatrixXd;

/// Checksums per side, with weights 1, i + 1 and (i + 1)^2 for entry i. The first two locate and
/// correct one wrong entry; the third keeps two wrong entries from passing for one (their three
/// residuals never fit a single entry: a Vandermonde system), so two are always detected. Huang
/// and Abraham's scheme has the first two only, and can mistake two errors for one.
inline constexpr int kChecksums = 3;

/// Weight of entry i in checksum k (0: plain, 1: linear, 2: square).
inline double weight(int k, Eigen::Index i) {
  const double w = static_cast<double>(i + 1);
  return k == 0 ? 1.0 : k == 1 ? w : w * w;
}

/// The length x kChecksums matrix of checksum weights.
Matrix weights(Eigen::Index length);

/// `values` (length x B) followed by its kChecksums checksum rows: (length + 3) x B.
Matrix with_checksums(const Eigen::Ref<const Matrix>& values);

/// The (rows + 3) x (cols + 3) augmented block [W, W C; R^T W, R^T W C] (R, C the weights of its
/// rows and columns). Its first cols columns times x give W x with its checksums; the transpose
/// of its first rows rows times d give W^T d with its checksums; adding eta [d; R^T d] [x; C^T x]^T
/// to it updates W by eta d x^T and every checksum with it.
Matrix augment(const Eigen::Ref<const Matrix>& block);

enum class Verdict { clean, corrected, detected };

/// What a check found, over all the columns it checked.
struct CheckResult {
  Verdict verdict = Verdict::clean;  ///< the worst: detected > corrected > clean
  int corrected_values = 0;          ///< wrong values put right
  int corrected_checksums = 0;       ///< wrong checksums recomputed
  int detected_columns = 0;          ///< columns with more wrong entries than one
};

/// Round-off allowance: a residual counts as an error when it exceeds
///   tolerance_factor * 2^-53 * inner_dimension * (sum_i weight(k, i) |y_i| + |s_k|)
/// for values y and checksum s_k (inner_dimension: the length of the sums behind each value).
struct CheckOptions {
  double tolerance_factor = 64.0;
  int inner_dimension = 1;
};

/// Checks every column of `product` (length values, then kChecksums checksums) and corrects in
/// place what one wrong entry per column explains: a wrong value, or a wrong checksum. Columns
/// with more are left as they are and counted as detected. The weighted sums of all columns come
/// from one pass (DenseKernels::weighted_column_sums, on the fastest kernels of the CPU: they only
/// screen) and screen them with |sum_i weight(k, i) y_i| in place of the magnitude and an
/// allowance cut by the round-off of the two summation orders (abft_checksums.cpp proves the
/// screen never passes a column the full check flags); only the columns that fail the screen are
/// summed again in entry order with their magnitudes and judged by the allowance above, so what
/// is corrected or detected does not depend on the screen. A clean partial costs 3 x length x B
/// multiply-adds (the product behind it: length x inner x B).
CheckResult check_columns(Eigen::Ref<Matrix> product, Eigen::Index length,
                          const CheckOptions& options = {});

/// Keeps the first `length` rows of `product` (its values, without the checksum rows), in place:
/// the same values as product.topRows(length), without a new allocation and copy.
void drop_checksum_rows(Matrix& product, Eigen::Index length);

/// Checks a stored augmented block (rows x cols of W inside) and repairs it in place: one
/// corrupted entry per column of W (found from the checksum rows) or, failing that, per row (from
/// the checksum columns); checksum columns that disagree with a sound W, and the corner (checksums
/// of checksums, which no product reads), are recomputed. Detected: what neither explains.
CheckResult check_block(Eigen::Ref<Matrix> augmented, Eigen::Index rows, Eigen::Index cols,
                        const CheckOptions& options = {});

}  // namespace codesim::models::abft
