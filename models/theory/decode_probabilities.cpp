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
// expected member blocks corrected at their nodes.
struct SymbolOdds {
  double log_clean = 0.0;
  double bad = 0.0;
  double local_corrections = 0.0;
};

SymbolOdds unchecked(const SymbolExposure& symbol, const TargetProbabilities& eps, int iterations) {
  const auto strikes = [iterations](int once, int per_iteration) {
    return once + static_cast<double>(iterations) * per_iteration;
  };
  SymbolOdds odds;
  odds.log_clean = log_clean(strikes(symbol.strikes, symbol.strikes_per_iteration),
                             eps[static_cast<std::size_t>(FaultTarget::weights)]);
  for (std::size_t k = 0; k < eps.size(); ++k) {
    if (k == static_cast<std::size_t>(FaultTarget::weights)) continue;
    odds.log_clean += log_clean(strikes(symbol.other[k], symbol.other_per_iteration[k]), eps[k]);
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

TargetProbabilities weights_only(double eps) {
  TargetProbabilities out{};
  out[static_cast<std::size_t>(FaultTarget::weights)] = eps;
  return out;
}

DecodeProbabilities decode_probabilities(const DecodeExposure& decode, double eps, int iterations) {
  return decode_probabilities(decode, weights_only(eps), iterations);
}

DecodeProbabilities decode_probabilities(const DecodeExposure& decode,
                                         const TargetProbabilities& eps, int iterations) {
  CODESIM_CHECK(iterations >= 1, "iterations >= 1");
  for (double e : eps) CODESIM_CHECK(e >= 0.0 && e <= 1.0, "eps in [0, 1]");
  const bool local = decode.corrects_locally();
  const double weight_eps = eps[static_cast<std::size_t>(FaultTarget::weights)];
  CODESIM_CHECK(!local || weights_only(weight_eps) == eps,
                "local correction is counted for weight strikes only");
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
      const SymbolOdds odds = local ? locally_checked(decode, symbol, weight_eps, iterations)
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

}  // namespace codesim::models
