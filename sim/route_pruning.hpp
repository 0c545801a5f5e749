// Which links of a set of routes can ever limit a flow under max-min sharing: a link whose flows
// all cross another link of no greater capacity never does, so the flow network need not carry it.
// This is what keeps an incast over long routes (every node of a 16,384-node ring sending to one
// node) at one contended link per flow instead of thousands.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace codesim::sim {

/// Routes over dense link ids (0, 1, 2, ...) are added one at a time, so that they need not all
/// be held at once; then may_limit says which links can limit a flow routed on them.
///
/// A link e never limits a flow when every route through e also crosses a link e' with
/// capacity(e') <= capacity(e): whatever subset of the flows is moving, the flows on e are among
/// those on e', so e carries no more than e' and saturates only when e' does; the max-min
/// allocation (unique) is the same without e. e' is looked for along e's chain of unique
/// successors (every route through e goes on to the same link) and of unique predecessors; the
/// predecessor rule asks for a strictly smaller capacity, so two links never drop each other and
/// every dropped link keeps a witness. Only where progressive filling ties e with e' can a rate
/// differ, in its last bits. Holds for unweighted max-min only (no latency weights, bounds or
/// cross-traffic).
class LimitingLinks {
 public:
  /// Adds one route (no link twice).
  void add_route(std::span<const std::uint32_t> route);
  /// Per link id below capacity_Bps.size(): 1 when it may limit a flow, 0 when it never does.
  /// Links no route crossed may limit (nothing is known of them).
  std::vector<char> may_limit(std::span<const double> capacity_Bps) const;

 private:
  static constexpr std::uint32_t kUnseen = 0xFFFFFFFF;  // no route crossed the link yet
  static constexpr std::uint32_t kMany = 0xFFFFFFFE;    // routes differ, or one ends here
  void note(std::vector<std::uint32_t>& neighbour, std::uint32_t link, std::uint32_t next);
  std::vector<double> chain_minimum(const std::vector<std::uint32_t>& neighbour,
                                    std::span<const double> capacity_Bps) const;

  std::vector<std::uint32_t> successor_;    // per link: the one link after it on every route
  std::vector<std::uint32_t> predecessor_;  // per link: the one link before it on every route
};

}  // namespace codesim::sim
