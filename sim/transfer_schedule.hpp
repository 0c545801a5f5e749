// A communication phase as a graph of transfers (who sends how much to whom, after what), run on
// the topology's links: the unit in which collectives and protocol phases meet the network model.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "sim/topology.hpp"

namespace codesim::sim {

using TransferId = std::size_t;

/// One point-to-point transfer. It is posted when every transfer in `after` has completed (at
/// time 0 when `after` is empty). src == dst is a join point: it takes no time and moves nothing.
struct Transfer {
  int src = 0;
  int dst = 0;
  double bytes = 0.0;
  std::vector<TransferId> after;
};

/// Transfers in the order they were added (ids 0, 1, 2, ...); `after` may only name earlier ids.
class TransferSchedule {
 public:
  TransferId add(int src, int dst, double bytes, std::vector<TransferId> after = {});
  /// A join point completing when every id in `ids` has (a transfer from node 0 to itself).
  TransferId join(std::vector<TransferId> ids);
  /// A join point after every transfer added so far: what comes next starts after all of it.
  TransferId join_all();

  std::span<const Transfer> transfers() const { return transfers_; }
  bool empty() const { return transfers_.empty(); }

 private:
  std::vector<Transfer> transfers_;
};

struct ScheduleTimes {
  std::vector<double> completion_s;  ///< per transfer, seconds from the schedule's start
  double makespan_s = 0.0;           ///< the last completion (0 for an empty schedule)
};

/// Runs the schedule under the topology's network model (NetworkCostModel::run_schedule):
///   flow      flow_times, remembered by the topology (Topology::remember), so a schedule seen
///             before costs a lookup
///   analytic  contention_free_times
/// When a transfer alone would take infinitely long, the schedule takes the contention-free times
/// (infinite) under either model.
ScheduleTimes run_schedule(const Topology& topology, const TransferSchedule& schedule);

/// Communication time and the part of it spent waiting on shared links: under the flow model,
/// its time minus that of the same transfer schedule if no two transfers shared a link; 0 under
/// the analytic model.
struct CommunicationCost {
  double time_s = 0.0;
  double link_wait_s = 0.0;
};

CommunicationCost& operator+=(CommunicationCost& a, const CommunicationCost& b);

/// The schedule's makespan under the topology's model, and the part of it lost to link sharing
/// (makespan minus contention_free_makespan_s).
CommunicationCost schedule_cost(const Topology& topology, const TransferSchedule& schedule);

/// The schedule's times under the contention-free model whatever the topology's model: what it
/// would take if its transfers shared no link (run_schedule minus this = time lost to sharing).
ScheduleTimes contention_free_times(const Topology& topology, const TransferSchedule& schedule);
/// Which links of its route a flow is solved on: under max-min sharing only those that may limit
/// it (sim/route_pruning.hpp; the same rates, up to the last bits where filling ties), or all of
/// them (the full solve, kept to check the other against). Other sharings always use all.
enum class FlowLinks { limiting, all };

/// The schedule's times as flows on their routes (route_links) sharing the links by max-min
/// fairness (sim/flow_network.hpp), each posted when its predecessors complete, whatever the
/// topology's model, not remembered. Precondition: every transfer alone takes finite time.
ScheduleTimes flow_times(const Topology& topology, const TransferSchedule& schedule,
                         FlowLinks links = FlowLinks::limiting);
/// flow_times, given up (nullopt) once re-solving rates has cost more than work_budget
/// (FlowNetwork::solve_work): for schedules that have a cheaper, simplified form to fall back on.
std::optional<ScheduleTimes> flow_times_within(const Topology& topology,
                                               const TransferSchedule& schedule,
                                               std::uint64_t work_budget);
double contention_free_makespan_s(const Topology& topology, const TransferSchedule& schedule);

}  // namespace codesim::sim
