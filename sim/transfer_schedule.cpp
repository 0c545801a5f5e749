// Runs a transfer graph on the links: contention-free critical path, or flows sharing links.
#include "sim/transfer_schedule.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>

#include "sim/check.hpp"
#include "sim/flow_network.hpp"

namespace codesim::sim {

TransferId TransferSchedule::add(int src, int dst, double bytes, std::vector<TransferId> after) {
  CODESIM_CHECK(bytes >= 0.0, "a transfer's size must be >= 0 bytes");
  for (TransferId id : after) CODESIM_CHECK(id < transfers_.size(), "after names a later transfer");
  transfers_.push_back({src, dst, bytes, std::move(after)});
  return transfers_.size() - 1;
}

TransferId TransferSchedule::join(std::vector<TransferId> ids) {
  return add(0, 0, 0.0, std::move(ids));
}

TransferId TransferSchedule::join_all() {
  std::vector<TransferId> all(transfers_.size());
  for (TransferId id = 0; id < all.size(); ++id) all[id] = id;
  return join(std::move(all));
}

namespace {

double latest(const std::vector<double>& completion_s, const std::vector<TransferId>& ids) {
  double t_s = 0.0;
  for (TransferId id : ids) t_s = std::max(t_s, completion_s[id]);
  return t_s;
}

ScheduleTimes critical_path(const Topology& topology, const TransferSchedule& schedule) {
  ScheduleTimes times;
  const auto transfers = schedule.transfers();
  times.completion_s.resize(transfers.size());
  for (std::size_t i = 0; i < transfers.size(); ++i) {
    const Transfer& t = transfers[i];
    times.completion_s[i] =
        latest(times.completion_s, t.after) +
        (t.src == t.dst ? 0.0 : topology.transfer_time_s(t.src, t.dst, t.bytes));
    times.makespan_s = std::max(times.makespan_s, times.completion_s[i]);
  }
  return times;
}

// The flow run: routes become dense link ids of one FlowNetwork; a transfer is posted as a flow
// the moment its last predecessor completes; join points complete as soon as they are posted.
class FlowRun {
 public:
  FlowRun(const Topology& topology, const TransferSchedule& schedule)
      : transfers_(schedule.transfers()),
        waiting_on_(transfers_.size(), 0),
        successors_(transfers_.size()),
        flow_routes_(transfers_.size()) {
    std::unordered_map<std::uint64_t, std::size_t> dense;
    std::vector<FlowLink> links;
    for (std::size_t i = 0; i < transfers_.size(); ++i) {
      const Transfer& t = transfers_[i];
      waiting_on_[i] = t.after.size();
      for (TransferId before : t.after) successors_[before].push_back(i);
      if (t.src == t.dst) continue;
      for (const RouteLink& link : topology.route_links(t.src, t.dst)) {
        const auto [it, added] = dense.emplace(link.id, links.size());
        if (added) links.push_back({link.bandwidth_Bps, link.latency_s});
        flow_routes_[i].push_back(it->second);
      }
    }
    network_.emplace(std::move(links));
  }

  ScheduleTimes run() {
    times_.completion_s.assign(transfers_.size(), 0.0);
    for (std::size_t i = 0; i < transfers_.size(); ++i)
      if (waiting_on_[i] == 0) post(i);
    drain_joins();
    for (double t_s = network_->next_event_time_s(); t_s < kNever;
         t_s = network_->next_event_time_s()) {
      for (FlowId flow : network_->advance_to(t_s))
        complete(transfer_of_flow_[flow], network_->completion_time_s(flow));
      drain_joins();
    }
    for (std::size_t i = 0; i < transfers_.size(); ++i)
      CODESIM_CHECK(waiting_on_[i] == 0, "a transfer schedule left a transfer unposted");
    return std::move(times_);
  }

 private:
  static constexpr double kNever = std::numeric_limits<double>::infinity();

  void post(std::size_t i) {
    if (transfers_[i].src == transfers_[i].dst) {
      joins_.push_back(i);
      return;
    }
    network_->add_flow(std::move(flow_routes_[i]), transfers_[i].bytes, network_->now_s());
    transfer_of_flow_.push_back(i);
  }

  void complete(std::size_t i, double t_s) {
    times_.completion_s[i] = t_s;
    times_.makespan_s = std::max(times_.makespan_s, t_s);
    for (std::size_t next : successors_[i])
      if (--waiting_on_[next] == 0) post(next);
  }

  void drain_joins() {
    while (!joins_.empty()) {
      const std::size_t i = joins_.back();
      joins_.pop_back();
      complete(i, network_->now_s());
    }
  }

  std::span<const Transfer> transfers_;
  std::vector<std::size_t> waiting_on_;
  std::vector<std::vector<std::size_t>> successors_;
  std::vector<std::vector<std::size_t>> flow_routes_;
  std::optional<FlowNetwork> network_;
  std::vector<std::size_t> transfer_of_flow_;
  std::vector<std::size_t> joins_;
  ScheduleTimes times_;
};

// The schedule's transfers as raw bytes: equal keys mean equal schedules.
std::string schedule_key(const TransferSchedule& schedule) {
  std::string key;
  const auto append = [&key](const auto& value) {
    key.append(reinterpret_cast<const char*>(&value), sizeof value);
  };
  for (const Transfer& t : schedule.transfers()) {
    append(t.src);
    append(t.dst);
    append(t.bytes);
    append(t.after.size());
    for (TransferId id : t.after) append(id);
  }
  return key;
}

}  // namespace

ScheduleTimes run_schedule(const Topology& topology, const TransferSchedule& schedule) {
  if (topology.network_model() == NetworkModel::analytic) return critical_path(topology, schedule);
  std::string key = schedule_key(schedule);
  ScheduleTimes times;
  if (const std::vector<double>* known = topology.remembered(key)) {
    times.completion_s = *known;
  } else {
    times = FlowRun(topology, schedule).run();
    topology.remember(std::move(key), times.completion_s);
    return times;
  }
  for (double t_s : times.completion_s) times.makespan_s = std::max(times.makespan_s, t_s);
  return times;
}

double contention_free_makespan_s(const Topology& topology, const TransferSchedule& schedule) {
  return critical_path(topology, schedule).makespan_s;
}

}  // namespace codesim::sim
