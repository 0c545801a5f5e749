// Strikes that reach several decodes: the correction to the closed forms' independent decodes.
//
// A strike on a node's copy of an activation, delta or decoded vector reaches its next product in
// this iteration and, through the node's update, the next read of its block (the next
// iteration's decode, or the verification pass). Where a decode corrects one bad symbol, two such
// strikes on nodes of different symbols of one codeword fail every decode both reach; taking the
// decodes as independent counts that pair once per decode instead of once. To first order in each
// pair's probability, the reads survive with probability larger by the factor
// exp(sum over pairs eps_a eps_b (n - 1)), n >= 2 the decodes the pair fails. SharedStrikes holds
// the counts of (n - 1) per pair of targets. Schemes that correct nothing (each strike counts at
// its first read, training_theory.hpp) and decodes that correct two or more (a pair never fails
// them) need no correction; neither do weights, products and updates (one read each).
#pragma once

#include <array>
#include <vector>

#include "models/faults/fault_targets.hpp"

namespace codesim::models {

/// Strike probability per opportunity of each fault target, indexed by FaultTarget.
using TargetProbabilities = std::array<double, kFaultTargetCount>;
/// Counts per fault target, indexed by FaultTarget.
using TargetCounts = std::array<int, kFaultTargetCount>;

/// How one node takes part in every layer's decodes (the same in every layer).
struct NodeRole {
  int forward_symbol = -1;  ///< its forward partial's symbol, -1 when it computes none
  int backward_symbol = -1;
  int forward_codeword = -1;  ///< the codeword of that symbol
  int backward_codeword = -1;
  int blocks = 1;  ///< stored blocks: forward reads the first, backward the last
};

struct SharedStrikeShape {
  int layers = 1;
  bool first_layer_backward = false;
  std::vector<NodeRole> nodes;
  bool corrects_one[2] = {false, false};  ///< forward, backward: a decode corrects exactly one
};

/// Sum over pairs of strikes of targets (a, b) of (n - 1), n >= 2 the decodes the pair fails,
/// among one iteration's decodes and the reads after it: the next iteration's (`next`) or the
/// verification pass's (`verification`). Symmetric in (a, b).
struct SharedStrikes {
  using Table = std::array<std::array<double, kFaultTargetCount>, kFaultTargetCount>;
  Table next{};
  Table verification{};
  /// sum_{a <= b} table[a][b] eps_a eps_b: the log of the survival factor above.
  static double log_gain(const Table& table, const TargetProbabilities& eps);
};

/// Largest number of strike sources (nodes x layers x 4) whose pairs are enumerated; beyond it
/// the correction is left out and the closed forms stay an upper bound.
inline constexpr int kMaxSharedStrikeSources = 4000;

/// The counts for `shape`; zero when no decode corrects exactly one or the sources exceed
/// kMaxSharedStrikeSources.
SharedStrikes count_shared_strikes(const SharedStrikeShape& shape);

}  // namespace codesim::models
