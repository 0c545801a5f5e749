// The stochastic mode's strikes on the nodes' copies of vectors (activation and decode targets)
// and on their encoded updates (update target), followed by the rules of
// models/theory/strike_reach.hpp: which of a node's products this iteration and which of its
// updates read a wrong copy.
#pragma once

#include <vector>

#include "models/nn/layer_steps.hpp"
#include "models/theory/strike_reach.hpp"
#include "models/training/protocol/round_costs.hpp"
#include "models/training/stochastic/strike_streams.hpp"

namespace codesim::models::detail {

/// Per run: the hazards of every node's vector and update strikes, and per iteration the wrong
/// copies they left.
class VectorStrikes {
 public:
  VectorStrikes() = default;
  /// `shapes` and `columns` per weighted layer (the product columns: positions x batch);
  /// centralized (`decentralized` false), a decode strike at node 0 reaches every node alike.
  VectorStrikes(const StrikeRates& rates, const std::vector<LayerShape>& shapes,
                const std::vector<int>& columns, int nodes, bool decentralized);

  /// False when no node's activation, decode or update target can strike.
  bool active() const { return active_; }
  /// Starts an iteration: every copy right.
  void begin_iteration();
  /// Draws the strikes on the copies made after the decode of (layer, dir), at each node up
  /// (`down` per node) at `now_s`. Returns the strikes that every node's copy shares
  /// (centralized decoding: node 0's decode), silent corruptions that nothing can see.
  int after_round(int layer, Direction dir, StrikeStreams& streams, const std::vector<char>& down,
                  double now_s);
  /// Node p's product of (layer, dir) reads a wrong copy.
  bool product_wrong(int p, int layer, Direction dir) const {
    return product_wrong_[index(p, layer) * 2 + (dir == Direction::forward ? 0 : 1)] != 0;
  }
  /// Node p's update of `layer` reads a wrong copy: every stored block of p there goes wrong.
  bool update_wrong(int p, int layer) const { return update_wrong_[index(p, layer)] != 0; }
  /// An update-target opportunity of node p's increment of `layer`: true when struck.
  bool strike_update(int p, int layer, StrikeStreams& streams, double now_s) const;

 private:
  struct AfterRound {
    std::vector<ReachedStrike> strikes;
    std::vector<std::vector<double>> hazard;  // per strike, per node
  };
  std::size_t index(int p, int layer) const {
    return static_cast<std::size_t>(p) * static_cast<std::size_t>(rounds_.layers) +
           static_cast<std::size_t>(layer);
  }
  void reach(int p, const StrikeReach& reach);

  NetworkRounds rounds_;
  int nodes_ = 0;
  bool decentralized_ = true;
  bool active_ = false;
  std::vector<AfterRound> after_;                   // layer * 2 + dir
  std::vector<std::vector<double>> update_hazard_;  // per layer, per node
  std::vector<char> product_wrong_;                 // (p * layers + l) * 2 + dir
  std::vector<char> update_wrong_;                  // p * layers + l
};

}  // namespace codesim::models::detail
