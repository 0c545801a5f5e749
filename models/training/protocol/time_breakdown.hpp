// Where a training run's simulated time went. Work since the last checkpoint is pending: the next
// checkpoint commits it, a rollback discards it as lost work. A run stopped by its time limit in
// the middle of a step is charged the part of that step that elapsed, so the breakdown always adds
// up to the completion time.
#pragma once

#include <array>
#include <cstddef>
#include <initializer_list>

#include "sim/energy_meter.hpp"
#include "sim/metric_set.hpp"

namespace codesim::models {

/// Seconds of simulated time per kind of work.
struct WorkTime {
  double compute_s = 0.0;
  double communication_s = 0.0;  ///< including regeneration transfers
  double decode_s = 0.0;
  double checkpoint_s = 0.0;  ///< verification passes and writes
};

/// The kinds of time in the breakdown (eval and restart are never pending).
enum class TimeKind { compute, communication, decode, checkpoint, restart, eval };

/// Seconds of one kind in one step.
struct TimeCharge {
  TimeKind kind = TimeKind::compute;
  double seconds = 0.0;
};

struct TimeBreakdown {
  WorkTime pending;    ///< since the last checkpoint
  WorkTime committed;  ///< kept by a checkpoint (or the end of the run)
  double restart_s = 0.0;
  double eval_s = 0.0;
  double lost_s = 0.0;  ///< pending work discarded by rollbacks
  /// Seconds that transfers spent waiting on shared links (flow network model): the rounds' and
  /// the regenerations' time minus what the same transfers would take if they shared no link,
  /// counted when they start. Already inside the other kinds (communication, lost work, checkpoint
  /// for the verification pass's regenerations), not added to them.
  double link_wait_s = 0.0;
  bool report_link_wait = false;  ///< add_to writes time_link_wait_s (runs under the flow model)

  /// The seconds of `kind`: pending work, or restart_s or eval_s.
  double& of(TimeKind kind);
  /// pending -> committed.
  void commit();
  /// pending -> lost_s.
  void discard();
  /// A step from `start_s` that spends `charges` in turn, charged now, ahead of its end.
  void charge_ahead(double start_s, std::initializer_list<TimeCharge> charges);
  /// A step of `kind` from `start_s` whose time the caller charges when it ends.
  void charge_later(double start_s, TimeKind kind);
  /// The current step (of charge_ahead or charge_later) has been charged in full.
  void settle() { step_.count = 0; }
  /// The run stopped at `end_s` during the current step: a step charged ahead keeps only the
  /// seconds that elapsed, one charged later is charged what elapsed. Then settled.
  void cut(double end_s);
  /// Sets time_compute_s, time_communication_s, time_decode_s, time_checkpoint_s, time_restart_s,
  /// time_eval_s and time_lost_s (committed work only: commit() first), and time_link_wait_s when
  /// report_link_wait is set.
  void add_to(sim::MetricSet& metrics) const;

 private:
  struct Step {
    double start_s = 0.0;
    bool ahead = false;
    std::size_t count = 0;  // 0: none
    std::array<TimeCharge, 2> charges{};
    std::array<double, 2> before{};  // each kind's seconds before its charge
  };
  Step step_;
};

/// What the energy meter prices at idle power, from the committed breakdown (commit() first):
/// compute, communication, decode and eval are work; checkpoint, restart and lost time their own.
sim::EnergyTimes energy_times(const TimeBreakdown& time);

}  // namespace codesim::models
