// Max-min fair sharing of directed links by progressive filling, re-solved per connected component.
#include "sim/flow_network.hpp"

#include <algorithm>
#include <cmath>

#include "sim/check.hpp"

namespace codesim::sim {

namespace {
constexpr double kInfinity = std::numeric_limits<double>::infinity();
// Events closer than this (relative to the clock) are one batch: rounding in t + remaining / rate
// must not split what is one instant into two rate changes a few ulps apart.
constexpr double kTimeRelTolerance = 1e-12;
// A flow whose remaining bytes fall below this fraction of its size is finished now rather than
// at an event a rounding error away.
constexpr double kBytesRelTolerance = 1e-9;
}  // namespace

FlowNetwork::FlowNetwork(std::vector<FlowLink> links)
    : links_(std::move(links)),
      link_flows_(links_.size()),
      link_seen_(links_.size(), 0),
      link_capacity_Bps_(links_.size(), 0.0),
      link_unfixed_(links_.size(), 0) {
  for (const FlowLink& link : links_) {
    CODESIM_CHECK(link.bandwidth_Bps > 0.0 && std::isfinite(link.bandwidth_Bps),
                  "a link's bandwidth must be positive and finite");
    CODESIM_CHECK(link.latency_s >= 0.0 && std::isfinite(link.latency_s),
                  "a link's latency must be non-negative and finite");
  }
}

FlowId FlowNetwork::add_flow(std::vector<std::size_t> route, double bytes, double start_s) {
  CODESIM_CHECK(start_s >= now_s_ && std::isfinite(start_s), "a flow cannot start in the past");
  CODESIM_CHECK(bytes >= 0.0 && std::isfinite(bytes), "a flow's size must be finite and >= 0");
  double latency_s = 0.0;
  for (std::size_t link : route) {
    CODESIM_CHECK(link < links_.size(), "a route names a link that does not exist");
    CODESIM_CHECK(link_seen_[link] == 0, "a route crosses the same link twice");
    link_seen_[link] = 1;
    latency_s += links_[link].latency_s;
  }
  for (std::size_t link : route) link_seen_[link] = 0;

  const FlowId id = flows_.size();
  Flow flow;
  flow.route = std::move(route);
  flow.bytes = bytes;
  flow.active_at_s = start_s + latency_s;
  flow.remaining_bytes = bytes;
  flows_.push_back(std::move(flow));
  flow_seen_.push_back(0);
  pending_starts_.emplace(flows_.back().active_at_s, id);
  return id;
}

double FlowNetwork::next_event_time_s() const {
  double next_s = kInfinity;
  if (!pending_starts_.empty()) next_s = pending_starts_.begin()->first;
  if (!pending_finishes_.empty()) next_s = std::min(next_s, pending_finishes_.begin()->first);
  return next_s;
}

std::vector<FlowId> FlowNetwork::advance_to(double t_s) {
  CODESIM_CHECK(t_s >= now_s_, "the flow network cannot go back in time");
  std::vector<FlowId> finished_flows;
  // Each batch removes at least one pending start or finish, so this loop ends.
  for (double next_s = next_event_time_s(); next_s <= t_s; next_s = next_event_time_s()) {
    const std::size_t batch_begin = finished_flows.size();
    handle_batch(std::max(next_s, now_s_), finished_flows);
    std::sort(finished_flows.begin() + static_cast<std::ptrdiff_t>(batch_begin),
              finished_flows.end());
  }
  now_s_ = t_s;
  return finished_flows;
}

bool FlowNetwork::finished(FlowId id) const {
  CODESIM_CHECK(id < flows_.size(), "unknown flow id");
  return flows_[id].state == State::done;
}

double FlowNetwork::completion_time_s(FlowId id) const {
  return finished(id) ? flows_[id].finish_s : kInfinity;
}

double FlowNetwork::rate_Bps(FlowId id) const {
  CODESIM_CHECK(id < flows_.size(), "unknown flow id");
  return flows_[id].state == State::moving ? flows_[id].rate_Bps : 0.0;
}

double FlowNetwork::batch_horizon_s(double t_s) const {
  return t_s + kTimeRelTolerance * std::max(1.0, std::abs(t_s));
}

// One instant: flows due to finish leave their links, flows whose latency has passed join theirs,
// and the components of every link they cross are re-solved; nothing else can change rate.
void FlowNetwork::handle_batch(double t_s, std::vector<FlowId>& finished_out) {
  now_s_ = t_s;
  const double horizon_s = batch_horizon_s(t_s);
  std::vector<std::size_t> seed_links;
  while (!pending_finishes_.empty() && pending_finishes_.begin()->first <= horizon_s) {
    const FlowId id = pending_finishes_.begin()->second;
    pending_finishes_.erase(pending_finishes_.begin());
    seed_links.insert(seed_links.end(), flows_[id].route.begin(), flows_[id].route.end());
    finish_flow(id, t_s, finished_out);
  }
  while (!pending_starts_.empty() && pending_starts_.begin()->first <= horizon_s) {
    const FlowId id = pending_starts_.begin()->second;
    pending_starts_.erase(pending_starts_.begin());
    start_moving(id, t_s, finished_out);
    if (flows_[id].state == State::moving) {
      seed_links.insert(seed_links.end(), flows_[id].route.begin(), flows_[id].route.end());
    }
  }

  // Bring the component's flows to t_s at their old rates before their rates change.
  std::vector<FlowId> live;
  for (FlowId id : component_flows(seed_links)) {
    Flow& flow = flows_[id];
    flow.remaining_bytes -= flow.rate_Bps * (t_s - flow.settled_at_s);
    flow.settled_at_s = t_s;
    if (flow.remaining_bytes <= kBytesRelTolerance * flow.bytes) {
      pending_finishes_.erase({flow.finish_s, id});
      finish_flow(id, t_s, finished_out);
    } else {
      live.push_back(id);
    }
  }
  std::vector<double> old_rates_Bps(live.size());
  for (std::size_t i = 0; i < live.size(); ++i) old_rates_Bps[i] = flows_[live[i]].rate_Bps;
  solve_rates(live);
  for (std::size_t i = 0; i < live.size(); ++i) {
    const FlowId id = live[i];
    Flow& flow = flows_[id];
    // Same rate, same predicted end: keeping the entry saves most of the work in large components.
    if (flow.rate_Bps == old_rates_Bps[i]) continue;
    pending_finishes_.erase({flow.finish_s, id});
    flow.finish_s = t_s + flow.remaining_bytes / flow.rate_Bps;
    pending_finishes_.emplace(flow.finish_s, id);
  }
}

void FlowNetwork::finish_flow(FlowId id, double t_s, std::vector<FlowId>& finished_out) {
  Flow& flow = flows_[id];
  if (flow.state == State::moving) {
    for (std::size_t link : flow.route) {
      std::vector<FlowId>& on_link = link_flows_[link];
      on_link.erase(std::lower_bound(on_link.begin(), on_link.end(), id));
    }
  }
  flow.state = State::done;
  flow.remaining_bytes = 0.0;
  flow.rate_Bps = 0.0;
  flow.finish_s = t_s;
  finished_out.push_back(id);
}

void FlowNetwork::start_moving(FlowId id, double t_s, std::vector<FlowId>& finished_out) {
  Flow& flow = flows_[id];
  // Nothing to move, or no link to limit it: the transfer is over once its latency has passed.
  if (flow.bytes == 0.0 || flow.route.empty()) {
    finish_flow(id, t_s, finished_out);
    return;
  }
  flow.state = State::moving;
  flow.settled_at_s = t_s;
  flow.rate_Bps = 0.0;
  for (std::size_t link : flow.route) {
    std::vector<FlowId>& on_link = link_flows_[link];
    on_link.insert(std::lower_bound(on_link.begin(), on_link.end(), id), id);
  }
}

// Breadth-first over links and the moving flows that join them; returns the flows in id order.
std::vector<FlowId> FlowNetwork::component_flows(const std::vector<std::size_t>& seed_links) {
  std::vector<std::size_t> link_queue;
  std::vector<FlowId> flows;
  for (std::size_t link : seed_links) {
    if (link_seen_[link] == 0) {
      link_seen_[link] = 1;
      link_queue.push_back(link);
    }
  }
  for (std::size_t next = 0; next < link_queue.size(); ++next) {
    for (FlowId id : link_flows_[link_queue[next]]) {
      if (flow_seen_[id] != 0) continue;
      flow_seen_[id] = 1;
      flows.push_back(id);
      for (std::size_t link : flows_[id].route) {
        if (link_seen_[link] == 0) {
          link_seen_[link] = 1;
          link_queue.push_back(link);
        }
      }
    }
  }
  for (std::size_t link : link_queue) link_seen_[link] = 0;
  for (FlowId id : flows) flow_seen_[id] = 0;
  std::sort(flows.begin(), flows.end());
  return flows;
}

// Progressive filling: repeatedly the link with the smallest fair share (remaining capacity over
// unfixed flows; ties to the lower link id) fixes its unfixed flows at that share, which every
// other link on their routes gives up. `flows` must be whole components.
void FlowNetwork::solve_rates(const std::vector<FlowId>& flows) {
  std::vector<std::size_t> links;
  for (FlowId id : flows) {
    flows_[id].rate_Bps = -1.0;  // unfixed
    for (std::size_t link : flows_[id].route) {
      if (link_seen_[link] != 0) continue;
      link_seen_[link] = 1;
      links.push_back(link);
      link_capacity_Bps_[link] = links_[link].bandwidth_Bps;
      link_unfixed_[link] = link_flows_[link].size();
    }
  }
  for (std::size_t link : links) link_seen_[link] = 0;
  std::sort(links.begin(), links.end());

  for (;;) {
    std::size_t bottleneck = links_.size();
    double share_Bps = kInfinity;
    for (std::size_t link : links) {
      if (link_unfixed_[link] == 0) continue;
      const double link_share_Bps =
          link_capacity_Bps_[link] / static_cast<double>(link_unfixed_[link]);
      if (link_share_Bps < share_Bps) {
        share_Bps = link_share_Bps;
        bottleneck = link;
      }
    }
    if (bottleneck == links_.size()) break;
    CODESIM_CHECK(share_Bps > 0.0, "progressive filling ran a link dry");
    std::size_t fixed = 0;
    for (FlowId id : link_flows_[bottleneck]) {
      Flow& flow = flows_[id];
      if (flow.rate_Bps >= 0.0) continue;
      flow.rate_Bps = share_Bps;
      ++fixed;
      for (std::size_t link : flow.route) {
        link_capacity_Bps_[link] = std::max(0.0, link_capacity_Bps_[link] - share_Bps);
        --link_unfixed_[link];
      }
    }
    // Every round fixes a flow, so the loop ends; a link counting flows outside `flows` would not.
    CODESIM_CHECK(fixed > 0, "rates were solved for part of a component");
  }
}

std::vector<double> simulate_flows(const std::vector<FlowLink>& links,
                                   const std::vector<FlowSpec>& flows) {
  FlowNetwork network(links);
  for (const FlowSpec& spec : flows) network.add_flow(spec.route, spec.bytes, spec.start_s);
  for (double next_s = network.next_event_time_s(); std::isfinite(next_s);
       next_s = network.next_event_time_s()) {
    network.advance_to(next_s);
  }
  std::vector<double> completion_s(flows.size());
  for (FlowId id = 0; id < flows.size(); ++id) completion_s[id] = network.completion_time_s(id);
  return completion_s;
}

}  // namespace codesim::sim
