// Runs a transfer graph on the links: contention-free critical path, or flows sharing links; the
// topology's network model says which (sim/network_cost_model.hpp).
#include "sim/transfer_schedule.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <utility>

#include "sim/check.hpp"
#include "sim/flow_network.hpp"
#include "sim/network_cost_model.hpp"
#include "sim/route_pruning.hpp"
#include "sim/run_stopped.hpp"

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

// A map of 64-bit keys to 32-bit values with open addressing: the run looks a key up per transfer,
// and std::unordered_map's node per entry made that the cost of small schedules.
class FlatMap {
 public:
  explicit FlatMap(std::size_t expected) {
    std::size_t capacity = 16;
    while (capacity < 2 * expected) capacity *= 2;
    slots_.assign(capacity, {kEmpty, 0});
  }

  // The value of `key`, inserting `value` when absent; second is true when it was inserted.
  std::pair<std::uint32_t, bool> emplace(std::uint64_t key, std::uint32_t value) {
    if (2 * (size_ + 1) > slots_.size()) grow();
    for (std::size_t i = slot_of(key);; i = (i + 1) & (slots_.size() - 1)) {
      if (slots_[i].first == key) return {slots_[i].second, false};
      if (slots_[i].first != kEmpty) continue;
      slots_[i] = {key, value};
      ++size_;
      return {value, true};
    }
  }

 private:
  static constexpr std::uint64_t kEmpty = std::numeric_limits<std::uint64_t>::max();

  std::size_t slot_of(std::uint64_t key) const {
    // Fibonacci hashing: the high bits of key * 2^64 / phi.
    return static_cast<std::size_t>((key * 0x9E3779B97F4A7C15ull) >> 32) & (slots_.size() - 1);
  }

  void grow() {
    std::vector<std::pair<std::uint64_t, std::uint32_t>> old(2 * slots_.size(), {kEmpty, 0});
    old.swap(slots_);
    size_ = 0;
    for (const auto& [key, value] : old)
      if (key != kEmpty) emplace(key, value);
  }

  std::vector<std::pair<std::uint64_t, std::uint32_t>> slots_;
  std::size_t size_ = 0;
};

// The flow run: routes become dense link ids of one FlowNetwork; a transfer is posted as a flow
// the moment its last predecessor completes; join points complete as soon as they are posted.
// Everything is kept in flat arrays (successors as offsets into one list, each distinct route
// once), so that a run allocates a handful of buffers whatever its number of transfers.
// A link of bandwidth beyond a double's range (a fat tree doubling 1e308 B/s) never limits a flow
// that a finite link could: the largest double stands for it.
FlowLink flow_link(const RouteLink& link) {
  return {std::min(link.bandwidth_Bps, std::numeric_limits<double>::max()), link.latency_s};
}

class FlowRun {
 public:
  // work_budget: see run; walking the routes counts against it too.
  FlowRun(const Topology& topology, const TransferSchedule& schedule, FlowLinks solved_on,
          std::uint64_t work_budget)
      : transfers_(schedule.transfers()),
        waiting_on_(transfers_.size(), 0),
        cross_traffic_(sharing_law(topology.sharing()).cross_traffic),
        pruned_(sharing_law(topology.sharing()).plain() && solved_on == FlowLinks::limiting),
        work_budget_(work_budget) {
    link_successors();
    std::vector<FlowLink> links = dense_routes(topology);
    if (route_work_ <= work_budget_) network_.emplace(std::move(links), topology.sharing());
  }

  // The times, or nullopt once the work (route hops walked, then the network's solve_work) passes
  // the budget.
  std::optional<ScheduleTimes> run() {
    if (!network_) return std::nullopt;
    times_.completion_s.assign(transfers_.size(), kNever);
    for (std::size_t i = 0; i < transfers_.size(); ++i)
      if (waiting_on_[i] == 0) post(i);
    drain_joins();
    for (double t_s = network_->next_event_time_s(); t_s < kNever;
         t_s = network_->next_event_time_s()) {
      for (FlowId flow : network_->advance_to(t_s))
        complete(transfer_of_flow_[flow], network_->completion_time_s(flow));
      drain_joins();
      poll_stop("a flow simulation");
      if (network_->solve_work() > work_budget_ - route_work_) return std::nullopt;
    }
    // Rates so small that completion times overflow leave flows unfinished: they take forever.
    for (double t_s : times_.completion_s)
      if (t_s == kNever) times_.makespan_s = kNever;
    return std::move(times_);
  }

 private:
  static constexpr double kNever = std::numeric_limits<double>::infinity();
  static constexpr std::uint32_t kNoRoute = std::numeric_limits<std::uint32_t>::max();

  // successors_[successor_begin_[i] .. successor_begin_[i + 1]) follow transfer i, in the order
  // they were added (as per-transfer lists would hold them).
  void link_successors() {
    successor_begin_.assign(transfers_.size() + 1, 0);
    for (std::size_t i = 0; i < transfers_.size(); ++i) {
      waiting_on_[i] = transfers_[i].after.size();
      for (TransferId before : transfers_[i].after) ++successor_begin_[before + 1];
    }
    for (std::size_t i = 0; i < transfers_.size(); ++i)
      successor_begin_[i + 1] += successor_begin_[i];
    successors_.resize(successor_begin_.back());
    std::vector<std::size_t> filled(successor_begin_.begin(), successor_begin_.end() - 1);
    for (std::size_t i = 0; i < transfers_.size(); ++i)
      for (TransferId before : transfers_[i].after) successors_[filled[before]++] = i;
  }

  // Each distinct (src, dst) is routed once; link ids are numbered densely in order of first
  // appearance (transfer order, then hop order, then the back route's hops under cross-traffic),
  // the order the flow network breaks ties by. Under max-min sharing a route keeps only the links
  // that may limit it (sim/route_pruning.hpp), numbered in the same order, and the routes are
  // walked twice instead of held whole: an incast over long routes stays small.
  std::vector<FlowLink> dense_routes(const Topology& topology) {
    std::vector<FlowLink> links;
    FlatMap dense(64);
    FlatMap route_of_pair(64);
    route_of_.assign(transfers_.size(), kNoRoute);
    route_begin_.assign(1, 0);
    back_begin_.assign(1, 0);
    std::vector<std::uint64_t> pairs;  // each distinct (src, dst), in order
    LimitingLinks limiting;
    std::vector<std::uint32_t> ids;
    const auto add_links = [&](const std::vector<RouteLink>& route, auto& to) {
      route_work_ += route.size();
      for (const RouteLink& link : route) {
        const auto [dense_id, added] =
            dense.emplace(link.id, static_cast<std::uint32_t>(links.size()));
        if (added) links.push_back(flow_link(link));
        to.push_back(dense_id);
      }
    };
    for (std::size_t i = 0; i < transfers_.size(); ++i) {
      const Transfer& t = transfers_[i];
      if (t.src == t.dst) continue;
      const std::uint64_t pair = (std::uint64_t{static_cast<std::uint32_t>(t.src)} << 32) |
                                 static_cast<std::uint32_t>(t.dst);
      const auto [route, added_route] =
          route_of_pair.emplace(pair, static_cast<std::uint32_t>(pairs.size()));
      route_of_[i] = route;
      if (!added_route) continue;
      if (route_work_ > work_budget_) return links;  // given up: run() says so
      pairs.push_back(pair);
      if (pruned_) {
        ids.clear();
        add_links(topology.route_links(t.src, t.dst), ids);
        limiting.add_route(ids);
        continue;
      }
      add_links(topology.route_links(t.src, t.dst), route_links_);
      route_begin_.push_back(route_links_.size());
      if (cross_traffic_) add_links(topology.route_links(t.dst, t.src), back_links_);
      back_begin_.push_back(back_links_.size());
    }
    if (pruned_) return limiting_routes(topology, links, limiting, pairs, dense);
    return links;
  }

  // The second walk: each route's latency and its links that may limit it, renumbered densely in
  // their first order.
  std::vector<FlowLink> limiting_routes(const Topology& topology,
                                        const std::vector<FlowLink>& links,
                                        const LimitingLinks& limiting,
                                        const std::vector<std::uint64_t>& pairs, FlatMap& dense) {
    std::vector<double> capacity_Bps(links.size());
    for (std::size_t link = 0; link < links.size(); ++link)
      capacity_Bps[link] = links[link].bandwidth_Bps;
    const std::vector<char> may_limit = limiting.may_limit(capacity_Bps);
    std::vector<std::uint32_t> kept_id(links.size(), 0);
    std::vector<FlowLink> kept;
    for (std::size_t link = 0; link < links.size(); ++link) {
      if (!may_limit[link]) continue;
      kept_id[link] = static_cast<std::uint32_t>(kept.size());
      kept.push_back(links[link]);
    }
    for (const std::uint64_t pair : pairs) {
      double latency_s = 0.0;
      for (const RouteLink& link : topology.route_links(static_cast<int>(pair >> 32),
                                                        static_cast<int>(pair & 0xFFFFFFFF))) {
        latency_s += link.latency_s;
        const std::uint32_t id = dense.emplace(link.id, 0).first;
        if (may_limit[id]) route_links_.push_back(kept_id[id]);
      }
      route_latency_s_.push_back(latency_s);
      route_begin_.push_back(route_links_.size());
    }
    return kept;
  }

  void post(std::size_t i) {
    if (route_of_[i] == kNoRoute) {
      joins_.push_back(i);
      return;
    }
    const std::size_t begin = route_begin_[route_of_[i]];
    const std::size_t end = route_begin_[route_of_[i] + 1];
    const std::span<const std::size_t> route(route_links_.data() + begin, end - begin);
    if (pruned_) {
      network_->add_flow_limited_by(route, route_latency_s_[route_of_[i]], transfers_[i].bytes,
                                    network_->now_s());
    } else {
      const std::size_t back_begin = back_begin_[route_of_[i]];
      const std::size_t back_end = back_begin_[route_of_[i] + 1];
      network_->add_flow_along(
          route, transfers_[i].bytes, network_->now_s(),
          std::span<const std::size_t>(back_links_.data() + back_begin, back_end - back_begin));
    }
    transfer_of_flow_.push_back(i);
  }

  void complete(std::size_t i, double t_s) {
    times_.completion_s[i] = t_s;
    times_.makespan_s = std::max(times_.makespan_s, t_s);
    for (std::size_t k = successor_begin_[i]; k < successor_begin_[i + 1]; ++k)
      if (--waiting_on_[successors_[k]] == 0) post(successors_[k]);
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
  std::vector<std::size_t> successor_begin_;
  std::vector<std::size_t> successors_;
  std::vector<std::uint32_t> route_of_;   // per transfer: its route, kNoRoute for join points
  std::vector<std::size_t> route_begin_;  // per route: its first entry in route_links_
  std::vector<std::size_t> route_links_;  // dense link ids of every distinct route
  bool cross_traffic_ = false;            // the sharing loads each route's way back too
  bool pruned_ = false;                   // routes hold only the links that may limit them
  std::uint64_t work_budget_;
  std::uint64_t route_work_ = 0;         // route hops walked by dense_routes
  std::vector<double> route_latency_s_;  // per route, when pruned: its whole latency
  std::vector<std::size_t> back_begin_;  // per route: its back route's first entry in back_links_
  std::vector<std::size_t> back_links_;  // dense link ids of each route's way back
  std::optional<FlowNetwork> network_;
  std::vector<std::size_t> transfer_of_flow_;
  std::vector<std::size_t> joins_;
  ScheduleTimes times_;
};

}  // namespace

ScheduleTimes run_schedule(const Topology& topology, const TransferSchedule& schedule) {
  return topology.network_cost_model().run_schedule(topology, schedule);
}

ScheduleTimes flow_times(const Topology& topology, const TransferSchedule& schedule,
                         FlowLinks links) {
  return *FlowRun(topology, schedule, links, std::numeric_limits<std::uint64_t>::max()).run();
}

std::optional<ScheduleTimes> flow_times_within(const Topology& topology,
                                               const TransferSchedule& schedule,
                                               std::uint64_t work_budget) {
  return FlowRun(topology, schedule, FlowLinks::limiting, work_budget).run();
}

CommunicationCost& operator+=(CommunicationCost& a, const CommunicationCost& b) {
  a.time_s += b.time_s;
  a.link_wait_s += b.link_wait_s;
  return a;
}

CommunicationCost schedule_cost(const Topology& topology, const TransferSchedule& schedule) {
  const double time_s = run_schedule(topology, schedule).makespan_s;
  return {time_s, time_s - contention_free_makespan_s(topology, schedule)};
}

ScheduleTimes contention_free_times(const Topology& topology, const TransferSchedule& schedule) {
  return critical_path(topology, schedule);
}

double contention_free_makespan_s(const Topology& topology, const TransferSchedule& schedule) {
  return critical_path(topology, schedule).makespan_s;
}

}  // namespace codesim::sim
