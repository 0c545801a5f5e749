// Laws of a node's up times (time from a repair, or the start, to its next failure) and of its
// repair times. Field studies find up times far from exponential (Weibull with shape below 1:
// Schroeder and Gibson, "A large-scale study of failures in high-performance computing systems",
// DSN 2006), and repair times spread over orders of magnitude (log-normal, same study).
#pragma once

#include <cmath>
#include <string>
#include <string_view>
#include <variant>

#include "sim/random_stream.hpp"

namespace codesim::sim {

/// Exponential with mean mean_s (infinite: never).
struct ExponentialLaw {
  double mean_s = INFINITY;
};
/// Weibull: P(T > t) = exp(-(t / scale_s)^shape); mean scale_s Gamma(1 + 1 / shape). Shape < 1:
/// a node that has been up long is less likely to fail soon (infant mortality).
struct WeibullLaw {
  double shape = 1.0;
  double scale_s = 1.0;
};
/// Log-normal with mean mean_s: ln T is normal with standard deviation sigma and mean
/// ln(mean_s) - sigma^2 / 2.
struct LogNormalLaw {
  double mean_s = 1.0;
  double sigma = 1.0;
};
/// Always value_s.
struct FixedLaw {
  double value_s = 0.0;
};

using FailureLaw = std::variant<ExponentialLaw, WeibullLaw, LogNormalLaw>;
using RepairLaw = std::variant<FixedLaw, ExponentialLaw, LogNormalLaw>;

/// The law's name in scenarios ("exponential", "weibull", "lognormal", "fixed").
std::string_view law_name(const FailureLaw& law);
std::string_view law_name(const RepairLaw& law);
/// The mean, seconds (infinite for an exponential law that never fires).
double mean_s(const FailureLaw& law);
double mean_s(const RepairLaw& law);
/// A draw from `stream`, seconds. An exponential law draws stream.exponential(1 / mean_s) (so
/// that runs with exponential failures keep their draws); callers skip infinite laws.
double draw_s(const FailureLaw& law, RandomStream& stream);
double draw_s(const RepairLaw& law, RandomStream& stream);
/// "" when the law's parameters are valid, else what is wrong (failures: means > 0, Weibull shape
/// and scale > 0, sigma >= 0; repairs: finite and >= 0).
std::string validate(const FailureLaw& law);
std::string validate(const RepairLaw& law);

}  // namespace codesim::sim
