// Links that never limit a flow under max-min sharing, found along chains of unique neighbours.
#include "sim/route_pruning.hpp"

#include <algorithm>
#include <limits>

#include "sim/check.hpp"

namespace codesim::sim {

void LimitingLinks::note(std::vector<std::uint32_t>& neighbour, std::uint32_t link,
                         std::uint32_t next) {
  if (link >= neighbour.size()) neighbour.resize(link + std::size_t{1}, kUnseen);
  std::uint32_t& known = neighbour[link];
  if (known == kUnseen) {
    known = next;
  } else if (known != next) {
    known = kMany;
  }
}

void LimitingLinks::add_route(std::span<const std::uint32_t> route) {
  for (std::size_t hop = 0; hop < route.size(); ++hop) {
    CODESIM_CHECK(route[hop] < kMany, "too many links to prune");
    note(successor_, route[hop], hop + 1 < route.size() ? route[hop + 1] : kMany);
    note(predecessor_, route[hop], hop > 0 ? route[hop - 1] : kMany);
  }
}

// Per link: the smallest capacity along its chain of unique neighbours (itself excluded; infinity
// when it has none). Chains cannot loop: a loop would put a link twice on one route.
std::vector<double> LimitingLinks::chain_minimum(const std::vector<std::uint32_t>& neighbour,
                                                 std::span<const double> capacity_Bps) const {
  constexpr double kUnknown = -1.0;
  const std::size_t links = capacity_Bps.size();
  std::vector<double> minimum(links, kUnknown);
  const auto next_of = [&](std::size_t link) -> std::uint32_t {
    return link < neighbour.size() && neighbour[link] < links ? neighbour[link] : kMany;
  };
  std::vector<std::uint32_t> chain;
  for (std::size_t start = 0; start < links; ++start) {
    if (minimum[start] != kUnknown) continue;
    // Walk to a link whose minimum is known (or the chain's end), then fill in backwards.
    chain.clear();
    std::size_t link = start;
    double after = std::numeric_limits<double>::infinity();
    for (;;) {
      chain.push_back(static_cast<std::uint32_t>(link));
      const std::uint32_t next = next_of(link);
      if (next == kMany) break;
      if (minimum[next] != kUnknown) {
        after = std::min(minimum[next], capacity_Bps[next]);
        break;
      }
      link = next;
    }
    for (std::size_t i = chain.size(); i-- > 0;) {
      minimum[chain[i]] = after;
      after = std::min(after, capacity_Bps[chain[i]]);
    }
  }
  return minimum;
}

std::vector<char> LimitingLinks::may_limit(std::span<const double> capacity_Bps) const {
  const std::vector<double> min_after = chain_minimum(successor_, capacity_Bps);
  const std::vector<double> min_before = chain_minimum(predecessor_, capacity_Bps);
  std::vector<char> limits(capacity_Bps.size(), 1);
  for (std::size_t link = 0; link < limits.size(); ++link)
    limits[link] =
        !(capacity_Bps[link] >= min_after[link] || capacity_Bps[link] > min_before[link]);
  return limits;
}

}  // namespace codesim::sim
