// Step traces: the multiplier at a time, the end of work done at a traced speed (a node's task
// replayed to the second), and rates scaled by a multiplier.
#include "sim/step_trace.hpp"

#include <doctest/doctest.h>

#include <cmath>

#include "sim/cluster.hpp"
#include "sim/engine.hpp"

using namespace codesim::sim;

TEST_CASE("a step trace is 1 before its first step and each step's value from its time on") {
  StepTrace trace{{{10.0, 0.5}, {20.0, 3.0}}};
  CHECK(trace.value_at(0.0) == 1.0);
  CHECK(trace.value_at(9.999) == 1.0);
  CHECK(trace.value_at(10.0) == 0.5);
  CHECK(trace.value_at(19.0) == 0.5);
  CHECK(trace.value_at(1e9) == 3.0);
  CHECK(StepTrace{}.value_at(5.0) == 1.0);
}

TEST_CASE("a looping step trace repeats every period") {
  StepTrace trace{{{0.0, 2.0}, {5.0, 0.5}}, 10.0};
  CHECK(trace.value_at(4.0) == 2.0);
  CHECK(trace.value_at(7.0) == 0.5);
  CHECK(trace.value_at(14.0) == 2.0);
  CHECK(trace.value_at(1005.0) == 0.5);
  // Before the first step of each period: 1.
  StepTrace late{{{5.0, 4.0}}, 10.0};
  CHECK(late.value_at(13.0) == 1.0);
  CHECK(late.value_at(16.0) == 4.0);
}

TEST_CASE("work at a traced speed ends when the integral of the speed reaches it") {
  const StepTrace trace{{{10.0, 0.5}, {20.0, 2.0}}};
  CHECK(finish_time_s(trace, 0.0, 5.0) == 5.0);
  // 2 s at speed 1, then 2 s of work at 0.5: 4 s.
  CHECK(finish_time_s(trace, 8.0, 4.0) == doctest::Approx(14.0).epsilon(1e-15));
  // 2 s at 1 (to 10), 5 at 0.5 (to 20), 4 at 2: 11 s of work ends at 22.
  CHECK(finish_time_s(trace, 8.0, 11.0) == doctest::Approx(22.0).epsilon(1e-15));
  CHECK(std::isinf(finish_time_s(trace, 8.0, INFINITY)));
  CHECK(finish_time_s(StepTrace{}, 3.0, 4.0) == 7.0);
}

TEST_CASE("work on a looping speed trace skips whole periods and ends in the right phase") {
  // Per period of 10 s: 5 s at 1 and 5 s at 0.5, 7.5 s of work.
  const StepTrace trace{{{0.0, 1.0}, {5.0, 0.5}}, 10.0};
  CHECK(finish_time_s(trace, 0.0, 20.0) == doctest::Approx(25.0).epsilon(1e-14));
  CHECK(finish_time_s(trace, 3.0, 7.5) == doctest::Approx(13.0).epsilon(1e-14));
  // From 3: 2 s of work to 5, 2.5 to 10 (5 s at 0.5), then 0.5 at speed 1.
  CHECK(finish_time_s(trace, 3.0, 5.0) == doctest::Approx(10.5).epsilon(1e-14));
  CHECK(finish_time_s(trace, 1e6 + 3.0, 7.5e5 + 5.0) == doctest::Approx(2e6 + 10.5).epsilon(1e-12));
}

TEST_CASE("work on a trace looping faster than the clock resolves ends at the mean speed") {
  // 1e-300 s periods (half at 1, half at 0.5): the clock cannot add a period to 5 s, so the
  // loop over periods never advanced before; the work now runs at the mean speed 0.75.
  const StepTrace fast{{{0.0, 1.0}, {0.5e-300, 0.5}}, 1e-300};
  CHECK(finish_time_s(fast, 5.0, 1.0) == doctest::Approx(5.0 + 1.0 / 0.75).epsilon(1e-12));
  const StepTrace tiny{{{0.0, 2.0}}, 5e-324};
  CHECK(finish_time_s(tiny, 7.0, 3.0) == doctest::Approx(8.5).epsilon(1e-12));
  CHECK(work_per_period_s(fast) == doctest::Approx(0.75e-300));
  CHECK(std::isinf(work_per_period_s(StepTrace{{{1.0, 2.0}}})));
}

TEST_CASE("a node's task on a speed trace is replayed to the second") {
  // 1e9 flop/s; from 100 s a quarter of it. A 1e11-flop task (100 s) started at 50 runs 50 s at
  // full speed and the other 50 s of work at a quarter: it ends at 300 s.
  ClusterSpec spec = uniform_cluster(2, 1e9);
  spec.speed_traces = {StepTrace{}, StepTrace{{{100.0, 0.25}}}};
  Engine engine;
  Cluster cluster(engine, spec, 1, 0);
  double done_s[2] = {-1.0, -1.0};
  engine.schedule_at(50.0, [&] {
    for (int p = 0; p < 2; ++p)
      cluster.node(p).run_task(engine, 1e11, [&, p] { done_s[p] = engine.now(); });
  });
  engine.run();
  CHECK(done_s[0] == 150.0);
  CHECK(done_s[1] == 300.0);
  CHECK(cluster.node(1).speed_flops_per_s(120.0) == 2.5e8);
  CHECK(cluster.node(0).speed_flops_per_s(120.0) == 1e9);
}

TEST_CASE("a strike probability scaled by m is that of m independent chances") {
  const double p = 1e-3;
  CHECK(scaled_probability(p, 1.0) == p);
  CHECK(scaled_probability(p, 0.0) == 0.0);
  CHECK(scaled_probability(p, 2.0) == doctest::Approx(1.0 - (1.0 - p) * (1.0 - p)));
  CHECK(scaled_probability(p, 1000.0) == doctest::Approx(1.0 - std::pow(1.0 - p, 1000.0)));
  CHECK(scaled_probability(1.0, 0.5) == 1.0);
  CHECK(scaled_probability(1.0, 0.0) == 0.0);
}
