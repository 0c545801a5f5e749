// A compute node: speed, up/down state, and one compute task at a time slowed by its straggler law.
#pragma once

#include <functional>
#include <memory>

#include "sim/engine.hpp"
#include "sim/random_stream.hpp"
#include "sim/step_trace.hpp"
#include "sim/straggler_model.hpp"

namespace codesim::sim {

enum class NodeState { up, down };

class Node {
 public:
  /// `straggler` is shared between nodes with the same law; `straggler_stream` is this node's own.
  /// `speed_trace` (null: none) multiplies the speed over time (sim/step_trace.hpp).
  Node(int id, double speed_flops_per_s, std::shared_ptr<const StragglerModel> straggler,
       RandomStream straggler_stream, std::shared_ptr<const StepTrace> speed_trace = nullptr);

  int id() const { return id_; }
  double speed_flops_per_s() const { return speed_flops_per_s_; }
  NodeState state() const { return up_ ? NodeState::up : NodeState::down; }
  bool is_up() const { return up_; }
  bool is_busy() const { return busy_; }

  /// Duration of a task of `flops`: flops / speed times a freshly drawn straggler factor;
  /// +infinity (never ends) when either overflowed. Without the speed trace.
  double draw_task_duration_s(double flops);
  /// The same drawn duration, done at the speed trace's multiplier from `start_s` on.
  double draw_task_duration_s(double flops, double start_s);
  /// The node's speed at `t_s` (its speed times the trace's multiplier).
  double speed_flops_per_s(double t_s) const {
    return speed_trace_ ? speed_flops_per_s_ * speed_trace_->value_at(t_s) : speed_flops_per_s_;
  }
  bool has_speed_trace() const { return speed_trace_ != nullptr; }
  /// Starts a task of `flops`; `on_done` runs at completion unless the node crashes first.
  /// Returns the task's duration in seconds. Precondition: up and not busy.
  double run_task(Engine& engine, double flops, std::function<void()> on_done);
  /// Takes the node down; a running task is lost (its completion never runs).
  /// Returns true when a task was lost.
  bool crash(Engine& engine);
  /// Abandons the running task, if any (its completion never runs); the node stays up.
  void cancel_task(Engine& engine);
  /// Brings the node back up, idle.
  void repair() { up_ = true; }

 private:
  // The completion event of the running task (`node` is this).
  static void complete_task(void* node);

  // The first 64 bytes are all a task touches (one cache line when the node is aligned); the
  // stream's state and the model's owner come after and are read only when a factor is drawn.
  // on_done_ is kept here rather than captured by the event, which is a plain callback.
  std::function<void()> on_done_;
  const StragglerModel* straggler_model_;  // straggler_.get()
  double speed_flops_per_s_;
  EventId running_;
  int id_;
  bool up_ = true;
  bool busy_ = false;
  std::shared_ptr<const StragglerModel> straggler_;
  RandomStream straggler_stream_;
  std::shared_ptr<const StepTrace> speed_trace_;
};

}  // namespace codesim::sim
