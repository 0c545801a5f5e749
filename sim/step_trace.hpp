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

/// The shortest period a trace may loop with, seconds: below it a loop is no longer a time scale
/// the simulation resolves (a nanosecond is far below any task), and a period that the run's
/// clock cannot add to itself would stall it.
inline constexpr double kMinTracePeriod_s = 1e-9;

/// Work (seconds at multiplier 1) done over one whole period of a looping trace; infinite when it
/// does not loop.
double work_per_period_s(const StepTrace& trace);

/// When work that takes `work_s` seconds at multiplier 1 ends, started at `start_s`, when it
/// advances at the trace's multiplier (a speed: every value > 0). Infinite work never ends.
/// An empty trace gives start_s + work_s exactly. Where the clock's resolution exceeds a period
/// (its steps no longer add to the time), the rest of the work runs at the period's mean speed.
double finish_time_s(const StepTrace& speed, double start_s, double work_s);

/// The probability that an operation struck with probability p at multiplier 1 is struck at
/// multiplier m: 1 - (1 - p)^m (m independent copies of the error process; m = 1 gives p, 0
/// gives 0).
double scaled_probability(double p, double m);

}  // namespace codesim::sim
