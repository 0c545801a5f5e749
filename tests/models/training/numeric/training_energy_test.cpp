// Energy of numeric training runs end to end: the breakdown adds up, idle power is a floor, and
// the accuracy_vs_time series' energy_J column is the energy spent so far (ending at energy_J);
// and the time breakdown's seconds the meter prices.
#include <doctest/doctest.h>

#include "sim/energy_meter.hpp"

#include <vector>

#include "models/training/protocol/time_breakdown.hpp"
#include "models/training/train.hpp"
#include "tests/models/training/coded_training_test_support.hpp"

using namespace codesim;
using namespace codesim::models;
using namespace codesim::models::testing;

namespace {

// A run with crashes, rollbacks and restarts: uncoded, node 1 fails often.
TrainingResult crashing_run(int nodes_down_W) {
  TrainingSpec spec = training("uncoded", 40);
  spec.eval_every = 4;
  sim::ClusterSpec c = cluster();
  c.crashes[1] = sim::exponential_crashes(4e-4, 2e-4);
  for (sim::PowerSpec& p : c.power) p.down_W = nodes_down_W;
  return train(spec, no_faults(), every(5, 1e-5, 2e-5), c);
}

}  // namespace

TEST_CASE("a training run's energy adds up to energy_J and idle power over its time is a floor") {
  const TrainingResult r = crashing_run(0);
  const sim::MetricSet& m = r.metrics;
  REQUIRE(m.get("crashes") > 0.0);
  REQUIRE(m.get("rollbacks") > 0.0);
  CHECK(m.get("energy_J") == doctest::Approx(sim::sum_of_energy_parts_J(m)).epsilon(1e-12));
  CHECK(m.get("energy_lost_J") > 0.0);
  CHECK(m.get("energy_restart_J") > 0.0);
  CHECK(m.get("energy_checkpoint_J") > 0.0);
  // Four scheme nodes at 150 W idle and 300 W busy, with down nodes drawing more than 0 W.
  const double t = m.get("completion_time_s");
  const TrainingResult up = crashing_run(150);
  CHECK(up.metrics.get("energy_J") >= 4 * 150.0 * t);
  CHECK(m.get("energy_J") < up.metrics.get("energy_J"));  // the same run, down nodes at 0 W
  CHECK(up.metrics.get("energy_J") <=
        4 * 300.0 * t + m.get("energy_network_J") + m.get("energy_checkpoint_J"));
}

TEST_CASE("the accuracy series' energy grows with time and its last row is the run's energy") {
  for (int down_W : {0, 150}) {
    const TrainingResult r = crashing_run(down_W);
    const sim::MetricSeries& curve = r.metrics.series("accuracy_vs_time");
    REQUIRE(curve.columns.size() == 5);
    CHECK(curve.columns[4] == "energy_J");
    REQUIRE(curve.rows() >= 3);
    CHECK(curve.at(0, 4) == 0.0);
    for (std::size_t row = 1; row < curve.rows(); ++row) {
      CHECK(curve.at(row, 0) >= curve.at(row - 1, 0));
      CHECK(curve.at(row, 4) > curve.at(row - 1, 4));
      if (down_W == 150) CHECK(curve.at(row, 4) >= 4 * 150.0 * curve.at(row, 0) * (1 - 1e-12));
    }
    // The last row is at the end of the run (no evaluation cost here).
    const std::size_t last = curve.rows() - 1;
    CHECK(curve.at(last, 0) == doctest::Approx(r.metrics.get("completion_time_s")));
    CHECK(curve.at(last, 4) == doctest::Approx(r.metrics.get("energy_J")).epsilon(1e-12));
  }
}

TEST_CASE("the meter prices committed compute, communication, decode and eval as training's work") {
  TimeBreakdown time;
  time.committed = {1.0, 2.0, 4.0, 8.0};  // compute, communication, decode, checkpoint
  time.pending.compute_s = 16.0;          // not committed: not priced
  time.eval_s = 32.0;
  time.restart_s = 64.0;
  time.lost_s = 128.0;
  const sim::EnergyTimes t = energy_times(time);
  CHECK(t.work_s == 1.0 + 2.0 + 4.0 + 32.0);
  CHECK(t.checkpoint_s == 8.0);
  CHECK(t.restart_s == 64.0);
  CHECK(t.lost_s == 128.0);
}
