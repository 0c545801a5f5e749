// Cost of broadcast, reduce, all-gather, all-reduce and incasts: the topology's network model's.
#include "sim/collectives.hpp"

#include <numeric>
#include <optional>
#include <vector>

#include "sim/check.hpp"
#include "sim/collective_schedules.hpp"

namespace codesim::sim {
namespace {

CommunicationCost cost_of(const Topology& topology, CollectiveKind kind,
                          std::span<const int> participants, double bytes) {
  CODESIM_CHECK(bytes >= 0.0, "collective size must be >= 0 bytes");
  if (participants.size() <= 1) return {};
  return topology.network_cost_model().collective_cost(topology, kind, participants, bytes);
}

}  // namespace

CommunicationCost broadcast_cost(const Topology& topology, std::span<const int> participants,
                                 double bytes) {
  const bool scatter = topology.collectives().broadcast == BroadcastAlgorithm::scatter_all_gather;
  return cost_of(topology,
                 scatter ? CollectiveKind::scatter_all_gather_broadcast : CollectiveKind::broadcast,
                 participants, bytes);
}

double broadcast_bytes(BroadcastAlgorithm algorithm, std::size_t p, double bytes) {
  if (p <= 1) return 0.0;
  const double moved = static_cast<double>(p - 1) * bytes;
  if (algorithm == BroadcastAlgorithm::binomial) return moved;
  // The scatter: a piece travels once per round in which its holder hands it on.
  TransferSchedule scatter;
  std::vector<int> participants(p);
  std::iota(participants.begin(), participants.end(), 0);
  add_binomial_scatter(scatter, participants, bytes, std::nullopt);
  double scattered = 0.0;
  for (const Transfer& t : scatter.transfers()) scattered += t.bytes;
  return scattered + moved;
}

double broadcast_time_s(const Topology& topology, std::span<const int> participants, double bytes) {
  return broadcast_cost(topology, participants, bytes).time_s;
}

double reduce_time_s(const Topology& topology, std::span<const int> participants, double bytes) {
  return cost_of(topology, CollectiveKind::reduce, participants, bytes).time_s;
}

double all_gather_time_s(const Topology& topology, std::span<const int> participants,
                         double bytes_each) {
  return cost_of(topology, CollectiveKind::ring_all_gather, participants, bytes_each).time_s;
}

double bruck_all_gather_time_s(const Topology& topology, std::span<const int> participants,
                               double bytes_each) {
  return cost_of(topology, CollectiveKind::bruck_all_gather, participants, bytes_each).time_s;
}

CommunicationCost fastest_all_gather_cost(const Topology& topology,
                                          std::span<const int> participants, double bytes_each) {
  const CommunicationCost ring =
      cost_of(topology, CollectiveKind::ring_all_gather, participants, bytes_each);
  const CommunicationCost bruck =
      cost_of(topology, CollectiveKind::bruck_all_gather, participants, bytes_each);
  return bruck.time_s < ring.time_s ? bruck : ring;
}

double fastest_all_gather_time_s(const Topology& topology, std::span<const int> participants,
                                 double bytes_each) {
  return fastest_all_gather_cost(topology, participants, bytes_each).time_s;
}

CommunicationCost all_gather_cost(const Topology& topology, std::span<const int> participants,
                                  double bytes_each) {
  switch (topology.collectives().all_gather) {
    case AllGatherAlgorithm::ring:
      return cost_of(topology, CollectiveKind::ring_all_gather, participants, bytes_each);
    case AllGatherAlgorithm::bruck:
      return cost_of(topology, CollectiveKind::bruck_all_gather, participants, bytes_each);
    case AllGatherAlgorithm::automatic:
      break;
  }
  return fastest_all_gather_cost(topology, participants, bytes_each);
}

CommunicationCost all_reduce_cost(const Topology& topology, std::span<const int> participants,
                                  double bytes) {
  return cost_of(topology, CollectiveKind::ring_all_reduce, participants, bytes);
}

double all_reduce_time_s(const Topology& topology, std::span<const int> participants,
                         double bytes) {
  return cost_of(topology, CollectiveKind::ring_all_reduce, participants, bytes).time_s;
}

CommunicationCost concurrent_reduce_cost(const Topology& topology,
                                         std::span<const std::span<const int>> groups,
                                         double bytes) {
  CODESIM_CHECK(bytes >= 0.0, "collective size must be >= 0 bytes");
  return topology.network_cost_model().concurrent_collectives_cost(topology, CollectiveKind::reduce,
                                                                   groups, bytes);
}

CommunicationCost incast_cost(const Topology& topology, const Incast& incast) {
  return topology.network_cost_model().incast_cost(topology, incast);
}

CommunicationCost concurrent_incasts_cost(const Topology& topology,
                                          std::span<const Incast> incasts) {
  return topology.network_cost_model().concurrent_incasts_cost(topology, incasts);
}

}  // namespace codesim::sim
