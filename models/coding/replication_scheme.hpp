// Replication: r copies of an m x n grid of W's blocks; r = 2 detects, r >= 3 corrects by majority.
#pragma once

#include "models/coding/coding_scheme.hpp"

namespace codesim::models {

/// Node (copy, r, c) = copy * mn + r n + c stores W_rc. Forward symbol copy * m + r is the sum of
/// grid row r of that copy; backward symbol copy * n + c the sum of grid column c. Each block row
/// (column) is decoded as an (r, 1) repetition code: compare for r = 2, majority for r >= 3.
class ReplicationScheme : public SingleBlockScheme {
 public:
  /// W is rows x cols; m divides rows, n divides cols, copies >= 2.
  ReplicationScheme(int m, int n, int copies, int rows, int cols,
                    const SchemeContext& context = {});

  void encode(const Matrix& weights) override;
  Matrix decode_weights() const override;
  std::optional<RowSlice> input_slice(int node, Direction dir) const override;
  ProductDecode decode(Direction dir, std::span<const std::optional<Matrix>> symbols,
                       const DecodeOptions& options) const override;
  void update(int node, const Matrix& delta, const Matrix& input, double eta) override;
  /// Copies the block from the first other copy of it in `healthy`.
  bool regenerate(int node, std::span<const int> healthy) override;
  std::vector<int> regeneration_sources(int node, std::span<const int> exclude) const override;

 protected:
  /// A replication spec or, for UncodedScheme and AbftScheme, a spec of one copy; AbftScheme's
  /// blocks carry checksums.
  ReplicationScheme(const SchemeSpec& spec, int rows, int cols, const SchemeContext& context,
                    bool checksummed = false);

 private:
  int m_;
  int n_;
  int copies_;
  LinearCode repetition_code_;  // generator ones(copies, 1)
};

/// The replication descriptor: its fields and the rules behind validate_scheme, summarize_scheme
/// and make_scheme.
const SchemeDescriptor& replication_descriptor();
/// The summary of `copies` copies of an m x n grid (uncoded: one copy), less the scheme's name.
SchemeSummary repetition_summary(int m, int n, int copies, double out_length, double in_length);

}  // namespace codesim::models
