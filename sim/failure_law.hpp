// Laws of a node's up times (time from a repair, or the start, to its next failure) and of its
// repair times. Field studies find up times far from exponential (Weibull with shape below 1:
// Schroeder and Gibson, "A large-scale study of failures in high-performance computing systems",
// DSN 2006), and repair times spread over orders of magnitude (log-normal, same study).
// A law is one struct: its name and fields (sim/law_field.hpp), mean, draw and rules.
#pragma once

#include <array>
#include <cmath>
#include <concepts>
#include <string>
#include <string_view>
#include <variant>

#include "sim/law_field.hpp"
#include "sim/random_stream.hpp"

namespace codesim::sim {

/// What a law's times are: up times may be infinite (a node that never fails), repairs may not.
enum class LawRole { failure, repair };

/// Exponential with mean mean_s (infinite: never).
struct ExponentialLaw {
  static constexpr std::string_view name = "exponential";
  static constexpr auto fields() {
    return std::array{
        LawField<ExponentialLaw>{"mean_s", &ExponentialLaw::mean_s, FieldRange::above(0.0), true}};
  }
  double mean_s = INFINITY;

  double mean() const { return mean_s; }
  /// stream.exponential(1 / mean_s), so that runs with exponential failures keep their draws.
  double draw(RandomStream& stream) const;
  /// mean_s > 0; as a repair law also finite.
  std::string problem(LawRole role) const;
};

/// Weibull: P(T > t) = exp(-(t / scale_s)^shape); mean scale_s Gamma(1 + 1 / shape). Shape < 1:
/// a node that has been up long is less likely to fail soon (infant mortality).
struct WeibullLaw {
  static constexpr std::string_view name = "weibull";
  static constexpr auto fields() {
    return std::array{
        LawField<WeibullLaw>{"shape", &WeibullLaw::shape, FieldRange::above(0.0)},
        LawField<WeibullLaw>{"scale_s", &WeibullLaw::scale_s, FieldRange::above(0.0)}};
  }
  double shape = 1.0;
  double scale_s = 1.0;

  double mean() const;
  double draw(RandomStream& stream) const;
  /// Shape and scale_s > 0 and finite, and a finite mean.
  std::string problem(LawRole role) const;
};

/// Log-normal with mean mean_s: ln T is normal with standard deviation sigma and mean
/// ln(mean_s) - sigma^2 / 2.
struct LogNormalLaw {
  static constexpr std::string_view name = "lognormal";
  static constexpr auto fields() {
    return std::array{
        LawField<LogNormalLaw>{"mean_s", &LogNormalLaw::mean_s, FieldRange::above(0.0)},
        LawField<LogNormalLaw>{"sigma", &LogNormalLaw::sigma, FieldRange::at_least(0.0)}};
  }
  double mean_s = 1.0;
  double sigma = 1.0;

  double mean() const { return mean_s; }
  double draw(RandomStream& stream) const;
  /// mean_s > 0 and finite, sigma >= 0 and finite.
  std::string problem(LawRole role) const;
};

/// Always value_s.
struct FixedLaw {
  static constexpr std::string_view name = "fixed";
  static constexpr auto fields() {
    return std::array{LawField<FixedLaw>{"value_s", &FixedLaw::value_s, FieldRange::at_least(0.0)}};
  }
  double value_s = 0.0;

  double mean() const { return value_s; }
  double draw(RandomStream&) const { return value_s; }
  /// value_s >= 0 and finite.
  std::string problem(LawRole role) const;
};

/// A law of up or repair times: its name and fields, and what mean_s, draw_s and validate ask.
template <class Law>
concept TimeLaw = NamedLaw<Law> && requires(const Law law, RandomStream& stream) {
  { law.mean() } -> std::same_as<double>;
  { law.draw(stream) } -> std::same_as<double>;
  { law.problem(LawRole::failure) } -> std::same_as<std::string>;
};
template <TimeLaw... Laws>
using TimeLaws = std::variant<Laws...>;

/// The laws of up times and of repair times: adding a law is adding it here.
using FailureLaw = TimeLaws<ExponentialLaw, WeibullLaw, LogNormalLaw>;
using RepairLaw = TimeLaws<FixedLaw, ExponentialLaw, LogNormalLaw>;

/// The laws' names in scenarios, indexed as the variants.
inline constexpr auto kFailureLawNames = kLawNames<FailureLaw>;
inline constexpr auto kRepairLawNames = kLawNames<RepairLaw>;

/// The law's name in scenarios (its entry in kFailureLawNames or kRepairLawNames).
std::string_view law_name(const FailureLaw& law);
std::string_view law_name(const RepairLaw& law);
/// The mean, seconds (infinite for an exponential law that never fires).
double mean_s(const FailureLaw& law);
double mean_s(const RepairLaw& law);
/// A draw from `stream`, seconds; callers skip infinite laws.
double draw_s(const FailureLaw& law, RandomStream& stream);
double draw_s(const RepairLaw& law, RandomStream& stream);
/// "" when the law's parameters are valid, else what is wrong (failures: means > 0, Weibull shape
/// and scale > 0, sigma >= 0; repairs: finite and >= 0).
std::string validate(const FailureLaw& law);
std::string validate(const RepairLaw& law);

}  // namespace codesim::sim
