// Straggler laws: the random factor (>= some floor) by which a node's compute task is slowed.
// A law is one struct: its name and fields (sim/law_field.hpp), factor, mean and rules.
#pragma once

#include <array>
#include <concepts>
#include <memory>
#include <string>
#include <string_view>
#include <variant>

#include "sim/law_field.hpp"
#include "sim/random_stream.hpp"

namespace codesim::sim {

/// Factor 1; mean 1.
struct NoStraggler {
  static constexpr std::string_view name = "none";
  static constexpr std::array<LawField<NoStraggler>, 0> fields() { return {}; }

  double factor(RandomStream&) const { return 1.0; }
  double mean_factor() const { return 1.0; }
  std::string problem() const { return ""; }
};

/// Factor shift + Exp(rate); mean shift + 1 / rate.
struct ShiftedExponentialStraggler {
  static constexpr std::string_view name = "shifted_exponential";
  static constexpr auto fields() {
    using F = LawField<ShiftedExponentialStraggler>;
    return std::array{F{"shift", &ShiftedExponentialStraggler::shift, FieldRange::at_least(0.0)},
                      F{"rate", &ShiftedExponentialStraggler::rate, FieldRange::above(0.0)}};
  }
  double shift = 1.0;  ///< finite, >= 0
  double rate = 1.0;   ///< finite, > 0

  double factor(RandomStream& stream) const;
  double mean_factor() const;
  std::string problem() const;
};

/// Factor scale / U^(1 / shape), U ~ U(0, 1]; mean shape scale / (shape - 1), infinite for
/// shape <= 1.
struct ParetoStraggler {
  static constexpr std::string_view name = "pareto";
  static constexpr auto fields() {
    using F = LawField<ParetoStraggler>;
    return std::array{F{"scale", &ParetoStraggler::scale, FieldRange::above(0.0)},
                      F{"shape", &ParetoStraggler::shape, FieldRange::above(0.0)}};
  }
  double scale = 1.0;  ///< finite, > 0
  double shape = 3.0;  ///< finite, > 0

  double factor(RandomStream& stream) const;
  double mean_factor() const;
  std::string problem() const;
};

/// Factor slowdown with probability probability_slow, else 1; mean 1 + p (slowdown - 1).
struct BimodalStraggler {
  static constexpr std::string_view name = "bimodal";
  static constexpr auto fields() {
    using F = LawField<BimodalStraggler>;
    return std::array{
        F{"probability_slow", &BimodalStraggler::probability_slow, FieldRange::within(0.0, 1.0)},
        F{"slowdown", &BimodalStraggler::slowdown, FieldRange::at_least(1.0)}};
  }
  double probability_slow = 0.0;  ///< in [0, 1]
  double slowdown = 1.0;          ///< finite, >= 1

  double factor(RandomStream& stream) const;
  double mean_factor() const;
  std::string problem() const;
};

/// Factor exp(N(mu, sigma^2)); mean exp(mu + sigma^2 / 2).
struct LognormalStraggler {
  static constexpr std::string_view name = "lognormal";
  static constexpr auto fields() {
    using F = LawField<LognormalStraggler>;
    return std::array{F{"mu", &LognormalStraggler::mu, FieldRange::any()},
                      F{"sigma", &LognormalStraggler::sigma, FieldRange::at_least(0.0)}};
  }
  double mu = 0.0;     ///< finite
  double sigma = 0.0;  ///< finite, >= 0

  double factor(RandomStream& stream) const;
  double mean_factor() const;
  std::string problem() const;
};

/// A straggler law: its name and fields, and what its model and validation ask.
template <class Law>
concept StragglerLaw = NamedLaw<Law> && requires(const Law law, RandomStream& stream) {
  { law.factor(stream) } -> std::same_as<double>;
  { law.mean_factor() } -> std::same_as<double>;
  { law.problem() } -> std::same_as<std::string>;
};
template <StragglerLaw... Laws>
using StragglerLaws = std::variant<Laws...>;

/// The straggler laws (default: none): adding a law is adding it here.
using StragglerSpec = StragglerLaws<NoStraggler, ShiftedExponentialStraggler, ParetoStraggler,
                                    BimodalStraggler, LognormalStraggler>;

/// The laws' names in scenarios and outputs, indexed as StragglerSpec.
inline constexpr auto kStragglerNames = kLawNames<StragglerSpec>;
/// The law's name (its entry in kStragglerNames).
std::string_view law_name(const StragglerSpec& law);
/// True for the none law: every factor is 1 and nothing is drawn.
inline bool is_none(const StragglerSpec& law) { return std::holds_alternative<NoStraggler>(law); }

/// A straggler law. Stateless: all randomness comes from the stream passed in.
class StragglerModel {
 public:
  virtual ~StragglerModel() = default;
  /// Draws the factor multiplying a task's nominal duration flops / speed.
  virtual double sample_factor(RandomStream& stream) const = 0;
  /// The law's mean factor (infinity where it has none).
  virtual double mean_factor() const = 0;
};

/// Returns "" when `spec` is usable, else what is wrong and what is expected, e.g.
/// "pareto shape must be > 0 (got -1)".
std::string validate_straggler(const StragglerSpec& spec);

/// The model of law `spec`. Precondition: the spec was validated (CODESIM_CHECK otherwise).
std::unique_ptr<StragglerModel> make_straggler_model(const StragglerSpec& spec);

}  // namespace codesim::sim
