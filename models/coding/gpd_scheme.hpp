// Generalized PolyDot: node p stores sum_ij W_ij v_p^(i alpha + j beta) at a Chebyshev point v_p
// (chebyshev_points order, so the first or last K nodes are spread over (-1, 1)).
#pragma once

#include "models/coding/coding_scheme.hpp"

namespace codesim::models {

/// The polynomial exponents of a GPD code, from which both recovery thresholds follow.
/// Default orientation (u = v^n): alpha = n, beta = 1; mirrored (v = u^m): alpha = 1, beta = m.
struct GpdExponents {
  int alpha = 1;
  int beta = 1;
  std::vector<int> forward_input;    ///< exponent of x_j in x~, j = 0..n-1
  std::vector<int> backward_input;   ///< exponent of delta_i in delta~, i = 0..m-1
  std::vector<int> forward_wanted;   ///< exponent whose coefficient is s_i = sum_j W_ij x_j
  std::vector<int> backward_wanted;  ///< exponent whose coefficient is c_j = sum_i W_ij^T d_i
  int forward_threshold = 0;         ///< distinct exponents of W~(v) x~(v)
  int backward_threshold = 0;        ///< distinct exponents of W~(v)^T delta~(v)
};

/// Exponents and thresholds of the (m, n) GPD code, derived from the product polynomials.
GpdExponents gpd_exponents(int m, int n, bool mirrored);

/// GPD over P nodes; every node takes part in both directions with its one stored block.
class GpdScheme final : public SingleBlockScheme {
 public:
  /// W is rows x cols; m divides rows, n divides cols, P >= both thresholds.
  GpdScheme(int m, int n, int nodes, bool mirrored, int rows, int cols,
            const SchemeContext& context = {});

  void encode(const Matrix& weights) override;
  Matrix decode_weights() const override;
  Matrix encode_input(int node, Direction dir, const Matrix& input) const override;
  ProductDecode decode(Direction dir, std::span<const std::optional<Matrix>> symbols,
                       const DecodeOptions& options) const override;
  const Matrix* symbol_generator(Direction dir) const override;
  void update(int node, const Matrix& delta, const Matrix& input, double eta) override;
  /// Reads every node of `healthy` (least squares over the (P, mn) storage code when there are
  /// more than mn); false when they do not determine the block.
  bool regenerate(int node, std::span<const int> healthy) override;
  /// mn of the remaining nodes whose evaluation points are spread evenly over theirs (ascending).
  std::vector<int> regeneration_sources(int node, std::span<const int> exclude) const override;

  /// Evaluation point of node p.
  double point(int node) const { return points_.at(node); }

 private:
  double power(int node, int exponent) const;

  int m_;
  int n_;
  int nodes_;
  GpdExponents exponents_;
  std::vector<double> points_;
  Matrix powers_;             // P x (largest exponent + 1): powers_(p, e) = v_p^e
  Matrix storage_generator_;  // P x mn: V(p, e) = v_p^e, e = i alpha + j beta
  LinearCode forward_code_;
  LinearCode backward_code_;
};

/// The gpd descriptor: its fields and the rules behind validate_scheme, summarize_scheme and
/// make_scheme.
const SchemeDescriptor& gpd_descriptor();

}  // namespace codesim::models
