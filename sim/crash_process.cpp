// CrashProcess: draws each node's next failure while it is up, crashes it, repairs it, repeats.
#include "sim/crash_process.hpp"

#include <cmath>

#include "sim/check.hpp"

namespace codesim::sim {

CrashProcess::CrashProcess(Engine& engine, std::vector<Node>& nodes, std::vector<CrashSpec> specs,
                           std::uint64_t seed, std::uint64_t replica)
    : engine_(engine), nodes_(nodes), specs_(std::move(specs)) {
  CODESIM_CHECK(specs_.size() == nodes_.size(), "one crash spec per node");
  streams_.reserve(nodes_.size());
  last_crash_s_.assign(nodes_.size(), std::nan(""));
  repair_streams_.reserve(nodes_.size());
  for (std::size_t i = 0; i < nodes_.size(); ++i) {
    CODESIM_CHECK(validate(specs_[i].failure).empty(), "a crash failure law is valid");
    CODESIM_CHECK(validate(specs_[i].repair).empty(), "a crash repair law is valid");
    const auto id = static_cast<std::uint64_t>(nodes_[i].id());
    streams_.emplace_back(StreamKey{seed, replica, "crash", id});
    repair_streams_.emplace_back(StreamKey{seed, replica, "repair", id});
  }
}

void CrashProcess::start() {
  for (int i = 0; i < static_cast<int>(nodes_.size()); ++i) schedule_failure(i);
}

void CrashProcess::schedule_failure(int node_index) {
  const CrashSpec& spec = specs_[node_index];
  if (!spec.ever_fails()) return;
  const double delay_s = draw_s(spec.failure, streams_[node_index]);
  engine_.schedule_in(delay_s, [this, node_index] {
    Node& node = nodes_[node_index];
    // Only this process is expected to crash nodes; if something else took the node down,
    // the failure finds nothing to strike and (memorylessly) the next one is drawn.
    if (!node.is_up()) {
      schedule_failure(node_index);
      return;
    }
    const bool task_lost = node.crash(engine_);
    ++crashes_;
    const bool again_at_once = last_crash_s_[node_index] == engine_.now();
    last_crash_s_[node_index] = engine_.now();
    if (on_crash_) on_crash_(node.id(), task_lost);
    if (again_at_once) return;  // down for good (see the class comment)
    // Scheduled after the listener ran, so with a repair time of 0 whatever it scheduled for
    // now still sees the node down.
    const double repair_s = draw_s(specs_[node_index].repair, repair_streams_[node_index]);
    engine_.schedule_in(repair_s, [this, node_index] {
      Node& repaired = nodes_[node_index];
      repaired.repair();
      if (on_repair_) on_repair_(repaired.id());
      schedule_failure(node_index);
    });
  });
}

CrashSpec exponential_crashes(double mtbf_s, double repair_s) {
  return {ExponentialLaw{mtbf_s}, FixedLaw{repair_s}};
}

}  // namespace codesim::sim
