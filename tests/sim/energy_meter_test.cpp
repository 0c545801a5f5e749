// The energy meter: busy, idle and down node-seconds priced per node, bytes per byte, and work
// rolled back counted as lost, each kind apart and adding up to energy_J.
#include "sim/energy_meter.hpp"

#include <doctest/doctest.h>

#include "sim/cluster.hpp"

using namespace codesim::sim;

namespace {

ClusterSpec two_nodes() {
  ClusterSpec c = uniform_cluster(3, 1e9);  // node 2 is outside the scheme
  c.power[1].busy_W = 500.0;
  c.power[1].idle_W = 100.0;
  c.power[1].down_W = 10.0;
  c.transfer_energy.network_J_per_B = 1e-6;
  c.transfer_energy.checkpoint_J_per_B = 2e-6;
  return c;
}

}  // namespace

TEST_CASE("busy node-seconds cost busy power and the rest of the work idle power") {
  EnergyMeter meter(two_nodes(), 2);
  CHECK(meter.idle_W() == 250.0);
  meter.busy(0, 2.0);  // 300 W
  meter.busy(1, 1.0);  // 500 W
  meter.network(1e6);
  meter.commit();
  EnergyTimes time;
  time.work_s = 4.0;  // 3 s computing, 1 s communicating
  MetricSet m;
  meter.add_to(m, time);
  CHECK(m.get("energy_compute_J") == doctest::Approx(300.0 * 2 + 500.0 * 1));
  // 4 s of work: node 0 idles 2 s at 150 W, node 1 3 s at 100 W.
  CHECK(m.get("energy_idle_J") == doctest::Approx(150.0 * 2 + 100.0 * 3));
  CHECK(m.get("energy_network_J") == doctest::Approx(1.0));
  CHECK(m.get("energy_J") == doctest::Approx(sum_of_energy_parts_J(m)));
  CHECK(m.get("energy_J") == doctest::Approx(1100.0 + 600.0 + 1.0));
}

TEST_CASE("work rolled back is lost energy, and checkpoints and restarts have their own") {
  EnergyMeter meter(two_nodes(), 2);
  meter.busy(0, 1.0);
  meter.network(2e6);
  meter.discard();  // a rollback
  meter.verification(0.5);
  meter.checkpoint_written(1e6);
  meter.commit();
  EnergyTimes time;
  time.lost_s = 3.0;
  time.checkpoint_s = 1.0;
  time.restart_s = 2.0;
  MetricSet m;
  meter.add_to(m, time);
  // Lost: both nodes idle for 3 s, node 0's extra 150 W for 1 s, 2 J of bytes.
  CHECK(m.get("energy_lost_J") == doctest::Approx(250.0 * 3 + 150.0 + 2.0));
  // Checkpoint: 1 s idle, the verification's 0.5 s busy (extra 150 + 400 W), 2 J written.
  CHECK(m.get("energy_checkpoint_J") == doctest::Approx(250.0 + 0.5 * 550.0 + 2.0));
  CHECK(m.get("energy_restart_J") == doctest::Approx(500.0));
  CHECK(m.get("energy_compute_J") == 0.0);
  CHECK(m.get("energy_J") == doctest::Approx(sum_of_energy_parts_J(m)));
}

TEST_CASE("a node down draws its down power instead of its idle power") {
  EnergyMeter meter(two_nodes(), 2);
  meter.down(1, 2.0, false);  // during work
  meter.down(0, 1.0, true);   // while the job waits for the repair
  meter.commit();
  EnergyTimes time;
  time.work_s = 4.0;
  time.restart_s = 1.0;
  MetricSet m;
  meter.add_to(m, time);
  CHECK(m.get("energy_idle_J") == doctest::Approx(250.0 * 4 - 90.0 * 2));
  CHECK(m.get("energy_restart_J") == doctest::Approx(250.0 * 1 - 150.0 * 1));
}
