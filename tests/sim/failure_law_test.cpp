// Up-time and repair-time laws: each law's draws follow its distribution (Kolmogorov-Smirnov),
// with the documented mean, and the crash process draws its up and repair times from them.
#include "sim/failure_law.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <vector>

#include "sim/crash_process.hpp"
#include "tests/sim/crash_test_support.hpp"

using namespace codesim::sim;

namespace {

constexpr int kDraws = 20000;
// Kolmogorov-Smirnov critical value at the 0.1% level: 1.95 / sqrt(n).
constexpr double kCriticalTimesRootN = 1.95;

/// The largest distance between the empirical CDF of `samples` and `cdf`.
double ks_distance(std::vector<double> samples, const std::function<double(double)>& cdf) {
  std::sort(samples.begin(), samples.end());
  const auto n = static_cast<double>(samples.size());
  double d = 0.0;
  for (std::size_t i = 0; i < samples.size(); ++i) {
    const double f = cdf(samples[i]);
    d = std::max({d, f - static_cast<double>(i) / n, static_cast<double>(i + 1) / n - f});
  }
  return d;
}

template <class Law>
std::vector<double> draws(const Law& law, const char* component) {
  RandomStream stream({11, 0, component, 0});
  std::vector<double> out;
  for (int i = 0; i < kDraws; ++i) out.push_back(draw_s(law, stream));
  return out;
}

double mean_of(const std::vector<double>& v) {
  double sum = 0.0;
  for (double x : v) sum += x;
  return sum / static_cast<double>(v.size());
}

double normal_cdf(double z) { return 0.5 * std::erfc(-z / std::sqrt(2.0)); }

/// Checks `samples` against `cdf` (KS) and their mean against `mean` (4 standard errors).
void check_law(const std::vector<double>& samples, const std::function<double(double)>& cdf,
               double mean) {
  CHECK(ks_distance(samples, cdf) < kCriticalTimesRootN / std::sqrt(double(kDraws)));
  double var = 0.0;
  const double m = mean_of(samples);
  for (double x : samples) var += (x - m) * (x - m);
  const double standard_error = std::sqrt(var / (kDraws - 1.0) / kDraws);
  CHECK(std::abs(m - mean) < 4.0 * standard_error);
}

}  // namespace

TEST_CASE("Weibull up times follow the Weibull distribution with mean scale Gamma(1 + 1/shape)") {
  for (double shape : {0.7, 1.0, 2.5}) {
    CAPTURE(shape);
    const WeibullLaw law{shape, 100.0};
    const FailureLaw failure = law;
    CHECK(mean_s(failure) == doctest::Approx(100.0 * std::tgamma(1.0 + 1.0 / shape)));
    check_law(
        draws(failure, "weibull"),
        [&](double t) { return 1.0 - std::exp(-std::pow(t / 100.0, shape)); }, mean_s(failure));
  }
}

TEST_CASE("log-normal up and repair times follow the log-normal distribution with their mean") {
  const LogNormalLaw law{50.0, 1.2};
  const double mu = std::log(50.0) - 0.5 * 1.2 * 1.2;
  const auto cdf = [&](double t) { return normal_cdf((std::log(t) - mu) / 1.2); };
  check_law(draws(FailureLaw{law}, "lognormal failure"), cdf, 50.0);
  check_law(draws(RepairLaw{law}, "lognormal repair"), cdf, 50.0);
  CHECK(mean_s(FailureLaw{law}) == 50.0);
}

TEST_CASE("exponential laws draw what the crash process always drew, and fixed repairs no draw") {
  const FailureLaw failure = ExponentialLaw{20.0};
  check_law(
      draws(failure, "exponential"), [](double t) { return 1.0 - std::exp(-t / 20.0); }, 20.0);
  RandomStream a({1, 2, "crash", 3});
  RandomStream b({1, 2, "crash", 3});
  for (int i = 0; i < 100; ++i) CHECK(draw_s(failure, a) == b.exponential(1.0 / 20.0));
  RandomStream c({1, 2, "repair", 3});
  CHECK(draw_s(RepairLaw{FixedLaw{4.5}}, c) == 4.5);
  CHECK(c.uniform01() == RandomStream({1, 2, "repair", 3}).uniform01());  // nothing drawn
}

TEST_CASE("laws with bad parameters are named, and the mean and names are documented ones") {
  CHECK(validate(FailureLaw{WeibullLaw{0.0, 1.0}}) == "shape must be > 0 and finite");
  CHECK(validate(FailureLaw{WeibullLaw{1.0, -1.0}}) == "scale_s must be > 0 and finite");
  CHECK(validate(FailureLaw{LogNormalLaw{1.0, -0.5}}) == "sigma must be >= 0 and finite");
  CHECK(validate(FailureLaw{ExponentialLaw{INFINITY}}).empty());  // never fails
  CHECK(validate(RepairLaw{ExponentialLaw{INFINITY}}) == "mean_s must be > 0 and finite");
  CHECK(validate(RepairLaw{FixedLaw{-1.0}}) == "value_s must be >= 0 and finite");
  CHECK(law_name(FailureLaw{WeibullLaw{}}) == "weibull");
  CHECK(law_name(RepairLaw{FixedLaw{}}) == "fixed");
  CHECK(std::isinf(exponential_crashes(INFINITY).mtbf_s()));
  CHECK_FALSE(exponential_crashes(INFINITY).ever_fails());
}

TEST_CASE("the crash process draws up times from the failure law and repairs from the repair law") {
  Engine engine;
  std::vector<Node> nodes = testing::make_nodes(8);
  const CrashSpec spec{WeibullLaw{0.7, 10.0}, LogNormalLaw{2.0, 0.8}};
  CrashProcess process(engine, nodes, std::vector<CrashSpec>(nodes.size(), spec), 5, 0);
  std::map<int, double> up_since;
  std::map<int, double> down_since;
  std::vector<double> up_s;
  std::vector<double> repair_s;
  for (int id = 0; id < 8; ++id) up_since[id] = 0.0;
  process.on_crash([&](int id, bool) {
    up_s.push_back(engine.now() - up_since[id]);
    down_since[id] = engine.now();
  });
  process.on_repair([&](int id) {
    repair_s.push_back(engine.now() - down_since[id]);
    up_since[id] = engine.now();
  });
  process.start();
  engine.run_until(4e4);
  REQUIRE(up_s.size() > 5000);
  const double mu = std::log(2.0) - 0.5 * 0.8 * 0.8;
  const auto n = [](const std::vector<double>& v) { return std::sqrt(double(v.size())); };
  CHECK(ks_distance(up_s, [](double t) { return 1.0 - std::exp(-std::pow(t / 10.0, 0.7)); }) <
        kCriticalTimesRootN / n(up_s));
  CHECK(ks_distance(repair_s, [&](double t) { return normal_cdf((std::log(t) - mu) / 0.8); }) <
        kCriticalTimesRootN / n(repair_s));
}
