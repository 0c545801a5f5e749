// Means, draws and checks of the up-time and repair-time laws.
#include "sim/failure_law.hpp"

#include <boost/random/weibull_distribution.hpp>

#include "sim/overloaded.hpp"

namespace codesim::sim {
namespace {

std::string_view name_of(const ExponentialLaw&) { return "exponential"; }
std::string_view name_of(const WeibullLaw&) { return "weibull"; }
std::string_view name_of(const LogNormalLaw&) { return "lognormal"; }
std::string_view name_of(const FixedLaw&) { return "fixed"; }

double mean_of(const ExponentialLaw& law) { return law.mean_s; }
double mean_of(const WeibullLaw& law) { return law.scale_s * std::tgamma(1.0 + 1.0 / law.shape); }
double mean_of(const LogNormalLaw& law) { return law.mean_s; }
double mean_of(const FixedLaw& law) { return law.value_s; }

double draw_of(const ExponentialLaw& law, RandomStream& stream) {
  return stream.exponential(1.0 / law.mean_s);
}
double draw_of(const WeibullLaw& law, RandomStream& stream) {
  return boost::random::weibull_distribution<double>(law.shape, law.scale_s)(stream.generator());
}
double draw_of(const LogNormalLaw& law, RandomStream& stream) {
  return stream.lognormal(std::log(law.mean_s) - 0.5 * law.sigma * law.sigma, law.sigma);
}
double draw_of(const FixedLaw& law, RandomStream&) { return law.value_s; }

std::string positive(double value, const char* what) {
  return value > 0.0 ? "" : std::string(what) + " must be > 0";
}

std::string check_of(const ExponentialLaw& law) { return positive(law.mean_s, "mean_s"); }
std::string check_of(const WeibullLaw& law) {
  if (!(law.shape > 0.0) || !std::isfinite(law.shape)) return "shape must be > 0 and finite";
  if (!(law.scale_s > 0.0) || !std::isfinite(law.scale_s)) return "scale_s must be > 0 and finite";
  if (!std::isfinite(mean_of(law)))
    return "shape is so small that the mean scale_s Gamma(1 + 1 / shape) is infinite";
  return "";
}
std::string check_of(const LogNormalLaw& law) {
  if (!(law.mean_s > 0.0) || !std::isfinite(law.mean_s)) return "mean_s must be > 0 and finite";
  if (!(law.sigma >= 0.0) || !std::isfinite(law.sigma)) return "sigma must be >= 0 and finite";
  return "";
}

}  // namespace

std::string_view law_name(const FailureLaw& law) {
  return std::visit([](const auto& l) { return name_of(l); }, law);
}
std::string_view law_name(const RepairLaw& law) {
  return std::visit([](const auto& l) { return name_of(l); }, law);
}

double mean_s(const FailureLaw& law) {
  return std::visit([](const auto& l) { return mean_of(l); }, law);
}
double mean_s(const RepairLaw& law) {
  return std::visit([](const auto& l) { return mean_of(l); }, law);
}

double draw_s(const FailureLaw& law, RandomStream& stream) {
  return std::visit([&](const auto& l) { return draw_of(l, stream); }, law);
}
double draw_s(const RepairLaw& law, RandomStream& stream) {
  return std::visit([&](const auto& l) { return draw_of(l, stream); }, law);
}

std::string validate(const FailureLaw& law) {
  return std::visit([](const auto& l) { return check_of(l); }, law);
}

std::string validate(const RepairLaw& law) {
  return std::visit(Overloaded{[](const FixedLaw& l) {
                                 return l.value_s >= 0.0 && std::isfinite(l.value_s)
                                            ? std::string()
                                            : std::string("value_s must be >= 0 and finite");
                               },
                               [](const ExponentialLaw& l) {
                                 return l.mean_s > 0.0 && std::isfinite(l.mean_s)
                                            ? std::string()
                                            : std::string("mean_s must be > 0 and finite");
                               },
                               [](const LogNormalLaw& l) { return check_of(l); }},
                    law);
}

}  // namespace codesim::sim
