// Max-min fair sharing of directed links by progressive filling, re-solved per connected component.
#include "sim/flow_network.hpp"

#include <algorithm>
#include <bit>
#include <cmath>

#include "sim/check.hpp"
#include "sim/run_stopped.hpp"

namespace codesim::sim {

namespace {
constexpr double kInfinity = std::numeric_limits<double>::infinity();
// Events closer than this (relative to the clock) are one batch: rounding in t + remaining / rate
// must not split what is one instant into two rate changes a few ulps apart.
constexpr double kTimeRelTolerance = 1e-12;
// A flow whose remaining bytes fall below this fraction of its size is finished now rather than
// at an event a rounding error away.
constexpr double kBytesRelTolerance = 1e-9;
// Progressive filling scans the open links for each bottleneck, which is cheapest while most of
// them change every round; once the scans have cost this many links per route hop of the
// component's flows, it moves to a tournament tree (long chains of links, few flows per round).
constexpr std::size_t kScanBudgetPerHop = 16;
// Rounds of filling after which the scanned links are sorted by id.
constexpr std::size_t kRoundsBeforeSorting = 8;
}  // namespace

FlowNetwork::FlowNetwork(std::vector<FlowLink> links, FlowSharing sharing)
    : links_(std::move(links)),
      law_(sharing_law(sharing)),
      weighted_(!law_.plain()),
      link_members_(links_.size()),
      link_mark_(links_.size(), 0),
      link_capacity_Bps_(links_.size(), 0.0),
      link_unfixed_(links_.size(), 0),
      link_usage_(weighted_ ? links_.size() : 0, 0.0),
      link_round_(links_.size(), 0),
      link_leaf_(links_.size(), 0) {
  CODESIM_CHECK(links_.size() < kNone, "too many links for one flow network");
  for (const FlowLink& link : links_) {
    CODESIM_CHECK(link.bandwidth_Bps > 0.0 && std::isfinite(link.bandwidth_Bps),
                  "a link's bandwidth must be positive and finite");
    CODESIM_CHECK(link.latency_s >= 0.0 && std::isfinite(link.latency_s),
                  "a link's latency must be non-negative and finite");
  }
}

double FlowNetwork::next_event_time_s() const {
  return events_.empty() ? kInfinity : events_.front().time_s;
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
  return finished(id) ? flows_[id].event_s : kInfinity;
}

double FlowNetwork::rate_Bps(FlowId id) const {
  CODESIM_CHECK(id < flows_.size(), "unknown flow id");
  return flows_[id].state == State::moving ? flows_[id].rate_Bps * law_.rate_factor : 0.0;
}

double FlowNetwork::batch_horizon_s(double t_s) const {
  return t_s + kTimeRelTolerance * std::max(1.0, std::abs(t_s));
}

// A fresh stamp for link_mark_ and Flow::mark; all marks are cleared when the counter wraps.
FlowNetwork::Index FlowNetwork::next_stamp() {
  if (++stamp_ == kNone) {
    std::fill(link_mark_.begin(), link_mark_.end(), 0);
    for (Flow& flow : flows_) flow.mark = 0;
    stamp_ = 1;
  }
  return stamp_;
}

// One instant: flows due to finish leave their links, flows whose latency has passed join theirs,
// and the components of every link they cross are re-solved; nothing else can change rate.
// Components are disjoint, so solving them one by one gives the rates (and the bits) that one
// progressive filling over their union would.
void FlowNetwork::handle_batch(double t_s, std::vector<FlowId>& finished_out) {
  now_s_ = t_s;
  const double horizon_s = batch_horizon_s(t_s);
  seed_links_.clear();
  while (!events_.empty() && events_.front().time_s <= horizon_s) {
    const Index id = events_.front().flow;
    remove_event(id);
    Flow& flow = flows_[id];
    if (flow.state == State::moving) {
      finish_flow(id, t_s, finished_out);
    } else {
      start_moving(id, t_s, finished_out);
      if (flow.state != State::moving) continue;
    }
    const Index* route = &route_links_[flow.route_begin];
    seed_links_.insert(seed_links_.end(), route, route + flow.route_size);
  }
  next_stamp();
  for (const Index seed : seed_links_) {
    if (link_mark_[seed] == stamp_ || link_members_[seed].empty()) continue;
    collect_component(seed);
    settle_component(t_s, finished_out);
    solve_rates();
    reschedule_live(t_s);
  }
}

void FlowNetwork::finish_flow(Index id, double t_s, std::vector<FlowId>& finished_out) {
  Flow& flow = flows_[id];
  if (flow.state == State::moving) {
    for (Index hop = 0; hop < flow.route_size; ++hop) {
      std::vector<Member>& members = link_members_[route_links_[flow.route_begin + hop]];
      const Index slot = route_slots_[flow.route_begin + hop];
      const Member last = members.back();
      members[slot] = last;
      route_slots_[flows_[last.flow].route_begin + last.hop] = slot;
      members.pop_back();
    }
  }
  flow.state = State::done;
  flow.remaining_bytes = 0.0;
  flow.rate_Bps = 0.0;
  flow.event_s = t_s;
  finished_out.push_back(id);
}

void FlowNetwork::start_moving(Index id, double t_s, std::vector<FlowId>& finished_out) {
  Flow& flow = flows_[id];
  // Nothing to move, or no link to limit it: the transfer is over once its latency has passed.
  if (flow.bytes == 0.0 || flow.route_size == 0) {
    finish_flow(id, t_s, finished_out);
    return;
  }
  flow.state = State::moving;
  flow.settled_at_s = t_s;
  flow.rate_Bps = 0.0;
  for (Index hop = 0; hop < flow.route_size; ++hop) {
    std::vector<Member>& members = link_members_[route_links_[flow.route_begin + hop]];
    route_slots_[flow.route_begin + hop] = static_cast<Index>(members.size());
    members.push_back({id, hop});
  }
}

// Breadth-first over links and the moving flows that join them, marking both with stamp_.
void FlowNetwork::collect_component(Index seed_link) {
  component_links_.clear();
  component_flows_.clear();
  link_mark_[seed_link] = stamp_;
  component_links_.push_back(seed_link);
  for (std::size_t next = 0; next < component_links_.size(); ++next) {
    for (const Member& member : link_members_[component_links_[next]]) {
      Flow& flow = flows_[member.flow];
      if (flow.mark == stamp_) continue;
      flow.mark = stamp_;
      component_flows_.push_back(member.flow);
      const Index* route = &route_links_[flow.route_begin];
      solve_work_ += flow.route_size;
      for (Index hop = 0; hop < flow.route_size; ++hop) {
        if (link_mark_[route[hop]] == stamp_) continue;
        link_mark_[route[hop]] = stamp_;
        component_links_.push_back(route[hop]);
      }
    }
  }
}

// Brings the component's flows to t_s at their old rates before their rates change; the flows
// with nothing left finish now, the others are live.
void FlowNetwork::settle_component(double t_s, std::vector<FlowId>& finished_out) {
  live_flows_.clear();
  old_rates_Bps_.clear();
  for (Index id : component_flows_) {
    Flow& flow = flows_[id];
    flow.remaining_bytes -= flow.rate_Bps * law_.rate_factor * (t_s - flow.settled_at_s);
    flow.settled_at_s = t_s;
    if (flow.remaining_bytes <= kBytesRelTolerance * flow.bytes) {
      remove_event(id);
      finish_flow(id, t_s, finished_out);
    } else {
      live_flows_.push_back(id);
      old_rates_Bps_.push_back(flow.rate_Bps);
    }
  }
}

// Progressive filling: repeatedly the link with the smallest fair share (remaining capacity over
// unfixed flows; ties to the lower link id) fixes its unfixed flows at that share, which every
// other link on their routes gives up. The live flows are whole components.
// Weighted (a SharingLaw other than max-min), as SimGrid's lmm solver: a link's share is its
// remaining capacity over the sum of consumption / penalty of its unfixed flows, a flow fixed at
// share s gets s / penalty, and a flow whose bound x penalty is below every link's share is fixed
// at its bound first.
void FlowNetwork::solve_rates() {
  // Alone on its links, a flow gets its slowest link's bandwidth, as filling would give it.
  if (live_flows_.size() == 1) {
    lone_flow_rate(flows_[live_flows_.front()]);
    return;
  }
  if (weighted_) {
    fill_progressively<true>();
  } else {
    fill_progressively<false>();
  }
}

void FlowNetwork::lone_flow_rate(Flow& flow) const {
  if (!weighted_) {
    flow.rate_Bps = kInfinity;
    for (Index hop = 0; hop < flow.route_size; ++hop)
      flow.rate_Bps =
          std::min(flow.rate_Bps, links_[route_links_[flow.route_begin + hop]].bandwidth_Bps);
    return;
  }
  flow.rate_Bps = flow.bound_Bps;
  for (Index hop = 0; hop < flow.route_size; ++hop) {
    const double consumption = hop < flow.forward_size ? 1.0 : law_.cross_traffic_weight;
    flow.rate_Bps = std::min(
        flow.rate_Bps, links_[route_links_[flow.route_begin + hop]].bandwidth_Bps / consumption);
  }
}

template <bool kWeighted>
void FlowNetwork::fill_progressively() {
  std::size_t route_hops = 0;
  for (Index id : live_flows_) {
    flows_[id].rate_Bps = -1.0;  // unfixed
    route_hops += flows_[id].route_size;
  }
  open_links_.clear();
  for (Index link : component_links_) {
    link_capacity_Bps_[link] = links_[link].bandwidth_Bps;
    link_unfixed_[link] = static_cast<Index>(link_members_[link].size());
    if (kWeighted) {
      double usage = 0.0;
      for (const Member& member : link_members_[link]) {
        const Flow& flow = flows_[member.flow];
        usage += (member.hop < flow.forward_size ? 1.0 : law_.cross_traffic_weight) / flow.penalty;
      }
      link_usage_[link] = usage;
    }
    if (link_unfixed_[link] > 0) open_links_.push_back(link);
  }
  if (kWeighted) sort_bounded_flows();
  // Scanning costs the open links every round, the tournament about the route hops of the flows
  // it fixes times the tree's depth: scan until the scans have cost that much.
  const std::size_t scan_budget = kScanBudgetPerHop * route_hops;
  std::size_t scanned = 0;
  std::size_t rounds = 0;
  bool sorted = false;
  double share_Bps = 0.0;
  for (;;) {
    const Index link = scan_bottleneck<kWeighted>(sorted, share_Bps);
    if (kWeighted) {
      if (const Index bounded = next_bounded_flow(share_Bps); bounded != kNone) {
        fix_flow<true>(bounded, flows_[bounded].bound_Bps, nullptr);
        continue;
      }
    }
    if (link == kNone) break;
    fix_flows_on<kWeighted>(link, share_Bps, nullptr);
    // Many rounds to go: links in id order are scanned faster (in memory order, and the first of
    // equal shares is the lower id), which repays sorting them.
    if (++rounds == kRoundsBeforeSorting) {
      std::sort(open_links_.begin(), open_links_.end());
      sorted = true;
    }
    scanned += open_links_.size();
    solve_work_ += open_links_.size();
    if (scanned > scan_budget) {
      solve_in_tournament<kWeighted>();
      return;
    }
  }
}

// The live flows with a finite bound, in the order their bounds bind.
void FlowNetwork::sort_bounded_flows() {
  bounded_flows_.clear();
  next_bounded_ = 0;
  for (Index id : live_flows_)
    if (flows_[id].bound_Bps < kInfinity)
      bounded_flows_.emplace_back(flows_[id].bound_Bps * flows_[id].penalty, id);
  std::sort(bounded_flows_.begin(), bounded_flows_.end());
}

// The unfixed flow whose bound binds before share_Bps (kNone when none does).
FlowNetwork::Index FlowNetwork::next_bounded_flow(double below_share_Bps) {
  while (next_bounded_ < bounded_flows_.size() &&
         flows_[bounded_flows_[next_bounded_].second].rate_Bps >= 0.0)
    ++next_bounded_;
  if (next_bounded_ == bounded_flows_.size() ||
      !(bounded_flows_[next_bounded_].first < below_share_Bps))
    return kNone;
  return bounded_flows_[next_bounded_].second;
}

template <bool kWeighted>
double FlowNetwork::link_share_Bps(Index link) const {
  const Index unfixed = link_unfixed_[link];
  if (unfixed == 0) return kInfinity;
  return link_capacity_Bps_[link] / (kWeighted ? link_usage_[link] : unfixed);
}

// Large components: a tournament tree over the open links (each inner node holds the leaf of
// smallest (share, link) below it), so a round re-plays only the matches above the links whose
// share changed, or every match when most of them did.
template <bool kWeighted>
void FlowNetwork::solve_in_tournament() {
  const std::size_t leaves = std::bit_ceil(open_links_.size());
  const auto depth = static_cast<std::size_t>(std::countr_zero(leaves));
  leaf_share_Bps_.assign(leaves, kInfinity);
  leaf_link_.assign(leaves, kNone);
  for (std::size_t i = 0; i < open_links_.size(); ++i) {
    const Index link = open_links_[i];
    link_leaf_[link] = static_cast<Index>(i);
    leaf_link_[i] = link;
    leaf_share_Bps_[i] = link_share_Bps<kWeighted>(link);
  }
  winner_.resize(2 * leaves);
  for (std::size_t i = 0; i < leaves; ++i) winner_[leaves + i] = static_cast<Index>(i);
  for (std::size_t node = leaves - 1; node >= 1; --node) play_match(node);
  for (;;) {
    const Index leaf = winner_[1];
    const double share_Bps = leaf_share_Bps_[leaf];
    changed_links_.clear();
    Index bounded = kNone;
    if (kWeighted) bounded = next_bounded_flow(share_Bps);
    if (bounded != kNone) {
      new_round();
      fix_flow<true>(bounded, flows_[bounded].bound_Bps, &changed_links_);
    } else if (share_Bps == kInfinity) {
      break;
    } else {
      fix_flows_on<kWeighted>(leaf_link_[leaf], share_Bps, &changed_links_);
    }
    for (Index link : changed_links_)
      leaf_share_Bps_[link_leaf_[link]] = link_share_Bps<kWeighted>(link);
    if (changed_links_.size() * depth >= leaves) {
      for (std::size_t node = leaves - 1; node >= 1; --node) play_match(node);
      solve_work_ += leaves;
      continue;
    }
    solve_work_ += changed_links_.size() * depth;
    for (Index link : changed_links_)
      for (std::size_t node = (leaves + link_leaf_[link]) / 2; node >= 1; node /= 2)
        play_match(node);
  }
}

// A fresh stamp for link_round_: each link a round changes is listed once.
void FlowNetwork::new_round() {
  if (++round_ == kNone) {
    std::fill(link_round_.begin(), link_round_.end(), 0);
    round_ = 1;
  }
}

void FlowNetwork::play_match(std::size_t node) {
  const Index a = winner_[2 * node];
  const Index b = winner_[2 * node + 1];
  const double share_a = leaf_share_Bps_[a];
  const double share_b = leaf_share_Bps_[b];
  // Non-short-circuit operators: the outcome is data, not a branch to predict.
  const bool b_wins =
      (share_b < share_a) | ((share_b == share_a) & (leaf_link_[b] < leaf_link_[a]));
  winner_[node] = b_wins ? b : a;
}

// The open link of smallest share (ties to the lower id), dropping the links with no unfixed
// flow left (in place, keeping their order); kNone when every flow is fixed. `sorted`: the open
// links are in id order.
template <bool kWeighted>
FlowNetwork::Index FlowNetwork::scan_bottleneck(bool sorted, double& share_Bps) {
  Index bottleneck = kNone;
  share_Bps = kInfinity;
  std::size_t kept = 0;
  for (const Index link : open_links_) {
    if (link_unfixed_[link] == 0) continue;
    open_links_[kept++] = link;
    const double link_share = link_share_Bps<kWeighted>(link);
    if (link_share < share_Bps || (!sorted && link_share == share_Bps && link < bottleneck)) {
      share_Bps = link_share;
      bottleneck = link;
    }
  }
  open_links_.resize(kept);
  return bottleneck;
}

// Fixes the unfixed flows of `bottleneck` at share_Bps (over their penalties when weighted).
template <bool kWeighted>
void FlowNetwork::fix_flows_on(Index bottleneck, double share_Bps, std::vector<Index>* changed) {
  CODESIM_CHECK(share_Bps > 0.0, "progressive filling ran a link dry");
  if (changed) new_round();
  std::size_t fixed = 0;
  for (const Member& member : link_members_[bottleneck]) {
    const Flow& flow = flows_[member.flow];
    if (flow.rate_Bps >= 0.0) continue;
    fix_flow<kWeighted>(member.flow, kWeighted ? share_Bps / flow.penalty : share_Bps, changed);
    ++fixed;
  }
  // Every round fixes a flow, so the loop ends; a link counting flows outside the component
  // would not.
  CODESIM_CHECK(fixed > 0, "rates were solved for part of a component");
}

// Fixes flow `id` at rate_Bps, which every link on its route gives up (a back-route link its
// cross-traffic share of it); appends to `changed` (when given) once each link whose capacity and
// unfixed count changed, within the round new_round started.
template <bool kWeighted>
void FlowNetwork::fix_flow(Index id, double rate_Bps, std::vector<Index>* changed) {
  Flow& flow = flows_[id];
  flow.rate_Bps = rate_Bps;
  const Index* route = &route_links_[flow.route_begin];
  for (Index hop = 0; hop < flow.route_size; ++hop) {
    const Index link = route[hop];
    if (kWeighted) {
      const double consumption = hop < flow.forward_size ? 1.0 : law_.cross_traffic_weight;
      link_capacity_Bps_[link] = std::max(0.0, link_capacity_Bps_[link] - consumption * rate_Bps);
      link_usage_[link] -= consumption / flow.penalty;
    } else {
      link_capacity_Bps_[link] = std::max(0.0, link_capacity_Bps_[link] - rate_Bps);
    }
    --link_unfixed_[link];
    if (changed && link_round_[link] != round_) {
      link_round_[link] = round_;
      changed->push_back(link);
    }
  }
}

// Same rate, same predicted end: keeping the event saves most of the work in large components.
void FlowNetwork::reschedule_live(double t_s) {
  solve_work_ += live_flows_.size();
  for (std::size_t i = 0; i < live_flows_.size(); ++i) {
    const Index id = live_flows_[i];
    Flow& flow = flows_[id];
    if (flow.rate_Bps == old_rates_Bps_[i]) continue;
    flow.event_s = t_s + flow.remaining_bytes / (flow.rate_Bps * law_.rate_factor);
    if (flow.event_pos == kNone) {
      push_event(id);
    } else {
      update_event(id);
    }
  }
}

void FlowNetwork::place_event(std::size_t pos, const Event& event) {
  events_[pos] = event;
  flows_[event.flow].event_pos = static_cast<Index>(pos);
}

void FlowNetwork::push_event(Index id) {
  events_.push_back({flows_[id].event_s, id});
  flows_[id].event_pos = static_cast<Index>(events_.size() - 1);
  sift_up(events_.size() - 1);
}

void FlowNetwork::remove_event(Index id) {
  const std::size_t pos = flows_[id].event_pos;
  flows_[id].event_pos = kNone;
  const Event last = events_.back();
  events_.pop_back();
  if (pos == events_.size()) return;
  place_event(pos, last);
  sift_up(pos);
  sift_down(flows_[last.flow].event_pos);
}

void FlowNetwork::update_event(Index id) {
  const std::size_t pos = flows_[id].event_pos;
  events_[pos].time_s = flows_[id].event_s;
  sift_up(pos);
  sift_down(flows_[id].event_pos);
}

void FlowNetwork::sift_up(std::size_t pos) {
  const Event event = events_[pos];
  while (pos > 0) {
    const std::size_t parent = (pos - 1) / 2;
    if (!earlier(event, events_[parent])) break;
    place_event(pos, events_[parent]);
    pos = parent;
  }
  place_event(pos, event);
}

void FlowNetwork::sift_down(std::size_t pos) {
  const Event event = events_[pos];
  const std::size_t size = events_.size();
  for (;;) {
    std::size_t child = 2 * pos + 1;
    if (child >= size) break;
    if (child + 1 < size && earlier(events_[child + 1], events_[child])) ++child;
    if (!earlier(events_[child], event)) break;
    place_event(pos, events_[child]);
    pos = child;
  }
  place_event(pos, event);
}

std::vector<double> simulate_flows(const std::vector<FlowLink>& links,
                                   const std::vector<FlowSpec>& flows, FlowSharing sharing) {
  FlowNetwork network(links, sharing);
  for (const FlowSpec& spec : flows)
    network.add_flow_along(spec.route, spec.bytes, spec.start_s, spec.back_route);
  for (double next_s = network.next_event_time_s(); std::isfinite(next_s);
       next_s = network.next_event_time_s()) {
    network.advance_to(next_s);
    poll_stop("a flow simulation");
  }
  std::vector<double> completion_s(flows.size());
  for (FlowId id = 0; id < flows.size(); ++id) completion_s[id] = network.completion_time_s(id);
  return completion_s;
}

}  // namespace codesim::sim
