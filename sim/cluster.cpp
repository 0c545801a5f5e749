// Cluster: builds nodes, network and fault processes of one replica from a ClusterSpec.
#include "sim/cluster.hpp"

#include <cmath>

#include "sim/check.hpp"

namespace codesim::sim {
namespace {
/// Node `id`'s speed trace, null when it has none (or an empty one).
std::shared_ptr<const StepTrace> speed_trace_of(const ClusterSpec& spec, int id) {
  if (spec.speed_traces.empty() || spec.speed_traces[static_cast<std::size_t>(id)].empty())
    return nullptr;
  return std::make_shared<const StepTrace>(spec.speed_traces[static_cast<std::size_t>(id)]);
}

std::vector<Node> build_nodes(const ClusterSpec& spec, std::uint64_t seed, std::uint64_t replica) {
  CODESIM_CHECK(spec.node_count() >= 1, "a cluster needs at least one node");
  CODESIM_CHECK(spec.stragglers.size() == spec.speeds_flops_per_s.size() &&
                    spec.crashes.size() == spec.speeds_flops_per_s.size() &&
                    spec.soft_errors.size() == spec.speeds_flops_per_s.size(),
                "cluster spec vectors must have one entry per node");
  std::vector<Node> nodes;
  nodes.reserve(spec.speeds_flops_per_s.size());
  CODESIM_CHECK(
      spec.speed_traces.empty() || spec.speed_traces.size() == spec.speeds_flops_per_s.size(),
      "speed traces: none or one per node");
  for (int id = 0; id < spec.node_count(); ++id) {
    std::shared_ptr<const StragglerModel> law = make_straggler_model(spec.stragglers[id]);
    nodes.emplace_back(id, spec.speeds_flops_per_s[id], std::move(law),
                       RandomStream({seed, replica, "straggler", static_cast<std::uint64_t>(id)}),
                       speed_trace_of(spec, id));
  }
  return nodes;
}

double combined_mtbf_s(const std::vector<CrashSpec>& crashes,
                       const std::vector<FailureDomainSpec>& domains) {
  double rate_per_s = 0.0;
  for (const CrashSpec& c : crashes)
    if (c.ever_fails()) rate_per_s += 1.0 / c.mtbf_s();
  // A domain's failure interrupts the job once, however many nodes it takes down.
  for (const FailureDomainSpec& d : domains)
    if (std::isfinite(mean_s(d.failure))) rate_per_s += 1.0 / mean_s(d.failure);
  return rate_per_s > 0.0 ? 1.0 / rate_per_s : INFINITY;
}
}  // namespace

ClusterSpec uniform_cluster(int nodes, double speed_flops_per_s) {
  ClusterSpec spec;
  spec.speeds_flops_per_s.assign(nodes, speed_flops_per_s);
  spec.stragglers.assign(nodes, StragglerSpec{});
  spec.crashes.assign(nodes, CrashSpec{});
  spec.soft_errors.assign(nodes, SoftErrorSpec{});
  spec.power.assign(nodes, PowerSpec{});
  spec.network.nodes = nodes;
  return spec;
}

Cluster::Cluster(Engine& engine, const ClusterSpec& spec, std::uint64_t seed, std::uint64_t replica)
    : nodes_(build_nodes(spec, seed, replica)),
      topology_(spec.network),
      crashes_(engine, nodes_, spec.crashes, seed, replica, spec.shared_failures, &topology_),
      soft_errors_(spec.soft_errors, seed, replica),
      system_mtbf_s_(combined_mtbf_s(spec.crashes, spec.shared_failures.domains)) {
  CODESIM_CHECK(spec.network.nodes == spec.node_count(), "network size must equal node count");
}

}  // namespace codesim::sim
