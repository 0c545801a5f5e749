// Expected time of the K-th fastest of P nodes under the project's straggler laws: a coded
// product waits for its recovery threshold K, not for every node, so this is what a lower K buys
// (T1). Exact order statistics, and a Monte Carlo on the simulator's own draws that checks them.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/straggler_model.hpp"

namespace codesim::analysis {

/// The mean and variance of X_(K:P), the K-th smallest of P independent factors of `law` (a
/// node's time in units of its nominal flops / speed). Exact: shifted exponential
/// shift + (H_P - H_(P-K)) / rate, variance sum_{i > P-K} 1 / (rate i)^2; Pareto moments
/// scale^j Gamma(P+1) Gamma(P-K+1-j/shape) / (Gamma(P-K+1) Gamma(P+1-j/shape)), +Inf unless
/// P - K + 1 > j / shape; bimodal 1 + (slowdown - 1) q with q = P[Binomial(P, 1 - p_slow) < K],
/// variance (slowdown - 1)^2 q (1 - q); log-normal by Simpson's rule on the order statistic's
/// density in z = (ln x - mu) / sigma over [-12, 12] (relative error below 1e-9 for
/// sigma <= 2); none 1 and 0. Preconditions: validate_straggler(law) is empty,
/// 1 <= K <= P <= 10,000.
struct OrderStatistic {
  double mean = 0.0;
  double variance = 0.0;  ///< +Inf where the second moment is
};
OrderStatistic exact_order_statistic(const sim::StragglerSpec& law, int k, int p);
/// exact_order_statistic(law, k, p).mean.
double expected_order_statistic(const sim::StragglerSpec& law, int k, int p);

/// Monte Carlo estimate of E[X_(K:P)] for K = 1..P.
struct OrderStatisticEstimate {
  int k = 1;
  double mean = 0.0;
  double standard_error = 0.0;  ///< sample standard deviation / sqrt(trials)
};

/// `trials` draws of P factors, each node's from its own stream keyed (seed, 0, "straggler",
/// node) through sim::make_straggler_model, as the simulator draws them; sorted per trial.
/// Preconditions: validate_straggler(law) is empty, 1 <= P <= 10,000, trials >= 2.
std::vector<OrderStatisticEstimate> monte_carlo_order_statistics(const sim::StragglerSpec& law,
                                                                 int p, int trials,
                                                                 std::uint64_t seed);

}  // namespace codesim::analysis
