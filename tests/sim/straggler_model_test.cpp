// Straggler laws: sample means match the closed forms, floors hold, draws are reproducible, and
// bad specs are rejected with a message saying what is expected.
#include "sim/straggler_model.hpp"
#include "sim/enum_names.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <string>
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
  INFO("kind " << to_string(spec.kind) << ": sample mean " << m.mean << " vs " << mean);
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
  StragglerSpec spec;
  spec.kind = StragglerKind::shifted_exponential;
  spec.shift = 1.5;
  spec.rate = 2.0;
  CHECK(make_straggler_model(spec)->mean_factor() == 2.0);
  check_mean(spec, 1.0 / (spec.rate * spec.rate));
  CHECK(sample(spec).min >= 1.5);
}

TEST_CASE("pareto factors average shape*scale/(shape-1) and never fall below the scale") {
  StragglerSpec spec;
  spec.kind = StragglerKind::pareto;
  spec.scale = 1.5;
  spec.shape = 5.0;
  CHECK(make_straggler_model(spec)->mean_factor() == doctest::Approx(1.875));
  const double a = spec.shape;
  check_mean(spec, spec.scale * spec.scale * a / ((a - 1.0) * (a - 1.0) * (a - 2.0)));
  const Moments m = sample(spec);
  CHECK(m.min >= 1.5);
  CHECK(m.min < 1.5 * 1.001);  // the floor is reached, so U really covers values near 1
}

TEST_CASE("pareto with shape at most 1 has an infinite mean but finite factors") {
  StragglerSpec spec;
  spec.kind = StragglerKind::pareto;
  spec.shape = 1.0;
  auto model = make_straggler_model(spec);
  CHECK(std::isinf(model->mean_factor()));
  spec.shape = 0.5;
  auto heavier = make_straggler_model(spec);
  CHECK(std::isinf(heavier->mean_factor()));
  RandomStream stream({3, 0, "straggler", 0});
  for (int i = 0; i < 1000; ++i) {
    const double f = heavier->sample_factor(stream);
    CHECK(std::isfinite(f));
    CHECK(f >= 1.0);
  }
}

TEST_CASE("bimodal factors are 1 or the slowdown and average 1 + p (slowdown - 1)") {
  StragglerSpec spec;
  spec.kind = StragglerKind::bimodal;
  spec.probability_slow = 0.2;
  spec.slowdown = 4.0;
  CHECK(make_straggler_model(spec)->mean_factor() == doctest::Approx(1.6));
  const double p = spec.probability_slow;
  check_mean(spec, p * (1.0 - p) * 9.0);
  auto model = make_straggler_model(spec);
  RandomStream stream({5, 0, "straggler", 0});
  for (int i = 0; i < 1000; ++i) {
    const double f = model->sample_factor(stream);
    CHECK((f == 1.0 || f == 4.0));
  }
}

TEST_CASE("bimodal draws once per factor whatever the probability, keeping streams aligned") {
  StragglerSpec never;
  never.kind = StragglerKind::bimodal;
  never.probability_slow = 0.0;
  never.slowdown = 3.0;
  StragglerSpec always = never;
  always.probability_slow = 1.0;
  RandomStream a({9, 0, "straggler", 0});
  RandomStream b({9, 0, "straggler", 0});
  for (int i = 0; i < 50; ++i) {
    CHECK(make_straggler_model(never)->sample_factor(a) == 1.0);
    CHECK(make_straggler_model(always)->sample_factor(b) == 3.0);
  }
  CHECK(a.uniform01() == b.uniform01());
}

TEST_CASE("lognormal factors are positive and average exp(mu + sigma^2 / 2)") {
  StragglerSpec spec;
  spec.kind = StragglerKind::lognormal;
  spec.mu = 0.1;
  spec.sigma = 0.5;
  const double s2 = spec.sigma * spec.sigma;
  CHECK(make_straggler_model(spec)->mean_factor() == doctest::Approx(std::exp(0.225)));
  check_mean(spec, (std::exp(s2) - 1.0) * std::exp(2.0 * spec.mu + s2));
  CHECK(sample(spec).min > 0.0);
  spec.sigma = 0.0;
  auto fixed = make_straggler_model(spec);
  RandomStream stream({1, 0, "straggler", 0});
  CHECK(fixed->sample_factor(stream) == doctest::Approx(std::exp(0.1)));
}

TEST_CASE("the same stream gives the same factors and another stream different ones") {
  for (StragglerKind kind : {StragglerKind::shifted_exponential, StragglerKind::pareto,
                             StragglerKind::bimodal, StragglerKind::lognormal}) {
    StragglerSpec spec;
    spec.kind = kind;
    spec.probability_slow = 0.5;
    spec.slowdown = 2.0;
    spec.sigma = 1.0;
    auto model = make_straggler_model(spec);
    auto draw = [&](std::uint64_t index) {
      RandomStream stream({11, 0, "straggler", index});
      std::vector<double> out;
      for (int i = 0; i < 32; ++i) out.push_back(model->sample_factor(stream));
      return out;
    };
    INFO("kind " << to_string(kind));
    CHECK(draw(0) == draw(0));
    CHECK(draw(0) != draw(1));
  }
}

TEST_CASE("valid straggler specs pass validation") {
  StragglerSpec spec;
  CHECK(validate_straggler(spec) == "");
  for (StragglerKind kind : {StragglerKind::shifted_exponential, StragglerKind::pareto,
                             StragglerKind::bimodal, StragglerKind::lognormal}) {
    spec.kind = kind;
    CHECK(validate_straggler(spec) == "");
  }
  // Fields the kind does not read are not checked.
  spec.kind = StragglerKind::none;
  spec.shape = -1.0;
  spec.rate = 0.0;
  CHECK(validate_straggler(spec) == "");
}

TEST_CASE("invalid straggler specs are rejected saying what is wrong and expected") {
  auto error = [](StragglerSpec spec) { return validate_straggler(spec); };
  StragglerSpec spec;
  spec.kind = StragglerKind::pareto;
  spec.shape = -1.0;
  CHECK(error(spec) == "pareto shape must be > 0 (got -1)");
  spec.shape = 3.0;
  spec.scale = 0.0;
  CHECK(error(spec) == "pareto scale must be finite and > 0 (got 0)");

  spec = {};
  spec.kind = StragglerKind::shifted_exponential;
  spec.rate = 0.0;
  CHECK(error(spec) == "shifted_exponential rate must be finite and > 0 (got 0)");
  spec.rate = 1.0;
  spec.shift = -0.5;
  CHECK(error(spec) == "shifted_exponential shift must be finite and >= 0 (got -0.5)");

  spec = {};
  spec.kind = StragglerKind::bimodal;
  spec.probability_slow = 1.5;
  CHECK(error(spec) == "bimodal probability_slow must be in [0, 1] (got 1.5)");
  spec.probability_slow = NAN;
  CHECK(error(spec) != "");
  spec.probability_slow = 0.5;
  spec.slowdown = 0.5;
  CHECK(error(spec) == "bimodal slowdown must be finite and >= 1 (got 0.5)");

  spec = {};
  spec.kind = StragglerKind::lognormal;
  spec.sigma = -1.0;
  CHECK(error(spec) == "lognormal sigma must be finite and >= 0 (got -1)");
  spec.sigma = 1.0;
  spec.mu = INFINITY;
  CHECK(error(spec) == "lognormal mu must be finite (got inf)");
}

TEST_CASE("straggler kinds have one name each and unknown names are rejected") {
  for (std::size_t i = 0; i < kStragglerKindNames.size(); ++i) {
    const auto kind = static_cast<StragglerKind>(i);
    CHECK(parse_name<StragglerKind>(to_string(kind), kStragglerKindNames) == kind);
  }
  CHECK(to_string(StragglerKind::shifted_exponential) == "shifted_exponential");
  CHECK(parse_name<StragglerKind>("weibull", kStragglerKindNames) == std::nullopt);
}
