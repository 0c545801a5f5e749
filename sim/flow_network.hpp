// Flow-level network: transfers share directed links by max-min fairness, so concurrent traffic
// contends instead of running in parallel for free (issue 18; SimGrid's CM02 model with latency
// and bandwidth factors of 1, no TCP window bound and equal sharing weights).
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <set>
#include <utility>
#include <vector>

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
};

using FlowId = std::size_t;

/// The links and flows of one simulation, advanced in simulated time by its owner (an engine or
/// simulate_flows). A flow waits its route latency, then moves bytes at its max-min fair rate
/// (progressive filling: the unique allocation in which no flow can gain without a flow of equal or
/// smaller rate losing); rates change only when a flow starts moving or finishes.
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
  explicit FlowNetwork(std::vector<FlowLink> links);

  /// Posts a transfer at start_s (>= now_s()); returns its id (0, 1, 2, ... in call order).
  /// Zero-byte flows and flows with an empty route finish once their route latency has passed.
  FlowId add_flow(std::vector<std::size_t> route, double bytes, double start_s);

  /// The earliest time at which a flow starts moving or finishes (infinity when nothing is
  /// pending): the owner must call advance_to at that time, since rates change there.
  double next_event_time_s() const;

  /// Handles every event at or before t (>= now_s()) in time order and moves the clock to t.
  /// Returns the flows that finished, by completion time then id.
  std::vector<FlowId> advance_to(double t_s);

  double now_s() const { return now_s_; }
  std::size_t flow_count() const { return flows_.size(); }
  bool finished(FlowId id) const;
  /// Completion time of a finished flow (infinity while it is not finished).
  double completion_time_s(FlowId id) const;
  /// Current rate (0 while the flow waits for its latency or after it finished).
  double rate_Bps(FlowId id) const;

 private:
  enum class State { waiting, moving, done };
  struct Flow {
    std::vector<std::size_t> route;
    double bytes = 0.0;
    double active_at_s = 0.0;  // start + route latency
    double remaining_bytes = 0.0;
    double rate_Bps = 0.0;
    double settled_at_s = 0.0;  // remaining_bytes is exact at this time
    double finish_s = std::numeric_limits<double>::infinity();  // predicted, then actual
    State state = State::waiting;
  };
  using TimedId = std::pair<double, FlowId>;

  void handle_batch(double t_s, std::vector<FlowId>& finished_out);
  void finish_flow(FlowId id, double t_s, std::vector<FlowId>& finished_out);
  void start_moving(FlowId id, double t_s, std::vector<FlowId>& finished_out);
  std::vector<FlowId> component_flows(const std::vector<std::size_t>& seed_links);
  void solve_rates(const std::vector<FlowId>& flows);
  double batch_horizon_s(double t_s) const;

  std::vector<FlowLink> links_;
  std::vector<Flow> flows_;
  std::vector<std::vector<FlowId>> link_flows_;  // moving flows per link, in id order
  std::set<TimedId> pending_starts_;             // (active_at_s, id) of waiting flows
  std::set<TimedId> pending_finishes_;           // (finish_s, id) of moving flows
  std::vector<char> link_seen_;                  // scratch for component searches
  std::vector<char> flow_seen_;
  std::vector<double> link_capacity_Bps_;  // scratch for solve_rates
  std::vector<std::size_t> link_unfixed_;
  double now_s_ = 0.0;
};

/// Runs every flow to completion on a fresh FlowNetwork; returns completion times by flow index.
std::vector<double> simulate_flows(const std::vector<FlowLink>& links,
                                   const std::vector<FlowSpec>& flows);

}  // namespace codesim::sim
