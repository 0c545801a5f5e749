// Straggler laws: validation, the five factor distributions and their closed-form means.
#include "sim/straggler_model.hpp"

#include <cmath>
#include <sstream>

#include "sim/check.hpp"

namespace codesim::sim {
namespace {

std::string number(double value) {
  std::ostringstream out;
  out << value;
  return out.str();
}

// "LAW what must hold (got value)"; callers write their tests so that NaN fails every one.
std::string unmet(std::string_view law, const std::string& what, double got) {
  return std::string(law) + " " + what + " (got " + number(got) + ")";
}

/// The model of one law, asked through std::visit.
class LawModel final : public StragglerModel {
 public:
  explicit LawModel(const StragglerSpec& law) : law_(law) {}
  double sample_factor(RandomStream& stream) const override {
    return std::visit([&](const auto& law) { return law.factor(stream); }, law_);
  }
  double mean_factor() const override {
    return std::visit([](const auto& law) { return law.mean_factor(); }, law_);
  }

 private:
  StragglerSpec law_;
};

}  // namespace

double ShiftedExponentialStraggler::factor(RandomStream& stream) const {
  return shift + stream.exponential(rate);
}
double ShiftedExponentialStraggler::mean_factor() const { return shift + 1.0 / rate; }
std::string ShiftedExponentialStraggler::problem() const {
  if (!(shift >= 0.0 && std::isfinite(shift)))
    return unmet(name, "shift must be finite and >= 0", shift);
  if (!(rate > 0.0 && std::isfinite(rate))) return unmet(name, "rate must be finite and > 0", rate);
  return "";
}

double ParetoStraggler::factor(RandomStream& stream) const {
  // Inverse transform with U on (0, 1] so the factor is finite and >= scale.
  const double u = 1.0 - stream.uniform01();
  return scale / std::pow(u, 1.0 / shape);
}
double ParetoStraggler::mean_factor() const {
  return shape <= 1.0 ? INFINITY : shape * scale / (shape - 1.0);
}
std::string ParetoStraggler::problem() const {
  if (!(scale > 0.0 && std::isfinite(scale)))
    return unmet(name, "scale must be finite and > 0", scale);
  if (!(shape > 0.0 && std::isfinite(shape))) return unmet(name, "shape must be > 0", shape);
  return "";
}

double BimodalStraggler::factor(RandomStream& stream) const {
  // Always one draw, so the stream stays aligned whatever the probability.
  return stream.uniform01() < probability_slow ? slowdown : 1.0;
}
double BimodalStraggler::mean_factor() const { return 1.0 + probability_slow * (slowdown - 1.0); }
std::string BimodalStraggler::problem() const {
  if (!(probability_slow >= 0.0 && probability_slow <= 1.0))
    return unmet(name, "probability_slow must be in [0, 1]", probability_slow);
  if (!(slowdown >= 1.0 && std::isfinite(slowdown)))
    return unmet(name, "slowdown must be finite and >= 1", slowdown);
  return "";
}

double LognormalStraggler::factor(RandomStream& stream) const {
  return stream.lognormal(mu, sigma);
}
double LognormalStraggler::mean_factor() const { return std::exp(mu + sigma * sigma / 2.0); }
std::string LognormalStraggler::problem() const {
  if (!std::isfinite(mu)) return unmet(name, "mu must be finite", mu);
  if (!(sigma >= 0.0 && std::isfinite(sigma)))
    return unmet(name, "sigma must be finite and >= 0", sigma);
  return "";
}

std::string_view law_name(const StragglerSpec& law) { return kStragglerNames[law.index()]; }

std::string validate_straggler(const StragglerSpec& spec) {
  return std::visit([](const auto& law) { return law.problem(); }, spec);
}

std::unique_ptr<StragglerModel> make_straggler_model(const StragglerSpec& spec) {
  const std::string error = validate_straggler(spec);
  CODESIM_CHECK(error.empty(), error.c_str());
  return std::make_unique<LawModel>(spec);
}

}  // namespace codesim::sim
