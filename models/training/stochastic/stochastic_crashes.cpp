// CrashTimeline: sim::CrashProcess on a private engine, stopped at every transition.
#include "models/training/stochastic/stochastic_crashes.hpp"

#include <cmath>
#include <deque>
#include <limits>
#include <optional>
#include <vector>

#include "sim/check.hpp"
#include "sim/engine.hpp"

namespace codesim::models::detail {
namespace {

bool ever_down(const sim::ClusterSpec& cluster) {
  for (const sim::CrashSpec& c : cluster.crashes)
    if (c.ever_fails()) return true;
  for (const sim::FailureDomainSpec& d : cluster.shared_failures.domains)
    if (std::isfinite(sim::mean_s(d.failure))) return true;
  for (const std::vector<sim::DownInterval>& node : cluster.shared_failures.trace)
    if (!node.empty()) return true;
  return cluster.shared_failures.links && cluster.shared_failures.links->ever_fails();
}

}  // namespace

struct CrashTimeline::Process {
  sim::Engine engine;
  std::vector<sim::Node> nodes;
  std::optional<sim::Topology> topology;  // with link failures: whom they cut off
  std::optional<sim::CrashProcess> crashes;
  std::deque<CrashEvent> ready;  // transitions made, not yet popped
  double horizon_s = 0.0;

  /// Runs events until one makes a transition (the listeners stop the engine) or none is left
  /// before the horizon.
  void advance() {
    while (ready.empty() && !engine.empty() && engine.now() <= horizon_s) engine.run();
  }
};

CrashTimeline::CrashTimeline() = default;
CrashTimeline::CrashTimeline(CrashTimeline&&) noexcept = default;
CrashTimeline& CrashTimeline::operator=(CrashTimeline&&) noexcept = default;
CrashTimeline::~CrashTimeline() = default;

CrashTimeline::CrashTimeline(const sim::ClusterSpec& cluster, std::uint64_t seed,
                             std::uint64_t replica, double horizon_s)
    : process_(std::make_unique<Process>()), active_(ever_down(cluster)) {
  Process& p = *process_;
  p.horizon_s = horizon_s;
  if (!active_) return;
  // Plain nodes: the process only needs their up/down state (tasks are the run's business).
  const std::shared_ptr<const sim::StragglerModel> none = sim::make_straggler_model({});
  p.nodes.reserve(cluster.crashes.size());
  for (std::size_t i = 0; i < cluster.crashes.size(); ++i)
    p.nodes.emplace_back(static_cast<int>(i), 1.0, none, sim::RandomStream({seed, replica, "", i}));
  if (cluster.shared_failures.links) p.topology.emplace(cluster.network);
  p.crashes.emplace(p.engine, p.nodes, cluster.crashes, seed, replica, cluster.shared_failures,
                    p.topology ? &*p.topology : nullptr);
  p.crashes->on_crash([&p](int node, bool /*task_lost*/) {
    p.ready.push_back({p.engine.now(), node, true});
    p.engine.stop();
  });
  p.crashes->on_repair([&p](int node) {
    p.ready.push_back({p.engine.now(), node, false});
    p.engine.stop();
  });
  p.crashes->on_link([&p](int link, bool up) {
    p.ready.push_back({p.engine.now(), -1, !up, link});
    p.engine.stop();
  });
  p.crashes->start();
}

double CrashTimeline::next_s() const {
  if (!active_) return std::numeric_limits<double>::infinity();
  process_->advance();
  if (process_->ready.empty() || process_->ready.front().time_s > process_->horizon_s)
    return std::numeric_limits<double>::infinity();
  return process_->ready.front().time_s;
}

double CrashTimeline::down_for_good_since_s(int node) const {
  if (!active_) return std::numeric_limits<double>::infinity();
  return process_->crashes->down_for_good_since_s(node);
}

CrashEvent CrashTimeline::pop() {
  CODESIM_CHECK(std::isfinite(next_s()), "no crash or repair to pop");
  const CrashEvent e = process_->ready.front();
  process_->ready.pop_front();
  return e;
}

}  // namespace codesim::models::detail
