// Large layers in column slabs: the initial weights are drawn, encoded and copied into the blocks
// a slab of columns at a time, and read out the same way, so that a large W never exists whole
// beside its encoded blocks.
#pragma once

#include <cstdint>

#include "models/coding/coding_scheme.hpp"
#include "models/nn/mlp.hpp"
#include "models/training/numeric/node_ranks.hpp"

namespace codesim::models::detail {

/// Writes glorot_init's weights of layer `layer` (rows x cols, N(0, sd) drawn from stream (seed,
/// 0, "mlp_init", layer + 1) exactly as glorot_init draws them), encoded, into the blocks of
/// `scheme`, a scheme of `spec` for a rows x cols matrix (fresh or not; only its resident nodes'
/// blocks): each slab (the whole layer when it is small) is encoded by a scheme of its own shape
/// and copied in.
void encode_initial_weights(const SchemeSpec& spec, CodingScheme& scheme, std::uint64_t seed,
                            int layer, int rows, int cols, double sd);

/// decode_weights() of `scheme` (a scheme of `spec` for a rows x cols matrix), whose blocks it
/// releases (they are empty afterwards). A large layer is decoded a slab at a time, each slab's
/// columns copied out of the blocks and then returned to the system, so W never sits beside all
/// of its blocks.
/// Distributed over ranks, W on the root (the other ranks' blocks, or their slabs' columns, sent
/// to it) and an empty matrix elsewhere.
Matrix read_out_weights(const SchemeSpec& spec, CodingScheme& scheme, int rows, int cols,
                        const NodeRanks& ranks = {});

/// The bytes of one column slab of a large W: a layer of more is built, encoded, decoded and
/// multiplied a slab at a time. Slabs this size are allocated from the heap and reused (below
/// glibc's mmap threshold as keep_freed_memory_for_reuse sets it), not page-faulted in anew.
inline constexpr double kSlabBytes = 16.0 * 1024 * 1024;

/// W x for W = decode_weights() of `scheme` (a scheme of `spec` for a rows x cols matrix), its
/// blocks left as they are (every node's must be here: lent, when the run is distributed). A layer
/// over `slab_bytes` has its product summed over column slabs of W, so that W never sits beside
/// its blocks; the bits depend on the layer's shape, scheme and slab_bytes, not on the thread
/// count.
Matrix decoded_product(const SchemeSpec& spec, CodingScheme& scheme, int rows, int cols,
                       const Matrix& x, double slab_bytes = kSlabBytes);

}  // namespace codesim::models::detail
