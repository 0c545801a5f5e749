// Cost of collective operations over a topology, each with its algorithm and formula.
#pragma once

#include <span>

#include "sim/network_cost_model.hpp"
#include "sim/topology.hpp"
#include "sim/transfer_schedule.hpp"

namespace codesim::sim {

// In every function participants are compute-node ids in the given order (participants[0] is the
// root), transfers follow the topology's routes, and fewer than two participants cost 0.
// alpha is a route's latency and beta the inverse of its bottleneck bandwidth.
// Each cost is the topology's network model's (sim/network_cost_model.hpp). The formulas below are
// the analytic model's. The flow model instead runs each collective's transfer schedule
// (sim/collective_schedules.hpp) alone on the links, which equals the formula when links are
// uniform and no two transfers share a link direction, and is slower where they do (a gather's
// incast, rings on a torus).

/// Binomial-tree broadcast of `bytes` from participants[0]: ceil(log2 p) rounds; in round k every
/// holder i < 2^k sends to i + 2^k. Time = sum over rounds of the slowest transfer of the round.
/// For uniform links: ceil(log2 p) (alpha + bytes beta).
/// With topology.collectives().broadcast = scatter_all_gather, instead a binomial scatter of p
/// pieces of bytes / p (ceil(log2 p) rounds, the sum of each round's slowest transfer), then a
/// ring all-gather of the pieces: about ceil(log2 p) alpha + (p - 1)(alpha + 2 bytes beta / p).
double broadcast_time_s(const Topology& topology, std::span<const int> participants, double bytes);
CommunicationCost broadcast_cost(const Topology& topology, std::span<const int> participants,
                                 double bytes);

/// Bytes a broadcast of `bytes` to p participants moves from node to node: (p - 1) bytes for the
/// binomial tree; the scatter's bytes plus (p - 1) bytes for scatter_all_gather.
double broadcast_bytes(BroadcastAlgorithm algorithm, std::size_t p, double bytes);

/// Binomial-tree reduce of `bytes` vectors to participants[0] (the broadcast tree reversed):
/// ceil(log2 p) (alpha + bytes beta) for uniform links; the additions are not charged.
double reduce_time_s(const Topology& topology, std::span<const int> participants, double bytes);

/// Ring all-gather where each participant contributes `bytes_each`: p - 1 steps, in each every
/// participant i sends one block to i + 1. Time = (p - 1) times the slowest neighbour transfer of
/// bytes_each; (p - 1)(alpha + bytes_each beta) for uniform links.
double all_gather_time_s(const Topology& topology, std::span<const int> participants,
                         double bytes_each);

/// Bruck all-gather (the short-message algorithm of MPI libraries): ceil(log2 p) rounds; in the
/// round with stride s = 2^k every participant i sends the min(s, p - s) blocks it holds to
/// i - s (mod p). Time = sum over rounds of the slowest such transfer;
/// ceil(log2 p) alpha + (p - 1) bytes_each beta for uniform links.
double bruck_all_gather_time_s(const Topology& topology, std::span<const int> participants,
                               double bytes_each);

/// The faster of the ring and Bruck all-gathers, as MPI libraries pick by message size: Bruck
/// wins when latency dominates (short messages, many participants), the ring when distant pairs
/// are slow.
double fastest_all_gather_time_s(const Topology& topology, std::span<const int> participants,
                                 double bytes_each);
CommunicationCost fastest_all_gather_cost(const Topology& topology,
                                          std::span<const int> participants, double bytes_each);
/// The all-gather topology.collectives() chose: ring, Bruck, or the faster (auto).
CommunicationCost all_gather_cost(const Topology& topology, std::span<const int> participants,
                                  double bytes_each);

/// Ring all-reduce of a `bytes` vector: reduce-scatter then all-gather, 2 (p - 1) steps of
/// bytes / p each; 2 (p - 1)(alpha + bytes beta / p) for uniform links.
double all_reduce_time_s(const Topology& topology, std::span<const int> participants, double bytes);
CommunicationCost all_reduce_cost(const Topology& topology, std::span<const int> participants,
                                  double bytes);

/// Several binomial reduces started at once, each of `bytes` to its group's first member: until
/// the last ends (analytic: the slowest alone; flow: one schedule, contending where routes meet).
CommunicationCost concurrent_reduce_cost(const Topology& topology,
                                         std::span<const std::span<const int>> groups,
                                         double bytes);

/// An incast (the sources sending to one node): analytic, the node's work then its receives one
/// after another; flow, the transfers at once sharing the links into it, then its work.
CommunicationCost incast_cost(const Topology& topology, const Incast& incast);

/// Several incasts started at once, the slowest destination counting (a destination's own incasts
/// in turn under the analytic model; under the flow model, with more than one, every transfer at
/// once, a destination's time its last arrival plus all its work).
CommunicationCost concurrent_incasts_cost(const Topology& topology,
                                          std::span<const Incast> incasts);

}  // namespace codesim::sim
