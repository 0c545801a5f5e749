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
  for (std::size_t i = 0; i < nodes_.size(); ++i) {
    CODESIM_CHECK(specs_[i].mtbf_s > 0.0, "crash mtbf_s must be > 0");
    CODESIM_CHECK(specs_[i].repair_s >= 0.0 && std::isfinite(specs_[i].repair_s),
                  "crash repair_s must be finite and >= 0");
    const auto id = static_cast<std::uint64_t>(nodes_[i].id());
    streams_.emplace_back(StreamKey{seed, replica, "crash", id});
  }
}

void CrashProcess::start() {
  for (int i = 0; i < static_cast<int>(nodes_.size()); ++i) schedule_failure(i);
}

void CrashProcess::schedule_failure(int node_index) {
  const CrashSpec& spec = specs_[node_index];
  if (std::isinf(spec.mtbf_s)) return;
  const double delay_s = streams_[node_index].exponential(1.0 / spec.mtbf_s);
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
    // Scheduled after the listener ran, so with repair_s == 0 whatever it scheduled for now
    // still sees the node down.
    engine_.schedule_in(specs_[node_index].repair_s, [this, node_index] {
      Node& repaired = nodes_[node_index];
      repaired.repair();
      if (on_repair_) on_repair_(repaired.id());
      schedule_failure(node_index);
    });
  });
}

}  // namespace codesim::sim
