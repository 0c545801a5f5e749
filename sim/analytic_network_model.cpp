// The analytic network model: contention-free costs. A transfer takes its route's latency + bytes
// / bottleneck bandwidth whatever else is moving, collectives cost their closed forms
// (sim/collectives.hpp) and a node receives an incast's transfers one after another.
#include <algorithm>
#include <cstddef>
#include <memory>

#include "sim/check.hpp"
#include "sim/network_cost_model.hpp"

namespace codesim::sim {
namespace {

// Binomial tree rounds: in the round with stride s = 2^k, participant i < s pairs with i + s.
// `towards_root` reverses every transfer (reduce). Rounds are summed in the same order either
// way; their order does not change the total.
double binomial_tree_time_s(const Topology& topology, std::span<const int> participants,
                            double bytes, bool towards_root) {
  const std::size_t p = participants.size();
  double total_s = 0.0;
  for (std::size_t stride = 1; stride < p; stride *= 2) {
    double round_s = 0.0;
    for (std::size_t i = 0; i < stride && i + stride < p; ++i) {
      const int holder = participants[i];
      const int other = participants[i + stride];
      round_s = std::max(round_s, towards_root ? topology.transfer_time_s(other, holder, bytes)
                                               : topology.transfer_time_s(holder, other, bytes));
    }
    total_s += round_s;
  }
  return total_s;
}

// One step in which every participant i sends `bytes` to participant (i + offset) mod p: the
// slowest transfer sets the pace.
double shifted_step_time_s(const Topology& topology, std::span<const int> participants,
                           std::size_t offset, double bytes) {
  const std::size_t p = participants.size();
  double step_s = 0.0;
  for (std::size_t i = 0; i < p; ++i) {
    step_s = std::max(
        step_s, topology.transfer_time_s(participants[i], participants[(i + offset) % p], bytes));
  }
  return step_s;
}

double bruck_all_gather_time_s(const Topology& topology, std::span<const int> participants,
                               double bytes_each) {
  const std::size_t p = participants.size();
  double total_s = 0.0;
  for (std::size_t stride = 1; stride < p; stride *= 2) {
    const double bytes = static_cast<double>(std::min(stride, p - stride)) * bytes_each;
    total_s += shifted_step_time_s(topology, participants, p - stride, bytes);
  }
  return total_s;
}

// Binomial scatter rounds (sim/collective_schedules.hpp), then a ring all-gather of the pieces.
double scatter_all_gather_time_s(const Topology& topology, std::span<const int> participants,
                                 double bytes) {
  const std::size_t p = participants.size();
  const double piece = bytes / static_cast<double>(p);
  std::size_t top = 1;
  while (top * 2 < p) top *= 2;
  double total_s = 0.0;
  for (std::size_t stride = top; stride >= 1; stride /= 2) {
    double round_s = 0.0;
    for (std::size_t i = 0; i + stride < p; i += 2 * stride) {
      const double sent = piece * static_cast<double>(std::min(i + 2 * stride, p) - i - stride);
      round_s = std::max(round_s,
                         topology.transfer_time_s(participants[i], participants[i + stride], sent));
    }
    total_s += round_s;
  }
  return total_s +
         static_cast<double>(p - 1) * shifted_step_time_s(topology, participants, 1, piece);
}

class AnalyticNetworkModel final : public NetworkCostModel {
 public:
  bool reports_link_wait() const override { return false; }

  ScheduleTimes run_schedule(const Topology& topology,
                             const TransferSchedule& schedule) const override {
    return contention_free_times(topology, schedule);
  }

  CommunicationCost collective_cost(const Topology& topology, CollectiveKind kind,
                                    std::span<const int> participants,
                                    double bytes) const override {
    return {collective_time_s(topology, kind, participants, bytes), 0.0};
  }

  // The slowest collective, as if each had the network to itself.
  CommunicationCost concurrent_collectives_cost(const Topology& topology, CollectiveKind kind,
                                                std::span<const std::span<const int>> groups,
                                                double bytes) const override {
    double time_s = 0.0;
    for (std::span<const int> group : groups) {
      const double group_s =
          group.size() > 1 ? collective_time_s(topology, kind, group, bytes) : 0.0;
      time_s = std::max(time_s, group_s);
    }
    return {time_s, 0.0};
  }

  // dst's work, then its receives one after another (dst's link takes one at a time).
  CommunicationCost incast_cost(const Topology& topology, const Incast& incast) const override {
    CommunicationCost cost{incast.then_s};
    for (int source : incast.sources)
      cost.time_s += topology.transfer_time_s(source, incast.dst, incast.bytes);
    return cost;
  }

  double routed_makespan_s(std::span<const RoutedTransfer> transfers) const override {
    return contention_free_makespan_s(transfers);
  }

 private:
  static double collective_time_s(const Topology& topology, CollectiveKind kind,
                                  std::span<const int> participants, double bytes) {
    const auto p = static_cast<double>(participants.size());
    switch (kind) {
      case CollectiveKind::broadcast:
        return binomial_tree_time_s(topology, participants, bytes, false);
      case CollectiveKind::reduce:
        return binomial_tree_time_s(topology, participants, bytes, true);
      case CollectiveKind::ring_all_gather:
        return (p - 1.0) * shifted_step_time_s(topology, participants, 1, bytes);
      case CollectiveKind::bruck_all_gather:
        return bruck_all_gather_time_s(topology, participants, bytes);
      case CollectiveKind::ring_all_reduce:
        return 2.0 * (p - 1.0) * shifted_step_time_s(topology, participants, 1, bytes / p);
      case CollectiveKind::scatter_all_gather_broadcast:
        return scatter_all_gather_time_s(topology, participants, bytes);
    }
    CODESIM_CHECK(false, "unknown collective");
    return 0.0;
  }
};

}  // namespace

std::unique_ptr<const NetworkCostModel> detail::make_analytic_network_model() {
  return std::make_unique<AnalyticNetworkModel>();
}

}  // namespace codesim::sim
