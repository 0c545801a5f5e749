// Means, draws and checks of the up-time and repair-time laws.
#include "sim/failure_law.hpp"

#include <boost/random/weibull_distribution.hpp>

namespace codesim::sim {
namespace {

bool positive_finite(double value) { return value > 0.0 && std::isfinite(value); }

}  // namespace

double ExponentialLaw::draw(RandomStream& stream) const { return stream.exponential(1.0 / mean_s); }
std::string ExponentialLaw::problem(LawRole role) const {
  if (role == LawRole::repair)
    return positive_finite(mean_s) ? "" : "mean_s must be > 0 and finite";
  return mean_s > 0.0 ? "" : "mean_s must be > 0";
}

double WeibullLaw::mean() const { return scale_s * std::tgamma(1.0 + 1.0 / shape); }
double WeibullLaw::draw(RandomStream& stream) const {
  return boost::random::weibull_distribution<double>(shape, scale_s)(stream.generator());
}
std::string WeibullLaw::problem(LawRole) const {
  if (!positive_finite(shape)) return "shape must be > 0 and finite";
  if (!positive_finite(scale_s)) return "scale_s must be > 0 and finite";
  if (!std::isfinite(mean())) {
    // Either factor can overflow: name the one that does (a huge scale, or a tiny shape).
    if (std::isfinite(std::tgamma(1.0 + 1.0 / shape)))
      return "scale_s is so large that the mean scale_s Gamma(1 + 1 / shape) is infinite";
    return "shape is so small that the mean scale_s Gamma(1 + 1 / shape) is infinite";
  }
  return "";
}

double LogNormalLaw::draw(RandomStream& stream) const {
  return stream.lognormal(std::log(mean_s) - 0.5 * sigma * sigma, sigma);
}
std::string LogNormalLaw::problem(LawRole) const {
  if (!positive_finite(mean_s)) return "mean_s must be > 0 and finite";
  if (!(sigma >= 0.0) || !std::isfinite(sigma)) return "sigma must be >= 0 and finite";
  return "";
}

std::string FixedLaw::problem(LawRole) const {
  return value_s >= 0.0 && std::isfinite(value_s) ? "" : "value_s must be >= 0 and finite";
}

std::string_view law_name(const FailureLaw& law) { return kFailureLawNames[law.index()]; }
std::string_view law_name(const RepairLaw& law) { return kRepairLawNames[law.index()]; }

double mean_s(const FailureLaw& law) {
  return std::visit([](const auto& l) { return l.mean(); }, law);
}
double mean_s(const RepairLaw& law) {
  return std::visit([](const auto& l) { return l.mean(); }, law);
}

double draw_s(const FailureLaw& law, RandomStream& stream) {
  return std::visit([&](const auto& l) { return l.draw(stream); }, law);
}
double draw_s(const RepairLaw& law, RandomStream& stream) {
  return std::visit([&](const auto& l) { return l.draw(stream); }, law);
}

std::string validate(const FailureLaw& law) {
  return std::visit([](const auto& l) { return l.problem(LawRole::failure); }, law);
}
std::string validate(const RepairLaw& law) {
  return std::visit([](const auto& l) { return l.problem(LawRole::repair); }, law);
}

}  // namespace codesim::sim
