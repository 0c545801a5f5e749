// Straggler laws: validation, the five factor distributions and their closed-form means.
#include "sim/straggler_model.hpp"

#include <cmath>
#include <sstream>

#include "sim/check.hpp"
#include "sim/enum_names.hpp"

namespace codesim::sim {
namespace {

std::string number(double value) {
  std::ostringstream out;
  out << value;
  return out.str();
}

// "what must hold (got value)"; written so NaN fails every test.
std::string problem(const std::string& what, double got) {
  return what + " (got " + number(got) + ")";
}

class NoStraggler final : public StragglerModel {
 public:
  double sample_factor(RandomStream&) const override { return 1.0; }
  double mean_factor() const override { return 1.0; }
};

class ShiftedExponential final : public StragglerModel {
 public:
  ShiftedExponential(double shift, double rate) : shift_(shift), rate_(rate) {}
  double sample_factor(RandomStream& stream) const override {
    return shift_ + stream.exponential(rate_);
  }
  double mean_factor() const override { return shift_ + 1.0 / rate_; }

 private:
  double shift_;
  double rate_;
};

class Pareto final : public StragglerModel {
 public:
  Pareto(double scale, double shape) : scale_(scale), shape_(shape) {}
  double sample_factor(RandomStream& stream) const override {
    // Inverse transform with U on (0, 1] so the factor is finite and >= scale.
    const double u = 1.0 - stream.uniform01();
    return scale_ / std::pow(u, 1.0 / shape_);
  }
  double mean_factor() const override {
    return shape_ <= 1.0 ? INFINITY : shape_ * scale_ / (shape_ - 1.0);
  }

 private:
  double scale_;
  double shape_;
};

class Bimodal final : public StragglerModel {
 public:
  Bimodal(double probability_slow, double slowdown)
      : probability_slow_(probability_slow), slowdown_(slowdown) {}
  double sample_factor(RandomStream& stream) const override {
    // Always one draw, so the stream stays aligned whatever the probability.
    return stream.uniform01() < probability_slow_ ? slowdown_ : 1.0;
  }
  double mean_factor() const override { return 1.0 + probability_slow_ * (slowdown_ - 1.0); }

 private:
  double probability_slow_;
  double slowdown_;
};

class Lognormal final : public StragglerModel {
 public:
  Lognormal(double mu, double sigma) : mu_(mu), sigma_(sigma) {}
  double sample_factor(RandomStream& stream) const override {
    return stream.lognormal(mu_, sigma_);
  }
  double mean_factor() const override { return std::exp(mu_ + sigma_ * sigma_ / 2.0); }

 private:
  double mu_;
  double sigma_;
};

}  // namespace

std::string_view to_string(StragglerKind kind) { return name_of(kind, kStragglerKindNames); }

std::string validate_straggler(const StragglerSpec& spec) {
  switch (spec.kind) {
    case StragglerKind::none:
      return "";
    case StragglerKind::shifted_exponential:
      if (!(spec.shift >= 0.0 && std::isfinite(spec.shift)))
        return problem("shifted_exponential shift must be finite and >= 0", spec.shift);
      if (!(spec.rate > 0.0 && std::isfinite(spec.rate)))
        return problem("shifted_exponential rate must be finite and > 0", spec.rate);
      return "";
    case StragglerKind::pareto:
      if (!(spec.scale > 0.0 && std::isfinite(spec.scale)))
        return problem("pareto scale must be finite and > 0", spec.scale);
      if (!(spec.shape > 0.0 && std::isfinite(spec.shape)))
        return problem("pareto shape must be > 0", spec.shape);
      return "";
    case StragglerKind::bimodal:
      if (!(spec.probability_slow >= 0.0 && spec.probability_slow <= 1.0))
        return problem("bimodal probability_slow must be in [0, 1]", spec.probability_slow);
      if (!(spec.slowdown >= 1.0 && std::isfinite(spec.slowdown)))
        return problem("bimodal slowdown must be finite and >= 1", spec.slowdown);
      return "";
    case StragglerKind::lognormal:
      if (!std::isfinite(spec.mu)) return problem("lognormal mu must be finite", spec.mu);
      if (!(spec.sigma >= 0.0 && std::isfinite(spec.sigma)))
        return problem("lognormal sigma must be finite and >= 0", spec.sigma);
      return "";
  }
  return "unknown straggler kind " + std::to_string(static_cast<int>(spec.kind));
}

std::unique_ptr<StragglerModel> make_straggler_model(const StragglerSpec& spec) {
  const std::string error = validate_straggler(spec);
  CODESIM_CHECK(error.empty(), error.c_str());
  switch (spec.kind) {
    case StragglerKind::none:
      break;
    case StragglerKind::shifted_exponential:
      return std::make_unique<ShiftedExponential>(spec.shift, spec.rate);
    case StragglerKind::pareto:
      return std::make_unique<Pareto>(spec.scale, spec.shape);
    case StragglerKind::bimodal:
      return std::make_unique<Bimodal>(spec.probability_slow, spec.slowdown);
    case StragglerKind::lognormal:
      return std::make_unique<Lognormal>(spec.mu, spec.sigma);
  }
  return std::make_unique<NoStraggler>();
}

}  // namespace codesim::sim
