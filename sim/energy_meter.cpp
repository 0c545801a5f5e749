// Joules from node-seconds and bytes; the idle baseline priced from the time breakdown.
#include "sim/energy_meter.hpp"

#include <string>

#include "sim/check.hpp"

namespace codesim::sim {

void EnergyMeter::Work::add(const Work& w) {
  busy_J += w.busy_J;
  busy_idle_J += w.busy_idle_J;
  down_extra_J += w.down_extra_J;
  verification_J += w.verification_J;
  network_B += w.network_B;
}

EnergyMeter::EnergyMeter(const ClusterSpec& cluster, int nodes)
    : power_(cluster.power.begin(), cluster.power.begin() + nodes),
      transfer_(cluster.transfer_energy) {
  CODESIM_CHECK(nodes >= 1 && nodes <= static_cast<int>(cluster.power.size()),
                "the run's nodes have their power");
  for (const PowerSpec& p : power_) {
    idle_W_ += p.idle_W;
    extra_W_ += p.busy_W - p.idle_W;
  }
}

void EnergyMeter::busy(int p, double seconds) {
  const PowerSpec& power = power_[static_cast<std::size_t>(p)];
  pending_.busy_J += power.busy_W * seconds;
  pending_.busy_idle_J += power.idle_W * seconds;
}

void EnergyMeter::decode(std::span<const int> live, bool decentralized, double seconds) {
  for (int p : live)
    if (decentralized || p == 0) busy(p, seconds);
}

void EnergyMeter::verification(double seconds) { pending_.verification_J += extra_W_ * seconds; }

void EnergyMeter::down(int p, double seconds, bool waiting) {
  const PowerSpec& power = power_[static_cast<std::size_t>(p)];
  (waiting ? down_waiting_extra_J_ : pending_.down_extra_J) +=
      (power.down_W - power.idle_W) * seconds;
}

void EnergyMeter::commit() {
  committed_.add(pending_);
  pending_ = {};
}

double sum_of_energy_parts_J(const MetricSet& metrics) {
  double total = 0.0;
  for (std::string_view part : kEnergyParts) {
    const std::string name = "energy_" + std::string(part) + "_J";
    if (metrics.contains(name)) total += metrics.get(name);
  }
  return total;
}

void EnergyMeter::discard() {
  lost_.add(pending_);
  pending_ = {};
}

void EnergyMeter::add_to(MetricSet& metrics, const EnergyTimes& time) const {
  if (power_.empty()) return;
  const double compute_J = committed_.busy_J;
  const double idle_J = idle_W_ * time.work_s - committed_.busy_idle_J + committed_.down_extra_J;
  const double network_J = committed_.network_B * transfer_.network_J_per_B;
  const double checkpoint_J = idle_W_ * time.checkpoint_s + committed_.verification_J +
                              checkpoint_B_ * transfer_.checkpoint_J_per_B;
  const double restart_J = idle_W_ * time.restart_s + down_waiting_extra_J_;
  const double lost_J = idle_W_ * time.lost_s + lost_.busy_J - lost_.busy_idle_J +
                        lost_.down_extra_J + lost_.verification_J +
                        lost_.network_B * transfer_.network_J_per_B;
  metrics.set("energy_J", compute_J + idle_J + network_J + checkpoint_J + restart_J + lost_J);
  metrics.set("energy_compute_J", compute_J);
  metrics.set("energy_idle_J", idle_J);
  metrics.set("energy_network_J", network_J);
  metrics.set("energy_checkpoint_J", checkpoint_J);
  metrics.set("energy_restart_J", restart_J);
  metrics.set("energy_lost_J", lost_J);
}

double EnergyMeter::spent_J(double elapsed_s, std::span<const double> down_since_s) const {
  Work all = committed_;
  all.add(pending_);
  all.add(lost_);
  for (std::size_t p = 0; p < down_since_s.size() && p < power_.size(); ++p)
    if (down_since_s[p] >= 0.0)
      all.down_extra_J += (power_[p].down_W - power_[p].idle_W) * (elapsed_s - down_since_s[p]);
  return idle_W_ * elapsed_s + all.busy_J - all.busy_idle_J + all.down_extra_J +
         all.verification_J + down_waiting_extra_J_ + all.network_B * transfer_.network_J_per_B +
         checkpoint_B_ * transfer_.checkpoint_J_per_B;
}

}  // namespace codesim::sim
