// Flow-level network: transfers share directed links by max-min fairness, so concurrent traffic
// contends instead of running in parallel for free: with equal shares (SimGrid's CM02 with latency
// and bandwidth factors of 1, no TCP window bound and equal sharing weights), or as SimGrid's CM02
// and LV08 weigh and bound them (sim/flow_sharing.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <utility>
#include <vector>

#include "sim/flow_sharing.hpp"

namespace codesim::sim {

/// One direction of a link: a full-duplex cable is two FlowLinks that do not share capacity.
struct FlowLink {
  double bandwidth_Bps = 0.0;  ///< capacity shared by the flows crossing it; > 0
  double latency_s = 0.0;      ///< >= 0; a flow pays the sum over its route before moving bytes
};

/// One transfer for simulate_flows.
struct FlowSpec {
  std::vector<std::size_t> route;  ///< directed link ids in order; no link twice
  double bytes = 0.0;              ///< >= 0
  double start_s = 0.0;            ///< when the transfer is posted
  /// The links from the destination back to the source, loaded by cross-traffic (only under a
  /// sharing with cross-traffic; a link also on `route` counts once).
  std::vector<std::size_t> back_route = {};
};

using FlowId = std::size_t;

/// The links and flows of one simulation, advanced in simulated time by its owner (an engine or
/// simulate_flows). A flow waits its route latency, then moves bytes at its max-min fair rate
/// (progressive filling: the unique allocation in which no flow can gain without a flow of equal or
/// smaller rate losing); rates change only when a flow starts moving or finishes. Under a
/// SharingLaw other than max-min, latencies and rates are scaled, shares are weighted by
/// 1 / penalty, and a flow's own bound and cross-traffic on its back route take part in the
/// filling as SimGrid's lmm solver has them (sim/flow_sharing.hpp).
///
/// Work per event: when flows start moving or finish at time t, only the connected component of
/// the links on their routes (links joined by the moving flows that cross them) is re-solved;
/// the rates of all other flows cannot change, so their completion times stay as they were, as do
/// those of flows in the component whose rate came out the same.
/// Events less than 1e-12 apart (relative; absolute below 1 s) are one batch, so rounding cannot
/// split an instant into several rate changes; ties resolve by flow id, so runs are deterministic.
/// A flow whose remaining bytes fall below 1e-9 of its size finishes at the current event.
class FlowNetwork {
 public:
  explicit FlowNetwork(std::vector<FlowLink> links, FlowSharing sharing = FlowSharing::max_min);

  /// Posts a transfer at start_s (>= now_s()); returns its id (0, 1, 2, ... in call order).
  /// Zero-byte flows and flows with an empty route finish once their route latency has passed.
  /// back_route is read only under a sharing with cross-traffic.
  FlowId add_flow(std::vector<std::size_t> route, double bytes, double start_s,
                  std::vector<std::size_t> back_route = {}) {
    return add_flow_along(route, bytes, start_s, back_route);
  }
  /// add_flow reading the routes in place (the network keeps its own copy): no vector to build.
  FlowId add_flow_along(std::span<const std::size_t> route, double bytes, double start_s,
                        std::span<const std::size_t> back_route = {});
  /// Under max-min sharing only: a flow on a route of latency route_latency_s of which only
  /// `limiting` (the links that may limit it, sim/route_pruning.hpp; not empty) share bandwidth.
  FlowId add_flow_limited_by(std::span<const std::size_t> limiting, double route_latency_s,
                             double bytes, double start_s);

  /// The earliest time at which a flow starts moving or finishes (infinity when nothing is
  /// pending): the owner must call advance_to at that time, since rates change there.
  double next_event_time_s() const;

  /// Handles every event at or before t (>= now_s()) in time order and moves the clock to t.
  /// Returns the flows that finished, by completion time then id.
  std::vector<FlowId> advance_to(double t_s);

  double now_s() const { return now_s_; }
  /// Work done so far re-solving rates: route hops and links visited by the component searches,
  /// a measure of the run's cost that does not depend on the machine (the owner may give up a
  /// run that costs too much).
  std::uint64_t solve_work() const { return solve_work_; }
  std::size_t flow_count() const { return flows_.size(); }
  bool finished(FlowId id) const;
  /// Completion time of a finished flow (infinity while it is not finished).
  double completion_time_s(FlowId id) const;
  /// Current rate (0 while the flow waits for its latency or after it finished).
  double rate_Bps(FlowId id) const;

 private:
  // Flow and link ids inside the network: 32 bits keep the hot arrays small.
  using Index = std::uint32_t;
  static constexpr Index kNone = std::numeric_limits<Index>::max();
  enum class State : std::uint8_t { waiting, moving, done };
  struct Flow {
    double bytes = 0.0;
    double remaining_bytes = 0.0;
    double rate_Bps = 0.0;  // max-min value: the flow moves rate_Bps x the law's rate_factor
    double penalty = 1.0;   // its share of a link is weighted by 1 / penalty
    double bound_Bps = std::numeric_limits<double>::infinity();  // cap on rate_Bps
    double settled_at_s = 0.0;  // remaining_bytes is exact at this time
    // waiting: start + route latency; moving: predicted finish; done: completion time
    double event_s = 0.0;
    std::size_t route_begin = 0;  // into route_links_ and route_slots_
    Index route_size = 0;         // hops: the route's, then the back route's (cross-traffic)
    Index forward_size = 0;       // the route's own hops
    Index event_pos = kNone;      // position in events_
    Index mark = 0;               // component search stamp
    State state = State::waiting;
  };
  // The next event of each waiting or moving flow, in a binary heap ordered by (time_s, flow):
  // one entry per flow, moved in place when its predicted finish changes.
  struct Event {
    double time_s;
    Index flow;
  };
  // A moving flow on a link: `hop` is the link's place in the flow's route (a back-route hop when
  // at or beyond its forward_size).
  struct Member {
    Index flow;
    Index hop;
  };

  Flow& push_flow(std::span<const std::size_t> route, double latency_s, double bytes,
                  double start_s);
  FlowId post_last_flow();
  void handle_batch(double t_s, std::vector<FlowId>& finished_out);
  void finish_flow(Index id, double t_s, std::vector<FlowId>& finished_out);
  void start_moving(Index id, double t_s, std::vector<FlowId>& finished_out);
  void collect_component(Index seed_link);
  void settle_component(double t_s, std::vector<FlowId>& finished_out);
  void solve_rates();
  template <bool kWeighted>
  void fill_progressively();
  void lone_flow_rate(Flow& flow) const;
  template <bool kWeighted>
  void solve_in_tournament();
  void play_match(std::size_t node);
  void new_round();
  template <bool kWeighted>
  double link_share_Bps(Index link) const;
  template <bool kWeighted>
  void fix_flows_on(Index bottleneck, double share_Bps, std::vector<Index>* changed);
  template <bool kWeighted>
  void fix_flow(Index id, double rate_Bps, std::vector<Index>* changed);
  template <bool kWeighted>
  Index scan_bottleneck(bool sorted, double& share_Bps);
  void sort_bounded_flows();
  Index next_bounded_flow(double below_share_Bps);
  void reschedule_live(double t_s);
  double batch_horizon_s(double t_s) const;
  Index next_stamp();

  bool earlier(const Event& a, const Event& b) const {
    return a.time_s < b.time_s || (a.time_s == b.time_s && a.flow < b.flow);
  }
  void place_event(std::size_t pos, const Event& event);
  void push_event(Index id);
  void remove_event(Index id);
  void update_event(Index id);
  void sift_up(std::size_t pos);
  void sift_down(std::size_t pos);

  std::vector<FlowLink> links_;
  SharingLaw law_;
  bool weighted_ = false;  // !law_.plain(): penalties, bounds or cross-traffic to account for
  std::vector<Flow> flows_;
  std::vector<Index> route_links_;  // every flow's route, back to back
  std::vector<Index> route_slots_;  // per route hop: the flow's place in link_members_[link]
  std::vector<std::vector<Member>> link_members_;  // moving flows per link, in no order
  std::vector<Event> events_;
  double now_s_ = 0.0;
  std::uint64_t solve_work_ = 0;

  // Scratch of the component searches and progressive filling, kept to avoid allocations.
  std::vector<Index> link_mark_;  // stamps: a link equal to stamp_ was seen (so was a flow)
  Index stamp_ = 0;
  std::vector<Index> seed_links_;
  std::vector<Index> component_links_;
  std::vector<Index> component_flows_;
  std::vector<Index> live_flows_;
  std::vector<double> old_rates_Bps_;
  std::vector<double> link_capacity_Bps_;
  std::vector<Index> link_unfixed_;
  std::vector<double> link_usage_;  // weighted: sum of consumption / penalty of unfixed flows
  // Weighted: the live flows with a bound, by (bound x penalty, id), and the next to look at.
  std::vector<std::pair<double, Index>> bounded_flows_;
  std::size_t next_bounded_ = 0;
  std::vector<Index> link_round_;  // stamps: a link queued as a candidate in round round_
  Index round_ = 0;
  std::vector<Index> open_links_;
  std::vector<Index> changed_links_;
  std::vector<Index> link_leaf_;  // a link's leaf in the tournament tree
  std::vector<double> leaf_share_Bps_;
  std::vector<Index> leaf_link_;
  std::vector<Index> winner_;  // tournament tree: node i's children are 2i and 2i + 1
};

/// Runs every flow to completion on a fresh FlowNetwork; returns completion times by flow index.
std::vector<double> simulate_flows(const std::vector<FlowLink>& links,
                                   const std::vector<FlowSpec>& flows,
                                   FlowSharing sharing = FlowSharing::max_min);

}  // namespace codesim::sim
