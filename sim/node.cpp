// Node: task timing and loss of the running task on a crash.
#include "sim/node.hpp"

#include <cmath>

#include "sim/check.hpp"

namespace codesim::sim {

Node::Node(int id, double speed_flops_per_s, std::shared_ptr<const StragglerModel> straggler,
           RandomStream straggler_stream, std::shared_ptr<const StepTrace> speed_trace)
    : straggler_model_(straggler.get()),
      speed_flops_per_s_(speed_flops_per_s),
      id_(id),
      straggler_(std::move(straggler)),
      straggler_stream_(std::move(straggler_stream)),
      speed_trace_(std::move(speed_trace)) {
  CODESIM_CHECK(speed_flops_per_s > 0.0, "node speed must be positive");
  CODESIM_CHECK(straggler_ != nullptr, "node needs a straggler model");
}

double Node::draw_task_duration_s(double flops) {
  const double nominal_s = flops / speed_flops_per_s_;
  const double factor = straggler_model_->sample_factor(straggler_stream_);
  // A time or factor that overflowed makes a task that never ends, even times a factor (or a
  // time) that underflowed to 0, whose product would be NaN.
  if (std::isinf(nominal_s) || std::isinf(factor)) return INFINITY;
  return nominal_s * factor;
}

double Node::draw_task_duration_s(double flops, double start_s) {
  const double duration_s = draw_task_duration_s(flops);
  if (!speed_trace_) return duration_s;
  return finish_time_s(*speed_trace_, start_s, duration_s) - start_s;
}

double Node::run_task(Engine& engine, double flops, std::function<void()> on_done) {
  CODESIM_CHECK(is_up(), "task started on a down node");
  CODESIM_CHECK(!busy_, "task started on a busy node");
  const double duration_s = draw_task_duration_s(flops, engine.now());
  busy_ = true;
  on_done_ = std::move(on_done);
  // The engine's fast path: a plain callback on this node, no std::function to store or call.
  running_ = engine.schedule_in(duration_s, &Node::complete_task, this);
  return duration_s;
}

void Node::complete_task(void* node) {
  Node& self = *static_cast<Node*>(node);
  self.busy_ = false;
  // Moved out first: `done` may start this node's next task, which refills on_done_.
  const std::function<void()> done = std::move(self.on_done_);
  self.on_done_ = nullptr;
  done();
}

bool Node::crash(Engine& engine) {
  up_ = false;
  const bool lost = busy_;  // a task that never ends is lost too, though it holds no event
  if (busy_) engine.cancel(running_);
  busy_ = false;
  on_done_ = nullptr;
  return lost;
}

void Node::cancel_task(Engine& engine) {
  if (busy_) engine.cancel(running_);
  busy_ = false;
  on_done_ = nullptr;
}

}  // namespace codesim::sim
