// The flow network model: every transfer is a flow on its route, and the flows crossing a link
// direction share its bandwidth by max-min fairness (sim/flow_network.hpp); collectives and
// incasts run as transfer schedules (sim/collective_schedules.hpp), so their transfers contend.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "sim/check.hpp"
#include "sim/collective_schedules.hpp"
#include "sim/flow_network.hpp"
#include "sim/network_cost_model.hpp"
#include "sim/symmetric_steps.hpp"

namespace codesim::sim {
namespace {

using AddCollective = TransferId (*)(TransferSchedule&, std::span<const int>, double,
                                     ScheduleStart);

AddCollective schedule_of(CollectiveKind kind) {
  switch (kind) {
    case CollectiveKind::broadcast:
      return add_broadcast;
    case CollectiveKind::reduce:
      return add_reduce;
    case CollectiveKind::ring_all_gather:
      return add_ring_all_gather;
    case CollectiveKind::bruck_all_gather:
      return add_bruck_all_gather;
    case CollectiveKind::ring_all_reduce:
      return add_ring_all_reduce;
    case CollectiveKind::scatter_all_gather_broadcast:
      return add_scatter_all_gather_broadcast;
  }
  CODESIM_CHECK(false, "unknown collective");
  return nullptr;
}

// Full schedules of the ring and Bruck collectives have p^2 and p log2 p transfers; above this many
// they are run in lockstep instead: each step's transfers as one flow schedule, steps one after
// another (memory linear in p). Nor are they solved whole when that costs more than the model's
// full_schedule_work (kFullScheduleWork; full_or_lockstep_cost): lockstep steps start together
// and mostly end together, which a full schedule on a fat tree of thousands of nodes does not.
constexpr double kMaxScheduleTransfers = 1 << 21;

bool lockstep(CollectiveKind kind, std::size_t p) {
  const auto n = static_cast<double>(p);
  switch (kind) {
    case CollectiveKind::broadcast:
    case CollectiveKind::reduce:
      return false;
    case CollectiveKind::ring_all_gather:
    case CollectiveKind::ring_all_reduce:
    case CollectiveKind::scatter_all_gather_broadcast:
      return n * n > kMaxScheduleTransfers;
    case CollectiveKind::bruck_all_gather:
      return n * std::ceil(std::log2(n)) > kMaxScheduleTransfers;
  }
  return false;
}

// One step in which every participant i sends `bytes` to participant (i + offset) mod p.
// Solved for one representative when the step's flows are alike (sim/symmetric_steps.hpp).
CommunicationCost shifted_step_cost(const Topology& topology, std::span<const int> participants,
                                    std::size_t offset, double bytes) {
  if (const auto alike = alike_shift_step_cost(topology, participants, offset, bytes))
    return *alike;
  const std::size_t p = participants.size();
  TransferSchedule schedule;
  for (std::size_t i = 0; i < p; ++i)
    schedule.add(participants[i], participants[(i + offset) % p], bytes);
  return schedule_cost(topology, schedule);
}

CommunicationCost times(double steps, const CommunicationCost& cost) {
  return {steps * cost.time_s, steps * cost.link_wait_s};
}

std::string collective_key(AddCollective add, std::span<const int> participants, double bytes) {
  std::string key = "collective";
  const auto append = [&key](const auto& value) { Topology::append_to_key(key, value); };
  append(add);
  append(bytes);
  for (int p : participants) append(p);
  return key;
}

// The cost `compute` gives, remembered by the topology under `key`: collectives repeat the same
// schedules thousands of times, far cheaper to look up than to run.
template <typename Compute>
CommunicationCost remembered_cost(const Topology& topology, std::string key, Compute compute) {
  if (const std::vector<double>* known = topology.remembered(key))
    return {(*known)[0], (*known)[1]};
  const CommunicationCost cost = compute();
  topology.remember(std::move(key), {cost.time_s, cost.link_wait_s});
  return cost;
}

// The collective's transfer schedule run alone on the network, remembered by (algorithm, bytes,
// participants).
CommunicationCost scheduled_cost(const Topology& topology, AddCollective add,
                                 std::span<const int> participants, double bytes) {
  return remembered_cost(topology, collective_key(add, participants, bytes), [&] {
    TransferSchedule schedule;
    add(schedule, participants, bytes, std::nullopt);
    return schedule_cost(topology, schedule);
  });
}

// Too many participants for one schedule (`why`): the ring and Bruck algorithms step by step.
CommunicationCost lockstep_cost(const Topology& topology, CollectiveKind kind,
                                std::span<const int> participants, double bytes,
                                const std::string& why) {
  const std::size_t p = participants.size();
  topology.note_simplification(
      "a collective over " + std::to_string(p) + " nodes (" + why +
      ") ran step by step: each step's transfers as one flow schedule, the steps one after "
      "another, where the full schedule lets a node start its next step as soon as its own "
      "transfers are done");
  if (kind == CollectiveKind::ring_all_gather)
    return times(static_cast<double>(p - 1), shifted_step_cost(topology, participants, 1, bytes));
  if (kind == CollectiveKind::ring_all_reduce) {
    const double n = static_cast<double>(p);
    return times(2.0 * (n - 1.0), shifted_step_cost(topology, participants, 1, bytes / n));
  }
  if (kind == CollectiveKind::scatter_all_gather_broadcast) {
    const double n = static_cast<double>(p);
    CommunicationCost cost = scheduled_cost(topology, add_binomial_scatter, participants, bytes);
    return cost += times(n - 1.0, shifted_step_cost(topology, participants, 1, bytes / n));
  }
  CODESIM_CHECK(kind == CollectiveKind::bruck_all_gather, "only ring and Bruck run in lockstep");
  CommunicationCost total;
  for (std::size_t stride = 1; stride < p; stride *= 2) {
    const double stride_bytes = static_cast<double>(std::min(stride, p - stride)) * bytes;
    total += shifted_step_cost(topology, participants, p - stride, stride_bytes);
  }
  return total;
}

// A collective with a lockstep form: its full schedule, unless solving it costs more than
// work_budget; then in lockstep (noted), and so is every later collective of its kind over
// as many participants or more on this topology, without trying (a replica owns its topology, so
// runs stay reproducible). Remembered as scheduled_cost is.
CommunicationCost full_or_lockstep_cost(const Topology& topology, CollectiveKind kind,
                                        std::span<const int> participants, double bytes,
                                        std::uint64_t work_budget) {
  const AddCollective add = schedule_of(kind);
  return remembered_cost(topology, collective_key(add, participants, bytes), [&] {
    std::string too_costly_key = "lockstep from";
    Topology::append_to_key(too_costly_key, kind);
    const std::vector<double>* too_costly = topology.remembered(too_costly_key);
    const auto p = static_cast<double>(participants.size());
    const std::string why = "its full schedule, or that of one as large, cost more than " +
                            std::to_string(work_budget) + " units of solver work";
    if (too_costly && p >= (*too_costly)[0])
      return lockstep_cost(topology, kind, participants, bytes, why);
    TransferSchedule schedule;
    add(schedule, participants, bytes, std::nullopt);
    const double alone_s = contention_free_makespan_s(topology, schedule);
    if (!std::isfinite(alone_s)) return schedule_cost(topology, schedule);
    if (const auto full = flow_times_within(topology, schedule, work_budget))
      return CommunicationCost{full->makespan_s, full->makespan_s - alone_s};
    topology.remember(std::move(too_costly_key), {p});
    return lockstep_cost(topology, kind, participants, bytes, why);
  });
}

// The schedule's transfers as raw bytes: equal keys mean equal schedules.
std::string schedule_key(const TransferSchedule& schedule) {
  std::string key;
  const auto append = [&key](const auto& value) { Topology::append_to_key(key, value); };
  for (const Transfer& t : schedule.transfers()) {
    append(t.src);
    append(t.dst);
    append(t.bytes);
    append(t.after.size());
    for (TransferId id : t.after) append(id);
  }
  return key;
}

// Every incast's transfers in one schedule posted at once; a destination's time is its last
// arrival plus all its work, and its link wait that minus the same without sharing.
CommunicationCost shared_incasts_cost(const Topology& topology, std::span<const Incast> incasts) {
  TransferSchedule schedule;
  std::vector<int> owner;  // per transfer: its incast's destination
  std::vector<double> then_s(static_cast<std::size_t>(topology.node_count()), 0.0);
  for (const Incast& incast : incasts) {
    then_s[static_cast<std::size_t>(incast.dst)] += incast.then_s;
    for (int source : incast.sources) {
      schedule.add(source, incast.dst, incast.bytes);
      owner.push_back(incast.dst);
    }
  }
  const std::vector<double> shared_s = run_schedule(topology, schedule).completion_s;
  const std::vector<double> alone_s = contention_free_times(topology, schedule).completion_s;
  std::vector<double> last_shared_s(then_s.size(), 0.0);
  std::vector<double> last_alone_s(then_s.size(), 0.0);
  for (std::size_t t = 0; t < owner.size(); ++t) {
    const auto node = static_cast<std::size_t>(owner[t]);
    last_shared_s[node] = std::max(last_shared_s[node], shared_s[t]);
    last_alone_s[node] = std::max(last_alone_s[node], alone_s[t]);
  }
  double time_s = 0.0;
  double alone_time_s = 0.0;
  for (std::size_t node = 0; node < then_s.size(); ++node) {
    time_s = std::max(time_s, then_s[node] + last_shared_s[node]);
    alone_time_s = std::max(alone_time_s, then_s[node] + last_alone_s[node]);
  }
  return {time_s, time_s - alone_time_s};
}

class FlowNetworkModel final : public NetworkCostModel {
 public:
  FlowNetworkModel(FlowSharing sharing, std::uint64_t full_schedule_work)
      : sharing_(sharing), full_schedule_work_(full_schedule_work) {}

  bool reports_link_wait() const override { return true; }

  // Flow runs are remembered by the topology: rounds repeat the same schedules thousands of times.
  ScheduleTimes run_schedule(const Topology& topology,
                             const TransferSchedule& schedule) const override {
    std::string key = schedule_key(schedule);
    ScheduleTimes times;
    if (const std::vector<double>* known = topology.remembered(key)) {
      times.completion_s = *known;
      for (double t_s : times.completion_s) times.makespan_s = std::max(times.makespan_s, t_s);
      return times;
    }
    // Alone, some transfer would take forever (a latency or size beyond a double's range): so
    // it does among others, and the flow network, which needs finite event times, is not asked.
    ScheduleTimes alone = contention_free_times(topology, schedule);
    times = std::isfinite(alone.makespan_s) ? flow_times(topology, schedule) : std::move(alone);
    topology.remember(std::move(key), times.completion_s);
    return times;
  }

  CommunicationCost collective_cost(const Topology& topology, CollectiveKind kind,
                                    std::span<const int> participants,
                                    double bytes) const override {
    if (lockstep(kind, participants.size()))
      return lockstep_cost(topology, kind, participants, bytes, "more than 2^21 transfers");
    if (kind == CollectiveKind::broadcast || kind == CollectiveKind::reduce)
      return scheduled_cost(topology, schedule_of(kind), participants, bytes);
    return full_or_lockstep_cost(topology, kind, participants, bytes, full_schedule_work_);
  }

  // One schedule: collectives whose routes share links contend.
  CommunicationCost concurrent_collectives_cost(const Topology& topology, CollectiveKind kind,
                                                std::span<const std::span<const int>> groups,
                                                double bytes) const override {
    const AddCollective add = schedule_of(kind);
    TransferSchedule schedule;
    for (std::span<const int> group : groups) add(schedule, group, bytes, std::nullopt);
    return schedule_cost(topology, schedule);
  }

  // The sources send at once and share the links into dst.
  CommunicationCost incast_cost(const Topology& topology, const Incast& incast) const override {
    CommunicationCost cost{incast.then_s};
    TransferSchedule schedule;
    for (int source : incast.sources) schedule.add(source, incast.dst, incast.bytes);
    cost += schedule_cost(topology, schedule);
    return cost;
  }

  CommunicationCost concurrent_incasts_cost(const Topology& topology,
                                            std::span<const Incast> incasts) const override {
    if (incasts.size() > 1) return shared_incasts_cost(topology, incasts);
    return NetworkCostModel::concurrent_incasts_cost(topology, incasts);
  }

  double routed_makespan_s(std::span<const RoutedTransfer> transfers) const override {
    const double alone_s = contention_free_makespan_s(transfers);
    if (!std::isfinite(alone_s) || transfers.empty()) return alone_s;
    std::unordered_map<std::uint64_t, std::size_t> dense;
    std::vector<FlowLink> links;
    const auto dense_route = [&](const std::vector<RouteLink>& route) {
      std::vector<std::size_t> ids;
      for (const RouteLink& link : route) {
        const auto [it, added] = dense.emplace(link.id, links.size());
        if (added)
          links.push_back(
              {std::min(link.bandwidth_Bps, std::numeric_limits<double>::max()), link.latency_s});
        ids.push_back(it->second);
      }
      return ids;
    };
    std::vector<FlowSpec> flows;
    for (const RoutedTransfer& transfer : transfers) {
      FlowSpec flow;
      flow.bytes = transfer.bytes;
      flow.route = dense_route(transfer.route);
      if (sharing_law(sharing_).cross_traffic) flow.back_route = dense_route(transfer.back_route);
      flows.push_back(std::move(flow));
    }
    const std::vector<double> done_s = simulate_flows(links, flows, sharing_);
    return *std::max_element(done_s.begin(), done_s.end());
  }

 private:
  FlowSharing sharing_;
  std::uint64_t full_schedule_work_;
};

}  // namespace

std::unique_ptr<const NetworkCostModel> detail::make_flow_network_model(
    FlowSharing sharing, std::uint64_t full_schedule_work) {
  return std::make_unique<FlowNetworkModel>(sharing, full_schedule_work);
}

}  // namespace codesim::sim
