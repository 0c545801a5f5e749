// Order statistics of straggler factors: closed forms per law and a Monte Carlo beside them.
#include "analysis/straggler_order_statistics.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <numbers>
#include <type_traits>
#include <variant>

#include "sim/check.hpp"
#include "sim/random_stream.hpp"

namespace codesim::analysis {
namespace {

void check_order(const sim::StragglerSpec& law, int k, int p) {
  CODESIM_CHECK(sim::validate_straggler(law).empty(), "a valid straggler law");
  CODESIM_CHECK(p >= 1 && p <= 10'000 && k >= 1 && k <= p, "1 <= K <= P <= 10,000");
}

// log of the binomial coefficient C(p, j).
double log_choose(int p, int j) {
  return std::lgamma(p + 1.0) - std::lgamma(j + 1.0) - std::lgamma(p - j + 1.0);
}

// Each law's first two moments of X_(K:P).
OrderStatistic shifted_exponential(const sim::ShiftedExponentialStraggler& law, int k, int p) {
  // The gaps between consecutive order statistics of P exponentials are independent
  // Exp(rate (P - i)).
  double sum = 0.0;
  double variance = 0.0;
  for (int i = p - k + 1; i <= p; ++i) {
    sum += 1.0 / i;
    variance += 1.0 / (static_cast<double>(i) * i);
  }
  return {law.shift + sum / law.rate, variance / (law.rate * law.rate)};
}

OrderStatistic pareto(const sim::ParetoStraggler& law, int k, int p) {
  // The K-th smallest factor is scale U^(-1/shape), U the K-th largest of P uniforms:
  // Beta(P - K + 1, K), whose moment of order -j/shape is a ratio of Gamma functions.
  const double a = p - k + 1;
  const auto moment = [&](double j) {
    const double r = j / law.shape;
    if (!(a > r)) return std::numeric_limits<double>::infinity();
    return std::pow(law.scale, j) * std::exp(std::lgamma(p + 1.0) - std::lgamma(a) +
                                             std::lgamma(a - r) - std::lgamma(p + 1.0 - r));
  };
  const double mean = moment(1.0);
  const double second = moment(2.0);
  return {mean, std::isfinite(second) ? std::max(0.0, second - mean * mean) : second};
}

OrderStatistic bimodal(const sim::BimodalStraggler& law, int k, int p) {
  // The K-th smallest is slow exactly when fewer than K nodes are fast.
  const double fast = 1.0 - law.probability_slow;
  double fewer = 0.0;
  for (int j = 0; j < k; ++j) {
    if (fast == 0.0) {
      fewer += j == 0 ? 1.0 : 0.0;
    } else if (fast < 1.0) {
      fewer += std::exp(log_choose(p, j) + j * std::log(fast) + (p - j) * std::log1p(-fast));
    }
  }
  fewer = std::min(1.0, fewer);
  const double gap = law.slowdown - 1.0;
  return {1.0 + gap * fewer, gap * gap * fewer * (1.0 - fewer)};
}

OrderStatistic lognormal(const sim::LognormalStraggler& law, int k, int p) {
  if (law.sigma == 0.0) return {std::exp(law.mu), 0.0};
  // Density of the K-th smallest of P standard normals: K C(P, K) Phi^(K-1) (1 - Phi)^(P-K) phi.
  constexpr int kIntervals = 4000;  // even, for Simpson's rule
  constexpr double kLimit = 12.0;
  const double h = 2.0 * kLimit / kIntervals;
  const double log_front = std::log(static_cast<double>(k)) + log_choose(p, k);
  double first = 0.0;
  double second = 0.0;
  for (int i = 0; i <= kIntervals; ++i) {
    const double z = -kLimit + i * h;
    const double below = 0.5 * std::erfc(-z / std::sqrt(2.0));
    const double above = 0.5 * std::erfc(z / std::sqrt(2.0));
    if (below <= 0.0 || above <= 0.0) continue;
    const double log_density = log_front + (k - 1) * std::log(below) + (p - k) * std::log(above) -
                               0.5 * z * z - 0.5 * std::log(2.0 * std::numbers::pi);
    const double weight = (i == 0 || i == kIntervals) ? 1.0 : (i % 2 == 1 ? 4.0 : 2.0);
    const double x = law.mu + law.sigma * z;
    first += weight * std::exp(x + log_density);
    second += weight * std::exp(2.0 * x + log_density);
  }
  first *= h / 3.0;
  second *= h / 3.0;
  return {first, std::max(0.0, second - first * first)};
}

}  // namespace

OrderStatistic exact_order_statistic(const sim::StragglerSpec& law, int k, int p) {
  check_order(law, k, p);
  return std::visit(
      [k, p](const auto& l) -> OrderStatistic {
        using Law = std::decay_t<decltype(l)>;
        if constexpr (std::is_same_v<Law, sim::ShiftedExponentialStraggler>) {
          return shifted_exponential(l, k, p);
        } else if constexpr (std::is_same_v<Law, sim::ParetoStraggler>) {
          return pareto(l, k, p);
        } else if constexpr (std::is_same_v<Law, sim::BimodalStraggler>) {
          return bimodal(l, k, p);
        } else if constexpr (std::is_same_v<Law, sim::LognormalStraggler>) {
          return lognormal(l, k, p);
        } else {
          static_assert(std::is_same_v<Law, sim::NoStraggler>, "every law has its closed form");
          return {1.0, 0.0};
        }
      },
      law);
}

double expected_order_statistic(const sim::StragglerSpec& law, int k, int p) {
  return exact_order_statistic(law, k, p).mean;
}

std::vector<OrderStatisticEstimate> monte_carlo_order_statistics(const sim::StragglerSpec& law,
                                                                 int p, int trials,
                                                                 std::uint64_t seed) {
  check_order(law, 1, p);
  CODESIM_CHECK(trials >= 2, "at least two trials");
  const std::unique_ptr<sim::StragglerModel> model = sim::make_straggler_model(law);
  std::vector<sim::RandomStream> streams;
  streams.reserve(static_cast<std::size_t>(p));
  for (int node = 0; node < p; ++node) {
    streams.emplace_back(sim::StreamKey{seed, 0, "straggler", static_cast<std::uint64_t>(node)});
  }
  const auto size = static_cast<std::size_t>(p);
  std::vector<double> sum(size, 0.0), sum_squares(size, 0.0), factors(size);
  for (int t = 0; t < trials; ++t) {
    for (std::size_t node = 0; node < size; ++node)
      factors[node] = model->sample_factor(streams[node]);
    std::sort(factors.begin(), factors.end());
    for (std::size_t i = 0; i < size; ++i) {
      sum[i] += factors[i];
      sum_squares[i] += factors[i] * factors[i];
    }
  }
  std::vector<OrderStatisticEstimate> out;
  for (std::size_t i = 0; i < size; ++i) {
    const double mean = sum[i] / trials;
    const double variance = std::max(0.0, (sum_squares[i] - trials * mean * mean) / (trials - 1));
    out.push_back({static_cast<int>(i) + 1, mean, std::sqrt(variance / trials)});
  }
  return out;
}

}  // namespace codesim::analysis
