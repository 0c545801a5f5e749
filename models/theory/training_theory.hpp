// Closed-form fault exposure of coded training: which weight strikes reach which decode of
// train_coded's protocol, and the resulting correction, rollback and silent-corruption odds.
//
// Assumptions (the default fault model: weights struck with probability eps per node per
// operation, before each forward and backward product and after each update; persistent):
//  - strikes are independent; a struck block makes every product that reads it wrong and later
//    strikes never cancel it. Sparse additive noise misses the product only when the input is
//    zero on every struck column (ReLU zeros, blank pixels): negligible for the paper's blocks
//    (0.5% of 2000 x 196 entries), not for toy blocks of a few dozen entries, where one struck
//    entry hides from about half the products and waits for the all-ones verification pass;
//  - a symbol is erroneous when any member's block, as read by that decode, holds a strike not
//    yet repaired; a read sees the strikes since the block's previous read: in a steady iteration
//    that wraps to the previous iteration's update, in the first iteration after a checkpoint or
//    rollback it starts at the restored (clean) state;
//  - a codeword with more than t erroneous symbols is detected (errors are continuous, so never
//    miscorrected) and the iteration rolls back; t is the scheme summary's correctable count for
//    the error model (adversarial floor((S - K) / 2) by default; replication's codewords are the
//    copies of one block row or column: t = 0 for 2 copies, majority for 3 or more); uncoded
//    detects nothing, so its strikes are silent corruptions;
//  - a correction regenerates every member of an erroneous symbol from sources this decode (or an
//    earlier one of the same iteration) read as correct, so the block is clean afterwards. MDS
//    breaks this once: it rebuilds both blocks of a node from k sources whose other block may
//    hold a strike no decode has read yet; that copying is neglected (second order per symbol,
//    but at t = 1 it can raise MDS's backward failure by up to a factor 1 + k / (P - 1));
//  - train_coded runs no backward round for layer 0 (W_0^T delta is not needed): layer 0 has no
//    backward strikes, and blocks that only backward symbols read (CodeNet's row-parity nodes,
//    MDS's column-split blocks) are latent: they collect an update strike per iteration until
//    the verification pass before the next checkpoint reads them;
//  - the verification pass reads forward then backward of every layer, without strikes; a
//    block's first read there sees the strikes after its last read in the interval's last
//    iteration (the final update's), or tau iterations' worth when latent; corrections there
//    are regenerated, so a second read finds the block clean;
//  - checkpoints are written only after a passing verification pass (verify_before_checkpoint),
//    so a rollback restores clean blocks;
//  - no crashes or stragglers; every node is up. The only erasures are partials that a node
//    checking its own block (abft) withholds;
//  - abft: a read of a struck block checks the whole block (the product's checksums flag the
//    strike; strikes that only hit entries the product does not read, checksum columns forward,
//    checksum rows backward, or the corner, are neglected: they are alone only for single-entry
//    strikes, which are always corrected). The read corrects the union of the entries struck
//    since the block's last read with probability Q_j for j strikes (abft_correction.hpp: exact
//    for uniformly chosen entries, an upper bound for large blocks), else the node withholds its
//    partial: an erasure. A codeword fails beyond the scheme's erasures_tolerated (0 for abft's
//    uncoded grid). The verification pass checks its batch-1 all-ones products at the node
//    before any repair and withholds one with two wrong entries, so there a struck block passes
//    with V_j instead (its struck entries of W and the checksum rows in one row, or only
//    checksum-column entries, in one column); a repair that one node's pass triggers for the
//    whole layer is neglected. A strike hidden behind zero inputs (see above) can reach the
//    verification pass instead of a training read, where V_j < Q_j: with 2 or 3 entries per
//    strike on toy blocks train_coded then rolls back more than predicted. Nothing is silent:
//    three checksums always detect two wrong entries. The value model of the weight strikes
//    (TrainingTheoryOptions::weight_fault_model) matters only here.
// Every strike then reaches exactly one read, so the decodes of an iteration are independent and
// p = 1 - prod_j (1 - failure_j) is exact under these assumptions.
//
// The other fault targets (TargetProbabilities; the decentralized protocol, where every node
// decodes and keeps its own copies of the vectors, numeric_rounds.cpp) reach node p's symbol as
// strike_reach.hpp describes once (this theory, shared_strikes.hpp and the stochastic mode read
// it there); in short:
//  - product of (l, d): p's partial at that decode only (transient);
//  - activation: the copy of x_{l+1} (forward l) makes p's forward product of l + 1 wrong and its
//    update of layer l + 1; the copy of delta_l (the loss at l = L - 1, backward l + 1 below)
//    makes its backward product of l wrong (l >= 1) and its update of layer l;
//  - decode: the copy of z_l (forward l) feeds both x_{l+1} and delta_l, so it reaches what both
//    activations above reach; the copy of W_l^T delta_l (backward l) reaches delta_{l-1};
//  - update: p's first stored block of layer l, persistently, like a weight strike after it.
// A wrong update corrupts every stored block of p in that layer; this strike then persists like a
// weight strike after the update. One such strike reaches up to three decodes of the same and the
// next iteration; each decode's failure needs t + 1 bad symbols in one codeword. With t = 0
// (uncoded, two copies) a strike is counted at its first read only: the iteration rolls back
// there (or the corruption is silent), so counting it again would count one strike twice at
// first order. With t = 1 a pair of strikes on copies fails up to two decodes at once (a product
// each in its iteration, and the next reads of both blocks): shared_strikes.hpp counts such a
// pair once, to first order in its probability; with t >= 2 the decodes are taken as
// independent. Hidden strikes (a perturbed z_l entry whose ReLU output does not change) are
// neglected: an upper bound.
// Centralized decoding (TrainingTheoryOptions::decentralized false): node 0's decode strikes, one
// per decoded vector, give every node the same wrong vector; nothing sees them, so each is a
// silent corruption, and no node's own copy is struck by the decode target.
// Local correction (abft, abft_codenet) under the other targets: an update strike is a wrong
// block like a weight strike (the update target's value model decides Q_j when it struck alone);
// a product strike on a clean block is corrected at the node with abft_partial_correction's
// probability, else withheld; a strike on a copy of a vector passes the checksums and makes the
// symbol erroneous: silent for abft's grid, which has no redundancy, a bad symbol for
// abft_codenet's. A codeword with both decodes when erasures + 2 errors stay within its
// redundancy (exact for MDS codes, an approximation for the grid); pairs of strikes that fail
// two decodes are not counted once there (an upper bound).
//
// Versus counting a backward round in every layer, as the CodeNet experiment code runs it (this
// project's every-layer count, derived in docs/reproduction.md, not a number quoted from the
// CodeNet paper, arXiv 1903.01042): CodeNet 7x6 / (5, 4) with 3 layers has 258 opportunities per
// iteration here (layer 0: 28 forward + 0 backward + 38 update) instead of 288 and p = 4.75e-4
// instead of 5.33e-4 at eps = 3e-4, plus a verification failure growing with tau from its 10
// latent layer-0 row-parity blocks; replication 2 x (5 x 4) has 320 instead of 360, p = 0.0915
// instead of 0.102. TrainingTheoryOptions::first_layer_backward gives the every-layer counts.
#pragma once

#include <array>
#include <span>
#include <string>
#include <vector>

#include "models/coding/coding_scheme.hpp"
#include "models/faults/fault_targets.hpp"
#include "models/faults/value_model.hpp"
#include "models/theory/abft_correction.hpp"
#include "models/theory/shared_strikes.hpp"

namespace codesim::models {

/// Only weight strikes, with probability eps (the default fault model).
TargetProbabilities weights_only(double eps);

/// What the theory assumes beyond the scheme.
struct TrainingTheoryOptions {
  /// Decides t, the erroneous symbols a codeword corrects (see DecodeOptions).
  ErrorModel error_model = ErrorModel::adversarial;
  /// Also run layer 0's backward product, as the CodeNet experiment code does (the every-layer
  /// count of docs/reproduction.md); train_coded skips it.
  bool first_layer_backward = false;
  /// What a weight strike does (entries and values): decides how often a node that checks its
  /// own block (abft) corrects it. The CodeNet experiment's sparse additive noise at density
  /// 0.005 by default; the other schemes' numbers do not depend on it.
  ValueModelSpec weight_fault_model = value_model_defaults(ValueModelKind::sparse_additive);
  /// What a product strike and an update strike do, and the columns of a layer's products
  /// (batch size times positions): decide how often such a node corrects those too.
  ValueModelSpec product_fault_model = value_model_defaults(ValueModelKind::sparse_additive);
  ValueModelSpec update_fault_model = value_model_defaults(ValueModelKind::sparse_additive);
  int product_columns = 1;
  /// Every node decodes (true) or node 0 decodes and sends its copies (false): a decode strike
  /// there gives every node the same wrong vector, which nothing sees (strike_reach.hpp), so it
  /// is a silent corruption rather than a bad symbol.
  bool decentralized = true;
  /// Count a pair of strikes that fails several decodes once (shared_strikes.hpp); false takes
  /// the decodes as independent (an upper bound).
  bool count_shared_strikes = true;
};

/// Weight-fault opportunities of one layer per iteration.
struct LayerOpportunities {
  int forward = 0;   ///< forward participants (one strike before each forward product)
  int backward = 0;  ///< backward participants; 0 for a layer without a backward round
  int update = 0;    ///< stored blocks of every node (one strike after each update)
  int total() const { return forward + backward + update; }
};

/// Strikes that can reach one block at one read: `strikes`, plus `strikes_per_iteration` for
/// every iteration since the last clean state (latent blocks, verification pass only); the other
/// targets' strikes alike (the node's partial and its block, as SymbolExposure counts them).
struct BlockExposure {
  int strikes = 0;
  int strikes_per_iteration = 0;
  TargetCounts other{};
  TargetCounts other_per_iteration{};
};

/// Strikes that can reach one symbol at one decode (the sum over its member blocks).
struct SymbolExposure {
  int strikes = 0;  ///< weight strikes
  int strikes_per_iteration = 0;
  /// Strikes of the other targets (the weights entry stays 0), counted the same way.
  TargetCounts other{};
  TargetCounts other_per_iteration{};
  /// The member blocks one by one; filled only for decodes with local correction, where each
  /// block is corrected or withheld on its own.
  std::vector<BlockExposure> blocks;
};

/// What a node that checks its own block (abft) does at one read. Q_j is the probability that a
/// block read after j strikes is corrected at its node rather than withheld (index j, Q_0 = 1;
/// beyond the end, the last entry).
struct LocalCheckOdds {
  std::vector<double> block_corrected;   ///< Q_j of weight strikes (and mixed ones)
  std::vector<double> update_corrected;  ///< Q_j when every strike is an update strike
  /// A struck partial of a clean block corrected at its node (else withheld).
  double partial_corrected = 1.0;
};

/// One decode of one layer: its codewords (replication and uncoded: one per block row forward or
/// block column backward; the other schemes: one), each a list of symbol exposures.
struct DecodeExposure {
  int layer = 0;
  Direction direction = Direction::forward;
  std::vector<std::vector<SymbolExposure>> codewords;
  int correctable = 0;  ///< erroneous symbols each codeword corrects, t
  bool detects = true;  ///< false: nothing is detected (uncoded)
  /// Local correction at the nodes (abft); empty block_corrected: the nodes check nothing and
  /// strikes make symbols erroneous.
  LocalCheckOdds local;
  /// With local correction: withheld symbols (erasures) each codeword tolerates.
  int erasures_tolerated = 0;
  int symbol_count() const;
  bool corrects_locally() const { return !local.block_corrected.empty(); }
};

/// Probabilities of one decode.
struct DecodeProbabilities {
  /// Some codeword holds more than t erroneous symbols: detected, the iteration rolls back.
  double failure = 0.0;
  /// No failure and at least one erroneous symbol: corrected and regenerated.
  double corrected = 0.0;
  /// At least one erroneous symbol that nothing detects (decodes with detects == false).
  double silent = 0.0;
  /// Expected member blocks (and struck partials) corrected at their nodes (local correction
  /// only).
  double local_corrections = 0.0;
};

/// Decode probabilities when each strike hits with probability eps and `iterations` iterations
/// passed since the last clean state: a symbol is erroneous with probability
/// 1 - (1 - eps)^(strikes + iterations strikes_per_iteration); codewords fail independently
/// (Poisson-binomial tail, summed without cancellation). With local correction a symbol is
/// instead withheld unless every member block is clean or corrected, a block exposed to n
/// strikes being fine with probability sum_j Binomial(n, eps)(j) Q_j, and a codeword fails
/// beyond erasures_tolerated withheld symbols. eps in [0, 1], iterations >= 1.
DecodeProbabilities decode_probabilities(const DecodeExposure& decode,
                                         const TargetProbabilities& eps, int iterations = 1);
DecodeProbabilities decode_probabilities(const DecodeExposure& decode, double eps,
                                         int iterations = 1);

/// A sequence of independent decodes (one iteration, or one verification pass).
struct SequenceProbabilities {
  double failure = 0.0;                     ///< 1 - prod_j (1 - failure_j)
  double expected_corrected = 0.0;          ///< sum_j P(no earlier failure) corrected_j
  double silent = 0.0;                      ///< 1 - prod_j (1 - silent_j)
  double expected_local_corrections = 0.0;  ///< sum_j P(no earlier failure) local_corrections_j
};

SequenceProbabilities sequence_probabilities(std::span<const DecodeExposure> decodes,
                                             const TargetProbabilities& eps, int iterations = 1);
SequenceProbabilities sequence_probabilities(std::span<const DecodeExposure> decodes, double eps,
                                             int iterations = 1);

/// Empty when the theory applies to `spec` and the MLP with sizes N_0, ..., N_L (at least two,
/// each >= 1; W_l is N_{l+1} x N_l and must suit the scheme), else what is wrong.
std::string validate_training_theory(const SchemeSpec& spec, const std::vector<int>& layer_sizes);

/// The exposure structure of train_coded's protocol for one scheme and one MLP, derived from the
/// scheme's participants, symbols and stored blocks (built on a small W of the same block
/// structure). Every layer uses the same structure; only whether it has a backward round differs.
class TrainingTheory {
 public:
  /// Precondition: validate_training_theory(spec, layer_sizes) is empty.
  TrainingTheory(const SchemeSpec& spec, const std::vector<int>& layer_sizes,
                 const TrainingTheoryOptions& options = {});

  const SchemeSummary& summary() const { return summary_; }
  int layers() const { return static_cast<int>(opportunities_.size()); }
  const TrainingTheoryOptions& options() const { return options_; }
  /// Per layer, and their sum over the layers.
  const std::vector<LayerOpportunities>& opportunities() const { return opportunities_; }
  int opportunities_per_iteration() const;
  /// Blocks (over all layers) that no decode of an iteration reads; the verification pass does.
  int latent_blocks() const { return latent_blocks_; }

  /// Decodes of an iteration that follows a completed one, in protocol order: forward of layers
  /// 0..L-1, then backward of L-1..1 (..0 with first_layer_backward).
  const std::vector<DecodeExposure>& steady_decodes() const { return steady_; }
  /// The same decodes in the first iteration after a checkpoint or rollback.
  const std::vector<DecodeExposure>& first_decodes() const { return first_; }
  /// The verification pass: forward then backward of layer 0, 1, ...; pass the interval's tau
  /// as `iterations`.
  const std::vector<DecodeExposure>& verification_decodes() const { return verification_; }

  // Each probability takes the strike probability of every target; a double is weights only.

  /// Rollback probability of a steady iteration, p.
  double rollback_probability(const TargetProbabilities& eps) const;
  double rollback_probability(double eps) const { return rollback_probability(weights_only(eps)); }
  /// Rollback probability of the first iteration after a checkpoint or rollback.
  double first_rollback_probability(const TargetProbabilities& eps) const;
  double first_rollback_probability(double eps) const {
    return first_rollback_probability(weights_only(eps));
  }
  /// Failure probability of the verification pass after tau >= 1 iterations.
  double verification_failure_probability(const TargetProbabilities& eps, int tau) const;
  double verification_failure_probability(double eps, int tau) const {
    return verification_failure_probability(weights_only(eps), tau);
  }
  /// Expected corrected decodes of a steady iteration.
  double expected_corrected_decodes(const TargetProbabilities& eps) const;
  double expected_corrected_decodes(double eps) const {
    return expected_corrected_decodes(weights_only(eps));
  }
  /// Probability that a steady iteration adds an undetected corruption (uncoded; else 0).
  double silent_corruption_probability(const TargetProbabilities& eps) const;
  double silent_corruption_probability(double eps) const {
    return silent_corruption_probability(weights_only(eps));
  }
  /// Expected blocks and partials corrected at their nodes in a steady iteration (abft; else 0).
  double expected_local_corrections(const TargetProbabilities& eps) const;
  double expected_local_corrections(double eps) const {
    return expected_local_corrections(weights_only(eps));
  }
  /// Pairs of strikes that fail several decodes (t = 1; zero otherwise).
  const SharedStrikes& shared_strikes() const { return shared_; }
  /// Opportunities per iteration of each target (weights: opportunities_per_iteration()).
  const TargetCounts& target_opportunities() const { return target_opportunities_; }
  /// Per layer, the nodes' correction of their blocks (abft); empty for the other schemes.
  const std::vector<AbftCorrection>& local_corrections() const { return local_; }
  /// Expected strikes per iteration: opportunities_per_iteration() eps.
  double expected_strikes(double eps) const { return opportunities_per_iteration() * eps; }
  /// Expected strikes per iteration over every target.
  double expected_strikes(const TargetProbabilities& eps) const;

 private:
  TrainingTheoryOptions options_;
  SchemeSummary summary_;
  std::vector<LayerOpportunities> opportunities_;
  int latent_blocks_ = 0;
  TargetCounts target_opportunities_{};
  SharedStrikes shared_;
  std::vector<AbftCorrection> local_;                     ///< per layer: weight strikes' Q_j
  std::vector<AbftCorrection> local_update_;              ///< per layer: update strikes' Q_j
  std::vector<std::array<double, 2>> partial_corrected_;  ///< per layer, forward and backward
  std::vector<DecodeExposure> steady_;
  std::vector<DecodeExposure> first_;
  std::vector<DecodeExposure> verification_;
  int central_decode_strikes_ = 0;  ///< centralized: node 0's decode strikes per iteration
};

}  // namespace codesim::models
