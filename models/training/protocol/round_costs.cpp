// Round costs of coded training: shapes read from a scheme, and the formulas both training modes
// charge for communication, decodes, regeneration, checkpoint writes and verification rounds.
#include "models/training/protocol/round_costs.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>

#include "models/training/protocol/training_protocol.hpp"
#include "sim/check.hpp"
#include "sim/collective_schedules.hpp"
#include "sim/collectives.hpp"
#include "sim/transfer_schedule.hpp"

namespace codesim::models {

LayerShape layer_shape(const SchemeSpec& spec, CodingScheme& scheme, int scheme_rows,
                       int scheme_cols, int rows, int cols) {
  CODESIM_CHECK(
      scheme_rows >= 1 && scheme_cols >= 1 && rows % scheme_rows == 0 && cols % scheme_cols == 0,
      "a layer's shape scales the scheme's by whole factors");
  const std::int64_t row_scale = rows / scheme_rows;
  const std::int64_t col_scale = cols / scheme_cols;
  struct Block {
    std::int64_t rows;
    std::int64_t cols;
    double size() const { return static_cast<double>(rows * cols); }
  };
  // ABFT's blocks carry checksum lines: a product computes them (forward from the block's first
  // cols columns, backward from its first rows rows) and its node keeps them. They do not scale.
  const std::int64_t extra = scheme.checksum_lines();
  const auto scaled = [&](const BlockShape& b) {
    return Block{(b.rows - extra) * row_scale + extra, (b.cols - extra) * col_scale + extra};
  };
  LayerShape g;
  g.rows = rows;
  g.cols = cols;
  const std::vector<BlockShape> blocks = scheme.block_shapes();
  for (const BlockShape& b : blocks) {
    g.update_flops_per_column += 2.0 * scaled(b).size();
    g.stored_values_per_node += scaled(b).size();
  }
  const bool coded = repetition_copies(spec) == 0;
  if (coded) g.update_flops_per_column += 2.0 * (rows + cols);
  const SchemeSummary summary = scheme.summary();
  const int nodes = scheme.node_count();
  for (Direction d : {Direction::forward, Direction::backward}) {
    const bool forward = d == Direction::forward;
    RoundShape& dg = g.dir[forward ? 0 : 1];
    const Block block = scaled(forward ? blocks.front() : blocks.back());
    const Block read =
        forward ? Block{block.rows, block.cols - extra} : Block{block.rows - extra, block.cols};
    dg.participants = scheme.participants(d);
    const int symbols = scheme.symbol_count(d);
    dg.node_symbols.assign(static_cast<std::size_t>(nodes), {});
    for (int s = 0; s < symbols; ++s) {
      dg.members.push_back(scheme.symbol_members(d, s));
      for (int p : dg.members.back()) dg.node_symbols[static_cast<std::size_t>(p)].push_back(s);
    }
    dg.task_flops_per_column = 2.0 * read.size();
    if (descriptor_of(spec).encodes_input)
      dg.task_flops_per_column += 2.0 * (forward ? cols : rows);
    dg.partial_rows = static_cast<int>((forward ? block.rows : block.cols) - extra);
    dg.product_rows = forward ? rows : cols;
    dg.threshold =
        forward ? summary.forward.recovery_threshold : summary.backward.recovery_threshold;
  }
  return g;
}

namespace {

// Every present symbol reduced over its members, all at once.
sim::CommunicationCost reduce_phase(const sim::Topology& topology, const RoundShape& shape,
                                    std::span<const char> present, double symbol_bytes) {
  std::vector<std::span<const int>> groups;
  for (std::size_t s = 0; s < present.size(); ++s)
    if (present[s]) groups.push_back(shape.members[s]);
  return sim::concurrent_reduce_cost(topology, groups, symbol_bytes);
}

// The present symbols sent to node 0.
sim::CommunicationCost gather_phase(const sim::Topology& topology, const RoundShape& shape,
                                    std::span<const char> present, double symbol_bytes) {
  std::vector<int> roots;
  for (std::size_t s = 0; s < present.size(); ++s)
    if (present[s]) roots.push_back(shape.members[s].front());
  return sim::incast_cost(topology, {.dst = 0, .sources = roots, .bytes = symbol_bytes});
}

sim::CommunicationCost computed_round_cost(const sim::Topology& topology, const RoundShape& shape,
                                           std::span<const char> present, std::span<const int> live,
                                           double symbol_bytes, double product_bytes,
                                           bool decentralized) {
  sim::CommunicationCost cost = reduce_phase(topology, shape, present, symbol_bytes);
  if (decentralized) {
    cost += sim::all_gather_cost(topology, live, symbol_bytes);
    return cost;
  }
  std::vector<int> tree{0};
  for (int p : live)
    if (p != 0) tree.push_back(p);
  cost += gather_phase(topology, shape, present, symbol_bytes);
  cost += sim::broadcast_cost(topology, tree, product_bytes);
  return cost;
}

// Everything a round's cost depends on besides the topology: its symbols' members, which of them
// are present, the live nodes, the sizes and the protocol.
std::string round_key(const RoundShape& shape, std::span<const char> present,
                      std::span<const int> live, double symbol_bytes, double product_bytes,
                      bool decentralized) {
  std::string key = "round";
  const auto append = [&key](const auto& value) { sim::Topology::append_to_key(key, value); };
  append(decentralized);
  append(symbol_bytes);
  append(product_bytes);
  append(present.size());
  key.append(present.begin(), present.end());
  append(live.size());
  for (int p : live) append(p);
  for (const std::vector<int>& members : shape.members) {
    append(members.size());
    for (int p : members) append(p);
  }
  return key;
}

}  // namespace

// Rounds repeat the same few patterns thousands of times: each one's cost is computed once per
// topology state (the topology forgets it when a link goes down or comes back).
sim::CommunicationCost round_communication_cost(const sim::Topology& topology,
                                                const RoundShape& shape,
                                                std::span<const char> present,
                                                std::span<const int> live, double symbol_bytes,
                                                double product_bytes, bool decentralized) {
  std::string key = round_key(shape, present, live, symbol_bytes, product_bytes, decentralized);
  if (const std::vector<double>* known = topology.remembered(key))
    return {(*known)[0], (*known)[1]};
  const sim::CommunicationCost cost = computed_round_cost(
      topology, shape, present, live, symbol_bytes, product_bytes, decentralized);
  topology.remember(std::move(key), {cost.time_s, cost.link_wait_s});
  return cost;
}

sim::TransferId add_round_communication(sim::TransferSchedule& schedule, const RoundShape& shape,
                                        std::span<const char> present, std::span<const int> live,
                                        double symbol_bytes, double product_bytes,
                                        bool decentralized,
                                        const sim::CollectiveChoice& algorithms) {
  std::vector<sim::TransferId> reduced;
  for (std::size_t s = 0; s < present.size(); ++s)
    if (present[s])
      reduced.push_back(sim::add_reduce(schedule, shape.members[s], symbol_bytes, std::nullopt));
  const sim::TransferId all_reduced = schedule.join(std::move(reduced));
  if (decentralized) {
    CODESIM_CHECK(algorithms.all_gather != sim::AllGatherAlgorithm::automatic,
                  "a round's schedule runs one all-gather algorithm");
    const bool bruck = algorithms.all_gather == sim::AllGatherAlgorithm::bruck;
    const auto all_gather = bruck ? sim::add_bruck_all_gather : sim::add_ring_all_gather;
    return all_gather(schedule, live, symbol_bytes, all_reduced);
  }
  std::vector<sim::TransferId> gathered;
  for (std::size_t s = 0; s < present.size(); ++s)
    if (present[s])
      gathered.push_back(schedule.add(shape.members[s].front(), 0, symbol_bytes, {all_reduced}));
  std::vector<int> tree{0};
  for (int p : live)
    if (p != 0) tree.push_back(p);
  const bool scatter = algorithms.broadcast == sim::BroadcastAlgorithm::scatter_all_gather;
  const auto broadcast = scatter ? sim::add_scatter_all_gather_broadcast : sim::add_broadcast;
  return broadcast(schedule, tree, product_bytes, schedule.join(std::move(gathered)));
}

namespace {

// Each real transfer of `schedule` from when its predecessors completed to its own completion.
std::vector<TimedTransfer> timed(const sim::TransferSchedule& schedule,
                                 const std::vector<double>& completion_s) {
  std::vector<TimedTransfer> out;
  const auto transfers = schedule.transfers();
  for (std::size_t t = 0; t < transfers.size(); ++t) {
    const sim::Transfer& transfer = transfers[t];
    if (transfer.src == transfer.dst) continue;
    double posted_s = 0.0;
    for (sim::TransferId before : transfer.after)
      posted_s = std::max(posted_s, completion_s[before]);
    out.push_back({transfer.src, transfer.dst, posted_s, completion_s[t]});
  }
  return out;
}

}  // namespace

std::vector<TimedTransfer> round_transfers(const sim::Topology& topology, const RoundShape& shape,
                                           std::span<const char> present, std::span<const int> live,
                                           double symbol_bytes, double product_bytes,
                                           bool decentralized, double phase_s) {
  sim::TransferSchedule best;
  sim::ScheduleTimes best_times;
  const sim::AllGatherAlgorithm chosen = topology.collectives().all_gather;
  bool first = true;
  for (const sim::AllGatherAlgorithm all_gather :
       {sim::AllGatherAlgorithm::ring, sim::AllGatherAlgorithm::bruck}) {
    if (chosen != sim::AllGatherAlgorithm::automatic && chosen != all_gather) continue;
    if (!first && !decentralized) break;
    sim::CollectiveChoice algorithms = topology.collectives();
    algorithms.all_gather = all_gather;
    sim::TransferSchedule schedule;
    add_round_communication(schedule, shape, present, live, symbol_bytes, product_bytes,
                            decentralized, algorithms);
    sim::ScheduleTimes times = sim::run_schedule(topology, schedule);
    if (first || times.makespan_s < best_times.makespan_s) {
      first = false;
      best = std::move(schedule);
      best_times = std::move(times);
    }
  }
  std::vector<TimedTransfer> out = timed(best, best_times.completion_s);
  if (best_times.makespan_s > 0.0 && std::isfinite(best_times.makespan_s)) {
    const double scale = phase_s / best_times.makespan_s;
    for (TimedTransfer& t : out) {
      t.start_s *= scale;
      t.end_s *= scale;
    }
  }
  return out;
}

double round_communication_time_s(const sim::Topology& topology, const RoundShape& shape,
                                  std::span<const char> present, std::span<const int> live,
                                  double symbol_bytes, double product_bytes, bool decentralized) {
  return round_communication_cost(topology, shape, present, live, symbol_bytes, product_bytes,
                                  decentralized)
      .time_s;
}

double round_communication_bytes(const RoundShape& shape, std::span<const char> present,
                                 std::span<const int> live, double symbol_bytes,
                                 double product_bytes, bool decentralized,
                                 sim::BroadcastAlgorithm broadcast) {
  double bytes = 0.0;
  for (std::size_t s = 0; s < present.size(); ++s) {
    if (!present[s]) continue;
    bytes += static_cast<double>(shape.members[s].size() - 1) * symbol_bytes;
    if (!decentralized && shape.members[s].front() != 0) bytes += symbol_bytes;
  }
  const auto nodes = static_cast<double>(live.size());
  if (decentralized) return bytes + nodes * (nodes - 1.0) * symbol_bytes;
  const bool zero_live = std::find(live.begin(), live.end(), 0) != live.end();
  return bytes + sim::broadcast_bytes(broadcast, live.size() + (zero_live ? 0 : 1), product_bytes);
}

double regeneration_bytes(std::span<const RegenerationJob> jobs) {
  double bytes = 0.0;
  for (const RegenerationJob& job : jobs)
    bytes += static_cast<double>(job.sources.size()) * job.stored_values * kBytesPerValue;
  return bytes;
}

double decode_flops(int present_symbols, int partial_rows, int batch, bool clean) {
  return 2.0 * present_symbols * present_symbols * partial_rows * batch *
         (clean ? 1.0 : kUncleanDecodeFactor);
}

double decode_fault_flops(const RoundShape& shape, int columns) {
  return decode_flops(static_cast<int>(shape.members.size()), shape.partial_rows, columns, true);
}

namespace {

// The sources' blocks sent to `node`, which then combines them (2 |sources| flops per value).
sim::Incast regeneration(int node, std::span<const int> sources, double stored_values,
                         double node_speed_flops_per_s) {
  return {node, sources, stored_values * kBytesPerValue,
          2.0 * static_cast<double>(sources.size()) * stored_values / node_speed_flops_per_s};
}

}  // namespace

sim::CommunicationCost regeneration_cost(const sim::Topology& topology, int node,
                                         std::span<const int> sources, double stored_values,
                                         double node_speed_flops_per_s) {
  return sim::incast_cost(topology,
                          regeneration(node, sources, stored_values, node_speed_flops_per_s));
}

sim::CommunicationCost parallel_regeneration_cost(const sim::Topology& topology,
                                                  std::span<const RegenerationJob> jobs) {
  std::vector<sim::Incast> incasts;
  for (const RegenerationJob& job : jobs)
    incasts.push_back(
        regeneration(job.node, job.sources, job.stored_values, job.node_speed_flops_per_s));
  return sim::concurrent_incasts_cost(topology, incasts);
}

double regeneration_time_s(const sim::Topology& topology, int node, std::span<const int> sources,
                           double stored_values, double node_speed_flops_per_s) {
  return regeneration_cost(topology, node, sources, stored_values, node_speed_flops_per_s).time_s;
}

sim::CheckpointCosts checkpoint_costs(const sim::CheckpointSpec& spec,
                                      double stored_values_per_node, const sim::Topology& topology,
                                      int nodes) {
  const double bytes_per_node = stored_values_per_node * kBytesPerValue;
  sim::CheckpointCosts costs = sim::checkpoint_costs(spec);
  if (spec.bytes <= 0.0 && spec.write_bandwidth_Bps > 0.0)
    costs.write_s += bytes_per_node / spec.write_bandwidth_Bps;
  return sim::add_storage_transfers(costs, spec, topology, nodes, bytes_per_node);
}

double nominal_round_time_s(const sim::Topology& topology, const RoundShape& shape,
                            std::span<const char> usable,
                            std::span<const double> speeds_flops_per_s, std::span<const int> live,
                            double decoder_speed_flops_per_s, int batch, bool decentralized) {
  double compute_s = 0.0;
  for (int p : shape.participants) {
    const auto index = static_cast<std::size_t>(p);
    if (usable[index]) {
      compute_s = std::max(compute_s, shape.task_flops_per_column / speeds_flops_per_s[index]);
    }
  }
  std::vector<char> present(shape.members.size(), 0);
  int symbols = 0;
  for (std::size_t s = 0; s < shape.members.size(); ++s) {
    present[s] = std::all_of(shape.members[s].begin(), shape.members[s].end(),
                             [&](int p) { return usable[static_cast<std::size_t>(p)] != 0; });
    symbols += present[s];
  }
  const double symbol_bytes = static_cast<double>(shape.partial_rows) * kBytesPerValue;
  const double product_bytes = static_cast<double>(shape.product_rows) * batch * kBytesPerValue;
  const double count = static_cast<double>(symbols);
  return compute_s +
         round_communication_time_s(topology, shape, present, live, symbol_bytes, product_bytes,
                                    decentralized) +
         2.0 * count * count * shape.partial_rows / decoder_speed_flops_per_s;
}

}  // namespace codesim::models
