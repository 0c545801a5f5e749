// A step of a lockstep collective whose flows are all alike, solved once for one of them: what
// lets a ring of 100,000 nodes run a Bruck all-gather, whose steps hold 10^9 route hops or more.
#pragma once

#include <cstddef>
#include <optional>
#include <span>

#include "sim/topology.hpp"
#include "sim/transfer_schedule.hpp"

namespace codesim::sim {

/// The step in which every participant i sends `bytes` to participant (i + offset) mod p, as the
/// flow model runs it alone (time, and time lost to sharing), when its flows are alike by
/// symmetry: a ring of uniform links with none down, max-min sharing, every node taking part in
/// ring order (participants[i] = (participants[0] + i) mod n), and offset not n / 2 (whose routes
/// split between the two directions). Then every flow crosses h = min(offset, n - offset) links
/// in one direction and every link of that direction carries h flows, so all start moving
/// together after the same latency and move at bandwidth / h until they all finish. nullopt when
/// the step is not of this kind. Equal to the flow network's solve of the whole step within
/// rounding (tests/sim/symmetric_steps_test.cpp).
std::optional<CommunicationCost> alike_shift_step_cost(const Topology& topology,
                                                       std::span<const int> participants,
                                                       std::size_t offset, double bytes);

}  // namespace codesim::sim
