// What the coded-training protocol did, counted the same way in the numeric and stochastic modes.
#pragma once

#include <cstdint>

#include "sim/metric_set.hpp"

namespace codesim::models {

struct ProtocolCounters {
  std::uint64_t decodes = 0;
  std::uint64_t corrected = 0;      ///< decodes that corrected errors
  std::uint64_t regenerations = 0;  ///< stored blocks rebuilt from healthy nodes
  std::uint64_t detected = 0;       ///< decodes that detected uncorrectable errors
  std::uint64_t rollbacks = 0;
  std::uint64_t checkpoints = 0;
  /// Checkpoints given up after max_stalled_rollbacks rollbacks without progress.
  std::uint64_t checkpoint_fallbacks = 0;

  /// Sets decodes, corrected, regenerations, detected, rollbacks, checkpoints and
  /// checkpoint_fallbacks, in that order.
  void add_to(sim::MetricSet& metrics) const;
};

}  // namespace codesim::models
