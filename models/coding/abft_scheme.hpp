// ABFT as a strategy: the uncoded block grid, each node's block augmented with checksums.
#pragma once

#include "models/coding/replication_scheme.hpp"

namespace codesim::models {

/// Node r n + c stores W_rc augmented with checksum rows and columns (abft_checksums.hpp), and
/// multiplies through them, so each partial result carries its checksums: the node corrects one
/// wrong entry per column (check_partial), and when a check fails it checks its stored block and
/// repairs one corrupted entry per column or row (repair_block). Across nodes it is uncoded: the
/// symbols are the grid rows (columns backward), nothing is redundant, a missing or withheld
/// result fails the decode, and a block cannot be regenerated from other nodes.
class AbftScheme final : public ReplicationScheme {
 public:
  /// W is rows x cols; m divides rows, n divides cols.
  AbftScheme(int m, int n, int rows, int cols, Arithmetic arithmetic = Arithmetic::portable);

  void encode(const Matrix& weights) override;
  Matrix decode_weights() const override;
  /// The partial result with its checksum rows: (rows / m + 3) x B forward, (cols / n + 3) x B
  /// backward.
  Matrix multiply(int node, Direction dir,
                  const Eigen::Ref<const Matrix>& encoded_input) const override;
  /// Adds eta D_r X_c^T through the checksummed vectors, which updates every checksum too.
  void update(int node, const Matrix& delta, const Matrix& input, double eta) override;
  PartialCheck check_partial(int node, Direction dir, Matrix& partial,
                             const DecodeOptions& options) const override;
  DecodeStatus repair_block(int node, const DecodeOptions& options) override;
  int checksum_lines() const override;

 private:
  Eigen::Index height() const { return rows() / m_; }
  Eigen::Index width() const { return cols() / n_; }

  int m_;
  int n_;
  std::vector<long> updates_;  // per node, since its block was last encoded (round-off scale)
};

/// The abft descriptor: its fields and the rules behind validate_scheme, summarize_scheme and
/// make_scheme.
const SchemeDescriptor& abft_descriptor();

}  // namespace codesim::models
