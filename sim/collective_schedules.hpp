// Collectives as transfer schedules (sim/transfer_schedule.hpp), so that under the flow model
// their transfers contend with each other and with concurrent traffic. Each builder appends the
// collective's transfers to a schedule, all posted after `start` (a transfer or join id; none when
// empty), and returns a join point that completes when the collective does.
//
// Participants are compute-node ids (participants[0] is the root), as in sim/collectives.hpp,
// whose closed forms these schedules reduce to when links are uniform and nothing contends.
// Dependency rule shared by all: a participant sends only after every transfer it took part in
// before (its earlier sends and receives) has completed; receives need no order, so a node can
// receive several transfers at once (they share its links).
#pragma once

#include <optional>
#include <span>

#include "sim/transfer_schedule.hpp"

namespace codesim::sim {

using ScheduleStart = std::optional<TransferId>;

/// Binomial-tree broadcast of `bytes` from participants[0]: in the round with stride s = 2^k,
/// participant i < s sends to i + s once it holds the data and its previous send is done.
TransferId add_broadcast(TransferSchedule& schedule, std::span<const int> participants,
                         double bytes, ScheduleStart start);

/// Binomial scatter from participants[0] of p pieces of bytes / p (piece i for participant i): in
/// the round with stride s (the largest power of two below p first, then halving), participant i,
/// a multiple of 2s, sends the pieces of i + s .. min(i + 2s, p) - 1 to i + s.
TransferId add_binomial_scatter(TransferSchedule& schedule, std::span<const int> participants,
                                double bytes, ScheduleStart start);

/// Broadcast of `bytes` as a binomial scatter of its p pieces, then a ring all-gather of them.
TransferId add_scatter_all_gather_broadcast(TransferSchedule& schedule,
                                            std::span<const int> participants, double bytes,
                                            ScheduleStart start);

/// Binomial-tree reduce to participants[0] (the broadcast tree reversed): participant i + s sends
/// its partial result to i once it has received from all its own children.
TransferId add_reduce(TransferSchedule& schedule, std::span<const int> participants, double bytes,
                      ScheduleStart start);

/// Ring all-gather, `bytes_each` per participant: p - 1 steps; in step k participant i forwards
/// to i + 1 the block it received in step k - 1.
TransferId add_ring_all_gather(TransferSchedule& schedule, std::span<const int> participants,
                               double bytes_each, ScheduleStart start);

/// Bruck all-gather: in the round with stride s = 2^k participant i sends the min(s, p - s)
/// blocks it holds to i - s (mod p).
TransferId add_bruck_all_gather(TransferSchedule& schedule, std::span<const int> participants,
                                double bytes_each, ScheduleStart start);

/// Ring all-reduce of a `bytes` vector: 2 (p - 1) ring steps of bytes / p (reduce-scatter, then
/// all-gather).
TransferId add_ring_all_reduce(TransferSchedule& schedule, std::span<const int> participants,
                               double bytes, ScheduleStart start);

/// Gather to participants[0]: every other participant sends its `bytes_each` at once.
TransferId add_gather(TransferSchedule& schedule, std::span<const int> participants,
                      double bytes_each, ScheduleStart start);

}  // namespace codesim::sim
