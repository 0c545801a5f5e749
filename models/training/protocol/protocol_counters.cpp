// Metric names of the protocol counters.
#include "models/training/protocol/protocol_counters.hpp"

namespace codesim::models {

void ProtocolCounters::add_to(sim::MetricSet& metrics) const {
  metrics.set("decodes", static_cast<double>(decodes));
  metrics.set("corrected", static_cast<double>(corrected));
  metrics.set("regenerations", static_cast<double>(regenerations));
  metrics.set("detected", static_cast<double>(detected));
  metrics.set("rollbacks", static_cast<double>(rollbacks));
  metrics.set("checkpoints", static_cast<double>(checkpoints));
  metrics.set("checkpoint_fallbacks", static_cast<double>(checkpoint_fallbacks));
}

}  // namespace codesim::models
