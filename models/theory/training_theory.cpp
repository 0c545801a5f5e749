// Derives per-decode strike exposures from a scheme's participants, symbols and stored blocks,
// following train_coded's per-iteration order (the probabilities: decode_probabilities.cpp).
#include "models/theory/training_theory.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <utility>
#include <variant>

#include "models/theory/strike_reach.hpp"
#include "sim/check.hpp"

namespace codesim::models {
namespace {

// Bound on the nodes of the small scheme the structure is read from.
constexpr int kMaxTheoryNodes = 100'000;

constexpr int kForward = 0;
constexpr int kBackward = 1;
constexpr Direction kDirections[2] = {Direction::forward, Direction::backward};

// What one read of a block sees, per iteration kind.
struct ReadExposure {
  SymbolExposure steady;
  SymbolExposure first;
  SymbolExposure verification;
};

SymbolExposure& operator+=(SymbolExposure& a, const SymbolExposure& b) {
  a.strikes += b.strikes;
  a.strikes_per_iteration += b.strikes_per_iteration;
  for (int k = 0; k < kFaultTargetCount; ++k) {
    a.other[static_cast<std::size_t>(k)] += b.other[static_cast<std::size_t>(k)];
    a.other_per_iteration[static_cast<std::size_t>(k)] +=
        b.other_per_iteration[static_cast<std::size_t>(k)];
  }
  return a;
}

// One event in a block's life during an iteration of one layer; a strike names its target.
enum class EventKind { strike, forward_read, backward_read };
struct Event {
  EventKind kind = EventKind::strike;
  FaultTarget target = FaultTarget::weights;
};

// What one block's reads see, from its events in one iteration (in protocol order).
struct BlockTimeline {
  std::vector<std::pair<EventKind, ReadExposure>> reads;  ///< steady and first filled
  SymbolExposure at_verification;                         ///< at its first verification read
  bool latent = false;                                    ///< no read during an iteration
};

BlockTimeline timeline(const std::vector<Event>& events) {
  // Strikes at positions [from, to) of the event list, per target.
  const auto strikes_between = [&events](std::size_t from, std::size_t to) {
    SymbolExposure counted;
    for (std::size_t i = from; i < to; ++i) {
      if (events[i].kind != EventKind::strike) continue;
      if (events[i].target == FaultTarget::weights) {
        ++counted.strikes;
      } else {
        ++counted.other[static_cast<std::size_t>(events[i].target)];
      }
    }
    return counted;
  };
  std::vector<std::size_t> positions;
  for (std::size_t i = 0; i < events.size(); ++i) {
    if (events[i].kind != EventKind::strike) positions.push_back(i);
  }
  BlockTimeline out;
  if (positions.empty()) {
    // Read only by the verification pass: every strike of every iteration accumulates.
    out.latent = true;
    const SymbolExposure all = strikes_between(0, events.size());
    out.at_verification.strikes_per_iteration = all.strikes;
    out.at_verification.other_per_iteration = all.other;
    return out;
  }
  // Strikes after the last read: the previous iteration's for a steady iteration's first read,
  // the interval's last iteration's for the verification pass.
  const SymbolExposure tail = strikes_between(positions.back() + 1, events.size());
  for (std::size_t r = 0; r < positions.size(); ++r) {
    const std::size_t at = positions[r];
    ReadExposure read;
    read.first = r == 0 ? strikes_between(0, at) : strikes_between(positions[r - 1] + 1, at);
    read.steady = read.first;
    if (r == 0) read.steady += tail;
    out.reads.emplace_back(events[at].kind, read);
  }
  out.at_verification = tail;
  return out;
}

// Per node, the symbol it feeds in one direction (-1: none); symbols must not share members.
std::vector<int> symbol_of(const CodingScheme& scheme, Direction dir) {
  std::vector<int> symbol(static_cast<std::size_t>(scheme.node_count()), -1);
  for (int s = 0; s < scheme.symbol_count(dir); ++s) {
    for (int p : scheme.symbol_members(dir, s)) {
      CODESIM_CHECK(symbol[static_cast<std::size_t>(p)] == -1,
                    "the theory needs symbols with disjoint members");
      symbol[static_cast<std::size_t>(p)] = s;
    }
  }
  return symbol;
}

std::vector<bool> participates(const CodingScheme& scheme, Direction dir) {
  std::vector<bool> in(static_cast<std::size_t>(scheme.node_count()), false);
  for (int p : scheme.participants(dir)) in[static_cast<std::size_t>(p)] = true;
  return in;
}

// Symbols grouped into codewords: replication and uncoded decode the copies of each block row
// (column) as one repetition codeword, numbered copy * blocks + block; other schemes decode all
// symbols as one codeword.
std::vector<std::vector<int>> codeword_symbols(const SchemeSpec& spec, int symbols) {
  const int copies = repetition_copies(spec);
  std::vector<std::vector<int>> codewords;
  if (copies == 0) {
    codewords.emplace_back();
    for (int s = 0; s < symbols; ++s) codewords.back().push_back(s);
    return codewords;
  }
  CODESIM_CHECK(symbols % copies == 0, "replicated symbols come in copies");
  const int blocks = symbols / copies;
  for (int b = 0; b < blocks; ++b) {
    codewords.emplace_back();
    for (int c = 0; c < copies; ++c) codewords.back().push_back(c * blocks + b);
  }
  return codewords;
}

}  // namespace

std::string validate_training_theory(const SchemeSpec& spec, const std::vector<int>& layer_sizes) {
  if (layer_sizes.size() < 2) return "an MLP needs at least two layer sizes";
  for (std::size_t i = 0; i < layer_sizes.size(); ++i) {
    if (layer_sizes[i] < 1) {
      return "layer size " + std::to_string(i) + " is " + std::to_string(layer_sizes[i]) +
             " (sizes must be >= 1)";
    }
  }
  if (SchemeProblem problem = validate_scheme(spec); !problem.empty()) return problem.message;
  for (std::size_t l = 0; l + 1 < layer_sizes.size(); ++l) {
    const std::string problem = validate_scheme(spec, layer_sizes[l + 1], layer_sizes[l]).message;
    if (!problem.empty()) {
      return "layer " + std::to_string(l) + " (W is " + std::to_string(layer_sizes[l + 1]) + " x " +
             std::to_string(layer_sizes[l]) + "): " + problem;
    }
  }
  const int nodes = summarize_scheme(spec).nodes;
  if (nodes > kMaxTheoryNodes) {
    return "the scheme has " + std::to_string(nodes) + " nodes, more than the theory's " +
           std::to_string(kMaxTheoryNodes);
  }
  return {};
}

namespace {

// What the theory reads of a scheme, per direction d (kForward, kBackward).
struct SchemeStructure {
  std::unique_ptr<CodingScheme> scheme;  // on the smallest W with the scheme's block structure
  int nodes = 0;
  std::vector<int> symbol[2];        // per node: its symbol, or -1
  std::vector<bool> participant[2];  // per node: computes a partial result
  std::vector<int> block_count;      // per node: stored blocks
  std::vector<std::vector<int>> codewords[2];
  int correctable[2] = {0, 0};
  bool detects[2] = {true, true};
  int erasures_tolerated[2] = {0, 0};
};

SchemeStructure read_structure(const SchemeSpec& spec, const SchemeSummary& summary,
                               ErrorModel error_model) {
  SchemeStructure s;
  const auto [rows, cols] = block_grid(spec);
  s.scheme = make_scheme(spec, rows, cols);
  s.nodes = s.scheme->node_count();
  for (int d : {kForward, kBackward}) {
    s.symbol[d] = symbol_of(*s.scheme, kDirections[d]);
    s.participant[d] = participates(*s.scheme, kDirections[d]);
  }
  s.block_count.resize(static_cast<std::size_t>(s.nodes));
  for (int p = 0; p < s.nodes; ++p) {
    s.block_count[static_cast<std::size_t>(p)] =
        static_cast<int>(s.scheme->stored_blocks(p).size());
    CODESIM_CHECK(s.block_count[static_cast<std::size_t>(p)] >= 1, "every node stores a block");
  }
  for (int d : {kForward, kBackward}) {
    s.codewords[d] = codeword_symbols(spec, s.scheme->symbol_count(kDirections[d]));
    const DirectionCapability& capability = d == kForward ? summary.forward : summary.backward;
    s.correctable[d] = error_model == ErrorModel::adversarial ? capability.correctable_adversarial
                                                              : capability.correctable_random;
    s.detects[d] = capability.detectable > 0;
    s.erasures_tolerated[d] = capability.erasures_tolerated;
  }
  return s;
}

// exposure[d][l][p]: what node p's block sees at layer l's decode in direction d.
using Exposures = std::vector<std::vector<ReadExposure>>;

// Where a layer sits in the MLP, and which reads of node p's partials exist there.
struct NodeLayer {
  int layer = 0;
  NetworkRounds rounds;
  bool reads_forward = false;  ///< p's forward partial feeds a symbol (every layer alike)
  bool reads_backward = false;
  /// The scheme corrects no erroneous symbol: a strike rolls back (or corrupts silently) at its
  /// first read, so it is counted there only, not again at later reads or after the update.
  bool first_reach_only = false;
  const std::vector<ReachedStrike>* strikes = nullptr;  ///< a node's, in one iteration

  bool backward_round(int l) const { return rounds.backward_round(l); }
};

std::size_t at(FaultTarget target) { return static_cast<std::size_t>(target); }

// Whether node n reads its partial of `read` (it feeds a symbol and the round runs).
bool reads(const NodeLayer& n, const ProductRead& read) {
  return read.direction == Direction::forward ? n.reads_forward
                                              : n.reads_backward && n.backward_round(read.layer);
}

// Whether a strike counts at its read number `position` (its products in order, then
// products.size() for the reads after the update): with first_reach_only at its first read by
// the node only.
bool counted_at(const NodeLayer& n, const StrikeReach& reach, std::size_t position) {
  if (!n.first_reach_only) return true;
  for (std::size_t i = 0; i < position && i < reach.products.size(); ++i) {
    if (reads(n, reach.products[i])) return false;
  }
  return true;
}

// Strikes of the other targets that make node p's update of this layer wrong (strike_reach.hpp:
// its copies of x_l and delta_l, and the decodes they come from), and the update strike of its
// first block.
TargetCounts update_borne(const NodeLayer& n, bool front_block) {
  TargetCounts counts{};
  for (const ReachedStrike& s : *n.strikes) {
    const auto& updates = s.reach.updates;
    if (std::none_of(updates.begin(), updates.end(),
                     [&](const ProductRead& u) { return u.layer == n.layer; }))
      continue;
    if (counted_at(n, s.reach, s.reach.products.size())) ++counts[at(s.target())];
  }
  counts[at(FaultTarget::update)] = front_block ? 1 : 0;
  return counts;
}

// Strikes of the other targets that make node p's partial at this layer's read in direction d
// wrong without touching its block (transient), and the product strike.
TargetCounts read_borne(const NodeLayer& n, int d) {
  TargetCounts counts{};
  counts[at(FaultTarget::product)] = 1;
  const ProductRead read{n.layer, kDirections[d]};
  for (const ReachedStrike& s : *n.strikes) {
    const auto& products = s.reach.products;
    const auto found = std::find(products.begin(), products.end(), read);
    if (found == products.end()) continue;
    if (counted_at(n, s.reach, static_cast<std::size_t>(found - products.begin())))
      ++counts[at(s.target())];
  }
  return counts;
}

// The events of one stored block b of node p in one iteration, counted into `opportunities`.
std::vector<Event> block_events(const SchemeStructure& s, std::size_t index, int b,
                                const NodeLayer& place, LayerOpportunities& opportunities) {
  const int blocks = s.block_count[index];
  // Forward products read the first stored block, backward products the last.
  const bool front = b == 0;
  const bool back = b == blocks - 1;
  std::vector<Event> events;
  if (front && s.participant[kForward][index]) {
    events.push_back({});
    ++opportunities.forward;
  }
  if (front && s.symbol[kForward][index] >= 0) events.push_back({EventKind::forward_read});
  if (place.backward_round(place.layer) && back && s.participant[kBackward][index]) {
    events.push_back({});
    ++opportunities.backward;
  }
  if (place.backward_round(place.layer) && back && s.symbol[kBackward][index] >= 0) {
    events.push_back({EventKind::backward_read});
  }
  events.push_back({});  // after the update
  ++opportunities.update;
  const TargetCounts wrong_update = update_borne(place, front);
  for (std::size_t k = 0; k < wrong_update.size(); ++k) {
    for (int i = 0; i < wrong_update[k]; ++i) {
      events.push_back({EventKind::strike, static_cast<FaultTarget>(k)});
    }
  }
  return events;
}

// Adds `counts` to the other-target strikes of both iteration kinds of a read.
void add_read_borne(ReadExposure& read, const TargetCounts& counts) {
  for (std::size_t k = 0; k < counts.size(); ++k) {
    read.steady.other[k] += counts[k];
    read.first.other[k] += counts[k];
  }
}

// Layer l's opportunities; fills exposure[.][l] and counts latent blocks.
LayerOpportunities layer_exposure(const SchemeStructure& s, const NodeLayer& layer,
                                  Exposures (&exposure)[2], int& latent_blocks) {
  const auto l = static_cast<std::size_t>(layer.layer);
  LayerOpportunities opportunities;
  for (int p = 0; p < s.nodes; ++p) {
    const auto index = static_cast<std::size_t>(p);
    const int blocks = s.block_count[index];
    NodeLayer place = layer;
    place.reads_forward = s.participant[kForward][index] && s.symbol[kForward][index] >= 0;
    place.reads_backward = s.participant[kBackward][index] && s.symbol[kBackward][index] >= 0;
    for (int b = 0; b < blocks; ++b) {
      const std::vector<Event> events = block_events(s, index, b, place, opportunities);
      // The verification pass reads the block at most twice: forward, then backward; the
      // second read finds it clean (repaired or rolled back by the first).
      std::vector<int> verification_reads;
      if (b == 0 && s.symbol[kForward][index] >= 0) verification_reads.push_back(kForward);
      if (b == blocks - 1 && s.symbol[kBackward][index] >= 0) {
        verification_reads.push_back(kBackward);
      }
      CODESIM_CHECK(!verification_reads.empty(), "the verification pass reads every block");
      const BlockTimeline block = timeline(events);
      if (block.latent) ++latent_blocks;
      for (const auto& [event, read] : block.reads) {
        const int d = event == EventKind::forward_read ? kForward : kBackward;
        ReadExposure& slot = exposure[d][l][index];
        slot.steady = read.steady;
        slot.first = read.first;
        if (s.participant[d][index]) add_read_borne(slot, read_borne(place, d));
      }
      exposure[verification_reads.front()][l][index].verification = block.at_verification;
    }
  }
  return opportunities;
}

// What shared_strikes.hpp needs of the scheme: each node's symbols and codewords, and which
// directions correct exactly one bad symbol (none when a scheme corrects nothing: each strike
// already counts once; nodes that check their own blocks are left out by the caller).
SharedStrikeShape shared_strike_shape(const SchemeStructure& s, int layers,
                                      const TrainingTheoryOptions& options) {
  SharedStrikeShape shape;
  shape.layers = layers;
  shape.first_layer_backward = options.first_layer_backward;
  const bool first_reach_only = s.correctable[kForward] == 0 && s.correctable[kBackward] == 0;
  for (int d : {kForward, kBackward}) {
    shape.corrects_one[d] = !first_reach_only && s.correctable[d] == 1 && s.detects[d];
  }
  for (int p = 0; p < s.nodes; ++p) {
    const auto index = static_cast<std::size_t>(p);
    NodeRole role;
    role.blocks = s.block_count[index];
    for (int d : {kForward, kBackward}) {
      const int symbol = s.participant[d][index] ? s.symbol[d][index] : -1;
      int codeword = -1;
      for (std::size_t c = 0; c < s.codewords[d].size() && symbol >= 0; ++c) {
        const auto& members = s.codewords[d][c];
        if (std::find(members.begin(), members.end(), symbol) != members.end()) {
          codeword = static_cast<int>(c);
        }
      }
      (d == kForward ? role.forward_symbol : role.backward_symbol) = symbol;
      (d == kForward ? role.forward_codeword : role.backward_codeword) = codeword;
    }
    shape.nodes.push_back(role);
  }
  return shape;
}

// Opportunities per iteration of each target: products as the weight strikes before them; per
// node its vector strikes (strike_reach.hpp: 2L - 1 activations and decodes) and L updates.
TargetCounts count_target_opportunities(const std::vector<LayerOpportunities>& layers, int nodes,
                                        const std::vector<ReachedStrike>& strikes) {
  TargetCounts counts{};
  for (const LayerOpportunities& layer : layers) {
    counts[at(FaultTarget::weights)] += layer.total();
    counts[at(FaultTarget::product)] += layer.forward + layer.backward;
  }
  for (const ReachedStrike& s : strikes) counts[at(s.target())] += nodes;
  counts[at(FaultTarget::update)] = nodes * static_cast<int>(layers.size());
  return counts;
}

// The nodes' own checks of one layer (abft): Q_j of weight and of update strikes, and the chance
// a struck partial of a clean block is corrected, forward and backward.
struct LayerChecks {
  const AbftCorrection* block = nullptr;
  const AbftCorrection* update = nullptr;
  std::array<double, 2> partial_corrected{1.0, 1.0};
};

// Q_0..Q_J of `table`; the verification pass checks its products before repairing (V_j).
std::vector<double> corrected_given_strikes(const AbftCorrection& table, bool verification) {
  std::vector<double> q;
  for (int j = 0; j <= table.max_strikes(); ++j)
    q.push_back(verification ? table.at_verification(j) : table.given_strikes(j));
  return q;
}

// Sums member exposures into symbols, grouped into codewords; with local correction (`local`
// not null) keeps each member block's exposure and the nodes' odds.
DecodeExposure make_decode(const SchemeStructure& s, const Exposures (&exposure)[2], int l, int d,
                           SymbolExposure ReadExposure::*kind, const LayerChecks* local) {
  DecodeExposure decode;
  decode.layer = l;
  decode.direction = kDirections[d];
  decode.correctable = s.correctable[d];
  decode.detects = s.detects[d];
  if (local != nullptr) {
    const bool verification = kind == &ReadExposure::verification;
    decode.local.block_corrected = corrected_given_strikes(*local->block, verification);
    decode.local.update_corrected = corrected_given_strikes(*local->update, verification);
    decode.local.partial_corrected = local->partial_corrected[static_cast<std::size_t>(d)];
    decode.erasures_tolerated = s.erasures_tolerated[d];
  }
  for (const auto& codeword : s.codewords[d]) {
    decode.codewords.emplace_back();
    for (int symbol : codeword) {
      SymbolExposure sum;
      for (int p : s.scheme->symbol_members(kDirections[d], symbol)) {
        const SymbolExposure& member =
            exposure[d][static_cast<std::size_t>(l)][static_cast<std::size_t>(p)].*kind;
        sum += member;
        if (local != nullptr) {
          sum.blocks.push_back({member.strikes, member.strikes_per_iteration, member.other,
                                member.other_per_iteration});
        }
      }
      decode.codewords.back().push_back(sum);
    }
  }
  return decode;
}

// The most strikes on its block (weights and updates) one read of layer l's blocks can see in
// one iteration (at least 1).
int max_read_strikes(const Exposures (&exposure)[2], int l) {
  int most = 1;
  const auto update = static_cast<std::size_t>(FaultTarget::update);
  for (int d : {kForward, kBackward}) {
    for (const ReadExposure& read : exposure[d][static_cast<std::size_t>(l)]) {
      for (const SymbolExposure* e : {&read.steady, &read.first, &read.verification}) {
        most = std::max(most, e->strikes + e->strikes_per_iteration + e->other[update] +
                                  e->other_per_iteration[update]);
      }
    }
  }
  return most;
}

// The strikes of an iteration that reach the nodes' own copies: centralized, node 0's decode
// strikes reach every node alike and are silent instead (counted apart).
std::vector<ReachedStrike> node_strikes(const NetworkRounds& rounds, bool decentralized) {
  std::vector<ReachedStrike> strikes = iteration_strikes(rounds);
  if (!decentralized)
    std::erase_if(strikes,
                  [](const ReachedStrike& s) { return s.target() == FaultTarget::decode; });
  return strikes;
}

}  // namespace

TrainingTheory::TrainingTheory(const SchemeSpec& spec, const std::vector<int>& layer_sizes,
                               const TrainingTheoryOptions& options)
    : options_(options) {
  CODESIM_CHECK(validate_training_theory(spec, layer_sizes).empty(),
                "the training theory needs a valid scheme and MLP");
  CODESIM_CHECK(validate_value_model(options.weight_fault_model).empty(),
                "the training theory needs a valid weight fault model");
  summary_ = summarize_scheme(spec);
  const SchemeStructure s = read_structure(spec, summary_, options.error_model);
  const int layer_count = static_cast<int>(layer_sizes.size()) - 1;
  Exposures exposure[2];
  for (int d : {kForward, kBackward}) {
    exposure[d].assign(static_cast<std::size_t>(layer_count),
                       std::vector<ReadExposure>(static_cast<std::size_t>(s.nodes)));
  }
  const NetworkRounds rounds{layer_count, options.first_layer_backward};
  const std::vector<ReachedStrike> strikes = node_strikes(rounds, options.decentralized);
  central_decode_strikes_ = static_cast<int>(iteration_strikes(rounds).size() - strikes.size());
  for (int l = 0; l < layer_count; ++l) {
    NodeLayer layer;
    layer.strikes = &strikes;
    layer.layer = l;
    layer.rounds = rounds;
    layer.first_reach_only = s.correctable[kForward] == 0 && s.correctable[kBackward] == 0;
    opportunities_.push_back(layer_exposure(s, layer, exposure, latent_blocks_));
  }
  target_opportunities_ = count_target_opportunities(opportunities_, s.nodes, strikes);
  target_opportunities_[at(FaultTarget::decode)] += central_decode_strikes_;
  std::vector<LayerChecks> checks;
  for (int l = 0; l < layer_count; ++l) {
    const auto shape = locally_checked_block(spec, layer_sizes[static_cast<std::size_t>(l) + 1],
                                             layer_sizes[static_cast<std::size_t>(l)]);
    if (!shape) break;
    const int most = max_read_strikes(exposure, l);
    local_.push_back(shared_abft_correction(
        *shape, abft_strike_model(options.weight_fault_model, *shape), most));
    local_update_.push_back(shared_abft_correction(
        *shape, abft_strike_model(options.update_fault_model, *shape), most));
    // Forward partials hold the block's rows, backward ones its columns.
    partial_corrected_.push_back(
        {abft_partial_correction(options.product_fault_model, shape->rows, options.product_columns),
         abft_partial_correction(options.product_fault_model, shape->cols,
                                 options.product_columns)});
  }
  for (std::size_t l = 0; l < local_.size(); ++l)
    checks.push_back({&local_[l], &local_update_[l], partial_corrected_[l]});
  if (options.count_shared_strikes && local_.empty())
    shared_ = count_shared_strikes(shared_strike_shape(s, layer_count, options));
  const auto local = [&checks](int l) {
    return checks.empty() ? nullptr : &checks[static_cast<std::size_t>(l)];
  };
  const int lowest_backward = options.first_layer_backward ? 0 : 1;
  for (int l = 0; l < layer_count; ++l) {
    steady_.push_back(make_decode(s, exposure, l, kForward, &ReadExposure::steady, local(l)));
    first_.push_back(make_decode(s, exposure, l, kForward, &ReadExposure::first, local(l)));
  }
  for (int l = layer_count - 1; l >= lowest_backward; --l) {
    steady_.push_back(make_decode(s, exposure, l, kBackward, &ReadExposure::steady, local(l)));
    first_.push_back(make_decode(s, exposure, l, kBackward, &ReadExposure::first, local(l)));
  }
  for (int l = 0; l < layer_count; ++l) {
    for (int d : {kForward, kBackward}) {
      verification_.push_back(
          make_decode(s, exposure, l, d, &ReadExposure::verification, local(l)));
    }
  }
}

int TrainingTheory::opportunities_per_iteration() const {
  int total = 0;
  for (const LayerOpportunities& layer : opportunities_) total += layer.total();
  return total;
}

}  // namespace codesim::models
