// Straggler laws: sample means match the closed forms, floors hold, draws are reproducible, and
// bad specs are rejected with a message saying what is expected.
#include "sim/straggler_model.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <string>
#include <string_view>
#include <vector>

using namespace codesim::sim;

namespace {
constexpr int kSamples = 200000;

struct Moments {
  double mean = 0.0;
  double min = INFINITY;
};

Moments sample(const StragglerSpec& spec, std::uint64_t index = 0) {
  auto model = make_straggler_model(spec);
  RandomStream stream({2024, 0, "straggler", index});
  Moments m;
  double sum = 0.0;
  for (int i = 0; i < kSamples; ++i) {
    const double f = model->sample_factor(stream);
    sum += f;
    m.min = std::min(m.min, f);
  }
  m.mean = sum / kSamples;
  return m;
}

// The sample mean lies within 4 standard errors of the law's mean.
void check_mean(const StragglerSpec& spec, double variance) {
  const Moments m = sample(spec);
  const double mean = make_straggler_model(spec)->mean_factor();
  const double bound = 4.0 * std::sqrt(variance / kSamples);
  INFO("kind " << law_name(spec) << ": sample mean " << m.mean << " vs " << mean);
  CHECK(std::abs(m.mean - mean) < bound);
}
}  // namespace

TEST_CASE("the none law always gives factor 1 and draws nothing") {
  auto model = make_straggler_model({});
  RandomStream stream({1, 0, "straggler", 0});
  RandomStream untouched({1, 0, "straggler", 0});
  for (int i = 0; i < 10; ++i) CHECK(model->sample_factor(stream) == 1.0);
  CHECK(model->mean_factor() == 1.0);
  CHECK(stream.uniform01() == untouched.uniform01());
}

TEST_CASE("shifted exponential factors average shift + 1/rate and never fall below the shift") {
  const StragglerSpec spec = ShiftedExponentialStraggler{1.5, 2.0};
  CHECK(make_straggler_model(spec)->mean_factor() == 2.0);
  check_mean(spec, 1.0 / (2.0 * 2.0));
  CHECK(sample(spec).min >= 1.5);
}

TEST_CASE("pareto factors average shape*scale/(shape-1) and never fall below the scale") {
  const StragglerSpec spec = ParetoStraggler{1.5, 5.0};
  CHECK(make_straggler_model(spec)->mean_factor() == doctest::Approx(1.875));
  const double a = 5.0;
  check_mean(spec, 1.5 * 1.5 * a / ((a - 1.0) * (a - 1.0) * (a - 2.0)));
  const Moments m = sample(spec);
  CHECK(m.min >= 1.5);
  CHECK(m.min < 1.5 * 1.001);  // the floor is reached, so U really covers values near 1
}

TEST_CASE("pareto with shape at most 1 has an infinite mean but finite factors") {
  auto model = make_straggler_model(ParetoStraggler{1.0, 1.0});
  CHECK(std::isinf(model->mean_factor()));
  auto heavier = make_straggler_model(ParetoStraggler{1.0, 0.5});
  CHECK(std::isinf(heavier->mean_factor()));
  RandomStream stream({3, 0, "straggler", 0});
  for (int i = 0; i < 1000; ++i) {
    const double f = heavier->sample_factor(stream);
    CHECK(std::isfinite(f));
    CHECK(f >= 1.0);
  }
}

TEST_CASE("bimodal factors are 1 or the slowdown and average 1 + p (slowdown - 1)") {
  const StragglerSpec spec = BimodalStraggler{0.2, 4.0};
  CHECK(make_straggler_model(spec)->mean_factor() == doctest::Approx(1.6));
  const double p = 0.2;
  check_mean(spec, p * (1.0 - p) * 9.0);
  auto model = make_straggler_model(spec);
  RandomStream stream({5, 0, "straggler", 0});
  for (int i = 0; i < 1000; ++i) {
    const double f = model->sample_factor(stream);
    CHECK((f == 1.0 || f == 4.0));
  }
}

TEST_CASE("bimodal draws once per factor whatever the probability, keeping streams aligned") {
  const StragglerSpec never = BimodalStraggler{0.0, 3.0};
  const StragglerSpec always = BimodalStraggler{1.0, 3.0};
  RandomStream a({9, 0, "straggler", 0});
  RandomStream b({9, 0, "straggler", 0});
  for (int i = 0; i < 50; ++i) {
    CHECK(make_straggler_model(never)->sample_factor(a) == 1.0);
    CHECK(make_straggler_model(always)->sample_factor(b) == 3.0);
  }
  CHECK(a.uniform01() == b.uniform01());
}

TEST_CASE("lognormal factors are positive and average exp(mu + sigma^2 / 2)") {
  const StragglerSpec spec = LognormalStraggler{0.1, 0.5};
  const double s2 = 0.5 * 0.5;
  CHECK(make_straggler_model(spec)->mean_factor() == doctest::Approx(std::exp(0.225)));
  check_mean(spec, (std::exp(s2) - 1.0) * std::exp(2.0 * 0.1 + s2));
  CHECK(sample(spec).min > 0.0);
  auto fixed = make_straggler_model(LognormalStraggler{0.1, 0.0});
  RandomStream stream({1, 0, "straggler", 0});
  CHECK(fixed->sample_factor(stream) == doctest::Approx(std::exp(0.1)));
}

TEST_CASE("the same stream gives the same factors and another stream different ones") {
  const std::vector<StragglerSpec> laws = {ShiftedExponentialStraggler{}, ParetoStraggler{},
                                           BimodalStraggler{0.5, 2.0},
                                           LognormalStraggler{0.0, 1.0}};
  for (const StragglerSpec& spec : laws) {
    auto model = make_straggler_model(spec);
    auto draw = [&](std::uint64_t index) {
      RandomStream stream({11, 0, "straggler", index});
      std::vector<double> out;
      for (int i = 0; i < 32; ++i) out.push_back(model->sample_factor(stream));
      return out;
    };
    INFO("kind " << law_name(spec));
    CHECK(draw(0) == draw(0));
    CHECK(draw(0) != draw(1));
  }
}

TEST_CASE("valid straggler specs pass validation") {
  CHECK(validate_straggler(StragglerSpec{}) == "");
  for (const StragglerSpec& spec :
       {StragglerSpec{ShiftedExponentialStraggler{}}, StragglerSpec{ParetoStraggler{}},
        StragglerSpec{BimodalStraggler{}}, StragglerSpec{LognormalStraggler{}}}) {
    CHECK(validate_straggler(spec) == "");
  }
}

TEST_CASE("invalid straggler specs are rejected saying what is wrong and expected") {
  auto error = [](const StragglerSpec& spec) { return validate_straggler(spec); };
  CHECK(error(ParetoStraggler{3.0, -1.0}) == "pareto shape must be > 0 (got -1)");
  CHECK(error(ParetoStraggler{0.0, 3.0}) == "pareto scale must be finite and > 0 (got 0)");

  CHECK(error(ShiftedExponentialStraggler{1.0, 0.0}) ==
        "shifted_exponential rate must be finite and > 0 (got 0)");
  CHECK(error(ShiftedExponentialStraggler{-0.5, 1.0}) ==
        "shifted_exponential shift must be finite and >= 0 (got -0.5)");

  CHECK(error(BimodalStraggler{1.5, 1.0}) ==
        "bimodal probability_slow must be in [0, 1] (got 1.5)");
  CHECK(error(BimodalStraggler{NAN, 1.0}) != "");
  CHECK(error(BimodalStraggler{0.5, 0.5}) == "bimodal slowdown must be finite and >= 1 (got 0.5)");

  CHECK(error(LognormalStraggler{0.0, -1.0}) == "lognormal sigma must be finite and >= 0 (got -1)");
  CHECK(error(LognormalStraggler{INFINITY, 1.0}) == "lognormal mu must be finite (got inf)");
}

TEST_CASE("straggler laws have one name each, in the order of the variant") {
  CHECK(kStragglerNames == std::array<std::string_view, 5>{"none", "shifted_exponential", "pareto",
                                                           "bimodal", "lognormal"});
  CHECK(law_name(StragglerSpec{ShiftedExponentialStraggler{}}) == "shifted_exponential");
  CHECK(law_name(StragglerSpec{}) == "none");
  CHECK(is_none(StragglerSpec{}));
  CHECK_FALSE(is_none(StragglerSpec{BimodalStraggler{}}));
}
