// SoftErrorProcess: per-node strike probabilities and one uniform draw per operation.
#include "sim/soft_error_process.hpp"

#include <cmath>

#include "sim/check.hpp"

namespace codesim::sim {

SoftErrorProcess::SoftErrorProcess(std::vector<SoftErrorSpec> specs, std::uint64_t seed,
                                   std::uint64_t replica)
    : specs_(std::move(specs)) {
  streams_.reserve(specs_.size());
  for (std::size_t i = 0; i < specs_.size(); ++i) {
    const SoftErrorSpec& spec = specs_[i];
    CODESIM_CHECK(spec.probability_per_operation >= 0.0 && spec.probability_per_operation <= 1.0,
                  "soft-error probability_per_operation must be in [0, 1]");
    CODESIM_CHECK(spec.rate_per_flop >= 0.0 && std::isfinite(spec.rate_per_flop),
                  "soft-error rate_per_flop must be finite and >= 0");
    streams_.emplace_back(StreamKey{seed, replica, "soft_error", static_cast<std::uint64_t>(i)});
  }
}

double SoftErrorProcess::strike_probability(int node, double flops) const {
  CODESIM_CHECK(node >= 0 && node < node_count(), "soft-error node out of range");
  CODESIM_CHECK(flops >= 0.0, "operation flops must be >= 0");
  const SoftErrorSpec& spec = specs_[node];
  // 1 - (1 - eps) e^(-r f) written with expm1 so tiny rates keep their precision.
  const double eps = spec.probability_per_operation;
  return eps - (1.0 - eps) * std::expm1(-spec.rate_per_flop * flops);
}

std::optional<SoftErrorStrike> SoftErrorProcess::sample(int node, double flops, SimTime now_s,
                                                        std::string target) {
  const double p = strike_probability(node, flops);
  // Exactly one draw per call, struck or not, so later draws do not depend on earlier rates.
  const double u = streams_[node].uniform01();
  if (!(u < p)) return std::nullopt;
  ++strikes_;
  return SoftErrorStrike{node, now_s, std::move(target)};
}

}  // namespace codesim::sim
