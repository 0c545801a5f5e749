// How transfers use the links: the network model a run chose, asked for the cost of each
// communication pattern (schedules, collectives, incasts, transfers on explicit routes).
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "sim/metric_set.hpp"
#include "sim/topology.hpp"
#include "sim/transfer_schedule.hpp"

namespace codesim::sim {

/// The collectives whose algorithms sim/collectives.hpp describes.
enum class CollectiveKind {
  broadcast,
  reduce,
  ring_all_gather,
  bruck_all_gather,
  ring_all_reduce,
  scatter_all_gather_broadcast
};

/// `bytes` sent to compute node `dst` by each of `sources` (a node listed twice sends twice; dst
/// itself moves nothing), after which dst works `then_s` seconds on what arrived.
struct Incast {
  int dst = 0;
  std::span<const int> sources;
  double bytes = 0.0;
  double then_s = 0.0;
};

/// A transfer along explicit directed links (RouteLink ids: equal ids are the same link
/// direction, shared with every other transfer crossing it).
struct RoutedTransfer {
  std::vector<RouteLink> route;
  double bytes = 0.0;
  /// The links from its destination back to its source, which cross-traffic loads under a
  /// sharing that has it (sim/flow_sharing.hpp); unused otherwise.
  std::vector<RouteLink> back_route = {};
};

/// A network model: what communication costs on a topology. Each Topology holds the one its spec
/// chose (Topology::network_cost_model); the collectives, schedules, protocols and checkpoint
/// storage ask it and never ask which it is. Stateless: what it remembers, the topology keeps.
class NetworkCostModel {
 public:
  virtual ~NetworkCostModel() = default;

  /// Whether costs carry a time lost to link sharing (CommunicationCost::link_wait_s) that
  /// results report (time_link_wait_s); a model without sharing has none to report.
  virtual bool reports_link_wait() const = 0;

  /// Every transfer's completion time, seconds from the schedule's start (sim::run_schedule).
  virtual ScheduleTimes run_schedule(const Topology& topology,
                                     const TransferSchedule& schedule) const = 0;

  /// One collective (sim/collectives.hpp) alone on the network.
  /// Preconditions: at least two participants, bytes >= 0.
  virtual CommunicationCost collective_cost(const Topology& topology, CollectiveKind kind,
                                            std::span<const int> participants,
                                            double bytes) const = 0;

  /// The same collective over several groups of participants started at once: until the last
  /// one ends. A group of fewer than two participants costs nothing.
  virtual CommunicationCost concurrent_collectives_cost(
      const Topology& topology, CollectiveKind kind, std::span<const std::span<const int>> groups,
      double bytes) const = 0;

  /// One incast: its transfers posted at once, then dst's work.
  virtual CommunicationCost incast_cost(const Topology& topology, const Incast& incast) const = 0;

  /// Several incasts started at once; the slowest destination counts. By default a destination
  /// takes its incasts one after another and destinations do not interact.
  virtual CommunicationCost concurrent_incasts_cost(const Topology& topology,
                                                    std::span<const Incast> incasts) const;

  /// Transfers on explicit routes, all posted at time 0: seconds until the last completes
  /// (0 when there are none).
  virtual double routed_makespan_s(std::span<const RoutedTransfer> transfers) const = 0;
};

/// Writes the topology's simplification, if any, as the note `network_simplified` of `metrics`.
void add_network_notes(MetricSet& metrics, const Topology& topology);

/// The model a scenario names: the one place the alternatives are told apart. `sharing` and
/// `full_schedule_work` are the flow model's (sim/flow_sharing.hpp; sim/topology.hpp); the
/// analytic model takes max_min only.
std::unique_ptr<const NetworkCostModel> make_network_cost_model(
    NetworkModel model, FlowSharing sharing = FlowSharing::max_min,
    std::uint64_t full_schedule_work = kFullScheduleWork);

/// routed_makespan_s if no two transfers shared a link: the slowest transfer alone (its route's
/// latency + bytes / its bottleneck bandwidth).
double contention_free_makespan_s(std::span<const RoutedTransfer> transfers);

namespace detail {
std::unique_ptr<const NetworkCostModel> make_analytic_network_model();
std::unique_ptr<const NetworkCostModel> make_flow_network_model(FlowSharing sharing,
                                                                std::uint64_t full_schedule_work);
}  // namespace detail

}  // namespace codesim::sim
