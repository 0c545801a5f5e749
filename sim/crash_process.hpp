// Crash process: per node, an up time drawn from its failure law, a crash, a repair time drawn
// from its repair law, then up again; plus failure domains (sets of nodes that fail together) and
// replayed availability traces, all combined into one up/down state per node.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "sim/engine.hpp"
#include "sim/failure_law.hpp"
#include "sim/node.hpp"
#include "sim/topology.hpp"

namespace codesim::sim {

/// Crash parameters of one node: the law of its up times and of its repair times
/// (sim/failure_law.hpp). The default never crashes.
struct CrashSpec {
  FailureLaw failure = ExponentialLaw{};  ///< time from the start or a repair to the next failure
  RepairLaw repair = FixedLaw{};          ///< time a crashed node stays down
  /// Mean up time, seconds (infinite: the node never crashes).
  double mtbf_s() const { return mean_s(failure); }
  bool ever_fails() const { return std::isfinite(mtbf_s()); }
};

/// Exponential up times of mean mtbf_s (infinity: never) and a fixed repair time: the crash
/// process of codesim before failure laws, and of a scenario's mtbf_s and repair_s.
CrashSpec exponential_crashes(double mtbf_s, double repair_s = 0.0);

/// Nodes that fail together (a rack, a switch, a power feed): one failure takes every member down
/// at the same instant, its repair brings them back. Up times run from the start or the last
/// repair, whatever state the members are in (the rack's power does not wait for its nodes).
struct FailureDomainSpec {
  std::string name;        ///< for messages
  std::vector<int> nodes;  ///< members: indices into the process's nodes (their ids in a Cluster)
  FailureLaw failure = ExponentialLaw{};
  RepairLaw repair = FixedLaw{};
};

/// One interval of a replayed availability trace: the node is down from down_s until up_s
/// (infinite: never back).
struct DownInterval {
  double down_s = 0.0;
  double up_s = INFINITY;
};

/// The failures of the network's links (every link of the topology, switches' included, fails
/// and is repaired on its own by these laws).
struct LinkFailureSpec {
  FailureLaw failure = ExponentialLaw{};
  RepairLaw repair = FixedLaw{};
  bool ever_fails() const { return std::isfinite(mean_s(failure)); }
};

/// What takes nodes down besides their own crashes. `trace` is empty or has one entry per node:
/// that node's down intervals, sorted and disjoint, 0 <= down_s < up_s. `links`: link failures,
/// which take down the nodes they cut off from the main part of the network.
struct SharedFailures {
  std::vector<FailureDomainSpec> domains;
  std::vector<std::vector<DownInterval>> trace;
  std::optional<LinkFailureSpec> links;
};

/// The stop_reason of a run that needs some of the nodes `gone` (ascending, not empty), which an
/// availability trace holds down for good: "no node can come back: ...", then `leaves` (what the
/// others fall short of, e.g. "leave 3 of the 4 tasks an iteration needs").
std::string no_node_comes_back(const std::vector<int>& gone, const std::string& leaves);

/// Drives crashes of a set of nodes on an engine. Up times are drawn from stream (seed, replica,
/// "crash", node id), repair times from (seed, replica, "repair", node id) (none for fixed
/// repairs), so exponential failures with fixed repairs draw what they always drew. A node cannot
/// fail by itself while it is down (for any cause). Domain d draws its up times from (seed,
/// replica, "domain", d) and its repairs from (seed, replica, "domain repair", d), so adding
/// domains changes no node's own draws. A node is up only when no cause holds it down (its own
/// crash, a failed domain it belongs to, a trace interval); listeners see one crash when it goes
/// from up to down and one repair when it comes back. A node that crashes twice at one instant (its
/// repair and its time to failure both too short for the clock to advance, e.g. mtbf_s 5e-324 with
/// repair_s 0) stays down: it would never be up for any time, and repairing it again would crash it
/// again forever without time passing.
/// Link failures (shared.links) take the topology's links down and back up: link l draws its up
/// times from (seed, replica, "link", l) and its repairs from (seed, replica, "link repair", l)
/// (l: its index in Topology::links()). After every change of a link, each node the topology
/// says is cut off (Topology::cut_off_nodes) is held down by one more cause until it is
/// reconnected, so a cut-off node is seen as crashed (its running task lost) and back when it is
/// reconnected. A link failing again at the instant of its repair stays down, as a node does.
class CrashProcess {
 public:
  /// Called right after node `node_id` went down; `task_lost` tells whether a running task was
  /// lost.
  using CrashListener = std::function<void(int node_id, bool task_lost)>;
  /// Called right after node `node_id` is back up.
  using RepairListener = std::function<void(int node_id)>;

  /// `specs[i]` applies to `nodes[i]`, which must be node i of `topology`. The nodes and the
  /// topology must outlive the process; the topology is needed only with link failures, and the
  /// process changes its links' states.
  CrashProcess(Engine& engine, std::vector<Node>& nodes, std::vector<CrashSpec> specs,
               std::uint64_t seed, std::uint64_t replica, SharedFailures shared = {},
               Topology* topology = nullptr);

  void on_crash(CrashListener listener) { on_crash_ = std::move(listener); }
  void on_repair(RepairListener listener) { on_repair_ = std::move(listener); }
  /// Called right after link `link` went down (up = false) or came back, before the nodes it cuts
  /// off or reconnects are crashed or repaired.
  using LinkListener = std::function<void(int link, bool up)>;
  void on_link(LinkListener listener) { on_link_ = std::move(listener); }
  /// Schedules every node's and domain's first failure and the trace's first intervals. Call
  /// once.
  void start();
  /// Times a node went from up to down, whatever the cause.
  std::uint64_t crashes() const { return crashes_; }
  /// Whether node `node_index` is held down for good: inside an availability trace interval
  /// without an end (up_s infinite). No other cause lasts forever (repair times are finite).
  bool down_for_good(int node_index) const {
    return down_for_good_since_s(node_index) <= engine_.now();
  }
  /// When node `node_index` went down for good (infinity: it has not). A reader whose clock
  /// trails the process's (the stochastic run's timeline) compares it with its own time.
  double down_for_good_since_s(int node_index) const {
    return down_for_good_since_s_.empty()
               ? std::numeric_limits<double>::infinity()
               : down_for_good_since_s_[static_cast<std::size_t>(node_index)];
  }

 private:
  void schedule_failure(int node_index);
  void schedule_domain_failure(int domain);
  void schedule_trace_interval(int node_index, std::size_t interval);
  void schedule_link_failure(int link);
  /// Holds down the nodes newly cut off, releases those reconnected.
  void update_cut_off();
  /// One more cause holds node `node_index` down; the first crashes it.
  void hold_down(int node_index);
  /// One cause fewer; the last one's end repairs the node.
  void release(int node_index);

  Engine& engine_;
  std::vector<Node>& nodes_;
  std::vector<CrashSpec> specs_;
  std::vector<RandomStream> streams_;
  std::vector<RandomStream> repair_streams_;
  std::vector<double> last_crash_s_;  // per node; NaN before its first crash
  std::vector<int> causes_;           // per node: causes holding it down
  SharedFailures shared_;
  std::vector<RandomStream> domain_streams_;
  std::vector<RandomStream> domain_repair_streams_;
  std::vector<double> last_domain_failure_s_;  // per domain; NaN before its first failure
  Topology* topology_;
  std::vector<RandomStream> link_streams_;
  std::vector<RandomStream> link_repair_streams_;
  std::vector<double> last_link_failure_s_;    // per link; NaN before its first failure
  std::vector<char> cut_off_;                  // per node: held down as cut off
  std::vector<double> down_for_good_since_s_;  // per node: entered a trace interval without an end
  CrashListener on_crash_;
  RepairListener on_repair_;
  LinkListener on_link_;
  std::uint64_t crashes_ = 0;
};

}  // namespace codesim::sim
