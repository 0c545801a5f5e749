// NumericBackend's iteration: the product rounds of the forward and backward passes with their
// decodes and the nodes' own nonlinear steps, then the update.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <optional>
#include <utility>
#include <vector>

#include "models/training/numeric/numeric_backend.hpp"
#include "sim/check.hpp"

namespace codesim::models::detail {

void NumericBackend::begin_iteration(int iteration) {
  batches_.load(iteration, values_.x0, values_.labels);
  values_.z.assign(static_cast<std::size_t>(net_.count), NodeCopies{});
  values_.x.assign(static_cast<std::size_t>(net_.count), NodeCopies{});
  values_.delta.assign(static_cast<std::size_t>(net_.count), NodeCopies{});
  values_.x[0].reset(net_.steps->first_input(values_.x0));
}

void NumericBackend::start_round(int layer, Direction dir) {
  round_.layer = layer;
  round_.dir = dir;
  round_.start_s = engine_.now();
  progress().time.charge_later(round_.start_s, TimeKind::compute);
  const RoundShape& g = round_shape(layer, dir);
  std::fill(round_.state.begin(), round_.state.end(), TaskState::none);
  for (auto& partial : round_.partials) partial.reset();
  round_.member_done.assign(g.members.size(), 0);
  round_.symbol_complete.assign(g.members.size(), 0);
  round_.tally.reset(
      net_.codewords[static_cast<std::size_t>(layer)][static_cast<std::size_t>(dir_index(dir))],
      protocol_.wait());
  round_.pending = 0;
  round_.withheld_blocks.clear();
  const double flops = g.task_flops_per_column * columns(layer);
  for (int p : g.participants) {
    if (!usable(p)) {
      round_.state[static_cast<std::size_t>(p)] = TaskState::lost;
      continue;
    }
    start_task(p, flops, &NumericBackend::on_partial);
  }
  if (round_.pending == 0) finish_round();
}

void NumericBackend::start_task(int p, double flops, void (NumericBackend::*done)(int)) {
  sim::Node& node = cluster_.node(p);
  CODESIM_CHECK(!node.is_busy(), "a node starts its task idle");
  round_.state[static_cast<std::size_t>(p)] = TaskState::pending;
  ++round_.pending;
  const std::uint32_t attempt = attempt_;
  const RunPhase phase = protocol_.phase();
  round_.task_start_s[static_cast<std::size_t>(p)] = engine_.now();
  const double duration_s = node.run_task(engine_, flops, [this, p, attempt, phase, done] {
    progress().energy.busy(p, engine_.now() - round_.task_start_s[static_cast<std::size_t>(p)]);
    trace().task_ended(p, engine_.now(), "done");
    if (attempt == attempt_ && protocol_.phase() == phase) (this->*done)(p);
  });
  if (trace().on()) {
    const char* name = done == &NumericBackend::on_update_done ? "update"
                       : done == &NumericBackend::on_partial   ? dir_name(round_.dir)
                                                               : "block check";
    trace().task_started(p, engine_.now(), name,
                         protocol_.phase() == RunPhase::update ? -1 : round_.layer, flops,
                         flops / node.speed_flops_per_s(), duration_s);
  }
}

void NumericBackend::cancel_task(int p) {
  sim::Node& node = cluster_.node(p);
  // The part that ran was spent.
  if (node.is_busy())
    progress().energy.busy(p, engine_.now() - round_.task_start_s[static_cast<std::size_t>(p)]);
  node.cancel_task(engine_);
}

void NumericBackend::on_partial(int p) {
  const int l = round_.layer;
  const Direction dir = round_.dir;
  const RoundShape& g = round_shape(l, dir);
  CodingScheme& scheme = *net_.schemes[static_cast<std::size_t>(l)];
  const NodeCopies& input = dir == Direction::forward ? values_.x[static_cast<std::size_t>(l)]
                                                      : values_.delta[static_cast<std::size_t>(l)];
  // Node p's arithmetic runs where its blocks live; the other ranks follow its faults and check.
  const bool here = ranks_.mine(p);
  std::vector<BlockRef> blocks;
  if (here) blocks = scheme.stored_blocks(p);
  const double flops = g.task_flops_per_column * columns(l);
  offer_at_node(p, dir_name(dir), l, FaultTarget::weights, flops,
                !here                       ? nullptr
                : dir == Direction::forward ? &blocks.front()
                                            : &blocks.back());
  Matrix partial;
  if (here) partial = multiply_input(scheme, p, dir, input.of(p));
  BlockRef partial_ref(partial);
  offer_at_node(p, dir_name(dir), l, FaultTarget::product, flops, here ? &partial_ref : nullptr);
  NodeCheck check;
  if (here) check = checked_at_node(scheme, p, dir, input.of(p), partial);
  if (checks_at_nodes(spec_.scheme)) ranks_.value_from_owner(p, check);
  if (check.withheld_block) round_.withheld_blocks.push_back(p);  // regenerated after the decode
  if (check.corrected) ++progress().counts.corrected;
  trace_sync(p, "node check");
  if (check.kept) round_.partials[static_cast<std::size_t>(p)] = std::move(partial);
  if (check.extra_flops > 0.0) {
    // The node checked its block (and recomputed): the partial leaves when that is done.
    --round_.pending;
    start_task(p, check.extra_flops, &NumericBackend::deliver_partial);
    return;
  }
  deliver_partial(p);
}

// Node p's task (product, or its block check) is over: its partial joins its symbols.
void NumericBackend::deliver_partial(int p) {
  --round_.pending;
  if (!round_.partials[static_cast<std::size_t>(p)]) {
    round_.state[static_cast<std::size_t>(p)] = TaskState::lost;  // withheld: an erasure
    check_round_done();
    return;
  }
  const RoundShape& g = round_shape(round_.layer, round_.dir);
  round_.state[static_cast<std::size_t>(p)] = TaskState::done;
  for (int s : g.node_symbols[static_cast<std::size_t>(p)]) {
    if (++round_.member_done[static_cast<std::size_t>(s)] ==
        static_cast<int>(g.members[static_cast<std::size_t>(s)].size())) {
      round_.symbol_complete[static_cast<std::size_t>(s)] = 1;
      round_.tally.add(s);
    }
  }
  check_round_done();
}

// The node's own check of its partial (ABFT; nothing for the other schemes), counted when it
// corrects. A failed check makes the node check its block (its time charged): when it repaired
// the block, the product is computed again from it (charged too); a block beyond repair, or a
// product wrong beyond repair from a sound block, is withheld (an erasure); the former's block is
// regenerated from the other nodes after the decode (abft_codenet), or the job rolls back (abft).
NumericBackend::NodeCheck NumericBackend::checked_at_node(CodingScheme& scheme, int p,
                                                          Direction dir, const Matrix& input,
                                                          Matrix& partial) {
  PartialCheck check = scheme.check_partial(p, dir, partial, spec_.decode);
  NodeCheck out;
  if (check.block_suspect) {
    const std::vector<BlockRef> blocks = scheme.stored_blocks(p);
    out.extra_flops = block_check_flops(dir == Direction::forward ? blocks.front() : blocks.back());
    const DecodeStatus block = scheme.repair_block(p, spec_.decode);
    if (block == DecodeStatus::detected) {
      out.withheld_block = true;  // regenerated after the decode, if the code can
      out.kept = false;
      return out;
    }
    if (block == DecodeStatus::corrected && check.status == DecodeStatus::detected) {
      partial = multiply_input(scheme, p, dir, input);
      check = scheme.check_partial(p, dir, partial, spec_.decode);
      if (check.status == DecodeStatus::clean) check.status = DecodeStatus::corrected;
      out.extra_flops +=
          round_shape(round_.layer, dir).task_flops_per_column * columns(round_.layer);
    }
  }
  out.corrected = check.status == DecodeStatus::corrected;
  out.kept = check.status != DecodeStatus::detected;
  return out;
}

void NumericBackend::check_round_done() {
  if (round_.pending == 0 || (protocol_.wait().stops_early() && round_.tally.enough())) {
    finish_round();
  }
}

void NumericBackend::finish_round() {
  progress().time.pending.compute_s += engine_.now() - round_.start_s;
  for (int p = 0; p < nodes_; ++p) {
    if (round_.state[static_cast<std::size_t>(p)] == TaskState::pending) {
      cancel_task(p);
      trace().task_ended(p, engine_.now(), "cancelled");
      round_.state[static_cast<std::size_t>(p)] = TaskState::lost;
    }
  }
  const int l = round_.layer;
  const Direction dir = round_.dir;
  const RoundShape& g = round_shape(l, dir);
  int present = 0;
  ranks_.share_partials(round_.partials);  // every rank decodes every symbol
  const std::vector<std::optional<Matrix>> symbols = gather_symbols(g, present);
  const double symbol_bytes = static_cast<double>(g.partial_rows) * columns(l) * kBytesPerValue;
  const double communication_s = communicate(g, symbols, symbol_bytes);
  round_.decode = net_.schemes[static_cast<std::size_t>(l)]->decode(dir, symbols, spec_.decode);
  const double decoder_speed =
      spec_.decentralized ? slowest_live_speed() : cluster_.node(0).speed_flops_per_s();
  const double decode_s = decode_flops(present, g.partial_rows, columns(l),
                                       round_.decode.status == DecodeStatus::clean) /
                          decoder_speed;
  progress().energy.decode(live_nodes(), spec_.decentralized, decode_s);
  trace_round(present, communication_s, decode_s);
  protocol_.round_finished(communication_s, decode_s);
}

void NumericBackend::trace_round(int present, double communication_s, double decode_s) {
  if (!trace().on()) return;
  const int l = round_.layer;
  const Direction dir = round_.dir;
  const std::vector<int> live = live_nodes();
  // Centralized, node 0 receives the symbols even while down (the master is not modelled as
  // failing): its row shows the phase too.
  std::vector<int> talking = live;
  if (!spec_.decentralized && (live.empty() || live.front() != 0))
    talking.insert(talking.begin(), 0);
  trace().phase(talking, "communication", engine_.now(), communication_s,
                {{"layer", l}, {"direction", dir_name(dir)}, {"symbols", present}});
  trace().phase(spec_.decentralized ? live : std::vector<int>{0}, "decode",
                engine_.now() + communication_s, decode_s,
                {{"layer", l}, {"direction", dir_name(dir)}});
}

// The complete symbols of the round, each the sum of its members' partials in member order
// (absent: an erasure); `present` counts them. Releases the partials.
std::vector<std::optional<Matrix>> NumericBackend::gather_symbols(const RoundShape& g,
                                                                  int& present) {
  std::vector<std::optional<Matrix>> symbols(g.members.size());
  for (std::size_t s = 0; s < g.members.size(); ++s) {
    if (!round_.symbol_complete[s]) continue;
    const int first = g.members[s].front();
    // A partial that feeds only this symbol is moved rather than copied.
    Matrix sum = g.node_symbols[static_cast<std::size_t>(first)].size() == 1
                     ? std::move(*round_.partials[static_cast<std::size_t>(first)])
                     : *round_.partials[static_cast<std::size_t>(first)];
    for (std::size_t i = 1; i < g.members[s].size(); ++i)
      sum += *round_.partials[static_cast<std::size_t>(g.members[s][i])];
    symbols[s] = std::move(sum);
    ++present;
  }
  for (auto& partial : round_.partials) partial.reset();
  return symbols;
}

double NumericBackend::communicate(const RoundShape& g,
                                   const std::vector<std::optional<Matrix>>& symbols,
                                   double symbol_bytes) {
  std::vector<char> present(symbols.size());
  for (std::size_t s = 0; s < symbols.size(); ++s) present[s] = symbols[s].has_value();
  const double product_bytes =
      static_cast<double>(g.product_rows) * columns(round_.layer) * kBytesPerValue;
  const std::vector<int> live = live_nodes();
  const sim::CommunicationCost cost = round_communication_cost(
      cluster_.topology(), g, present, live, symbol_bytes, product_bytes, spec_.decentralized);
  progress().energy.network(round_communication_bytes(g, present, live, symbol_bytes, product_bytes,
                                                      spec_.decentralized,
                                                      cluster_.topology().collectives().broadcast));
  progress().time.link_wait_s += cost.link_wait_s;
  if (trace().on()) {
    for (const TimedTransfer& t :
         round_transfers(cluster_.topology(), g, present, live, symbol_bytes, product_bytes,
                         spec_.decentralized, cost.time_s))
      trace().transfer("coded result", t.src, t.dst, engine_.now() + t.start_s,
                       t.end_s - t.start_s);
  }
  return cost.time_s;
}

// Decoded around blocks their nodes could not repair: they are regenerated like blamed ones.
DecodeStatus NumericBackend::round_status() {
  blame_withheld(round_.decode, round_.withheld_blocks);
  return round_.decode.status;
}

std::optional<double> NumericBackend::regenerate_blamed(int layer, Direction) {
  return regenerate_nodes(layer, round_.decode.blamed_nodes);
}

void NumericBackend::apply_round(int layer, Direction dir) {
  if (dir == Direction::forward) {
    apply_forward(layer);
  } else {
    apply_backward(layer);
  }
}

// Offers (decode) on every live node's copy of `value` (centralized: node 0's only, which every
// node receives).
void NumericBackend::offer_decode_faults(NodeCopies& value, const char* operation, int layer,
                                         double flops) {
  if (spec_.decentralized) {
    for (int p = 0; p < nodes_; ++p)
      if (up(p)) offer_copy(value, p, operation, layer, FaultTarget::decode, flops);
  } else if (up(0)) {
    offer(0, operation, layer, FaultTarget::decode, flops, value.shared);
  }
}

void NumericBackend::apply_forward(int l) {
  const auto index = static_cast<std::size_t>(l);
  Matrix z = std::move(round_.decode.product);
  z.colwise() += net_.biases[index];
  NodeCopies& zc = values_.z[index];
  zc.reset(std::move(z));
  offer_decode_faults(zc, "forward", l,
                      decode_fault_flops(round_shape(l, Direction::forward), columns(l)));
  const double elementwise = static_cast<double>(zc.shared.size());
  if (l + 1 < net_.count) {
    NodeCopies& x = values_.x[index + 1];
    x.reset(net_.steps->next_input(l, zc.shared));
    for (int p = 0; p < nodes_; ++p) {
      if (!up(p)) continue;
      if (zc.differs(p)) x.set_own(p, net_.steps->next_input(l, zc.of(p)), nodes_);
      offer_copy(x, p, "forward", l, FaultTarget::activation, elementwise);
    }
  } else {
    values_.loss = cross_entropy(zc.shared, values_.labels);
    NodeCopies& d = values_.delta[index];
    d.reset(output_delta(zc.shared, values_.labels));
    for (int p = 0; p < nodes_; ++p) {
      if (!up(p)) continue;
      if (zc.differs(p)) d.set_own(p, output_delta(zc.of(p), values_.labels), nodes_);
      offer_copy(d, p, "loss", l, FaultTarget::activation, elementwise);
    }
  }
}

void NumericBackend::apply_backward(int l) {
  // c_0 = W_0^T delta_0 (first_layer_backward) feeds nothing: decoded, then dropped, so no
  // strike on a copy of it can matter (strike_reach.hpp) and none is offered.
  if (l == 0) return;
  // c = W_l^T delta_l; values_.delta{l-1} = c o f'(values_.z{l-1}) for an MLP (layer_steps.hpp).
  NodeCopies c;
  c.reset(std::move(round_.decode.product));
  offer_decode_faults(c, "backward", l,
                      decode_fault_flops(round_shape(l, Direction::backward), columns(l)));
  const NodeCopies& z = values_.z[static_cast<std::size_t>(l) - 1];
  NodeCopies& d = values_.delta[static_cast<std::size_t>(l) - 1];
  d.reset(net_.steps->previous_delta(l, c.shared, z.shared));
  const double elementwise = static_cast<double>(c.shared.size());
  for (int p = 0; p < nodes_; ++p) {
    if (!up(p)) continue;
    if (c.differs(p) || z.differs(p)) {
      d.set_own(p, net_.steps->previous_delta(l, c.of(p), z.of(p)), nodes_);
    }
    offer_copy(d, p, "backward", l - 1, FaultTarget::activation, elementwise);
  }
}

double NumericBackend::update_flops() const {
  double flops = 0.0;
  for (int l = 0; l < net_.count; ++l)
    flops += net_.geometry[static_cast<std::size_t>(l)].update_flops_per_column * columns(l);
  return flops;
}

void NumericBackend::start_update() {
  round_.start_s = engine_.now();
  progress().time.charge_later(round_.start_s, TimeKind::compute);
  round_.pending = 0;
  const double flops = update_flops();
  for (int p = 0; p < nodes_; ++p) {
    round_.state[static_cast<std::size_t>(p)] = TaskState::none;
    if (!usable(p)) {
      stale_[static_cast<std::size_t>(p)] = true;  // misses this update
      continue;
    }
    start_task(p, flops, &NumericBackend::on_update_done);
  }
  if (round_.pending == 0) finish_update();
}

void NumericBackend::on_update_done(int p) {
  const double eta = spec_.sgd.learning_rate;
  const bool here = ranks_.mine(p);  // the update runs where p's blocks live
  for (int l = 0; l < net_.count; ++l) {
    const auto index = static_cast<std::size_t>(l);
    CodingScheme& scheme = *net_.schemes[index];
    const Matrix& delta = values_.delta[index].of(p);
    const Matrix& input = values_.x[index].of(p);
    const double flops = net_.geometry[index].update_flops_per_column * columns(l);
    FaultOpportunity o;
    o.time_s = engine_.now();
    o.node = p;
    o.operation = "update";
    o.layer = l;
    o.target = FaultTarget::update;
    o.flops = flops;
    const bool struck = injector_.offer(o);
    if (!here) {
      if (struck) strike_at_node(p, nullptr);
    } else if (struck) {
      // The encoded update of the first block is what the fault corrupts before it is added.
      const Matrix before = scheme.stored_blocks(p).front();
      scheme.update(p, delta, input, eta);
      BlockRef updated = scheme.stored_blocks(p).front();
      Matrix increment = updated - before;
      BlockRef increment_ref(increment);
      strike_at_node(p, &increment_ref);
      updated = before + increment;
    } else {
      scheme.update(p, delta, input, eta);
    }
    std::vector<BlockRef> blocks;
    if (here) blocks = scheme.stored_blocks(p);
    for (std::size_t b = 0; b < scheme.block_shapes().size(); ++b)
      offer_at_node(p, "update", l, FaultTarget::weights, flops, here ? &blocks[b] : nullptr);
  }
  trace_sync(p, "update");
  round_.state[static_cast<std::size_t>(p)] = TaskState::done;
  if (--round_.pending == 0) finish_update();
}

void NumericBackend::finish_update() {
  progress().time.pending.compute_s += engine_.now() - round_.start_s;
  const double eta = spec_.sgd.learning_rate;
  for (int l = 0; l < net_.count; ++l) {
    const auto index = static_cast<std::size_t>(l);
    net_.biases[index] += eta * values_.delta[index].shared.rowwise().sum();
  }
  if (spec_.audit && ranks_.root()) {  // the shadow lives on the root
    DenseKernels kernels(spec_.arithmetic);
    kernels.use_team(net_.team.get());
    const double shadow_loss =
        net_.steps->reference_step(net_.shadow, values_.x0, values_.labels, kernels);
    if (std::abs(values_.loss - shadow_loss) >
        spec_.audit_tolerance * std::max(1.0, std::abs(shadow_loss))) {
      ++silent_corruptions_;
    }
  }
  protocol_.update_finished();
}

void NumericBackend::iteration_done() {
  if (trace().on())
    trace().energy(engine_.now(), progress().energy.spent_J(engine_.now(), down_since_s_));
  trace().progress(progress().done());
  eval_.loss_sum += values_.loss;
  ++eval_.loss_count;
  if (spec_.record_loss) {
    metrics_.append_row("loss_vs_iteration",
                        {static_cast<double>(progress().done()), engine_.now(), values_.loss});
  }
}

// An accuracy_vs_time row; its evaluation costs eval_cost_s. The last one evaluates the weights
// the run returns: after the read-out's repairs, which no later step undoes (they only fix what a
// decode would have, and nothing after the last evaluation writes a block).
double NumericBackend::evaluate() {
  // The protocol ran the read-out's repairs before the last evaluation (read_out_passes).
  const double accuracy = evaluate_accuracy();
  const double mean_loss = eval_.loss_count > 0 ? eval_.loss_sum / eval_.loss_count : 0.0;
  metrics_.append_row("accuracy_vs_time",
                      {engine_.now(), static_cast<double>(progress().done()), accuracy, mean_loss,
                       progress().energy.spent_J(engine_.now(), down_since_s_)});
  eval_.loss_sum = 0.0;
  eval_.loss_count = 0;
  eval_.final_accuracy = accuracy;
  eval_.final_loss = mean_loss;
  const double eval_s = spec_.eval_cost_s;
  trace().accuracy_and_loss(engine_.now(), accuracy, mean_loss);
  trace().phase(live_nodes(), "evaluation", engine_.now(), eval_s);
  return eval_s;
}

}  // namespace codesim::models::detail
