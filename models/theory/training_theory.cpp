// Derives per-decode strike exposures from a scheme's participants, symbols and stored blocks,
// following train_coded's per-iteration order, and turns them into probabilities.
#include "models/theory/training_theory.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <utility>
#include <variant>

#include "sim/check.hpp"

namespace codesim::models {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
// Bound on the nodes of the small scheme the structure is read from.
constexpr int kMaxTheoryNodes = 100'000;

constexpr int kForward = 0;
constexpr int kBackward = 1;
constexpr Direction kDirections[2] = {Direction::forward, Direction::backward};

// log P(no strike of `strikes`), exact for 0 strikes even at eps = 1.
double log_clean(double strikes, double eps) {
  if (strikes == 0.0 || eps == 0.0) return 0.0;
  if (eps == 1.0) return -kInf;
  return strikes * std::log1p(-eps);
}

// 1 - e^x for x <= 0, without cancellation and without printing -0 at x = 0.
double one_minus_exp(double x) { return x == 0.0 ? 0.0 : -std::expm1(x); }

// log(1 - p), -inf at p = 1.
double log_complement(double p) { return p >= 1.0 ? -kInf : std::log1p(-p); }

// What one read of a block sees, per iteration kind.
struct ReadExposure {
  SymbolExposure steady;
  SymbolExposure first;
  SymbolExposure verification;
};

SymbolExposure& operator+=(SymbolExposure& a, const SymbolExposure& b) {
  a.strikes += b.strikes;
  a.strikes_per_iteration += b.strikes_per_iteration;
  return a;
}

// One event in a block's life during an iteration of one layer.
enum class Event { strike, forward_read, backward_read };

// What one block's reads see, from its events in one iteration (in protocol order).
struct BlockTimeline {
  std::vector<std::pair<Event, ReadExposure>> reads;  ///< steady and first filled
  SymbolExposure at_verification;                     ///< at its first verification read
  bool latent = false;                                ///< no read during an iteration
};

BlockTimeline timeline(const std::vector<Event>& events) {
  // Strikes at positions [from, to) of the event list.
  const auto strikes_between = [&events](std::size_t from, std::size_t to) {
    return static_cast<int>(std::count(events.begin() + static_cast<std::ptrdiff_t>(from),
                                       events.begin() + static_cast<std::ptrdiff_t>(to),
                                       Event::strike));
  };
  std::vector<std::size_t> positions;
  for (std::size_t i = 0; i < events.size(); ++i) {
    if (events[i] != Event::strike) positions.push_back(i);
  }
  BlockTimeline out;
  if (positions.empty()) {
    // Read only by the verification pass: every strike of every iteration accumulates.
    out.latent = true;
    out.at_verification.strikes_per_iteration = strikes_between(0, events.size());
    return out;
  }
  // Strikes after the last read: the previous iteration's for a steady iteration's first read,
  // the interval's last iteration's for the verification pass.
  const int tail = strikes_between(positions.back() + 1, events.size());
  for (std::size_t r = 0; r < positions.size(); ++r) {
    const std::size_t at = positions[r];
    ReadExposure read;
    read.first.strikes =
        r == 0 ? strikes_between(0, at) : strikes_between(positions[r - 1] + 1, at);
    read.steady.strikes = read.first.strikes + (r == 0 ? tail : 0);
    out.reads.emplace_back(events[at], read);
  }
  out.at_verification.strikes = tail;
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

// One symbol at one decode: log P(no strike reached it), P(erroneous or withheld), and the
// expected member blocks corrected at their nodes.
struct SymbolOdds {
  double log_clean = 0.0;
  double bad = 0.0;
  double local_corrections = 0.0;
};

SymbolOdds unchecked(const SymbolExposure& symbol, double eps, int iterations) {
  const double strikes =
      symbol.strikes + static_cast<double>(iterations) * symbol.strikes_per_iteration;
  SymbolOdds odds;
  odds.log_clean = log_clean(strikes, eps);
  odds.bad = one_minus_exp(odds.log_clean);
  return odds;
}

// Binomial(n, eps) probability of j strikes, exact at eps = 0 and eps = 1.
double strike_pmf(int n, int j, double eps) {
  if (eps == 0.0) return j == 0 ? 1.0 : 0.0;
  if (eps == 1.0) return j == n ? 1.0 : 0.0;
  return std::exp(std::lgamma(n + 1.0) - std::lgamma(j + 1.0) - std::lgamma(n - j + 1.0) +
                  j * std::log(eps) + (n - j) * std::log1p(-eps));
}

// Each member block is withheld unless what struck it since its last read is corrected; the
// symbol is withheld when any member is. Sums the binomial terms directly (no 1 - x).
SymbolOdds locally_checked(const DecodeExposure& decode, const SymbolExposure& symbol, double eps,
                           int iterations) {
  const std::vector<double>& corrected = decode.corrected_given_strikes;
  SymbolOdds odds;
  double log_kept = 0.0;
  for (const BlockExposure& block : symbol.blocks) {
    const int n = block.strikes + iterations * block.strikes_per_iteration;
    odds.log_clean += log_clean(n, eps);
    // Q_j is tabulated up to J = corrected.size() - 1 and constant beyond. When n (which grows
    // with the checkpoint interval for latent blocks) is far beyond J, the strikes from J on are
    // one term, P(at least J strikes) = 1 - P(fewer): O(J) instead of O(n).
    const int tabulated = static_cast<int>(corrected.size()) - 1;
    const int last = tabulated >= 1 && n - tabulated > 256 ? tabulated : n + 1;
    double withheld = 0.0;
    double below_last = std::exp(log_clean(n, eps));  // P(fewer than j strikes), from j = 1
    for (int j = 1; j <= std::min(n, last - 1); ++j) {
      const double p = strike_pmf(n, j, eps);
      const double q = corrected[std::min(static_cast<std::size_t>(j), corrected.size() - 1)];
      withheld += p * (1.0 - q);
      odds.local_corrections += p * q;
      below_last += p;
    }
    if (last <= n) {
      const double at_least_last = std::max(0.0, 1.0 - below_last);
      withheld += at_least_last * (1.0 - corrected.back());
      odds.local_corrections += at_least_last * corrected.back();
    }
    log_kept += log_complement(std::min(1.0, withheld));
  }
  odds.bad = one_minus_exp(log_kept);
  return odds;
}

}  // namespace

int DecodeExposure::symbol_count() const {
  int count = 0;
  for (const auto& codeword : codewords) count += static_cast<int>(codeword.size());
  return count;
}

DecodeProbabilities decode_probabilities(const DecodeExposure& decode, double eps, int iterations) {
  CODESIM_CHECK(eps >= 0.0 && eps <= 1.0 && iterations >= 1, "eps in [0, 1], iterations >= 1");
  const bool local = decode.corrects_locally();
  const int t = std::max(0, local ? decode.erasures_tolerated : decode.correctable);
  double local_corrections = 0.0;
  double log_ok = 0.0;              // sum over codewords of log P(at most t erroneous)
  double log_clean_given_ok = 0.0;  // sum of log P(none erroneous | at most t)
  double log_all_clean = 0.0;       // sum of log P(none erroneous)
  for (const auto& codeword : decode.codewords) {
    const int symbols = static_cast<int>(codeword.size());
    // mass[k] = P(k erroneous so far), k <= min(t, symbols); tail = P(more than t).
    std::vector<double> mass(static_cast<std::size_t>(std::min(t, symbols)) + 1, 0.0);
    mass[0] = 1.0;
    double tail = 0.0;
    double log_clean_codeword = 0.0;
    for (const SymbolExposure& symbol : codeword) {
      const SymbolOdds odds = local ? locally_checked(decode, symbol, eps, iterations)
                                    : unchecked(symbol, eps, iterations);
      log_clean_codeword += odds.log_clean;
      local_corrections += odds.local_corrections;
      const double q = odds.bad;  // P(the symbol is erroneous, or withheld)
      if (q == 0.0) continue;
      if (static_cast<int>(mass.size()) == t + 1) tail += mass.back() * q;
      for (std::size_t k = mass.size() - 1; k >= 1; --k) {
        mass[k] = mass[k] * (1.0 - q) + mass[k - 1] * q;
      }
      mass[0] *= 1.0 - q;
    }
    log_all_clean += log_clean_codeword;
    const double log_ok_codeword = log_complement(tail);
    log_ok += log_ok_codeword;
    if (std::isfinite(log_ok_codeword)) log_clean_given_ok += log_clean_codeword - log_ok_codeword;
  }
  DecodeProbabilities out;
  out.local_corrections = local_corrections;
  if (!decode.detects && !local) {
    out.silent = one_minus_exp(log_all_clean);
    return out;
  }
  out.failure = one_minus_exp(log_ok);
  // P(all ok) - P(all clean) = P(all ok) (1 - prod P(clean | ok)), without cancellation.
  out.corrected =
      std::isfinite(log_ok) ? std::exp(log_ok) * one_minus_exp(log_clean_given_ok) : 0.0;
  // Local correction can make P(ok) round to P(clean) from below (q near 0): not below 0.
  if (local) out.corrected = std::max(0.0, out.corrected);
  return out;
}

SequenceProbabilities sequence_probabilities(std::span<const DecodeExposure> decodes, double eps,
                                             int iterations) {
  SequenceProbabilities out;
  double log_survive = 0.0;
  double log_no_silent = 0.0;
  for (const DecodeExposure& decode : decodes) {
    const DecodeProbabilities p = decode_probabilities(decode, eps, iterations);
    out.expected_corrected += std::exp(log_survive) * p.corrected;
    out.expected_local_corrections += std::exp(log_survive) * p.local_corrections;
    log_survive += log_complement(p.failure);
    log_no_silent += log_complement(p.silent);
  }
  out.failure = one_minus_exp(log_survive);
  out.silent = one_minus_exp(log_no_silent);
  return out;
}

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

// The events of one stored block b of node p in one iteration, counted into `opportunities`.
std::vector<Event> block_events(const SchemeStructure& s, std::size_t index, int b,
                                bool backward_round, LayerOpportunities& opportunities) {
  const int blocks = s.block_count[index];
  // Forward products read the first stored block, backward products the last.
  const bool front = b == 0;
  const bool back = b == blocks - 1;
  std::vector<Event> events;
  if (front && s.participant[kForward][index]) {
    events.push_back(Event::strike);
    ++opportunities.forward;
  }
  if (front && s.symbol[kForward][index] >= 0) events.push_back(Event::forward_read);
  if (backward_round && back && s.participant[kBackward][index]) {
    events.push_back(Event::strike);
    ++opportunities.backward;
  }
  if (backward_round && back && s.symbol[kBackward][index] >= 0) {
    events.push_back(Event::backward_read);
  }
  events.push_back(Event::strike);  // after the update
  ++opportunities.update;
  return events;
}

// Layer l's opportunities; fills exposure[.][l] and counts latent blocks.
LayerOpportunities layer_exposure(const SchemeStructure& s, int l, bool backward_round,
                                  Exposures (&exposure)[2], int& latent_blocks) {
  LayerOpportunities opportunities;
  for (int p = 0; p < s.nodes; ++p) {
    const auto index = static_cast<std::size_t>(p);
    const int blocks = s.block_count[index];
    for (int b = 0; b < blocks; ++b) {
      const std::vector<Event> events = block_events(s, index, b, backward_round, opportunities);
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
        ReadExposure& slot = exposure[event == Event::forward_read ? kForward : kBackward]
                                     [static_cast<std::size_t>(l)][index];
        slot.steady = read.steady;
        slot.first = read.first;
      }
      exposure[verification_reads.front()][static_cast<std::size_t>(l)][index].verification =
          block.at_verification;
    }
  }
  return opportunities;
}

// Sums member exposures into symbols, grouped into codewords; with local correction (`local`
// not null) keeps each member block's exposure and the nodes' Q_j.
DecodeExposure make_decode(const SchemeStructure& s, const Exposures (&exposure)[2], int l, int d,
                           SymbolExposure ReadExposure::*kind, const AbftCorrection* local) {
  DecodeExposure decode;
  decode.layer = l;
  decode.direction = kDirections[d];
  decode.correctable = s.correctable[d];
  decode.detects = s.detects[d];
  if (local != nullptr) {
    // The verification pass checks its products before repairing (AbftCorrection::V_j).
    const bool verification = kind == &ReadExposure::verification;
    for (int j = 0; j <= local->max_strikes(); ++j) {
      decode.corrected_given_strikes.push_back(verification ? local->at_verification(j)
                                                            : local->given_strikes(j));
    }
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
          sum.blocks.push_back({member.strikes, member.strikes_per_iteration});
        }
      }
      decode.codewords.back().push_back(sum);
    }
  }
  return decode;
}

// The most strikes one read of layer l's blocks can see in one iteration (at least 1).
int max_read_strikes(const Exposures (&exposure)[2], int l) {
  int most = 1;
  for (int d : {kForward, kBackward}) {
    for (const ReadExposure& read : exposure[d][static_cast<std::size_t>(l)]) {
      for (const SymbolExposure* e : {&read.steady, &read.first, &read.verification}) {
        most = std::max(most, e->strikes + e->strikes_per_iteration);
      }
    }
  }
  return most;
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
  for (int l = 0; l < layer_count; ++l) {
    const bool backward_round = l >= 1 || options.first_layer_backward;
    opportunities_.push_back(layer_exposure(s, l, backward_round, exposure, latent_blocks_));
  }
  for (int l = 0; l < layer_count; ++l) {
    const auto shape = locally_checked_block(spec, layer_sizes[static_cast<std::size_t>(l) + 1],
                                             layer_sizes[static_cast<std::size_t>(l)]);
    if (!shape) break;
    local_.emplace_back(*shape, abft_strike_model(options.weight_fault_model, *shape),
                        max_read_strikes(exposure, l));
  }
  const auto local = [this](int l) {
    return local_.empty() ? nullptr : &local_[static_cast<std::size_t>(l)];
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

double TrainingTheory::rollback_probability(double eps) const {
  return sequence_probabilities(steady_, eps).failure;
}

double TrainingTheory::first_rollback_probability(double eps) const {
  return sequence_probabilities(first_, eps).failure;
}

double TrainingTheory::verification_failure_probability(double eps, int tau) const {
  return sequence_probabilities(verification_, eps, tau).failure;
}

double TrainingTheory::expected_corrected_decodes(double eps) const {
  return sequence_probabilities(steady_, eps).expected_corrected;
}

double TrainingTheory::silent_corruption_probability(double eps) const {
  return sequence_probabilities(steady_, eps).silent;
}

double TrainingTheory::expected_local_corrections(double eps) const {
  return sequence_probabilities(steady_, eps).expected_local_corrections;
}

}  // namespace codesim::models
