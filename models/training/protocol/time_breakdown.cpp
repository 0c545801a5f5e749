// Committing and discarding pending work, charging steps ahead or later and cutting the current
// one at the time limit; the breakdown's metrics.
#include "models/training/protocol/time_breakdown.hpp"

#include <algorithm>

#include "sim/check.hpp"

namespace codesim::models {

double& TimeBreakdown::of(TimeKind kind) {
  switch (kind) {
    case TimeKind::compute:
      return pending.compute_s;
    case TimeKind::communication:
      return pending.communication_s;
    case TimeKind::decode:
      return pending.decode_s;
    case TimeKind::checkpoint:
      return pending.checkpoint_s;
    case TimeKind::restart:
      return restart_s;
    case TimeKind::eval:
      break;
  }
  return eval_s;
}

void TimeBreakdown::commit() {
  committed.compute_s += pending.compute_s;
  committed.communication_s += pending.communication_s;
  committed.decode_s += pending.decode_s;
  committed.checkpoint_s += pending.checkpoint_s;
  pending = {};
  settle();
}

void TimeBreakdown::discard() {
  lost_s += pending.compute_s + pending.communication_s + pending.decode_s + pending.checkpoint_s;
  pending = {};
  settle();
}

void TimeBreakdown::charge_ahead(double start_s, std::initializer_list<TimeCharge> charges) {
  CODESIM_CHECK(charges.size() <= step_.charges.size(), "a step charges at most two kinds");
  step_ = Step{start_s, true, 0, {}, {}};
  for (const TimeCharge& charge : charges) {
    double& seconds = of(charge.kind);
    step_.before[step_.count] = seconds;
    step_.charges[step_.count++] = charge;
    seconds += charge.seconds;
  }
}

void TimeBreakdown::charge_later(double start_s, TimeKind kind) {
  step_ = Step{start_s, false, 1, {TimeCharge{kind, 0.0}}, {}};
}

void TimeBreakdown::cut(double end_s) {
  double elapsed_s = std::max(0.0, end_s - step_.start_s);
  for (std::size_t i = 0; i < step_.count; ++i) {
    double& seconds = of(step_.charges[i].kind);
    if (!step_.ahead) {
      seconds += elapsed_s;
      continue;
    }
    // Restored from before the charge rather than reduced by what did not elapse, which would
    // cancel catastrophically after a huge charge (an eval_cost_s of 1e308).
    const double kept_s = std::min(elapsed_s, step_.charges[i].seconds);
    seconds = step_.before[i] + kept_s;
    elapsed_s -= kept_s;
  }
  settle();
}

void TimeBreakdown::add_to(sim::MetricSet& metrics) const {
  metrics.set("time_compute_s", committed.compute_s);
  metrics.set("time_communication_s", committed.communication_s);
  metrics.set("time_decode_s", committed.decode_s);
  metrics.set("time_checkpoint_s", committed.checkpoint_s);
  metrics.set("time_restart_s", restart_s);
  metrics.set("time_eval_s", eval_s);
  metrics.set("time_lost_s", lost_s);
  // The rounds' waits are differences of makespans that sum the same times in other orders: a
  // run with no sharing at all can total -2e-18 s, which is reported as the 0 it is.
  if (report_link_wait) metrics.set("time_link_wait_s", std::max(0.0, link_wait_s));
}

sim::EnergyTimes energy_times(const TimeBreakdown& time) {
  const WorkTime& w = time.committed;
  // The sum in this order, as the meter always took it: training's energy stays the same bits.
  return {w.compute_s + w.communication_s + w.decode_s + time.eval_s, w.checkpoint_s,
          time.restart_s, time.lost_s};
}

}  // namespace codesim::models
