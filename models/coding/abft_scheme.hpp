// ABFT as a strategy: the uncoded block grid, each node's block augmented with checksums.
#pragma once

#include "models/coding/replication_scheme.hpp"

namespace codesim::models {

/// Node r n + c stores W_rc augmented with checksum rows and columns (abft_checksums.hpp), and
/// multiplies through them, so each partial result carries its checksums: the node corrects one
/// wrong entry per column (check_partial), and when a check fails it checks its stored block and
/// repairs one corrupted entry per column or row (repair_block); SingleBlockScheme does both.
/// Across nodes it is uncoded: the symbols are the grid rows (columns backward), nothing is
/// redundant, a missing or withheld result fails the decode, and a block cannot be regenerated
/// from other nodes.
class AbftScheme final : public ReplicationScheme {
 public:
  /// W is rows x cols; m divides rows, n divides cols.
  AbftScheme(int m, int n, int rows, int cols, const SchemeContext& context = {});
};

/// The abft descriptor: its fields and the rules behind validate_scheme, summarize_scheme and
/// make_scheme.
const SchemeDescriptor& abft_descriptor();

}  // namespace codesim::models
