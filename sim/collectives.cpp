// Cost of broadcast, reduce, all-gather and all-reduce from the routes of a topology.
#include "sim/collectives.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <string>
#include <vector>

#include "sim/check.hpp"
#include "sim/collective_schedules.hpp"
#include "sim/transfer_schedule.hpp"

namespace codesim::sim {
namespace {

// Binomial tree rounds: in the round with stride s = 2^k, participant i < s pairs with i + s.
// `towards_root` reverses every transfer (reduce). Rounds are summed in the same order either
// way; their order does not change the total.
double binomial_tree_time_s(const Topology& topology, std::span<const int> participants,
                            double bytes, bool towards_root) {
  CODESIM_CHECK(bytes >= 0.0, "collective size must be >= 0 bytes");
  const std::size_t p = participants.size();
  double total_s = 0.0;
  for (std::size_t stride = 1; stride < p; stride *= 2) {
    double round_s = 0.0;
    for (std::size_t i = 0; i < stride && i + stride < p; ++i) {
      const int holder = participants[i];
      const int other = participants[i + stride];
      round_s = std::max(round_s, towards_root ? topology.transfer_time_s(other, holder, bytes)
                                               : topology.transfer_time_s(holder, other, bytes));
    }
    total_s += round_s;
  }
  return total_s;
}

// Full schedules of the ring and Bruck collectives have p^2 and p log2 p transfers; above this many
// they are run in lockstep instead: each step's transfers as one flow schedule, steps one after
// another (the same time when links are uniform, and memory linear in p).
constexpr double kMaxScheduleTransfers = 1 << 21;

bool lockstep(std::size_t p, double steps_per_participant) {
  return static_cast<double>(p) * steps_per_participant > kMaxScheduleTransfers;
}

// One step in which every participant i sends `bytes` to participant (i + offset) mod p.
CommunicationCost shifted_step_cost(const Topology& topology, std::span<const int> participants,
                                    std::size_t offset, double bytes) {
  const std::size_t p = participants.size();
  TransferSchedule schedule;
  for (std::size_t i = 0; i < p; ++i)
    schedule.add(participants[i], participants[(i + offset) % p], bytes);
  return schedule_cost(topology, schedule);
}

CommunicationCost times(double steps, const CommunicationCost& cost) {
  return {steps * cost.time_s, steps * cost.link_wait_s};
}

// One ring step: every participant i sends `bytes` to i + 1 (mod p); the slowest sets the pace.
CommunicationCost ring_step_cost(const Topology& topology, std::span<const int> participants,
                                 double bytes) {
  CODESIM_CHECK(bytes >= 0.0, "collective size must be >= 0 bytes");
  const std::size_t p = participants.size();
  if (topology.network_model() == NetworkModel::flow)
    return shifted_step_cost(topology, participants, 1, bytes);
  double step_s = 0.0;
  for (std::size_t i = 0; i < p; ++i)
    step_s = std::max(step_s,
                      topology.transfer_time_s(participants[i], participants[(i + 1) % p], bytes));
  return {step_s, 0.0};
}

using AddCollective = TransferId (*)(TransferSchedule&, std::span<const int>, double,
                                     ScheduleStart);

// Under the flow model a collective costs its transfer schedule run alone on the network.
bool use_flows(const Topology& topology, std::span<const int> participants) {
  return topology.network_model() == NetworkModel::flow && participants.size() > 1;
}

CommunicationCost flow_cost(const Topology& topology, AddCollective add,
                            std::span<const int> participants, double bytes) {
  CODESIM_CHECK(bytes >= 0.0, "collective size must be >= 0 bytes");
  // Remembered by (algorithm, bytes, participants): far cheaper to look up than the schedule.
  std::string key = "collective";
  const auto append = [&key](const auto& value) { Topology::append_to_key(key, value); };
  append(add);
  append(bytes);
  for (int p : participants) append(p);
  if (const std::vector<double>* known = topology.remembered(key))
    return {(*known)[0], (*known)[1]};
  TransferSchedule schedule;
  add(schedule, participants, bytes, std::nullopt);
  const CommunicationCost cost = schedule_cost(topology, schedule);
  topology.remember(std::move(key), {cost.time_s, cost.link_wait_s});
  return cost;
}

CommunicationCost ring_all_gather_cost(const Topology& topology, std::span<const int> participants,
                                       double bytes_each) {
  if (use_flows(topology, participants) && !lockstep(participants.size(), participants.size()))
    return flow_cost(topology, add_ring_all_gather, participants, bytes_each);
  if (participants.size() <= 1) return {};
  const double steps = static_cast<double>(participants.size() - 1);
  return times(steps, ring_step_cost(topology, participants, bytes_each));
}

CommunicationCost bruck_all_gather_cost(const Topology& topology, std::span<const int> participants,
                                        double bytes_each) {
  const std::size_t p = participants.size();
  const bool flows = use_flows(topology, participants);
  if (flows && !lockstep(p, std::ceil(std::log2(static_cast<double>(p)))))
    return flow_cost(topology, add_bruck_all_gather, participants, bytes_each);
  CODESIM_CHECK(bytes_each >= 0.0, "collective size must be >= 0 bytes");
  CommunicationCost total;
  for (std::size_t stride = 1; stride < p; stride *= 2) {
    const double bytes = static_cast<double>(std::min(stride, p - stride)) * bytes_each;
    if (flows) {
      total += shifted_step_cost(topology, participants, p - stride, bytes);
      continue;
    }
    double round_s = 0.0;
    for (std::size_t i = 0; i < p; ++i) {
      round_s = std::max(round_s, topology.transfer_time_s(
                                      participants[i], participants[(i + p - stride) % p], bytes));
    }
    total.time_s += round_s;
  }
  return total;
}

}  // namespace

CommunicationCost broadcast_cost(const Topology& topology, std::span<const int> participants,
                                 double bytes) {
  if (use_flows(topology, participants))
    return flow_cost(topology, add_broadcast, participants, bytes);
  return {binomial_tree_time_s(topology, participants, bytes, false), 0.0};
}

double broadcast_time_s(const Topology& topology, std::span<const int> participants, double bytes) {
  return broadcast_cost(topology, participants, bytes).time_s;
}

double reduce_time_s(const Topology& topology, std::span<const int> participants, double bytes) {
  if (use_flows(topology, participants))
    return flow_cost(topology, add_reduce, participants, bytes).time_s;
  return binomial_tree_time_s(topology, participants, bytes, true);
}

double all_gather_time_s(const Topology& topology, std::span<const int> participants,
                         double bytes_each) {
  return ring_all_gather_cost(topology, participants, bytes_each).time_s;
}

double bruck_all_gather_time_s(const Topology& topology, std::span<const int> participants,
                               double bytes_each) {
  return bruck_all_gather_cost(topology, participants, bytes_each).time_s;
}

CommunicationCost fastest_all_gather_cost(const Topology& topology,
                                          std::span<const int> participants, double bytes_each) {
  const CommunicationCost ring = ring_all_gather_cost(topology, participants, bytes_each);
  const CommunicationCost bruck = bruck_all_gather_cost(topology, participants, bytes_each);
  return bruck.time_s < ring.time_s ? bruck : ring;
}

double fastest_all_gather_time_s(const Topology& topology, std::span<const int> participants,
                                 double bytes_each) {
  return fastest_all_gather_cost(topology, participants, bytes_each).time_s;
}

double all_reduce_time_s(const Topology& topology, std::span<const int> participants,
                         double bytes) {
  if (use_flows(topology, participants) && !lockstep(participants.size(), participants.size()))
    return flow_cost(topology, add_ring_all_reduce, participants, bytes).time_s;
  if (participants.size() <= 1) return 0.0;
  const double p = static_cast<double>(participants.size());
  return 2.0 * (p - 1.0) * ring_step_cost(topology, participants, bytes / p).time_s;
}

}  // namespace codesim::sim
