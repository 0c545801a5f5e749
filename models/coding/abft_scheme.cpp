// ABFT: augmented blocks, products with checksums checked at the node, blocks repaired in place.
#include "models/coding/abft_scheme.hpp"

#include "models/coding/abft_checksums.hpp"
#include "models/coding/scheme_support.hpp"
#include "models/coding/uncoded_scheme.hpp"
#include "models/linalg/dense_kernels.hpp"
#include "sim/check.hpp"

namespace codesim::models {
namespace {

SchemeProblem validate(const AbftSpec& spec, int rows, int cols) {
  return validate_one_node_per_block(spec.m, spec.n, rows, cols);
}

SchemeSummary summarize(const AbftSpec& spec, double out_length, double in_length) {
  // Across nodes, the uncoded grid; the checksums' storage is not counted (3 rows and columns).
  return repetition_summary(spec.m, spec.n, 1, out_length, in_length);
}

std::unique_ptr<CodingScheme> build(const AbftSpec& spec, int rows, int cols,
                                    Arithmetic arithmetic) {
  return std::make_unique<AbftScheme>(spec.m, spec.n, rows, cols, arithmetic);
}

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

const SchemeDescriptor& abft_descriptor() {
  static const SchemeDescriptor descriptor = {
      .kind = SchemeKind::abft,
      .name = "abft",
      .doc =
          "the m x n block grid, each block with checksum rows and columns (ABFT): one wrong "
          "entry per column corrected at its node",
      .fields = block_split_fields(),
      .make = [](std::span<const int> v) -> SchemeSpec { return abft_spec(v[0], v[1]); },
      .values =
          [](const SchemeSpec& spec) {
            const auto& s = std::get<AbftSpec>(spec);
            return std::vector<int>{s.m, s.n};
          },
      .validate = detail::on_spec<validate>,
      .summarize = detail::on_spec<summarize>,
      .build = detail::on_spec<build>};
  return descriptor;
}

AbftScheme::AbftScheme(int m, int n, int rows, int cols, Arithmetic arithmetic)
    : ReplicationScheme(abft_spec(m, n), rows, cols, arithmetic),
      m_(m),
      n_(n),
      updates_(static_cast<std::size_t>(m) * static_cast<std::size_t>(n), 0) {
  // Checksummed from the start, so that every reader of the blocks' shapes (round costs,
  // checkpoints, the slab encoder, which then encodes the layer whole) sees what is stored.
  for (Matrix& block : stored_) {
    block = Matrix::Zero(height() + abft::kChecksums, width() + abft::kChecksums);
  }
}

void AbftScheme::encode(const Matrix& weights) {
  check_weights(weights);
  for (int r = 0; r < m_; ++r) {
    for (int c = 0; c < n_; ++c) {
      stored_[static_cast<std::size_t>(r * n_ + c)] =
          abft::augment(detail::grid_block(weights, m_, n_, r, c));
    }
  }
  std::fill(updates_.begin(), updates_.end(), 0);
}

Matrix AbftScheme::decode_weights() const {
  Matrix weights(rows(), cols());
  for (int r = 0; r < m_; ++r) {
    for (int c = 0; c < n_; ++c) {
      weights.block(r * height(), c * width(), height(), width()) =
          stored_[static_cast<std::size_t>(r * n_ + c)].topLeftCorner(height(), width());
    }
  }
  return weights;
}

Matrix AbftScheme::multiply(int node, Direction dir,
                            const Eigen::Ref<const Matrix>& encoded_input) const {
  const Matrix& block = stored_.at(static_cast<std::size_t>(node));
  if (dir == Direction::forward) return kernels().product(block.leftCols(width()), encoded_input);
  return kernels().transposed_product(block.topRows(height()), encoded_input);
}

void AbftScheme::update(int node, const Matrix& delta, const Matrix& input, double eta) {
  check_update(delta, input);
  const int r = node / n_;
  const int c = node % n_;
  // eta D_r is formed first, as the other schemes do; its checksums are those of eta D_r.
  const Matrix delta_part = abft::with_checksums(eta * delta.middleRows(r * height(), height()));
  const Matrix input_part = abft::with_checksums(input.middleRows(c * width(), width()));
  kernels().add_outer_product(stored_.at(static_cast<std::size_t>(node)), 1.0, delta_part,
                              input_part);
  ++updates_[static_cast<std::size_t>(node)];
}

PartialCheck AbftScheme::check_partial(int node, Direction dir, Matrix& partial,
                                       const DecodeOptions& options) const {
  const bool forward = dir == Direction::forward;
  const Eigen::Index length = forward ? height() : width();
  CODESIM_CHECK(partial.rows() == length + abft::kChecksums, "a partial carries its checksums");
  // Each value is a sum of input_length terms, each weight the sum of its updates.
  const long inner = input_length(dir) + 1 + updates_[static_cast<std::size_t>(node)];
  const abft::CheckResult result =
      abft::check_columns(partial, length, check_options(options, inner));
  partial.conservativeResize(length, Eigen::NoChange);  // the checksums stay at the node
  PartialCheck out;
  out.status = status_of(result);
  out.block_suspect = result.verdict != abft::Verdict::clean;
  return out;
}

int AbftScheme::checksum_lines() const { return abft::kChecksums; }

DecodeStatus AbftScheme::repair_block(int node, const DecodeOptions& options) {
  Matrix& block = stored_.at(static_cast<std::size_t>(node));
  const long inner = std::max(height(), width()) + 1 + updates_[static_cast<std::size_t>(node)];
  return status_of(abft::check_block(block, height(), width(), check_options(options, inner)));
}

}  // namespace codesim::models
