// Soft-error process: decides when and on which node a soft error strikes an operation.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/engine.hpp"
#include "sim/random_stream.hpp"

namespace codesim::sim {

/// Soft-error rate of one node. An operation of `flops` is struck with probability
/// 1 - (1 - probability_per_operation) * exp(-rate_per_flop * flops): both sources combine.
struct SoftErrorSpec {
  double probability_per_operation = 0.0;  ///< the papers' epsilon, in [0, 1]
  double rate_per_flop = 0.0;              ///< errors per floating-point operation, >= 0
};

/// One soft error: where and when it struck and which operation/target it hit. What it does to
/// the numbers is decided elsewhere (models/faults).
struct SoftErrorStrike {
  int node = 0;
  SimTime time_s = 0.0;
  std::string target;  ///< e.g. "task", "product", "weights"
};

class SoftErrorProcess {
 public:
  /// `specs[i]` applies to node i. Draws come from stream (seed, replica, "soft_error", node).
  SoftErrorProcess(std::vector<SoftErrorSpec> specs, std::uint64_t seed, std::uint64_t replica);

  /// Probability that one operation of `flops` on `node` is struck.
  double strike_probability(int node, double flops) const;
  /// Samples whether the operation of `flops` on `node` at `now_s` is struck (one draw).
  std::optional<SoftErrorStrike> sample(int node, double flops, SimTime now_s, std::string target);
  std::uint64_t strikes() const { return strikes_; }
  int node_count() const { return static_cast<int>(specs_.size()); }

 private:
  std::vector<SoftErrorSpec> specs_;
  std::vector<RandomStream> streams_;
  std::uint64_t strikes_ = 0;
};

}  // namespace codesim::sim
