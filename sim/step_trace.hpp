// A piecewise-constant multiplier over simulated time, replayed from a trace: a node's speed (as
// SimGrid's speed profiles) or its soft-error rate (a core that turns mercurial).
#pragma once

#include <cmath>
#include <vector>

namespace codesim::sim {

/// The multiplier is 1 until the first step, then each step's `value` from its `from_s` until
/// the next step. With a finite `period_s` the steps repeat: the value at t is the value at
/// t mod period_s (every step then lies in [0, period_s), and the multiplier is 1 before the
/// first step of each period). An empty trace is 1 at all times.
struct StepTrace {
  struct Step {
    double from_s = 0.0;
    double value = 1.0;
  };
  std::vector<Step> steps;  ///< from_s strictly increasing, >= 0
  double period_s = INFINITY;

  bool empty() const { return steps.empty(); }
  /// The multiplier at time t_s >= 0.
  double value_at(double t_s) const;
};

/// When work that takes `work_s` seconds at multiplier 1 ends, started at `start_s`, when it
/// advances at the trace's multiplier (a speed: every value > 0). Infinite work never ends.
/// An empty trace gives start_s + work_s exactly.
double finish_time_s(const StepTrace& speed, double start_s, double work_s);

/// The probability that an operation struck with probability p at multiplier 1 is struck at
/// multiplier m: 1 - (1 - p)^m (m independent copies of the error process; m = 1 gives p, 0
/// gives 0).
double scaled_probability(double p, double m);

}  // namespace codesim::sim
