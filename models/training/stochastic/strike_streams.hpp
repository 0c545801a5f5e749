// The stochastic backend's strikes: per (node, target) stream an Exp(1) budget that each
// opportunity of strike probability p spends -log(1 - p) of (geometric skipping: one random draw
// per strike, not per opportunity), at the fault injector's rates.
#pragma once

#include <array>
#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

#include "models/faults/fault_injector.hpp"
#include "sim/random_stream.hpp"
#include "sim/step_trace.hpp"

namespace codesim::models::detail {

inline constexpr double kInf = std::numeric_limits<double>::infinity();

/// The hazard -log(1 - p) an opportunity of strike probability p spends.
double strike_hazard(double p);

/// The fault injector's strike probability per opportunity; 0 for a disabled (node, target).
class StrikeRates {
 public:
  StrikeRates(const FaultConfig& faults, int cluster_nodes, std::uint64_t seed,
              std::uint64_t replica)
      : rates_(faults, cluster_nodes, seed, replica),
        resolved_(resolve_fault_rates(faults, cluster_nodes)) {}

  bool enabled(int p, FaultTarget target) const {
    return !is_disabled(resolved_[static_cast<std::size_t>(p)][static_cast<std::size_t>(target)]);
  }
  double probability(int p, FaultTarget target, double flops) const {
    return enabled(p, target) ? rates_.strike_probability(p, target, flops) : 0.0;
  }

 private:
  FaultInjector rates_;
  std::vector<NodeFaultRates> resolved_;
};

/// The (weights, update) opportunities of an update: per node, its stored blocks of every layer
/// and their hazards.
struct UpdateOpportunities {
  std::vector<int> begin;  ///< per node + 1, into block and hazard
  std::vector<int> block;
  std::vector<double> hazard;
};

/// The strike streams of nodes 0 .. nodes - 1, one per target, keyed (seed, replica,
/// "stochastic_strike.<target>", node), and the strikes they made.
class StrikeStreams {
 public:
  StrikeStreams() = default;
  StrikeStreams(const StrikeRates& rates, const FaultConfig& faults, int nodes, std::uint64_t seed,
                std::uint64_t replica);

  /// A `target` opportunity of `hazard` at node p at `now_s`; true when it struck (counted).
  bool strike(FaultTarget target, int p, double hazard, double now_s) {
    return spend(target, p, scaled(hazard, rate_factor(p, now_s)));
  }
  bool weights(int p, double hazard, double now_s) {
    return strike(FaultTarget::weights, p, hazard, now_s);
  }
  bool product(int p, double hazard, double now_s) {
    return strike(FaultTarget::product, p, hazard, now_s);
  }
  /// Node p's (weights, update) opportunities of `u` at `now_s`, one after another: each strike
  /// adds one to its block's count in `wrong`.
  void update(int p, const UpdateOpportunities& u, double now_s, std::vector<int>& wrong);
  /// Strikes so far.
  std::uint64_t count() const { return count_; }
  /// The run's first checkpoint is written: with faults.off_before_first_checkpoint, strikes
  /// start here (before, every hazard is 0).
  void checkpoint_written() { quiet_ = false; }

 private:
  // Node p's strike hazards are multiplied by this at now_s: at multiplier m, an opportunity of
  // probability p spends m (-log(1 - p)), the hazard of 1 - (1 - p)^m.
  double rate_factor(int p, double now_s) const {
    if (quiet_) return 0.0;
    return rate_traces_.empty() ? 1.0 : rate_traces_[static_cast<std::size_t>(p)].value_at(now_s);
  }
  // The hazard times `factor`; 0 at factor 0 even for a certain strike (an infinite hazard).
  static double scaled(double hazard, double factor) {
    return factor == 0.0 ? 0.0 : hazard * factor;
  }
  bool spend(FaultTarget target, int p, double hazard) {
    Streams& t = targets_[static_cast<std::size_t>(target)];
    double& left = t.budget[static_cast<std::size_t>(p)];
    left -= hazard;
    if (left >= 0.0) return false;
    left = t.streams[static_cast<std::size_t>(p)]->exponential(1.0);
    ++count_;
    return true;
  }
  void open(const StrikeRates& rates, FaultTarget target, int nodes, std::uint64_t seed,
            std::uint64_t replica);

  struct Streams {
    std::vector<double> budget;  // per node: hazard left before the next strike
    std::vector<std::optional<sim::RandomStream>> streams;
  };
  std::array<Streams, kFaultTargetCount> targets_;
  // Per node, the multiplier of its strike hazards over time (empty: none; FaultConfig).
  std::vector<sim::StepTrace> rate_traces_;
  bool quiet_ = false;  ///< before the first checkpoint, with off_before_first_checkpoint
  std::uint64_t count_ = 0;
};

}  // namespace codesim::models::detail
