// The strike streams: their keys, first budgets and the update's run of opportunities.
#include "models/training/stochastic/strike_streams.hpp"

#include <cmath>
#include <string>

namespace codesim::models::detail {

double strike_hazard(double p) { return p >= 1.0 ? kInf : -std::log1p(-p); }

StrikeStreams::StrikeStreams(const StrikeRates& rates, const FaultConfig& faults, int nodes,
                             std::uint64_t seed, std::uint64_t replica)
    : rate_traces_(faults.rate_traces), quiet_(faults.off_before_first_checkpoint) {
  for (int k = 0; k < kFaultTargetCount; ++k)
    open(rates, static_cast<FaultTarget>(k), nodes, seed, replica);
}

// One stream per node with `target` enabled and its first Exp(1) budget (infinite when
// disabled).
void StrikeStreams::open(const StrikeRates& rates, FaultTarget target, int nodes,
                         std::uint64_t seed, std::uint64_t replica) {
  std::vector<double>& budget = targets_[static_cast<std::size_t>(target)].budget;
  auto& streams = targets_[static_cast<std::size_t>(target)].streams;
  budget.assign(static_cast<std::size_t>(nodes), kInf);
  streams.resize(static_cast<std::size_t>(nodes));
  const std::string component = "stochastic_strike." + std::string(to_string(target));
  for (int p = 0; p < nodes; ++p) {
    if (!rates.enabled(p, target)) continue;
    auto& stream = streams[static_cast<std::size_t>(p)];
    stream.emplace(sim::StreamKey{seed, replica, component, static_cast<std::uint64_t>(p)});
    budget[static_cast<std::size_t>(p)] = stream->exponential(1.0);
  }
}

void StrikeStreams::update(int p, const UpdateOpportunities& u, double now_s,
                           std::vector<int>& wrong) {
  const auto index = static_cast<std::size_t>(p);
  Streams& weights = targets_[static_cast<std::size_t>(FaultTarget::weights)];
  double budget = weights.budget[index];
  const double factor = rate_factor(p, now_s);
  for (int j = u.begin[index]; j < u.begin[index + 1]; ++j) {
    budget -= scaled(u.hazard[static_cast<std::size_t>(j)], factor);
    if (budget < 0.0) {
      budget = weights.streams[index]->exponential(1.0);
      wrong[static_cast<std::size_t>(u.block[static_cast<std::size_t>(j)])]++;
      ++count_;
    }
  }
  weights.budget[index] = budget;
}

}  // namespace codesim::models::detail
