// Replication: r copies of an m x n grid of W's blocks; r = 2 detects, r >= 3 corrects by majority.
#pragma once

#include "models/coding/coding_scheme.hpp"

namespace codesim::models {

/// Node (copy, r, c) = copy * mn + r n + c stores W_rc. Forward symbol copy * m + r is the sum of
/// grid row r of that copy; backward symbol copy * n + c the sum of grid column c. Each block row
/// (column) is decoded as an (r, 1) repetition code: compare for r = 2, majority for r >= 3.
class ReplicationScheme : public CodingScheme {
 public:
  /// W is rows x cols; m divides rows, n divides cols, copies >= 2.
  ReplicationScheme(int m, int n, int copies, int rows, int cols,
                    Arithmetic arithmetic = Arithmetic::portable);

  SchemeSummary summary() const override { return summary_; }
  void encode(const Matrix& weights) override;
  std::vector<Matrix*> stored_blocks(int node) override { return {&stored_.at(node)}; }
  Matrix decode_weights() const override;
  std::vector<int> participants(Direction dir) const override;
  Matrix encode_input(int node, Direction dir, const Matrix& input) const override;
  std::optional<RowSlice> input_slice(int node, Direction dir) const override;
  Matrix multiply(int node, Direction dir,
                  const Eigen::Ref<const Matrix>& encoded_input) const override;
  int symbol_count(Direction dir) const override;
  std::vector<int> symbol_members(Direction dir, int symbol) const override;
  ProductDecode decode(Direction dir, std::span<const std::optional<Matrix>> symbols,
                       const DecodeOptions& options) const override;
  void update(int node, const Matrix& delta, const Matrix& input, double eta) override;
  /// Copies the block from the first other copy of it in `healthy`.
  bool regenerate(int node, std::span<const int> healthy) override;
  std::vector<int> regeneration_sources(int node, std::span<const int> exclude) const override;

 protected:
  /// Any number of copies >= 1, with its summary (UncodedScheme uses one copy).
  ReplicationScheme(int m, int n, int copies, SchemeSummary summary, int rows, int cols,
                    Arithmetic arithmetic);

 private:
  int m_;
  int n_;
  int copies_;
  int rows_;
  int cols_;
  LinearCode repetition_code_;  // generator ones(copies, 1)
  SchemeSummary summary_;
  DenseKernels kernels_;  // the run's arithmetic
  std::vector<Matrix> stored_;
};

/// The replication descriptor and rules behind validate_scheme, summarize_scheme and make_scheme.
const SchemeDescriptor& replication_descriptor();
/// What is wrong beyond the descriptor's field ranges (checked before).
SchemeProblem validate_spec(const ReplicationSpec& spec, int rows, int cols);
/// The summary of `copies` copies of an m x n grid (uncoded: one copy); scheme name left empty.
SchemeSummary repetition_summary(int m, int n, int copies, double out_length, double in_length);
/// Element counts per unit of out_length (forward) and in_length (backward).
SchemeSummary summarize_spec(const ReplicationSpec& spec, double out_length, double in_length);
std::unique_ptr<CodingScheme> make_coding_scheme(const ReplicationSpec& spec, int rows, int cols,
                                                 Arithmetic arithmetic);

}  // namespace codesim::models
