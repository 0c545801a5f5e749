// The stochastic mode's model of nodes that check their own blocks (abft, abft_codenet): what a
// node's check of its partial, and then of its stored block, makes of the strikes a read meets,
// drawn from the closed forms of models/theory/abft_correction.hpp instead of computed.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "models/faults/fault_targets.hpp"
#include "models/theory/abft_correction.hpp"
#include "models/training/spec.hpp"
#include "sim/random_stream.hpp"

namespace codesim::models::detail {

/// What a node's own checks make of one training read (train_coded's checked_at_node).
struct LocalRead {
  double extra_flops = 0.0;          ///< the block check, and the product again after a repair
  bool corrected = false;            ///< put right at the node (one correction)
  bool withheld = false;             ///< the partial is withheld: an erasure for the decode
  bool block_beyond_repair = false;  ///< withheld because the block is: regenerate or roll back
};

/// The nodes' checks of a scheme with checks_at_nodes, one random stream per node keyed
/// (seed, replica, "stochastic_check", node) for the outcomes.
///
/// A read of a block struck j >= 1 times since its last read (the strikes between reads, capped
/// at kMaxStrikes, whose Q_j bounds the rest from above) always fails the partial's check (a
/// strike that only hits entries the product does not read is taken to be seen): the node checks
/// its block (24 flops per stored entry) and corrects it with probability Q_j, then computes the
/// product again unless the strikes changed a single entry (which the partial's own check
/// corrects); else it withholds the partial, its block beyond repair. A product strike alone is
/// corrected with abft_partial_correction's probability, else the partial is withheld (the block
/// check, charged, finds the block sound). The verification pass corrects a struck block with
/// probability V_j, else withholds it.
class LocalChecks {
 public:
  static constexpr int kMaxStrikes = 16;

  LocalChecks() = default;
  /// The checks of `spec`'s scheme on layers layer_sizes (none when it does not check at its
  /// nodes), with the value models of `faults`' weights and product targets.
  LocalChecks(const TrainingSpec& spec, const FaultConfig& faults, int nodes, std::uint64_t seed,
              std::uint64_t replica);

  bool active() const { return !blocks_.empty(); }
  /// A training read of `layer` in direction `dir` (0 forward, 1 backward) by node p: its block
  /// struck `strikes` times since its last read, its partial struck or not; `product_flops` is
  /// the product's.
  /// `by_update`: an update strike is among them, whose value model (the update target's)
  /// decides the correction for them all.
  LocalRead read(int p, int layer, int dir, int strikes, bool product_struck, double product_flops,
                 bool by_update = false);
  /// A read of the verification pass of a block struck `strikes` >= 1 times: true when the node
  /// corrects it, false when it withholds its partial.
  bool verification_corrects(int p, int layer, int strikes, bool by_update = false);

 private:
  struct Layer {
    AbftBlockShape shape;
    AbftStrikeModel model;
    /// shared_abft_correction's tables, fetched at the first struck read: a run without strikes
    /// (advise's fault-free probes) never pays for them.
    const AbftCorrection* block = nullptr;
    AbftStrikeModel update_model;  // an update strike's, on the stored block
    const AbftCorrection* update_block = nullptr;
    std::array<double, 2> partial_corrected;  // per direction: P(a product strike corrected)
    double check_flops = 0.0;                 // one check of the stored block
    bool single_entry_strikes = false;        // a weight strike changes one entry
  };
  const AbftCorrection& tables(Layer& layer, bool by_update);

  std::vector<Layer> blocks_;
  std::vector<sim::RandomStream> streams_;  // per node
};

}  // namespace codesim::models::detail
