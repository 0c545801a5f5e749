// Round costs of coded training: shapes read from a scheme, and the formulas both training modes
// charge for communication, decodes, regeneration, checkpoint writes and verification rounds.
#include "models/dnn/round_costs.hpp"

#include <algorithm>
#include <cstdint>
#include <optional>

#include "models/dnn/training_protocol.hpp"
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
  const auto scaled = [&](const Matrix* b) {
    return Block{b->rows() * row_scale, b->cols() * col_scale};
  };
  LayerShape g;
  g.rows = rows;
  g.cols = cols;
  const std::vector<Matrix*> blocks = scheme.stored_blocks(0);
  for (const Matrix* b : blocks) {
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
    dg.participants = scheme.participants(d);
    const int symbols = scheme.symbol_count(d);
    dg.node_symbols.assign(static_cast<std::size_t>(nodes), {});
    for (int s = 0; s < symbols; ++s) {
      dg.members.push_back(scheme.symbol_members(d, s));
      for (int p : dg.members.back()) dg.node_symbols[static_cast<std::size_t>(p)].push_back(s);
    }
    dg.task_flops_per_column = 2.0 * block.size();
    if (std::holds_alternative<GpdSpec>(spec))
      dg.task_flops_per_column += 2.0 * (forward ? cols : rows);
    dg.partial_rows = static_cast<int>(forward ? block.rows : block.cols);
    dg.product_rows = forward ? rows : cols;
    dg.threshold =
        forward ? summary.forward.recovery_threshold : summary.backward.recovery_threshold;
  }
  return g;
}

namespace {

bool flow_model(const sim::Topology& topology) {
  return topology.network_model() == sim::NetworkModel::flow;
}

// Every present symbol reduced over its members: at once as one schedule under the flow model
// (reductions contend where their routes share links); the slowest reduction otherwise.
sim::CommunicationCost reduce_phase(const sim::Topology& topology, const RoundShape& shape,
                                    std::span<const char> present, double symbol_bytes) {
  if (flow_model(topology)) {
    sim::TransferSchedule schedule;
    for (std::size_t s = 0; s < present.size(); ++s)
      if (present[s]) sim::add_reduce(schedule, shape.members[s], symbol_bytes, std::nullopt);
    return sim::schedule_cost(topology, schedule);
  }
  double reduce_s = 0.0;
  for (std::size_t s = 0; s < present.size(); ++s) {
    if (present[s]) {
      reduce_s = std::max(reduce_s, sim::reduce_time_s(topology, shape.members[s], symbol_bytes));
    }
  }
  return {reduce_s, 0.0};
}

// The present symbols sent to node 0: at once, sharing node 0's links, under the flow model; one
// after another otherwise.
sim::CommunicationCost gather_phase(const sim::Topology& topology, const RoundShape& shape,
                                    std::span<const char> present, double symbol_bytes) {
  sim::TransferSchedule schedule;
  double gather_s = 0.0;
  for (std::size_t s = 0; s < present.size(); ++s) {
    if (!present[s]) continue;
    if (flow_model(topology)) {
      schedule.add(shape.members[s].front(), 0, symbol_bytes);
    } else {
      gather_s += topology.transfer_time_s(shape.members[s].front(), 0, symbol_bytes);
    }
  }
  return flow_model(topology) ? sim::schedule_cost(topology, schedule)
                              : sim::CommunicationCost{gather_s};
}

}  // namespace

sim::CommunicationCost round_communication_cost(const sim::Topology& topology,
                                                const RoundShape& shape,
                                                std::span<const char> present,
                                                std::span<const int> live, double symbol_bytes,
                                                double product_bytes, bool decentralized) {
  sim::CommunicationCost cost = reduce_phase(topology, shape, present, symbol_bytes);
  if (decentralized) {
    cost += sim::fastest_all_gather_cost(topology, live, symbol_bytes);
    return cost;
  }
  std::vector<int> tree{0};
  for (int p : live)
    if (p != 0) tree.push_back(p);
  cost += gather_phase(topology, shape, present, symbol_bytes);
  cost += sim::broadcast_cost(topology, tree, product_bytes);
  return cost;
}

sim::TransferId add_round_communication(sim::TransferSchedule& schedule, const RoundShape& shape,
                                        std::span<const char> present, std::span<const int> live,
                                        double symbol_bytes, double product_bytes,
                                        bool decentralized, bool bruck) {
  std::vector<sim::TransferId> reduced;
  for (std::size_t s = 0; s < present.size(); ++s)
    if (present[s])
      reduced.push_back(sim::add_reduce(schedule, shape.members[s], symbol_bytes, std::nullopt));
  const sim::TransferId all_reduced = schedule.join(std::move(reduced));
  if (decentralized) {
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
  return sim::add_broadcast(schedule, tree, product_bytes, schedule.join(std::move(gathered)));
}

double round_communication_time_s(const sim::Topology& topology, const RoundShape& shape,
                                  std::span<const char> present, std::span<const int> live,
                                  double symbol_bytes, double product_bytes, bool decentralized) {
  return round_communication_cost(topology, shape, present, live, symbol_bytes, product_bytes,
                                  decentralized)
      .time_s;
}

double decode_flops(int present_symbols, int partial_rows, int batch, bool clean) {
  return 2.0 * present_symbols * present_symbols * partial_rows * batch *
         (clean ? 1.0 : kUncleanDecodeFactor);
}

sim::CommunicationCost regeneration_cost(const sim::Topology& topology, int node,
                                         std::span<const int> sources, double stored_values,
                                         double node_speed_flops_per_s) {
  sim::CommunicationCost cost{2.0 * static_cast<double>(sources.size()) * stored_values /
                              node_speed_flops_per_s};
  if (flow_model(topology)) {
    // The sources send at once and share the links into `node`.
    sim::TransferSchedule schedule;
    for (int source : sources) schedule.add(source, node, stored_values * kBytesPerValue);
    cost += sim::schedule_cost(topology, schedule);
    return cost;
  }
  for (int source : sources)
    cost.time_s += topology.transfer_time_s(source, node, stored_values * kBytesPerValue);
  return cost;
}

double regeneration_time_s(const sim::Topology& topology, int node, std::span<const int> sources,
                           double stored_values, double node_speed_flops_per_s) {
  return regeneration_cost(topology, node, sources, stored_values, node_speed_flops_per_s).time_s;
}

double checkpoint_write_time_s(const sim::CheckpointPolicy& policy, const sim::CheckpointSpec& spec,
                               double stored_values_per_node, const sim::Topology& topology,
                               int nodes) {
  const double storage_s = sim::storage_transfer_time_s(
      topology, spec.storage, nodes, stored_values_per_node * kBytesPerValue, true);
  if (spec.bytes > 0.0 || spec.write_bandwidth_Bps <= 0.0) return policy.write_cost_s() + storage_s;
  return policy.write_cost_s() + stored_values_per_node * kBytesPerValue / spec.write_bandwidth_Bps;
}

double checkpoint_restart_time_s(const sim::CheckpointPolicy& policy,
                                 const sim::CheckpointSpec& spec, double stored_values_per_node,
                                 const sim::Topology& topology, int nodes) {
  return policy.restart_s() + sim::storage_transfer_time_s(topology, spec.storage, nodes,
                                                           stored_values_per_node * kBytesPerValue,
                                                           false);
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
