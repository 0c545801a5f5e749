// MDS-coded products (Lee et al.): a (P, k) code over k row blocks of W for W X and a second
// (P, k) code over k column blocks for W^T D; every node stores one block of each.
#pragma once

#include "models/coding/coding_scheme.hpp"

namespace codesim::models {

/// Seed of the MDS generator's parity rows.
inline constexpr std::uint64_t kMdsGeneratorSeed = 0x6d64735f67656e31;  // "mds_gen1"

/// Generator G: the systematic Gaussian P x k matrix [I_k; R] of systematic_gaussian_generator
/// with the fixed seed kMdsGeneratorSeed (deterministic, no scenario seed). Node p stores
/// A~_p = sum_i G(p, i) A_i (A_i: rows/k x cols) and C~_p = sum_j G(p, j) C_j (C_j: rows x cols/k).
/// A real Vandermonde generator would make K-subsets of P = 64 nodes exponentially
/// ill-conditioned (beyond 1e15 for k >= 8); Gaussian K-subsets stay near 1e2 to 1e5.
class MdsScheme final : public CodingScheme {
 public:
  /// W is rows x cols; k divides both; P >= k.
  MdsScheme(int k, int nodes, int rows, int cols, const SchemeContext& context = {});

  void encode(const Matrix& weights) override;
  /// {row-split block, column-split block}.
  std::vector<BlockShape> block_shapes() const override {
    return {{rows() / k_, cols()}, {rows(), cols() / k_}};
  }
  std::vector<BlockRef> stored_blocks(int node) override;
  std::vector<Matrix*> block_storage(int node) override;
  Matrix decode_weights() const override;
  /// The input itself: MDS nodes need all of X (or D).
  Matrix encode_input(int node, Direction dir, const Matrix& input) const override;
  Matrix multiply(int node, Direction dir,
                  const Eigen::Ref<const Matrix>& encoded_input) const override;
  ProductDecode decode(Direction dir, std::span<const std::optional<Matrix>> symbols,
                       const DecodeOptions& options) const override;
  const Matrix* symbol_generator(Direction) const override { return &code_.generator(); }
  void update(int node, const Matrix& delta, const Matrix& input, double eta) override;
  /// Regenerates both blocks from every node of `healthy` (least squares beyond k of them).
  bool regenerate(int node, std::span<const int> healthy) override;
  /// k nodes spread evenly over the remaining ones.
  std::vector<int> regeneration_sources(int node, std::span<const int> exclude) const override;

 private:
  int k_;
  int nodes_;
  LinearCode code_;
  std::vector<Matrix> row_blocks_;     // A~_p, rows/k x cols
  std::vector<Matrix> column_blocks_;  // C~_p, rows x cols/k
};

/// The mds descriptor: its fields and the rules behind validate_scheme, summarize_scheme and
/// make_scheme.
const SchemeDescriptor& mds_descriptor();

}  // namespace codesim::models
