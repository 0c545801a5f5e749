// Straggler laws: the random factor (>= some floor) by which a node's compute task is slowed.
#pragma once

#include <array>
#include <memory>
#include <string>
#include <string_view>

#include "sim/random_stream.hpp"

namespace codesim::sim {

/// The straggler laws:
///   none                 factor 1;                                    mean 1
///   shifted_exponential  factor = shift + Exp(rate);                  mean shift + 1/rate
///   pareto               factor = scale / U^(1/shape), U ~ U(0,1];    mean shape*scale/(shape-1)
///                        (infinite for shape <= 1)
///   bimodal              factor = slowdown w.p. probability_slow, else 1;
///                                                                     mean 1 + p (slowdown - 1)
///   lognormal            factor = exp(N(mu, sigma^2));                mean exp(mu + sigma^2/2)
enum class StragglerKind { none, shifted_exponential, pareto, bimodal, lognormal };

/// The laws' names (in scenarios and outputs), indexed by StragglerKind.
inline constexpr std::array<std::string_view, 5> kStragglerKindNames = {
    "none", "shifted_exponential", "pareto", "bimodal", "lognormal"};
std::string_view to_string(StragglerKind kind);

/// Plain description of one straggler law. Which fields are read depends on `kind`.
struct StragglerSpec {
  StragglerKind kind = StragglerKind::none;
  double shift = 1.0;             // shifted_exponential: >= 0
  double rate = 1.0;              // shifted_exponential: > 0
  double scale = 1.0;             // pareto: > 0
  double shape = 3.0;             // pareto: > 0
  double probability_slow = 0.0;  // bimodal: in [0, 1]
  double slowdown = 1.0;          // bimodal: >= 1
  double mu = 0.0;                // lognormal
  double sigma = 0.0;             // lognormal: >= 0
};

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
/// "pareto shape must be > 0 (got -1)". Only the fields `spec.kind` reads are checked.
std::string validate_straggler(const StragglerSpec& spec);

/// Builds the law `spec.kind` names. Precondition: the spec was validated (CODESIM_CHECK
/// otherwise).
std::unique_ptr<StragglerModel> make_straggler_model(const StragglerSpec& spec);

}  // namespace codesim::sim
