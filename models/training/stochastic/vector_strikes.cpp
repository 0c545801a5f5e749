// The stochastic mode's vector and update strikes: their opportunities as the numeric mode
// offers them (numeric_rounds.cpp), followed by strike_reach.hpp.
#include "models/training/stochastic/vector_strikes.hpp"

#include <algorithm>
#include <utility>

namespace codesim::models::detail {
namespace {

// The flops the numeric mode gives an opportunity on `strike`'s copy: a decode's
// (decode_fault_flops), or an activation's, one per entry of the decoded product it follows.
double opportunity_flops(const ReachedStrike& strike, const LayerShape& shape, Direction after,
                         int columns) {
  if (strike.target() == FaultTarget::decode)
    return decode_fault_flops(shape.dir[after == Direction::forward ? 0 : 1], columns);
  const int rows = after == Direction::forward ? shape.rows : shape.cols;
  return static_cast<double>(rows) * columns;
}

}  // namespace

VectorStrikes::VectorStrikes(const StrikeRates& rates, const FaultConfig& faults,
                             const std::vector<LayerShape>& shapes, const std::vector<int>& columns,
                             InputRows input_rows, int nodes, bool decentralized,
                             bool first_layer_backward, std::uint64_t seed, std::uint64_t replica)
    : rounds_{static_cast<int>(shapes.size()), first_layer_backward},
      nodes_(nodes),
      decentralized_(decentralized),
      input_rows_(std::move(input_rows)) {
  for (int p = 0; p < nodes; ++p) {
    for (FaultTarget t : {FaultTarget::activation, FaultTarget::decode, FaultTarget::update})
      active_ = active_ || rates.enabled(p, t);
  }
  if (!active_) return;
  after_.resize(shapes.size() * 2);
  for (int l = 0; l < rounds_.layers; ++l) {
    const auto layer = static_cast<std::size_t>(l);
    for (Direction dir : {Direction::forward, Direction::backward}) {
      AfterRound& a = after_[layer * 2 + (dir == Direction::forward ? 0 : 1)];
      a.strikes = strikes_after_round({l, dir}, rounds_);
      // The vectors made after this round: the decoded product's rows (z_l and what follows it
      // forward, c_l and delta_{l-1} backward), on the layer's product columns.
      a.rows = dir == Direction::forward ? shapes[layer].rows : shapes[layer].cols;
      a.size = a.rows * columns[layer];
      for (const ReachedStrike& s : a.strikes) {
        const double flops = opportunity_flops(s, shapes[layer], dir, columns[layer]);
        std::vector<double> hazard;
        for (int p = 0; p < nodes; ++p)
          hazard.push_back(strike_hazard(rates.probability(p, s.target(), flops)));
        a.hazard.push_back(std::move(hazard));
        a.entries.push_back(entries_to_corrupt(faults[s.target()].model, a.size));
      }
    }
    std::vector<double> hazard;
    for (int p = 0; p < nodes; ++p) {
      hazard.push_back(strike_hazard(rates.probability(
          p, FaultTarget::update, shapes[layer].update_flops_per_column * columns[layer])));
    }
    update_hazard_.push_back(std::move(hazard));
  }
  for (int p = 0; p < nodes; ++p) {
    row_streams_.emplace_back(
        sim::StreamKey{seed, replica, "stochastic_strike_rows", static_cast<std::uint64_t>(p)});
  }
  product_wrong_.assign(static_cast<std::size_t>(nodes) * shapes.size() * 2, 0);
  update_wrong_.assign(static_cast<std::size_t>(nodes) * shapes.size(), 0);
}

void VectorStrikes::begin_iteration() {
  if (!marked_) return;  // most iterations strike no copy
  std::fill(product_wrong_.begin(), product_wrong_.end(), 0);
  std::fill(update_wrong_.begin(), update_wrong_.end(), 0);
  marked_ = false;
}

// The strike changes `entries` entries of its vector, chosen uniformly without replacement as the
// numeric mode's value models choose them (Floyd's sampling; entries are column-major, so entry e
// lies in row e % rows); the reads of their rows are wrong.
void VectorStrikes::reach(int p, const AfterRound& a, std::size_t k) {
  const std::int64_t entries = a.entries[k];
  if (entries == 0) return;  // the value model changes nothing
  every_row_ = input_rows_.empty() || entries >= kEveryRow;
  if (!every_row_) {
    struck_entries_.clear();
    sim::RandomStream& stream = row_streams_[static_cast<std::size_t>(p)];
    for (std::int64_t j = a.size - entries; j < a.size; ++j) {
      const std::int64_t e = stream.uniform_int(0, j);
      const bool taken =
          std::find(struck_entries_.begin(), struck_entries_.end(), e) != struck_entries_.end();
      struck_entries_.push_back(taken ? j : e);
    }
    struck_rows_.clear();
    for (std::int64_t e : struck_entries_) struck_rows_.push_back(e % a.rows);
    std::sort(struck_rows_.begin(), struck_rows_.end());
  }
  marked_ = true;
  const StrikeReach& reach = a.strikes[k].reach;
  for (const ProductRead& read : reach.products) {
    if (reads_struck_row(p, read))
      product_wrong_[index(p, read.layer) * 2 + (read.direction == Direction::forward ? 0 : 1)] = 1;
  }
  for (const ProductRead& update : reach.updates)
    if (reads_struck_row(p, update)) update_wrong_[index(p, update.layer)] = 1;
}

bool VectorStrikes::reads_struck_row(int p, const ProductRead& read) const {
  if (every_row_) return true;
  const RowRange& range =
      input_rows_[static_cast<std::size_t>(read.layer)]
                 [read.direction == Direction::forward ? 0 : 1][static_cast<std::size_t>(p)];
  const auto first = std::lower_bound(struck_rows_.begin(), struck_rows_.end(), range.first);
  return first != struck_rows_.end() && *first < range.first + range.count;
}

// In the numeric mode's order: per strike (the decode's, then the activation's), the nodes up in
// turn; centralized, the decode strikes node 0's copy, which every node then holds.
int VectorStrikes::after_round(int layer, Direction dir, StrikeStreams& streams,
                               const std::vector<char>& down, double now_s) {
  int consistent = 0;
  const AfterRound& a =
      after_[static_cast<std::size_t>(layer) * 2 + (dir == Direction::forward ? 0 : 1)];
  for (std::size_t k = 0; k < a.strikes.size(); ++k) {
    const FaultTarget target = a.strikes[k].target();
    if (!decentralized_ && target == FaultTarget::decode) {
      // Every node computes from the same wrong vector: its products form a codeword of it, and
      // its updates keep the blocks a codeword, so no decode, vote or checksum can see it.
      if (!down[0] && streams.strike(target, 0, a.hazard[k][0], now_s)) ++consistent;
      continue;
    }
    for (int p = 0; p < nodes_; ++p) {
      if (down[static_cast<std::size_t>(p)]) continue;
      if (streams.strike(target, p, a.hazard[k][static_cast<std::size_t>(p)], now_s))
        reach(p, a, k);
    }
  }
  return consistent;
}

bool VectorStrikes::strike_update(int p, int layer, StrikeStreams& streams, double now_s) const {
  return streams.strike(
      FaultTarget::update, p,
      update_hazard_[static_cast<std::size_t>(layer)][static_cast<std::size_t>(p)], now_s);
}

}  // namespace codesim::models::detail
