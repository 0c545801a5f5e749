// Where a training run's simulated time went. Work since the last checkpoint is pending: the next
// checkpoint commits it, a rollback discards it as lost work.
#pragma once

#include "sim/metric_set.hpp"

namespace codesim::models {

/// Seconds of simulated time per kind of work.
struct WorkTime {
  double compute_s = 0.0;
  double communication_s = 0.0;  ///< including regeneration transfers
  double decode_s = 0.0;
  double checkpoint_s = 0.0;  ///< verification passes and writes
};

struct TimeBreakdown {
  WorkTime pending;    ///< since the last checkpoint
  WorkTime committed;  ///< kept by a checkpoint (or the end of the run)
  double restart_s = 0.0;
  double eval_s = 0.0;
  double lost_s = 0.0;  ///< pending work discarded by rollbacks

  /// pending -> committed.
  void commit();
  /// pending -> lost_s.
  void discard();
  /// Sets time_compute_s, time_communication_s, time_decode_s, time_checkpoint_s, time_restart_s,
  /// time_eval_s and time_lost_s (committed work only: commit() first).
  void add_to(sim::MetricSet& metrics) const;
};

}  // namespace codesim::models
