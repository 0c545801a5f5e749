// StepTrace: the multiplier at a time and the end of work done at a varying speed.
#include "sim/step_trace.hpp"

#include <algorithm>

#include "sim/check.hpp"

namespace codesim::sim {
namespace {

/// Index of the step in force at `phase_s` (within one period), -1 before the first.
long step_at(const StepTrace& trace, double phase_s) {
  const auto after =
      std::upper_bound(trace.steps.begin(), trace.steps.end(), phase_s,
                       [](double t, const StepTrace::Step& step) { return t < step.from_s; });
  return static_cast<long>(after - trace.steps.begin()) - 1;
}

double value_of(const StepTrace& trace, long step) {
  return step < 0 ? 1.0 : trace.steps[static_cast<std::size_t>(step)].value;
}

}  // namespace

double work_per_period_s(const StepTrace& trace) {
  if (!std::isfinite(trace.period_s)) return INFINITY;
  double work = 0.0;
  double from_s = 0.0;
  for (long i = -1; i < static_cast<long>(trace.steps.size()); ++i) {
    const double to_s = i + 1 < static_cast<long>(trace.steps.size())
                            ? trace.steps[static_cast<std::size_t>(i + 1)].from_s
                            : trace.period_s;
    work += value_of(trace, i) * (to_s - from_s);
    from_s = to_s;
  }
  return work;
}

double StepTrace::value_at(double t_s) const {
  if (steps.empty()) return 1.0;
  const double phase_s = std::isfinite(period_s) ? std::fmod(t_s, period_s) : t_s;
  return value_of(*this, step_at(*this, phase_s));
}

double finish_time_s(const StepTrace& speed, double start_s, double work_s) {
  if (speed.empty() || !std::isfinite(work_s)) return start_s + work_s;
  const bool periodic = std::isfinite(speed.period_s);
  // Whole periods first (a long task on a short looping trace), then step by step.
  double period_start_s = periodic ? start_s - std::fmod(start_s, speed.period_s) : 0.0;
  double t_s = start_s;
  if (periodic) {
    const double per_period = work_per_period_s(speed);
    CODESIM_CHECK(per_period > 0.0, "a speed trace must make progress (validated)");
    const double whole = std::floor(work_s / per_period);
    // More periods than a double counts: far below the clock's resolution (as below).
    if (!std::isfinite(whole)) return start_s + work_s * speed.period_s / per_period;
    if (whole >= 1.0) {
      // Any window of one period does the same work, wherever it starts.
      work_s -= whole * per_period;
      t_s += whole * speed.period_s;
      period_start_s += whole * speed.period_s;
    }
  }
  long step = step_at(speed, t_s - period_start_s);
  for (;;) {
    const bool last = step + 1 >= static_cast<long>(speed.steps.size());
    const double end_s =
        last ? (periodic ? period_start_s + speed.period_s : INFINITY)
             : period_start_s + speed.steps[static_cast<std::size_t>(step + 1)].from_s;
    const double rate = value_of(speed, step);
    CODESIM_CHECK(rate > 0.0, "a speed multiplier must be > 0");
    if (last && periodic && !(period_start_s + speed.period_s > period_start_s)) {
      // The clock cannot add the period to the time: the steps are below its resolution, and
      // the rest runs at the period's mean speed (else this loop would never end).
      return t_s + work_s * speed.period_s / work_per_period_s(speed);
    }
    if (work_s <= rate * (end_s - t_s)) return t_s + work_s / rate;
    work_s -= rate * (end_s - t_s);
    t_s = end_s;
    if (last) {
      period_start_s += speed.period_s;
      step = -1;
    } else {
      ++step;
    }
  }
}

double scaled_probability(double p, double m) {
  if (m == 1.0) return p;
  if (p >= 1.0) return m > 0.0 ? 1.0 : 0.0;
  return -std::expm1(m * std::log1p(-p));
}

}  // namespace codesim::sim
