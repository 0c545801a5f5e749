// CrashTimeline: sim::CrashProcess's draws and event order on a heap of its own.
#include "models/dnn/stochastic_crashes.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace codesim::models::detail {
namespace {

// A min-heap by (time, sequence): the engine runs events of one instant first come, first served.
bool later(double a_s, std::uint64_t a_seq, double b_s, std::uint64_t b_seq) {
  return a_s != b_s ? a_s > b_s : a_seq > b_seq;
}

}  // namespace

CrashTimeline::CrashTimeline(const std::vector<sim::CrashSpec>& specs, std::uint64_t seed,
                             std::uint64_t replica)
    : specs_(specs) {
  last_crash_s_.assign(specs_.size(), std::nan(""));
  for (std::size_t i = 0; i < specs_.size(); ++i) {
    up_streams_.emplace_back(sim::StreamKey{seed, replica, "crash", i});
    repair_streams_.emplace_back(sim::StreamKey{seed, replica, "repair", i});
    active_ = active_ || specs_[i].ever_fails();
  }
  // CrashProcess::start: every node's first failure, in node order, at time 0.
  for (int i = 0; i < static_cast<int>(specs_.size()); ++i) schedule_failure(i, 0.0);
}

double CrashTimeline::next_s() const {
  return heap_.empty() ? std::numeric_limits<double>::infinity() : heap_.front().time_s;
}

void CrashTimeline::push(double time_s, int node, bool crash) {
  heap_.push_back({time_s, sequence_++, {time_s, node, crash}});
  std::push_heap(heap_.begin(), heap_.end(), [](const Scheduled& a, const Scheduled& b) {
    return later(a.time_s, a.sequence, b.time_s, b.sequence);
  });
}

void CrashTimeline::schedule_failure(int node, double now_s) {
  const sim::CrashSpec& spec = specs_[static_cast<std::size_t>(node)];
  if (!spec.ever_fails()) return;
  push(now_s + sim::draw_s(spec.failure, up_streams_[static_cast<std::size_t>(node)]), node, true);
}

CrashEvent CrashTimeline::pop() {
  std::pop_heap(heap_.begin(), heap_.end(), [](const Scheduled& a, const Scheduled& b) {
    return later(a.time_s, a.sequence, b.time_s, b.sequence);
  });
  const CrashEvent e = heap_.back().event;
  heap_.pop_back();
  const auto index = static_cast<std::size_t>(e.node);
  if (!e.crash) {
    schedule_failure(e.node, e.time_s);
    return e;
  }
  const bool again_at_once = last_crash_s_[index] == e.time_s;
  last_crash_s_[index] = e.time_s;
  if (!again_at_once) {
    // Drawn after the crash's listener in CrashProcess; the draw order per stream is what counts.
    push(e.time_s + sim::draw_s(specs_[index].repair, repair_streams_[index]), e.node, false);
  }
  return e;
}

}  // namespace codesim::models::detail
