// The stochastic mode's strikes on the nodes' copies of vectors (activation and decode targets)
// and on their encoded updates (update target), followed by the rules of
// models/theory/strike_reach.hpp: which of a node's products this iteration and which of its
// updates read a wrong copy.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "models/faults/fault_targets.hpp"
#include "models/theory/strike_reach.hpp"
#include "models/training/protocol/round_costs.hpp"
#include "models/training/stochastic/strike_streams.hpp"
#include "sim/random_stream.hpp"

namespace codesim::models::detail {

/// The rows of its input vector that a node's product of one layer and direction reads (its
/// update of the layer reads the same rows of x_l, forward, and of delta_l, backward).
struct RowRange {
  std::int64_t first = 0;
  std::int64_t count = 0;
};

/// Per layer, per direction (0 forward, 1 backward), per node. Empty: every node reads every row
/// (a network's layers, whose vectors the steps between products reshape).
using InputRows = std::vector<std::array<std::vector<RowRange>, 2>>;

/// Per run: the hazards of every node's vector and update strikes, and per iteration the wrong
/// copies they left.
class VectorStrikes {
 public:
  /// A strike changing this many entries or more is taken to change every row: it misses a slice
  /// of a fraction f of the rows with probability below (1 - f)^1024.
  static constexpr std::int64_t kEveryRow = 1024;

  VectorStrikes() = default;
  /// `shapes` and `columns` per weighted layer (the product columns: positions x batch);
  /// `faults` gives the targets' value models (the entries a strike changes); centralized
  /// (`decentralized` false), a decode strike at node 0 reaches every node alike; with
  /// `first_layer_backward` delta_0 is also read by layer 0's backward product. A strike's
  /// rows are drawn from the stream (seed, replica, "stochastic_strike_rows", node).
  VectorStrikes(const StrikeRates& rates, const FaultConfig& faults,
                const std::vector<LayerShape>& shapes, const std::vector<int>& columns,
                InputRows input_rows, int nodes, bool decentralized, bool first_layer_backward,
                std::uint64_t seed, std::uint64_t replica);

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
    std::vector<std::int64_t> entries;        // per strike: the entries it changes
    std::int64_t rows = 0;                    // of the vectors made after the round
    std::int64_t size = 0;                    // their entries: rows x columns
  };
  std::size_t index(int p, int layer) const {
    return static_cast<std::size_t>(p) * static_cast<std::size_t>(rounds_.layers) +
           static_cast<std::size_t>(layer);
  }
  /// Node p's strike k of `a`: its rows drawn, then the reads of them marked.
  void reach(int p, const AfterRound& a, std::size_t k);
  bool reads_struck_row(int p, const ProductRead& read) const;

  NetworkRounds rounds_;
  int nodes_ = 0;
  bool decentralized_ = true;
  bool active_ = false;
  std::vector<AfterRound> after_;                   // layer * 2 + dir
  std::vector<std::vector<double>> update_hazard_;  // per layer, per node
  std::vector<char> product_wrong_;                 // (p * layers + l) * 2 + dir
  std::vector<char> update_wrong_;                  // p * layers + l
  bool marked_ = false;                             // a copy is wrong this iteration
  InputRows input_rows_;
  std::vector<sim::RandomStream> row_streams_;  // per node
  // The strike being followed: its entries, their rows (sorted), or every row.
  std::vector<std::int64_t> struck_entries_;
  std::vector<std::int64_t> struck_rows_;
  bool every_row_ = false;
};

}  // namespace codesim::models::detail
