// The storage of single-block schemes: one block per node, optionally carrying ABFT checksums,
// which the products compute, the node checks, and the updates keep current.
#include <algorithm>

#include "models/coding/abft_checksums.hpp"
#include "models/coding/coding_scheme.hpp"
#include "models/coding/scheme_support.hpp"
#include "models/linalg/dense_kernels.hpp"
#include "sim/check.hpp"

namespace codesim::models {
namespace {

abft::CheckOptions check_options(const DecodeOptions& options, long inner_dimension) {
  abft::CheckOptions out;
  out.tolerance_factor = options.tolerance_factor;
  out.inner_dimension = static_cast<int>(std::min<long>(inner_dimension, 1L << 30));
  return out;
}

DecodeStatus status_of(const abft::CheckResult& result) {
  switch (result.verdict) {
    case abft::Verdict::clean:
      return DecodeStatus::clean;
    case abft::Verdict::corrected:
      return DecodeStatus::corrected;
    case abft::Verdict::detected:
      break;
  }
  return DecodeStatus::detected;
}

}  // namespace

SingleBlockScheme::SingleBlockScheme(const SchemeSpec& spec, int rows, int cols,
                                     const SchemeContext& context, bool checksummed)
    : CodingScheme(spec, rows, cols, context), checksum_lines_(checksummed ? abft::kChecksums : 0) {
  const auto [m, n] = block_grid(spec);
  share_rows_ = rows / m;
  share_cols_ = cols / n;
  block_rows_ = share_rows_ + checksum_lines_;
  // Columns 4 doubles (32 bytes) apart: Eigen allocates with that alignment
  // (EIGEN_MAX_ALIGN_BYTES).
  const Eigen::Index storage_rows = checksummed ? (block_rows_ + 3) / 4 * 4 : block_rows_;
  // Zeroed one by one rather than copied from a zero block: a copy would read as much as it
  // writes, which at the paper's size is 1.5 GB more memory traffic at set-up. With checksums
  // from the start, so that every reader of the blocks' shapes (round costs, checkpoints, the
  // slab encoder, which then encodes the layer whole) sees what is stored.
  stored_.resize(static_cast<std::size_t>(node_count()));
  for (int p = 0; p < node_count(); ++p) {
    if (resident(p))
      stored_[static_cast<std::size_t>(p)].setZero(storage_rows, block_shapes()[0].cols);
  }
  if (checksummed) updates_.assign(stored_.size(), 0);
}

Matrix SingleBlockScheme::multiply(int node, Direction dir,
                                   const Eigen::Ref<const Matrix>& encoded_input) const {
  // With checksums, forward reads the checksum rows and backward the checksum columns.
  const auto stored = block(node);
  if (dir == Direction::forward) {
    return detail::block_product(kernels(), stored.leftCols(share_cols_), dir, encoded_input);
  }
  return detail::block_product(kernels(), stored.topRows(share_rows_), dir, encoded_input);
}

void SingleBlockScheme::refresh_checksums() {
  if (checksum_lines_ == 0) return;
  for (int p = 0; p < node_count(); ++p) block(p) = abft::augment(share(p));
  std::fill(updates_.begin(), updates_.end(), 0);
}

void SingleBlockScheme::add_to_block(int node, const Matrix& delta_hat,
                                     const Eigen::Ref<const Matrix>& input_hat) {
  if (checksum_lines_ == 0) {
    kernels().add_outer_product(block(node), 1.0, delta_hat, input_hat);
    return;
  }
  // The checksums of delta_hat input_hat^T are those of its factors: no re-encoding.
  kernels().add_outer_product(block(node), 1.0, abft::with_checksums(delta_hat),
                              abft::with_checksums(input_hat));
  ++updates_[static_cast<std::size_t>(node)];
}

PartialCheck SingleBlockScheme::check_partial(int node, Direction dir, Matrix& partial,
                                              const DecodeOptions& options) const {
  if (checksum_lines_ == 0) return {};
  const Eigen::Index length = dir == Direction::forward ? share_rows_ : share_cols_;
  CODESIM_CHECK(partial.rows() == length + checksum_lines_, "a partial carries its checksums");
  // Each value is a sum of input_length terms, each weight the sum of its updates.
  const long inner = input_length(dir) + 1 + updates_[static_cast<std::size_t>(node)];
  const abft::CheckResult result =
      abft::check_columns(partial, length, check_options(options, inner));
  abft::drop_checksum_rows(partial, length);  // the checksums stay at the node
  PartialCheck out;
  out.status = status_of(result);
  out.block_suspect = result.verdict != abft::Verdict::clean;
  return out;
}

DecodeStatus SingleBlockScheme::repair_block(int node, const DecodeOptions& options) {
  if (checksum_lines_ == 0) return DecodeStatus::clean;
  const long inner =
      std::max(share_rows_, share_cols_) + 1 + updates_[static_cast<std::size_t>(node)];
  return status_of(
      abft::check_block(block(node), share_rows_, share_cols_, check_options(options, inner)));
}

}  // namespace codesim::models
