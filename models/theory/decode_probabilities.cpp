// The probabilities of decodes from their strike exposures (training_theory.hpp): each symbol's
// chance of being erroneous, the Poisson-binomial tail of each codeword, and their sequence.
#include <algorithm>
#include <cmath>
#include <limits>

#include "models/theory/training_theory.hpp"
#include "sim/check.hpp"

namespace codesim::models {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

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

// One symbol at one decode: log P(no strike reached it), P(erroneous or withheld), and the
// expected member blocks corrected at their nodes. With local correction, `bad` is P(withheld)
// and `wrong` P(erroneous) of a symbol that is not withheld: a strike its node's check cannot
// see (strike_reach.hpp).
struct SymbolOdds {
  double log_clean = 0.0;
  double bad = 0.0;
  double wrong = 0.0;
  double local_corrections = 0.0;
};

constexpr auto kWeights = static_cast<std::size_t>(FaultTarget::weights);
constexpr auto kProduct = static_cast<std::size_t>(FaultTarget::product);
constexpr auto kUpdate = static_cast<std::size_t>(FaultTarget::update);

double strikes_over(int once, int per_iteration, int iterations) {
  return once + static_cast<double>(iterations) * per_iteration;
}

SymbolOdds unchecked(const SymbolExposure& symbol, const TargetProbabilities& eps, int iterations) {
  SymbolOdds odds;
  odds.log_clean = log_clean(strikes_over(symbol.strikes, symbol.strikes_per_iteration, iterations),
                             eps[kWeights]);
  for (std::size_t k = 0; k < eps.size(); ++k) {
    if (k == kWeights) continue;
    odds.log_clean +=
        log_clean(strikes_over(symbol.other[k], symbol.other_per_iteration[k], iterations), eps[k]);
  }
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

// Q_j of `table`, constant beyond its end.
double q_at(const std::vector<double>& table, int j) {
  return table[std::min(static_cast<std::size_t>(j), table.size() - 1)];
}

// What one block's check does with the strikes on it since its last read: P(withheld) and the
// expected corrections. n weight strikes at eps and u update strikes at eps_update; a block
// struck by updates only is judged by their own table (their value model), else by the weight
// strikes' one. Sums the binomial terms directly (no 1 - x).
struct BlockOdds {
  double withheld = 0.0;
  double corrected = 0.0;
};

BlockOdds weight_strikes_checked(const std::vector<double>& corrected, int n, double eps) {
  // When n (which grows with the checkpoint interval for latent blocks) is far beyond the
  // tabulated J, the strikes from J on are one term, P(at least J) = 1 - P(fewer): O(J).
  BlockOdds odds;
  const int tabulated = static_cast<int>(corrected.size()) - 1;
  const int last = tabulated >= 1 && n - tabulated > 256 ? tabulated : n + 1;
  double below_last = std::exp(log_clean(n, eps));  // P(fewer than j strikes), from j = 1
  for (int j = 1; j <= std::min(n, last - 1); ++j) {
    const double p = strike_pmf(n, j, eps);
    odds.withheld += p * (1.0 - q_at(corrected, j));
    odds.corrected += p * q_at(corrected, j);
    below_last += p;
  }
  if (last <= n) {
    const double at_least_last = std::max(0.0, 1.0 - below_last);
    odds.withheld += at_least_last * (1.0 - corrected.back());
    odds.corrected += at_least_last * corrected.back();
  }
  return odds;
}

// Binomial(n, eps) probabilities of 0 .. K - 1 strikes, and of K or more as the last entry.
std::vector<double> capped_pmf(int n, double eps, int cap) {
  std::vector<double> pmf(static_cast<std::size_t>(cap) + 1, 0.0);
  double below = 0.0;
  for (int j = 0; j < cap && j <= n; ++j) {
    pmf[static_cast<std::size_t>(j)] = strike_pmf(n, j, eps);
    below += pmf[static_cast<std::size_t>(j)];
  }
  if (n >= cap) pmf.back() = std::max(0.0, 1.0 - below);
  return pmf;
}

BlockOdds block_checked(const LocalCheckOdds& local, const BlockExposure& block,
                        const TargetProbabilities& eps, int iterations) {
  const int n = block.strikes + iterations * block.strikes_per_iteration;
  const int u = block.other[kUpdate] + iterations * block.other_per_iteration[kUpdate];
  if (u == 0 || eps[kUpdate] == 0.0)
    return weight_strikes_checked(local.block_corrected, n, eps[kWeights]);
  // Q_j is constant from the end of its table on: strikes are counted up to that cap (the last
  // entry of each pmf holds the cap and beyond), O(cap^2) however many strikes the latent blocks
  // of a long interval meet. Update strikes alone take their own table, mixed ones the weights'.
  const int cap =
      static_cast<int>(std::max(local.block_corrected.size(), local.update_corrected.size()));
  const std::vector<double> by_update = capped_pmf(u, eps[kUpdate], cap);
  const std::vector<double> by_weights = capped_pmf(n, eps[kWeights], cap);
  BlockOdds odds;
  for (int i = 0; i <= cap; ++i) {
    for (int j = 0; j <= cap; ++j) {
      if (i == 0 && j == 0) continue;
      const double p =
          by_update[static_cast<std::size_t>(i)] * by_weights[static_cast<std::size_t>(j)];
      if (p == 0.0) continue;
      const double q =
          j == 0 ? q_at(local.update_corrected, i) : q_at(local.block_corrected, i + j);
      odds.withheld += p * (1.0 - q);
      odds.corrected += p * q;
    }
  }
  return odds;
}

// Each member is withheld unless what struck its block since its last read is corrected and,
// with a clean block, a struck partial is corrected too; the symbol is withheld when any member
// is. Strikes on the node's copies of vectors pass its check: the symbol is then erroneous.
SymbolOdds locally_checked(const DecodeExposure& decode, const SymbolExposure& symbol,
                           const TargetProbabilities& eps, int iterations) {
  const LocalCheckOdds& local = decode.local;
  SymbolOdds odds;
  double log_kept = 0.0;
  double log_right = 0.0;  // log P(no strike the checks cannot see)
  for (const BlockExposure& block : symbol.blocks) {
    const double n = strikes_over(block.strikes, block.strikes_per_iteration, iterations);
    const double u =
        strikes_over(block.other[kUpdate], block.other_per_iteration[kUpdate], iterations);
    const double block_clean = log_clean(n, eps[kWeights]) + log_clean(u, eps[kUpdate]);
    const double products =
        strikes_over(block.other[kProduct], block.other_per_iteration[kProduct], iterations);
    const double partial_struck = one_minus_exp(log_clean(products, eps[kProduct]));
    odds.log_clean += block_clean + log_clean(products, eps[kProduct]);
    BlockOdds checked = block_checked(local, block, eps, iterations);
    const double clean_struck_partial = std::exp(block_clean) * partial_struck;
    checked.withheld += clean_struck_partial * (1.0 - local.partial_corrected);
    checked.corrected += clean_struck_partial * local.partial_corrected;
    odds.local_corrections += checked.corrected;
    log_kept += log_complement(std::min(1.0, checked.withheld));
    for (std::size_t k = 0; k < eps.size(); ++k) {
      if (k == kWeights || k == kProduct || k == kUpdate) continue;
      const double unseen =
          log_clean(strikes_over(block.other[k], block.other_per_iteration[k], iterations), eps[k]);
      log_right += unseen;
      // Corrected decodes count what a decode puts right: not what passes on silently.
      if (decode.detects) odds.log_clean += unseen;
    }
  }
  odds.bad = one_minus_exp(log_kept);
  odds.wrong = one_minus_exp(log_right);
  return odds;
}

// Whether a codeword with `erasures` withheld and `errors` erroneous symbols decodes: within
// each bound, and within the distance when both occur (an erasure costs one redundant symbol,
// an error two, as for MDS codes; for grids an approximation).
bool decodes_with(int erasures, int errors, int erasures_tolerated, int correctable) {
  return erasures <= erasures_tolerated && errors <= correctable &&
         erasures + 2 * errors <= std::max(erasures_tolerated, 2 * correctable);
}

}  // namespace

int DecodeExposure::symbol_count() const {
  int count = 0;
  for (const auto& codeword : codewords) count += static_cast<int>(codeword.size());
  return count;
}

TargetProbabilities weights_only(double eps) {
  TargetProbabilities out{};
  out[static_cast<std::size_t>(FaultTarget::weights)] = eps;
  return out;
}

DecodeProbabilities decode_probabilities(const DecodeExposure& decode, double eps, int iterations) {
  return decode_probabilities(decode, weights_only(eps), iterations);
}

namespace {

// One codeword's odds: P(it fails to decode), log P(no strike reached it) and log P(no
// erroneous symbol that nothing detects).
struct CodewordOdds {
  double fail = 0.0;
  double log_clean = 0.0;
  double log_no_silent = 0.0;
  double local_corrections = 0.0;
};

// Erroneous symbols only: a Poisson-binomial tail beyond t.
CodewordOdds unchecked_codeword(const DecodeExposure& decode,
                                const std::vector<SymbolExposure>& codeword,
                                const TargetProbabilities& eps, int iterations) {
  const int t = std::max(0, decode.correctable);
  const int symbols = static_cast<int>(codeword.size());
  // mass[k] = P(k erroneous so far), k <= min(t, symbols); tail = P(more than t).
  std::vector<double> mass(static_cast<std::size_t>(std::min(t, symbols)) + 1, 0.0);
  mass[0] = 1.0;
  double tail = 0.0;
  CodewordOdds out;
  for (const SymbolExposure& symbol : codeword) {
    const SymbolOdds odds = unchecked(symbol, eps, iterations);
    out.log_clean += odds.log_clean;
    const double q = odds.bad;
    if (q == 0.0) continue;
    if (static_cast<int>(mass.size()) == t + 1) tail += mass.back() * q;
    for (std::size_t k = mass.size() - 1; k >= 1; --k)
      mass[k] = mass[k] * (1.0 - q) + mass[k - 1] * q;
    mass[0] *= 1.0 - q;
  }
  out.fail = tail;
  if (!decode.detects) out.log_no_silent = out.log_clean;
  return out;
}

// Withheld symbols (erasures) and erroneous ones the nodes' checks cannot see (errors): the
// joint distribution up to the bounds, P(decodes) summed over the cells decodes_with accepts.
// A codeword that detects nothing (abft's uncoded grid) passes its errors on silently.
CodewordOdds checked_codeword(const DecodeExposure& decode,
                              const std::vector<SymbolExposure>& codeword,
                              const TargetProbabilities& eps, int iterations) {
  const int e_max = std::max(0, decode.erasures_tolerated);
  const int s_max = decode.detects ? std::max(0, decode.correctable) : 0;
  // mass[e][s]; what falls beyond e_max or s_max cannot decode: the tail.
  std::vector<std::vector<double>> mass(static_cast<std::size_t>(e_max) + 1,
                                        std::vector<double>(static_cast<std::size_t>(s_max) + 1));
  mass[0][0] = 1.0;
  double tail = 0.0;
  CodewordOdds out;
  double log_right = 0.0;
  for (const SymbolExposure& symbol : codeword) {
    const SymbolOdds odds = locally_checked(decode, symbol, eps, iterations);
    out.log_clean += odds.log_clean;
    out.local_corrections += odds.local_corrections;
    const double erasure = odds.bad;
    const double error = decode.detects ? (1.0 - odds.bad) * odds.wrong : 0.0;
    log_right += log_complement((1.0 - odds.bad) * odds.wrong);
    if (erasure == 0.0 && error == 0.0) continue;
    for (const auto& row : mass) tail += row.back() * error;
    for (double m : mass.back()) tail += m * erasure;
    for (std::size_t e = mass.size(); e-- > 0;) {
      for (std::size_t k = mass[e].size(); k-- > 0;) {
        double m = mass[e][k] * (1.0 - erasure - error);
        if (e >= 1) m += mass[e - 1][k] * erasure;
        if (k >= 1) m += mass[e][k - 1] * error;
        mass[e][k] = m;
      }
    }
  }
  out.fail = tail;
  for (int e = 0; e <= e_max; ++e)
    for (int k = 0; k <= s_max; ++k)
      if (!decodes_with(e, k, decode.erasures_tolerated, decode.correctable))
        out.fail += mass[static_cast<std::size_t>(e)][static_cast<std::size_t>(k)];
  out.fail = std::min(1.0, out.fail);
  if (!decode.detects) out.log_no_silent = log_right;
  return out;
}

}  // namespace

DecodeProbabilities decode_probabilities(const DecodeExposure& decode,
                                         const TargetProbabilities& eps, int iterations) {
  CODESIM_CHECK(iterations >= 1, "iterations >= 1");
  for (double e : eps) CODESIM_CHECK(e >= 0.0 && e <= 1.0, "eps in [0, 1]");
  const bool local = decode.corrects_locally();
  double log_ok = 0.0;              // sum over codewords of log P(decodes)
  double log_clean_given_ok = 0.0;  // sum of log P(nothing struck | decodes)
  double log_no_silent = 0.0;
  DecodeProbabilities out;
  for (const auto& codeword : decode.codewords) {
    const CodewordOdds odds = local ? checked_codeword(decode, codeword, eps, iterations)
                                    : unchecked_codeword(decode, codeword, eps, iterations);
    out.local_corrections += odds.local_corrections;
    log_no_silent += odds.log_no_silent;
    const double log_ok_codeword = log_complement(odds.fail);
    log_ok += log_ok_codeword;
    if (std::isfinite(log_ok_codeword)) log_clean_given_ok += odds.log_clean - log_ok_codeword;
  }
  if (!decode.detects) {
    out.silent = one_minus_exp(log_no_silent);
    if (!local) return out;
  }
  out.failure = one_minus_exp(log_ok);
  // P(all ok) - P(all clean) = P(all ok) (1 - prod P(clean | ok)), without cancellation.
  out.corrected =
      std::isfinite(log_ok) ? std::exp(log_ok) * one_minus_exp(log_clean_given_ok) : 0.0;
  // P(ok) can round to P(clean) from below (t = 0, or local correction with q near 0): not
  // below 0.
  out.corrected = std::max(0.0, out.corrected);
  return out;
}

SequenceProbabilities sequence_probabilities(std::span<const DecodeExposure> decodes, double eps,
                                             int iterations) {
  return sequence_probabilities(decodes, weights_only(eps), iterations);
}

SequenceProbabilities sequence_probabilities(std::span<const DecodeExposure> decodes,
                                             const TargetProbabilities& eps, int iterations) {
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

// TrainingTheory's probabilities: its decode sequences, shared pairs and centralized strikes.

namespace {

// 1 - (1 - p) e^gain = p - (1 - p) (e^gain - 1), in [0, 1]: a failure probability with shared
// pairs counted once; exactly p at gain 0, without the cancellation of 1 - (1 - p).
double with_gain(double failure, double log_gain) {
  return std::clamp(failure - (1.0 - failure) * std::expm1(log_gain), 0.0, 1.0);
}

// Centralized, no decode strike reaches a node's own copy: the pairs shared_strikes.hpp lists
// for them do not occur.
TargetProbabilities paired(const TargetProbabilities& eps, bool decentralized) {
  TargetProbabilities out = eps;
  if (!decentralized) out[static_cast<std::size_t>(FaultTarget::decode)] = 0.0;
  return out;
}

}  // namespace

// An iteration's pairs fail its decodes and the next iteration's reads; the last iteration's
// fail the verification pass instead (shared_strikes.hpp).
double TrainingTheory::rollback_probability(const TargetProbabilities& eps) const {
  return with_gain(sequence_probabilities(steady_, eps).failure,
                   SharedStrikes::log_gain(shared_.next, paired(eps, options_.decentralized)));
}

double TrainingTheory::first_rollback_probability(const TargetProbabilities& eps) const {
  return with_gain(sequence_probabilities(first_, eps).failure,
                   SharedStrikes::log_gain(shared_.next, paired(eps, options_.decentralized)));
}

double TrainingTheory::verification_failure_probability(const TargetProbabilities& eps,
                                                        int tau) const {
  const TargetProbabilities pairs = paired(eps, options_.decentralized);
  return with_gain(sequence_probabilities(verification_, eps, tau).failure,
                   SharedStrikes::log_gain(shared_.verification, pairs) -
                       SharedStrikes::log_gain(shared_.next, pairs));
}

double TrainingTheory::expected_corrected_decodes(const TargetProbabilities& eps) const {
  return sequence_probabilities(steady_, eps).expected_corrected;
}

// The decodes' silent symbols, and centralized node 0's decode strikes.
double TrainingTheory::silent_corruption_probability(const TargetProbabilities& eps) const {
  const double decodes = sequence_probabilities(steady_, eps).silent;
  const double eps_decode = eps[static_cast<std::size_t>(FaultTarget::decode)];
  if (central_decode_strikes_ == 0 || eps_decode == 0.0) return decodes;
  const double log_none = std::log1p(-decodes) + central_decode_strikes_ * std::log1p(-eps_decode);
  return -std::expm1(log_none);
}

double TrainingTheory::expected_local_corrections(const TargetProbabilities& eps) const {
  return sequence_probabilities(steady_, eps).expected_local_corrections;
}

double TrainingTheory::expected_strikes(const TargetProbabilities& eps) const {
  double strikes = 0.0;
  for (std::size_t k = 0; k < eps.size(); ++k) strikes += target_opportunities_[k] * eps[k];
  return strikes;
}

}  // namespace codesim::models
