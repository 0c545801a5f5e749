// The reach of a strike on a node's copy of a vector (strike_reach.hpp).
#include "models/theory/strike_reach.hpp"

#include "sim/check.hpp"

namespace codesim::models {

FaultTarget target_of(NodeVector vector) {
  switch (vector) {
    case NodeVector::z:
    case NodeVector::c:
      return FaultTarget::decode;
    case NodeVector::input:
    case NodeVector::delta:
      return FaultTarget::activation;
  }
  return FaultTarget::activation;
}

StrikeReach strike_reach(const VectorStrike& strike, const NetworkRounds& rounds) {
  const int l = strike.layer;
  const bool has_next = l + 1 < rounds.layers;
  StrikeReach reach;
  // delta_k's reads: backward k, and the update of layer k.
  const auto via_delta = [&](int k) {
    if (rounds.backward_round(k)) reach.products.push_back({k, Direction::backward});
  };
  switch (strike.vector) {
    case NodeVector::z:  // x_{l+1} and delta_l
      if (has_next) reach.products.push_back({l + 1, Direction::forward});
      via_delta(l);
      reach.updates.push_back({l, Direction::backward});
      if (has_next) reach.updates.push_back({l + 1, Direction::forward});
      break;
    case NodeVector::input:
      CODESIM_CHECK(l >= 1, "x_0 is the batch, which no strike reaches");
      reach.products.push_back({l, Direction::forward});
      reach.updates.push_back({l, Direction::forward});
      break;
    case NodeVector::delta:
      via_delta(l);
      reach.updates.push_back({l, Direction::backward});
      break;
    case NodeVector::c:  // delta_{l-1}
      CODESIM_CHECK(l >= 1, "c_0 feeds nothing");
      via_delta(l - 1);
      reach.updates.push_back({l - 1, Direction::backward});
      break;
  }
  return reach;
}

std::vector<ReachedStrike> strikes_after_round(const ProductRead& round,
                                               const NetworkRounds& rounds) {
  const int l = round.layer;
  std::vector<VectorStrike> made;
  if (round.direction == Direction::forward) {
    made = {{NodeVector::z, l},
            l + 1 < rounds.layers ? VectorStrike{NodeVector::input, l + 1}
                                  : VectorStrike{NodeVector::delta, l}};
  } else if (l >= 1) {  // c_0 feeds nothing
    made = {{NodeVector::c, l}, {NodeVector::delta, l - 1}};
  }
  std::vector<ReachedStrike> out;
  for (const VectorStrike& s : made) out.push_back({s, strike_reach(s, rounds)});
  return out;
}

std::vector<ReachedStrike> iteration_strikes(const NetworkRounds& rounds) {
  std::vector<ReachedStrike> strikes;
  const auto add = [&](const ProductRead& round) {
    for (const ReachedStrike& s : strikes_after_round(round, rounds)) strikes.push_back(s);
  };
  for (int l = 0; l < rounds.layers; ++l) add({l, Direction::forward});
  for (int l = rounds.layers - 1; l >= 1; --l) add({l, Direction::backward});
  return strikes;
}

}  // namespace codesim::models
