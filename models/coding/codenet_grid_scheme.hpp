// The CodeNet 2-D systematic MDS grid: P_r x P_c nodes without the (P_r - m) x (P_c - n) corner.
#pragma once

#include <utility>

#include "models/coding/coding_scheme.hpp"

namespace codesim::models {

/// Node (r, c) exists iff r < m or c < n and stores W~_rc = sum_kl G_r(r, k) G_c(c, l) W_kl with
/// G_r = [I_m; R_r] (P_r x m) and G_c = [I_n; R_c] (P_c x n) seeded Gaussian. Nodes are numbered
/// row-major over the grid, skipping the absent corner: rows r < m hold P_c nodes, rows r >= m
/// hold n. Forward symbols are grid rows (sum over c < n of W~_rc x_c); backward symbols are grid
/// columns (sum over r < m of W~_rc^T delta_r).
class CodenetGridScheme final : public SingleBlockScheme {
 public:
  /// W is rows x cols; m divides rows, n divides cols, grid_rows >= m, grid_cols >= n.
  CodenetGridScheme(int m, int n, int grid_rows, int grid_cols, std::uint64_t seed, int rows,
                    int cols, const SchemeContext& context = {});
  /// The hybrid (abft_codenet): the same grid, every block carrying ABFT checksums, so a node
  /// corrects what it can of its own errors and withholds what it cannot (an erasure).
  CodenetGridScheme(const AbftCodenetSpec& spec, int rows, int cols,
                    const SchemeContext& context = {});

  void encode(const Matrix& weights) override;
  Matrix decode_weights() const override;
  std::optional<RowSlice> input_slice(int node, Direction dir) const override;
  ProductDecode decode(Direction dir, std::span<const std::optional<Matrix>> symbols,
                       const DecodeOptions& options) const override;
  /// The row code (forward) or the column code (backward).
  const Matrix* symbol_generator(Direction dir) const override;
  void update(int node, const Matrix& delta, const Matrix& input, double eta) override;
  /// Along the node's grid column (code G_r) when the nodes of `healthy` in it determine the
  /// block, else along its grid row (code G_c); reads all of them (least squares beyond K).
  bool regenerate(int node, std::span<const int> healthy) override;
  /// The first m other nodes of its grid column, else the first n of its grid row.
  std::vector<int> regeneration_sources(int node, std::span<const int> exclude) const override;

  /// Grid position (r, c) of a node.
  std::pair<int, int> position(int node) const { return positions_.at(node); }
  /// The node at grid position (r, c), or -1 in the absent corner.
  int node_at(int r, int c) const;
  const Matrix& row_generator() const { return row_code_.generator(); }
  const Matrix& column_generator() const { return column_code_.generator(); }

 private:
  CodenetGridScheme(const SchemeSpec& spec, const CodenetGridSpec& grid, int rows, int cols,
                    const SchemeContext& context, bool checksummed);
  // Nodes of grid column c (ascending r) and grid row r (ascending c).
  std::vector<int> column_nodes(int c) const;
  std::vector<int> row_nodes(int r) const;
  bool regenerate_along(int node, const std::vector<int>& line, bool column,
                        std::span<const int> healthy);

  int m_;
  int n_;
  int grid_rows_;
  int grid_cols_;
  LinearCode row_code_;     // (P_r, m): forward symbols and regeneration along a column
  LinearCode column_code_;  // (P_c, n): backward symbols and regeneration along a row
  std::vector<std::pair<int, int>> positions_;
};

/// The codenet_grid descriptor: its fields and the rules behind validate_scheme, summarize_scheme
/// and make_scheme.
const SchemeDescriptor& codenet_grid_descriptor();

}  // namespace codesim::models
