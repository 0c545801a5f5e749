// Committing and discarding pending work; the breakdown's metrics.
#include "models/dnn/time_breakdown.hpp"

namespace codesim::models {

void TimeBreakdown::commit() {
  committed.compute_s += pending.compute_s;
  committed.communication_s += pending.communication_s;
  committed.decode_s += pending.decode_s;
  committed.checkpoint_s += pending.checkpoint_s;
  pending = {};
}

void TimeBreakdown::discard() {
  lost_s += pending.compute_s + pending.communication_s + pending.decode_s + pending.checkpoint_s;
  pending = {};
}

void TimeBreakdown::add_to(sim::MetricSet& metrics) const {
  metrics.set("time_compute_s", committed.compute_s);
  metrics.set("time_communication_s", committed.communication_s);
  metrics.set("time_decode_s", committed.decode_s);
  metrics.set("time_checkpoint_s", committed.checkpoint_s);
  metrics.set("time_restart_s", restart_s);
  metrics.set("time_eval_s", eval_s);
  metrics.set("time_lost_s", lost_s);
}

}  // namespace codesim::models
