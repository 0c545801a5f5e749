// Where a strike on a node's copy of a vector goes: the one description of the activation and
// decode targets' reach, read by the closed forms (training_theory.cpp counts it), the pair
// counting of shared strikes (shared_strikes.cpp lists it per strike) and the stochastic backend
// (which follows it per strike).
//
// In the decentralized protocol (numeric_rounds.cpp) every node decodes each round itself and
// keeps its own copies of the vectors between its products; centralized, node 0 decodes and
// every node receives node 0's copy, so a decode strike there reaches every node alike: their
// products then form a codeword of the wrong vector and their updates keep the blocks one, which
// no decode, vote or checksum can see (a silent corruption). Per iteration,
// in protocol order, a node holds:
//   after forward l:   z_l (decode target), then x_{l+1} = f(z_l) for l + 1 < L, or the loss's
//                      delta_{L-1} for l = L - 1 (activation target);
//   after backward l:  c_l = W_l^T delta_l (decode target), then delta_{l-1} = c_l o f'(z_{l-1})
//                      (activation target); backward rounds run for l >= 1 (train_coded needs no
//                      W_0^T delta_0), and for l = 0 too with first_layer_backward, where c_0
//                      feeds nothing.
// A wrong copy makes wrong the node's products that read it in this iteration (transient: only
// the partial, not the block) and its update of every layer whose update reads it (persistent:
// every stored block of the node in that layer is wrong from the update on, like a weight strike
// after it). The closed forms take a strike to reach every such read; the stochastic mode draws
// which rows a strike changes and reaches only the reads of those rows (a node's product and
// update read the rows of x_l and delta_l its slice of W_l multiplies). Neither sees a perturbed z
// entry whose ReLU output does not change (exact when the hidden units are smooth, as in T8).
//
// What each check sees of such a strike: a decode sees the wrong partial as an erroneous symbol
// (corrected, detected or, without redundancy, silent) and the wrong blocks at their next reads;
// an ABFT checksum at the node checks the product against the block it was computed from, so a
// product of a right block with a wrong input, and an update whose wrong increment is an outer
// product (the checksums follow it), pass it: only a decode across nodes or a vote sees them.
// The update target (a wrong encoded increment added to the node's first block of a layer) is
// not an outer product: for ABFT it is a wrong block like a weight strike.
#pragma once

#include <vector>

#include "models/coding/coding_scheme.hpp"
#include "models/faults/fault_targets.hpp"

namespace codesim::models {

/// The vectors a node keeps between its products (header).
enum class NodeVector {
  z,      ///< z_l, decoded after forward l
  input,  ///< x_l = f(z_{l-1}), l >= 1
  delta,  ///< delta_l: the loss's at l = L - 1, else c_{l+1} o f'(z_l)
  c,      ///< c_l = W_l^T delta_l, decoded after backward l
};

/// A strike on a node's copy of one vector: z_l, x_l, delta_l or c_l for `layer` = l.
struct VectorStrike {
  NodeVector vector = NodeVector::z;
  int layer = 0;
  bool operator==(const VectorStrike&) const = default;
};

/// The fault target whose opportunity strikes `vector`: decode for z and c, activation else.
FaultTarget target_of(NodeVector vector);

/// One product round of a node: layer and direction.
struct ProductRead {
  int layer = 0;
  Direction direction = Direction::forward;
  bool operator==(const ProductRead&) const = default;
};

/// What one strike makes wrong at the node whose copy it hits.
struct StrikeReach {
  /// This iteration's products that read the copy, in protocol order (for the nodes that take
  /// part in them).
  std::vector<ProductRead> products;
  /// The updates at the node that read the copy, ascending in layer: an update of layer l reads
  /// it as x_l (direction forward: the rows the forward product of l reads) or as delta_l
  /// (backward).
  std::vector<ProductRead> updates;
};

/// A network of `layers` weighted layers whose backward rounds run for layers >= 1 (and 0 too
/// with `first_layer_backward`).
struct NetworkRounds {
  int layers = 1;
  bool first_layer_backward = false;
  bool backward_round(int layer) const { return layer >= 1 || first_layer_backward; }
};

/// A strike and where it goes.
struct ReachedStrike {
  VectorStrike strike;
  StrikeReach reach;
  FaultTarget target() const { return target_of(strike.vector); }
};

/// Where `strike` goes. Precondition: it is one of iteration_strikes(rounds).
StrikeReach strike_reach(const VectorStrike& strike, const NetworkRounds& rounds);

/// A node's vector strikes of one iteration, in protocol order (header), with their reach.
std::vector<ReachedStrike> iteration_strikes(const NetworkRounds& rounds);

/// The strikes whose copies are made after the round of (layer, direction), in order, with their
/// reach.
std::vector<ReachedStrike> strikes_after_round(const ProductRead& round,
                                               const NetworkRounds& rounds);

}  // namespace codesim::models
