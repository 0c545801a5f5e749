// Soft-error process: strike probabilities combine both sources, empirical strike rates match
// them, per-node specs stay on their node, and draws are aligned and reproducible.
#include "sim/soft_error_process.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <vector>

using namespace codesim::sim;

namespace {
// Strikes out of `trials` operations of `flops` on `node`.
int count_strikes(SoftErrorProcess& process, int node, double flops, int trials) {
  int strikes = 0;
  for (int i = 0; i < trials; ++i)
    if (process.sample(node, flops, 0.0, "task")) ++strikes;
  return strikes;
}

// The count is within 4 standard deviations of the binomial mean.
void check_rate(int strikes, int trials, double p) {
  const double mean = trials * p;
  const double sd = std::sqrt(trials * p * (1.0 - p));
  INFO("strikes " << strikes << " expected " << mean);
  CHECK(std::abs(strikes - mean) < 4.0 * sd);
}
}  // namespace

TEST_CASE("the strike probability combines the per-operation and per-flop sources") {
  SoftErrorProcess process({{0.1, 0.0}, {0.0, 1e-9}, {0.1, 1e-9}, {0.0, 0.0}}, 1, 0);
  CHECK(process.node_count() == 4);
  CHECK(process.strike_probability(0, 1e12) == doctest::Approx(0.1));
  CHECK(process.strike_probability(1, 0.0) == 0.0);
  CHECK(process.strike_probability(1, 1e8) == doctest::Approx(1.0 - std::exp(-0.1)));
  // 1 - 0.9 e^(-0.1) = 1 - 0.9 * 0.9048374 = 0.1856463
  CHECK(process.strike_probability(2, 1e8) == doctest::Approx(0.1856463).epsilon(1e-6));
  CHECK(process.strike_probability(3, 1e15) == 0.0);
  // Tiny rates keep their precision: p ~= rate * flops.
  SoftErrorProcess tiny({{0.0, 1e-20}}, 1, 0);
  CHECK(tiny.strike_probability(0, 1e3) == doctest::Approx(1e-17).epsilon(1e-9));
}

TEST_CASE("the empirical strike rate matches a per-operation probability") {
  constexpr int kTrials = 100000;
  SoftErrorProcess process({{0.05, 0.0}}, 17, 0);
  const int strikes = count_strikes(process, 0, 1e6, kTrials);
  check_rate(strikes, kTrials, 0.05);
  CHECK(process.strikes() == static_cast<std::uint64_t>(strikes));
}

TEST_CASE("the empirical strike rate matches a per-flop rate") {
  constexpr int kTrials = 100000;
  SoftErrorProcess process({{0.0, 2e-10}}, 19, 0);
  const double flops = 5e8;  // p = 1 - e^(-0.1)
  check_rate(count_strikes(process, 0, flops, kTrials), kTrials, 1.0 - std::exp(-0.1));
  // The rate scales with the operation's size.
  SoftErrorProcess bigger({{0.0, 2e-10}}, 19, 1);
  check_rate(count_strikes(bigger, 0, 4.0 * flops, kTrials), kTrials, 1.0 - std::exp(-0.4));
}

TEST_CASE("a strike records its node, time and target") {
  SoftErrorProcess process({{0.0, 0.0}, {1.0, 0.0}}, 3, 0);
  const auto strike = process.sample(1, 10.0, 12.5, "product");
  REQUIRE(strike.has_value());
  CHECK(strike->node == 1);
  CHECK(strike->time_s == 12.5);
  CHECK(strike->target == "product");
  CHECK_FALSE(process.sample(0, 10.0, 13.0, "task").has_value());
  CHECK(process.strikes() == 1);
}

TEST_CASE("per-node specs only affect their own node") {
  constexpr int kTrials = 20000;
  SoftErrorProcess process({{0.3, 0.0}, {0.0, 0.0}, {0.3, 0.0}}, 23, 0);
  CHECK(count_strikes(process, 1, 1e9, kTrials) == 0);
  check_rate(count_strikes(process, 0, 1e9, kTrials), kTrials, 0.3);
  check_rate(count_strikes(process, 2, 1e9, kTrials), kTrials, 0.3);

  // Sampling node 1 in between does not change node 0's strikes.
  SoftErrorProcess alone({{0.3, 0.0}, {0.5, 0.0}}, 23, 0);
  SoftErrorProcess interleaved({{0.3, 0.0}, {0.5, 0.0}}, 23, 0);
  for (int i = 0; i < 1000; ++i) {
    const bool a = alone.sample(0, 1.0, 0.0, "task").has_value();
    interleaved.sample(1, 1.0, 0.0, "task");
    CHECK(interleaved.sample(0, 1.0, 0.0, "task").has_value() == a);
  }
}

TEST_CASE("each sample makes exactly one draw, so a higher rate strikes a superset") {
  // Same streams: an operation struck at p = 0.2 is also struck at p = 0.6, whatever came before,
  // including calls with probability 0 or 1.
  SoftErrorProcess low({{0.2, 0.0}, {0.0, 0.0}}, 29, 0);
  SoftErrorProcess high({{0.6, 0.0}, {1.0, 0.0}}, 29, 0);
  int low_strikes = 0;
  int high_strikes = 0;
  for (int i = 0; i < 5000; ++i) {
    if (i % 7 == 0) {
      CHECK_FALSE(low.sample(1, 1.0, 0.0, "task").has_value());
      CHECK(high.sample(1, 1.0, 0.0, "task").has_value());
    }
    const bool l = low.sample(0, 1.0, 0.0, "task").has_value();
    const bool h = high.sample(0, 1.0, 0.0, "task").has_value();
    if (l) CHECK(h);
    low_strikes += l;
    high_strikes += h;
  }
  CHECK(low_strikes > 800);
  CHECK(high_strikes > 2 * low_strikes);
}

TEST_CASE("the same seed gives the same strikes and another replica different ones") {
  auto pattern = [](std::uint64_t seed, std::uint64_t replica) {
    SoftErrorProcess process({{0.3, 0.0}, {0.0, 1e-9}}, seed, replica);
    std::vector<bool> out;
    for (int i = 0; i < 200; ++i) {
      out.push_back(process.sample(0, 1e6, 0.0, "task").has_value());
      out.push_back(process.sample(1, 3e8, 0.0, "task").has_value());
    }
    return out;
  };
  CHECK(pattern(5, 0) == pattern(5, 0));
  CHECK(pattern(5, 0) != pattern(5, 1));
  CHECK(pattern(5, 0) != pattern(6, 0));
}
