// The time model of coded training's rounds, shared by the numeric and the stochastic modes:
// task flops, symbol reduce and exchange, decode, regeneration transfers and checkpoint writes.
#pragma once

#include <array>
#include <span>
#include <vector>

#include "models/coding/coding_scheme.hpp"
#include "sim/checkpoint_policy.hpp"
#include "sim/collectives.hpp"
#include "sim/topology.hpp"
#include "sim/transfer_schedule.hpp"

namespace codesim::models {

inline constexpr double kBytesPerValue = 8.0;  // float64
/// Decoding with errors costs a few more passes than a clean decode (LinearCode::decode).
inline constexpr double kUncleanDecodeFactor = 4.0;

/// One direction of one layer's scheme: who computes, which partial results sum into which
/// symbol, and the sizes that set the costs.
struct RoundShape {
  std::vector<int> participants;
  std::vector<std::vector<int>> members;       ///< per symbol, its member nodes
  std::vector<std::vector<int>> node_symbols;  ///< per node, the symbols it is a member of
  /// Flops of one participant's product per batch column (plus GPD's input encoding).
  double task_flops_per_column = 0.0;
  int partial_rows = 0;  ///< rows of one partial result (and of one symbol)
  int product_rows = 0;  ///< rows of the decoded product
  int threshold = 0;     ///< K in symbols (repetition schemes: blocks)
};

/// The shape of one layer (W is rows x cols).
struct LayerShape {
  int rows = 0;
  int cols = 0;
  std::array<RoundShape, 2> dir;         ///< [0] forward, [1] backward
  double update_flops_per_column = 0.0;  ///< one node's update task per batch column
  double stored_values_per_node = 0.0;   ///< values node 0 stores for this layer
};

/// The shape of a rows x cols layer under `spec`, read from `scheme`: a scheme of `spec` built and
/// encoded for a scheme_rows x scheme_cols matrix with the same block structure (the layer's own,
/// or a small one). Block heights scale by rows / scheme_rows and widths by cols / scheme_cols.
LayerShape layer_shape(const SchemeSpec& spec, CodingScheme& scheme, int scheme_rows,
                       int scheme_cols, int rows, int cols);

/// Seconds to bring a round's present symbols together: each symbol reduced over its members
/// (binomial reduce of `symbol_bytes`; the slowest symbol counts), then decentralized: the faster
/// of a ring and a Bruck all-gather of one symbol per `live` node; centralized: the symbols sent
/// to node 0 and the decoded product (`product_bytes`) broadcast from node 0 to the live nodes
/// (binomial). `present` has one flag per symbol.
/// The phases follow one another (each starts when the last transfer of the one before ends, so
/// their times add up). Under the flow network model each phase is a transfer schedule run on the
/// links: all reductions at once (contending where their routes share links), the symbols'
/// transfers to node 0 at once, the collectives as in sim/collectives.hpp. Under the analytic
/// model the phases cost their closed forms and the symbols reach node 0 one after another.
double round_communication_time_s(const sim::Topology& topology, const RoundShape& shape,
                                  std::span<const char> present, std::span<const int> live,
                                  double symbol_bytes, double product_bytes, bool decentralized);
/// The same with the part spent waiting on shared links (sim/collectives.hpp).
/// The round's communication as one transfer schedule, its phases joined (each starts when the one
/// before has ended), with the algorithms given (the all-gather ring or bruck, not auto): run
/// alone on a network it takes what round_communication_time_s charges for them (the SimGrid
/// comparison runs it, bench/peers). Returns the join point of its end.
sim::TransferId add_round_communication(sim::TransferSchedule& schedule, const RoundShape& shape,
                                        std::span<const char> present, std::span<const int> live,
                                        double symbol_bytes, double product_bytes,
                                        bool decentralized,
                                        const sim::CollectiveChoice& algorithms);
/// A transfer of a round as a timeline shows it: seconds from the start of the round's
/// communication.
struct TimedTransfer {
  int src = 0;
  int dst = 0;
  double start_s = 0.0;
  double end_s = 0.0;
};
/// The transfers of add_round_communication's schedule (decentralized: with the all-gather the
/// topology chose, or of ring and Bruck the one that ends first) run on the topology, each from
/// when it is posted to when it completes, scaled so that the last ends at `phase_s` (the time the
/// round was charged: the analytic model's closed forms send the symbols to node 0 one after
/// another, the schedule at once). For traces; join points are left out.
std::vector<TimedTransfer> round_transfers(const sim::Topology& topology, const RoundShape& shape,
                                           std::span<const char> present, std::span<const int> live,
                                           double symbol_bytes, double product_bytes,
                                           bool decentralized, double phase_s);
sim::CommunicationCost round_communication_cost(const sim::Topology& topology,
                                                const RoundShape& shape,
                                                std::span<const char> present,
                                                std::span<const int> live, double symbol_bytes,
                                                double product_bytes, bool decentralized);

/// Flops of a decode of `present_symbols` symbols of `partial_rows` x `batch` entries:
/// 2 a^2 L, times kUncleanDecodeFactor when it was not clean.
double decode_flops(int present_symbols, int partial_rows, int batch, bool clean);
/// The flops a decode-target fault opportunity of a round of `shape` is given (both modes): a
/// clean decode of every symbol on `columns` product columns.
double decode_fault_flops(const RoundShape& shape, int columns);

/// Seconds for `node` to regenerate `stored_values` values from `sources`: their blocks arrive
/// (one after another under the analytic model; at once, sharing links, under the flow model),
/// then 2 |sources| flops per value at `node_speed_flops_per_s`.
double regeneration_time_s(const sim::Topology& topology, int node, std::span<const int> sources,
                           double stored_values, double node_speed_flops_per_s);
/// The same with the part spent waiting on shared links.
sim::CommunicationCost regeneration_cost(const sim::Topology& topology, int node,
                                         std::span<const int> sources, double stored_values,
                                         double node_speed_flops_per_s);

/// One node's regeneration of one stored block (regeneration_cost's arguments).
struct RegenerationJob {
  int node = 0;
  std::vector<int> sources;
  double stored_values = 0.0;
  double node_speed_flops_per_s = 1.0;
};

/// Regenerations at the same time: each node regenerates its blocks (its jobs, in order) while
/// the other nodes regenerate theirs; the slowest node's time counts. Analytic: a node's time is
/// the sum of its jobs' regeneration_cost. Flow: with more than one job, every job's transfers are
/// one schedule posted at once, so that they share links (two nodes fed by the same source share
/// its uplink), and a node's time is its last transfer's completion plus all its combining work;
/// the link wait is that time minus the same without sharing. One job costs regeneration_cost.
sim::CommunicationCost parallel_regeneration_cost(const sim::Topology& topology,
                                                  std::span<const RegenerationJob> jobs);
/// Bytes the regenerations send: each source sends its stored values once per job.
double regeneration_bytes(std::span<const RegenerationJob> jobs);

/// Bytes a round's communication sends between nodes (what round_communication_cost schedules):
/// each present symbol reduced over its members (members - 1 transfers of symbol_bytes), then
/// decentralized: an all-gather of one symbol per live node (L (L - 1) transfers); centralized:
/// the symbols not already at node 0 sent there and the product broadcast to the other live
/// nodes. A byte counts once however many links it crosses.
double round_communication_bytes(const RoundShape& shape, std::span<const char> present,
                                 std::span<const int> live, double symbol_bytes,
                                 double product_bytes, bool decentralized,
                                 sim::BroadcastAlgorithm broadcast);

/// What one checkpoint write and one restart take in a training run, seconds. A write: the spec's
/// write_s + bytes / write_bandwidth_Bps, or, when the spec gives a bandwidth and no byte count,
/// write_s + every node writing its own `stored_values_per_node` values in parallel; with shared
/// storage (spec.storage), plus nodes 0..nodes-1 sending those values to its server at once. A
/// restart: restart_s, plus, with shared storage, the nodes reading them back at once.
sim::CheckpointCosts checkpoint_costs(const sim::CheckpointSpec& spec,
                                      double stored_values_per_node, const sim::Topology& topology,
                                      int nodes);
/// Nominal (straggler-free) seconds of one batch-1 round of the verification pass: the slowest
/// usable participant's task, the communication of the symbols whose members are all usable and
/// a clean decode of them at `decoder_speed_flops_per_s`. `usable` and `speeds_flops_per_s` are
/// per node; `batch` sizes the centralized broadcast (as in the training rounds).
double nominal_round_time_s(const sim::Topology& topology, const RoundShape& shape,
                            std::span<const char> usable,
                            std::span<const double> speeds_flops_per_s, std::span<const int> live,
                            double decoder_speed_flops_per_s, int batch, bool decentralized);

}  // namespace codesim::models
