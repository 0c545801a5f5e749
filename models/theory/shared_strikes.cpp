// Enumerates the strike sources that reach several decodes (shared_strikes.hpp) and counts, per
// pair of sources, the decodes both fail beyond the first.
#include "models/theory/shared_strikes.hpp"

#include <cstdint>
#include <unordered_map>
#include <utility>

#include "models/theory/strike_reach.hpp"

namespace codesim::models {
namespace {

constexpr int kForward = 0;
constexpr int kBackward = 1;

// When a decode happens: in the strike's iteration, the next one, or the verification pass.
enum class Phase { same, next, verification };

// One decode: phase, layer, direction.
struct DecodeKey {
  Phase phase = Phase::same;
  int layer = 0;
  int direction = kForward;
  bool operator==(const DecodeKey&) const = default;
};

struct Source {
  int node = 0;
  FaultTarget target = FaultTarget::activation;
  std::vector<DecodeKey> reaches;
};

class SourceBuilder {
 public:
  SourceBuilder(const SharedStrikeShape& shape, Phase after)
      : shape_(shape),
        rounds_{shape.layers, shape.first_layer_backward},
        strikes_(iteration_strikes(rounds_)),
        after_(after) {}

  std::vector<Source> build() const {
    std::vector<Source> sources;
    for (int p = 0; p < static_cast<int>(shape_.nodes.size()); ++p) add_node(p, sources);
    return sources;
  }

 private:
  const NodeRole& role(int p) const { return shape_.nodes[static_cast<std::size_t>(p)]; }

  // This iteration's product of node p in layer l and direction d, if p computes one.
  void transient(int p, const ProductRead& read, std::vector<DecodeKey>& reaches) const {
    const int d = read.direction == Direction::forward ? kForward : kBackward;
    const int symbol = d == kForward ? role(p).forward_symbol : role(p).backward_symbol;
    if (symbol >= 0) reaches.push_back({Phase::same, read.layer, d});
  }

  // The first reads of node p's blocks of layer l after its (wrong) update.
  void persistent(int p, int l, std::vector<DecodeKey>& reaches) const {
    const NodeRole& r = role(p);
    const bool forward = r.forward_symbol >= 0;
    const bool backward = r.backward_symbol >= 0 &&
                          (after_ == Phase::verification || rounds_.backward_round(l)) &&
                          (r.blocks >= 2 || !forward);
    if (forward) reaches.push_back({after_, l, kForward});
    if (backward) reaches.push_back({after_, l, kBackward});
  }

  // Node p's strikes of one iteration, each with the reads strike_reach.hpp gives it.
  void add_node(int p, std::vector<Source>& sources) const {
    for (const ReachedStrike& s : strikes_) {
      Source source{p, s.target(), {}};
      for (const ProductRead& read : s.reach.products) transient(p, read, source.reaches);
      for (const ProductRead& update : s.reach.updates) persistent(p, update.layer, source.reaches);
      sources.push_back(std::move(source));
    }
  }

  const SharedStrikeShape& shape_;
  NetworkRounds rounds_;
  std::vector<ReachedStrike> strikes_;  // a node's, in one iteration
  Phase after_;
};

// Whether two nodes' strikes fail a decode of direction d together: different symbols of one
// codeword that corrects exactly one.
bool fail_together(const SharedStrikeShape& shape, int d, int a, int b) {
  if (!shape.corrects_one[d]) return false;
  const NodeRole& ra = shape.nodes[static_cast<std::size_t>(a)];
  const NodeRole& rb = shape.nodes[static_cast<std::size_t>(b)];
  const int sa = d == kForward ? ra.forward_symbol : ra.backward_symbol;
  const int sb = d == kForward ? rb.forward_symbol : rb.backward_symbol;
  const int ca = d == kForward ? ra.forward_codeword : ra.backward_codeword;
  const int cb = d == kForward ? rb.forward_codeword : rb.backward_codeword;
  return sa >= 0 && sb >= 0 && sa != sb && ca == cb;
}

SharedStrikes::Table count(const SharedStrikeShape& shape, Phase after) {
  const std::vector<Source> sources = SourceBuilder(shape, after).build();
  // Per decode, the sources that reach it.
  std::vector<std::pair<DecodeKey, std::vector<int>>> decodes;
  for (int i = 0; i < static_cast<int>(sources.size()); ++i) {
    for (const DecodeKey& key : sources[static_cast<std::size_t>(i)].reaches) {
      auto found = decodes.begin();
      while (found != decodes.end() && !(found->first == key)) ++found;
      if (found == decodes.end()) {
        decodes.push_back({key, {}});
        found = decodes.end() - 1;
      }
      found->second.push_back(i);
    }
  }
  // Per pair of sources (i < j), the decodes both fail.
  std::unordered_map<std::uint64_t, int> failed;
  for (const auto& [key, members] : decodes) {
    for (std::size_t a = 0; a < members.size(); ++a) {
      for (std::size_t b = a + 1; b < members.size(); ++b) {
        const Source& i = sources[static_cast<std::size_t>(members[a])];
        const Source& j = sources[static_cast<std::size_t>(members[b])];
        if (!fail_together(shape, key.direction, i.node, j.node)) continue;
        ++failed[static_cast<std::uint64_t>(members[a]) << 32 |
                 static_cast<std::uint64_t>(members[b])];
      }
    }
  }
  SharedStrikes::Table table{};
  for (const auto& [pair, n] : failed) {
    if (n < 2) continue;
    const auto a = static_cast<std::size_t>(sources[pair >> 32].target);
    const auto b = static_cast<std::size_t>(sources[pair & 0xffffffffu].target);
    table[a][b] += n - 1;
    if (a != b) table[b][a] += n - 1;
  }
  return table;
}

}  // namespace

double SharedStrikes::log_gain(const Table& table, const TargetProbabilities& eps) {
  double gain = 0.0;
  for (std::size_t a = 0; a < eps.size(); ++a) {
    for (std::size_t b = a; b < eps.size(); ++b) gain += table[a][b] * eps[a] * eps[b];
  }
  return gain;
}

SharedStrikes count_shared_strikes(const SharedStrikeShape& shape) {
  SharedStrikes out;
  const long long sources = static_cast<long long>(shape.nodes.size()) * shape.layers * 4;
  if (!(shape.corrects_one[kForward] || shape.corrects_one[kBackward]) ||
      sources > kMaxSharedStrikeSources) {
    return out;
  }
  out.next = count(shape, Phase::next);
  out.verification = count(shape, Phase::verification);
  return out;
}

}  // namespace codesim::models
