// Uncoded: one m x n grid of W's blocks, no redundancy, nothing detected.
#pragma once

#include "models/coding/replication_scheme.hpp"

namespace codesim::models {

/// Replication with a single copy: node r n + c stores W_rc; forward symbols are the m grid rows,
/// backward symbols the n grid columns. Only NaN, Inf and absurd magnitudes are caught; a missing
/// result is a detected failure; regeneration is impossible.
class UncodedScheme final : public ReplicationScheme {
 public:
  /// W is rows x cols; m divides rows, n divides cols.
  UncodedScheme(int m, int n, int rows, int cols, const SchemeContext& context = {});
};

/// The uncoded descriptor: its fields and the rules behind validate_scheme, summarize_scheme and
/// make_scheme.
const SchemeDescriptor& uncoded_descriptor();
/// The rule of an m x n grid with one node per block (uncoded, abft): m divides rows, n divides
/// cols, m n nodes at most kMaxSchemeNodes.
SchemeProblem validate_one_node_per_block(int m, int n, int rows, int cols);

}  // namespace codesim::models
