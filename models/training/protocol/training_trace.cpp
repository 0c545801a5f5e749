// TrainingTrace: bookkeeping of open tasks and down times, and the faults' arguments.
#include "models/training/protocol/training_trace.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace codesim::models::detail {

TrainingTrace::TrainingTrace(sim::TraceSink* sink, int nodes, double end_limit_s)
    : sink_(sink),
      end_limit_s_(end_limit_s),
      tasks_(static_cast<std::size_t>(nodes)),
      down_since_s_(static_cast<std::size_t>(nodes), std::numeric_limits<double>::quiet_NaN()) {}

// A slice's duration cut at the run's time limit (a phase charged ahead may pass it).
double TrainingTrace::clip(double start_s, double duration_s) const {
  return std::max(0.0, std::min(duration_s, end_limit_s_ - start_s));
}

void TrainingTrace::task_started(int node, double now_s, std::string_view name, int layer,
                                 double flops, double nominal_s, double duration_s) {
  if (!on() || ended_) return;
  OpenTask& task = tasks_[static_cast<std::size_t>(node)];
  task = {true, name, layer, now_s, flops, nominal_s > 0.0 ? duration_s / nominal_s : 1.0};
}

void TrainingTrace::task_ended(int node, double now_s, std::string_view outcome) {
  if (!on() || node >= static_cast<int>(tasks_.size())) return;
  OpenTask& task = tasks_[static_cast<std::size_t>(node)];
  if (!task.open) return;
  task.open = false;
  sink_->slice(node, sim::TraceLane::compute, task.name, task.start_s,
               clip(task.start_s, now_s - task.start_s),
               {{"layer", task.layer},
                {"straggler_factor", task.straggler_factor},
                {"flops", task.flops},
                {"outcome", outcome}});
}

void TrainingTrace::phase(const std::vector<int>& nodes, std::string_view name, double start_s,
                          double duration_s, sim::TraceArgs args) {
  if (!on() || ended_ || !(duration_s > 0.0)) return;
  const double duration = clip(start_s, duration_s);
  for (int node : nodes)
    sink_->slice(node, sim::TraceLane::protocol, name, start_s, duration, args);
}

void TrainingTrace::instant(int track, std::string_view name, double time_s, sim::TraceArgs args) {
  if (on() && !ended_) sink_->instant(track, name, time_s, args);
}

void TrainingTrace::accuracy_and_loss(double time_s, double accuracy, double loss) {
  if (!on() || ended_) return;
  sink_->counter("test_accuracy", time_s, accuracy);
  sink_->counter("train_loss", time_s, loss);
}

void TrainingTrace::energy(double time_s, double joules) {
  if (on() && !ended_) sink_->counter("energy_J", time_s, joules);
}

void TrainingTrace::transfer(std::string_view name, int from, int to, double start_s,
                             double duration_s) {
  if (!on() || ended_ || !(duration_s > 0.0)) return;
  sink_->flow(name, from, start_s, to, start_s + clip(start_s, duration_s));
}

void TrainingTrace::progress(int iterations) {
  if (on()) sink_->progress(iterations);
}

void TrainingTrace::crashed(int node, double now_s) {
  if (!on() || ended_) return;
  sink_->instant(node, "crash", now_s);
  if (node < static_cast<int>(down_since_s_.size()))
    down_since_s_[static_cast<std::size_t>(node)] = now_s;
}

void TrainingTrace::repaired(int node, double now_s) {
  if (!on() || node >= static_cast<int>(down_since_s_.size())) return;
  double& since = down_since_s_[static_cast<std::size_t>(node)];
  if (std::isnan(since)) return;
  sink_->slice(node, sim::TraceLane::state, "down", since, clip(since, now_s - since));
  since = std::numeric_limits<double>::quiet_NaN();
}

void TrainingTrace::sync(const FaultLog& log, const ProtocolCounters& counts, int track,
                         double now_s, std::string_view where) {
  if (!on()) return;
  for (; faults_seen_ < log.records.size(); ++faults_seen_) {
    const FaultRecord& r = log.records[faults_seen_];
    sink_->instant(r.node, "fault", r.time_s,
                   {{"target", kFaultTargetNames[static_cast<std::size_t>(r.target)]},
                    {"value_model", kValueModelKindNames[static_cast<std::size_t>(r.model)]},
                    {"entries", static_cast<double>(r.entries.size())},
                    {"operation", std::string_view(r.operation)},
                    {"layer", r.layer}});
  }
  for (; corrected_seen_ < counts.corrected; ++corrected_seen_)
    sink_->instant(track, "correction", now_s, {{"where", where}});
  for (; detected_seen_ < counts.detected; ++detected_seen_)
    sink_->instant(track, "detection", now_s, {{"where", where}});
}

void TrainingTrace::close(double now_s) {
  if (!on()) return;
  for (int node = 0; node < static_cast<int>(tasks_.size()); ++node) {
    task_ended(node, now_s, "run ended");
    repaired(node, now_s);
  }
  ended_ = true;
}

}  // namespace codesim::models::detail
