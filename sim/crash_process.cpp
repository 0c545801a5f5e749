// CrashProcess: draws each node's next failure while it is up, crashes it, repairs it, repeats;
// fails and repairs domains the same way and replays the trace, counting the causes that hold each
// node down.
#include "sim/crash_process.hpp"

#include <algorithm>
#include <cmath>

#include "sim/check.hpp"

namespace codesim::sim {
namespace {
void check_shared(const SharedFailures& shared, std::size_t nodes) {
  for (const FailureDomainSpec& d : shared.domains) {
    CODESIM_CHECK(!d.nodes.empty(), "a failure domain has members");
    for (int member : d.nodes)
      CODESIM_CHECK(member >= 0 && static_cast<std::size_t>(member) < nodes,
                    "a failure domain's members are nodes of the process");
    CODESIM_CHECK(validate(d.failure).empty(), "a domain failure law is valid");
    CODESIM_CHECK(validate(d.repair).empty(), "a domain repair law is valid");
  }
  CODESIM_CHECK(shared.trace.empty() || shared.trace.size() == nodes,
                "an availability trace has one entry per node");
  for (const std::vector<DownInterval>& intervals : shared.trace) {
    double end_s = 0.0;
    for (const DownInterval& i : intervals) {
      CODESIM_CHECK(i.down_s >= end_s && i.up_s > i.down_s,
                    "trace intervals are sorted, disjoint and start at 0 or later");
      end_s = i.up_s;
    }
  }
}
}  // namespace

CrashProcess::CrashProcess(Engine& engine, std::vector<Node>& nodes, std::vector<CrashSpec> specs,
                           std::uint64_t seed, std::uint64_t replica, SharedFailures shared,
                           Topology* topology)
    : engine_(engine),
      nodes_(nodes),
      specs_(std::move(specs)),
      shared_(std::move(shared)),
      topology_(topology) {
  CODESIM_CHECK(specs_.size() == nodes_.size(), "one crash spec per node");
  check_shared(shared_, nodes_.size());
  streams_.reserve(nodes_.size());
  last_crash_s_.assign(nodes_.size(), std::nan(""));
  causes_.assign(nodes_.size(), 0);
  repair_streams_.reserve(nodes_.size());
  for (std::size_t i = 0; i < nodes_.size(); ++i) {
    CODESIM_CHECK(validate(specs_[i].failure).empty(), "a crash failure law is valid");
    CODESIM_CHECK(validate(specs_[i].repair).empty(), "a crash repair law is valid");
    const auto id = static_cast<std::uint64_t>(nodes_[i].id());
    streams_.emplace_back(StreamKey{seed, replica, "crash", id});
    repair_streams_.emplace_back(StreamKey{seed, replica, "repair", id});
  }
  last_domain_failure_s_.assign(shared_.domains.size(), std::nan(""));
  for (std::uint64_t d = 0; d < shared_.domains.size(); ++d) {
    domain_streams_.emplace_back(StreamKey{seed, replica, "domain", d});
    domain_repair_streams_.emplace_back(StreamKey{seed, replica, "domain repair", d});
  }
  if (!shared_.links || !shared_.links->ever_fails()) return;
  CODESIM_CHECK(topology_ != nullptr && topology_->node_count() == static_cast<int>(nodes_.size()),
                "link failures need the topology of the nodes");
  CODESIM_CHECK(validate(shared_.links->failure).empty() && validate(shared_.links->repair).empty(),
                "link failure and repair laws are valid");
  const auto links = static_cast<std::uint64_t>(topology_->link_count());
  last_link_failure_s_.assign(links, std::nan(""));
  cut_off_.assign(nodes_.size(), 0);
  for (std::uint64_t l = 0; l < links; ++l) {
    link_streams_.emplace_back(StreamKey{seed, replica, "link", l});
    link_repair_streams_.emplace_back(StreamKey{seed, replica, "link repair", l});
  }
}

void CrashProcess::start() {
  for (int i = 0; i < static_cast<int>(nodes_.size()); ++i) schedule_failure(i);
  for (int d = 0; d < static_cast<int>(shared_.domains.size()); ++d) schedule_domain_failure(d);
  for (int i = 0; i < static_cast<int>(shared_.trace.size()); ++i) schedule_trace_interval(i, 0);
  for (int l = 0; l < static_cast<int>(link_streams_.size()); ++l) schedule_link_failure(l);
}

void CrashProcess::hold_down(int node_index) {
  if (causes_[node_index]++ > 0) return;  // already down: the listeners saw its crash
  Node& node = nodes_[node_index];
  const bool task_lost = node.crash(engine_);
  ++crashes_;
  if (on_crash_) on_crash_(node.id(), task_lost);
}

void CrashProcess::release(int node_index) {
  CODESIM_CHECK(causes_[node_index] > 0, "only a node held down is released");
  if (--causes_[node_index] > 0) return;  // another cause still holds it
  Node& node = nodes_[node_index];
  node.repair();
  if (on_repair_) on_repair_(node.id());
}

void CrashProcess::schedule_failure(int node_index) {
  const CrashSpec& spec = specs_[node_index];
  if (!spec.ever_fails()) return;
  const double delay_s = draw_s(spec.failure, streams_[node_index]);
  engine_.schedule_in(delay_s, [this, node_index] {
    // A node held down (by a domain or the trace) has nothing to fail; as with a memoryless
    // law, the next failure is drawn from now.
    if (causes_[node_index] > 0) {
      schedule_failure(node_index);
      return;
    }
    const bool again_at_once = last_crash_s_[node_index] == engine_.now();
    last_crash_s_[node_index] = engine_.now();
    hold_down(node_index);
    if (again_at_once) return;  // down for good (see the class comment)
    // Scheduled after the listener ran, so with a repair time of 0 whatever it scheduled for
    // now still sees the node down.
    const double repair_s = draw_s(specs_[node_index].repair, repair_streams_[node_index]);
    engine_.schedule_in(repair_s, [this, node_index] {
      release(node_index);
      schedule_failure(node_index);
    });
  });
}

void CrashProcess::schedule_domain_failure(int domain) {
  const FailureDomainSpec& spec = shared_.domains[domain];
  if (!std::isfinite(mean_s(spec.failure))) return;
  const double delay_s = draw_s(spec.failure, domain_streams_[domain]);
  engine_.schedule_in(delay_s, [this, domain] {
    const FailureDomainSpec& failed = shared_.domains[domain];
    // As for a node: failing again at the instant of its repair, the domain stays down for good
    // (it could never be up for any time).
    const bool again_at_once = last_domain_failure_s_[domain] == engine_.now();
    last_domain_failure_s_[domain] = engine_.now();
    for (int member : failed.nodes) hold_down(member);
    if (again_at_once) return;
    const double repair_s = draw_s(failed.repair, domain_repair_streams_[domain]);
    engine_.schedule_in(repair_s, [this, domain] {
      for (int member : shared_.domains[domain].nodes) release(member);
      schedule_domain_failure(domain);
    });
  });
}

void CrashProcess::schedule_trace_interval(int node_index, std::size_t interval) {
  const std::vector<DownInterval>& intervals = shared_.trace[node_index];
  if (interval >= intervals.size()) return;
  // One interval at a time: a long trace keeps two events per node in the queue, not all.
  const DownInterval down = intervals[interval];
  engine_.schedule_at(std::max(down.down_s, engine_.now()), [this, node_index, interval, down] {
    if (std::isinf(down.up_s)) {
      if (down_for_good_since_s_.empty())
        down_for_good_since_s_.assign(nodes_.size(), std::numeric_limits<double>::infinity());
      down_for_good_since_s_[static_cast<std::size_t>(node_index)] = engine_.now();
    }
    hold_down(node_index);
    engine_.schedule_at(down.up_s, [this, node_index, interval] {
      release(node_index);
      schedule_trace_interval(node_index, interval + 1);
    });
  });
}

void CrashProcess::schedule_link_failure(int link) {
  const double delay_s = draw_s(shared_.links->failure, link_streams_[link]);
  engine_.schedule_in(delay_s, [this, link] {
    const bool again_at_once = last_link_failure_s_[link] == engine_.now();
    last_link_failure_s_[link] = engine_.now();
    topology_->set_link_up(link, false);
    if (on_link_) on_link_(link, false);
    update_cut_off();
    if (again_at_once) return;  // down for good, as a node (see the class comment)
    const double repair_s = draw_s(shared_.links->repair, link_repair_streams_[link]);
    engine_.schedule_in(repair_s, [this, link] {
      topology_->set_link_up(link, true);
      if (on_link_) on_link_(link, true);
      update_cut_off();
      schedule_link_failure(link);
    });
  });
}

void CrashProcess::update_cut_off() {
  const std::vector<char> now_cut_off = topology_->cut_off_nodes();
  for (std::size_t i = 0; i < nodes_.size(); ++i) {
    if (now_cut_off[i] == cut_off_[i]) continue;
    cut_off_[i] = now_cut_off[i];
    if (now_cut_off[i]) {
      hold_down(static_cast<int>(i));
    } else {
      release(static_cast<int>(i));
    }
  }
}

CrashSpec exponential_crashes(double mtbf_s, double repair_s) {
  return {ExponentialLaw{mtbf_s}, FixedLaw{repair_s}};
}

std::string no_node_comes_back(const std::vector<int>& gone, const std::string& leaves) {
  CODESIM_CHECK(!gone.empty(), "a node down for good");
  return "no node can come back: " + std::to_string(gone.size()) +
         " node(s) down for good (an availability trace interval without an end, first node " +
         std::to_string(gone.front()) + ") " + leaves;
}

}  // namespace codesim::sim
