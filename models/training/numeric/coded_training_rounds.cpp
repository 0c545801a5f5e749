// CodedTrainingRun's iteration: the product rounds of the forward and backward passes with their
// decodes and the nodes' own nonlinear steps, then the update.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <optional>
#include <utility>
#include <vector>

#include "models/training/numeric/coded_training_run.hpp"
#include "sim/check.hpp"

namespace codesim::models::detail {

void CodedTrainingRun::start_iteration() {
  if (observer_.should_stop && observer_.should_stop()) {
    throw TrainingStopped("training stopped on request");
  }
  if (progress_.all_done()) {
    finish();
    return;
  }
  phase_ = Phase::idle;
  iteration_start_s_ = engine_.now();
  trace_.progress(progress_.done());
  double regeneration_s = 0.0;
  if (!regenerate_repaired_nodes(regeneration_s)) {
    rollback();
    return;
  }
  if (!decodable_with_usable_nodes()) {
    wait_for_repairs();
    return;
  }
  spend(TimeKind::communication, regeneration_s, [this] {
    load_batch(progress_.done());
    z_.assign(static_cast<std::size_t>(layers_), NodeCopies{});
    x_.assign(static_cast<std::size_t>(layers_), NodeCopies{});
    delta_.assign(static_cast<std::size_t>(layers_), NodeCopies{});
    x_[0].reset(steps_->first_input(x0_));
    start_round(0, Direction::forward);
  });
}

// Stale nodes that are back up get their blocks regenerated first: false when one cannot be,
// else `regeneration_s` holds the time (0 when none was stale).
bool CodedTrainingRun::regenerate_repaired_nodes(double& regeneration_s) {
  std::vector<std::pair<int, int>> repairs;  // (layer, node)
  for (int p = 0; p < nodes_; ++p) {
    if (stale_[static_cast<std::size_t>(p)] && up(p)) {
      for (int l = 0; l < layers_; ++l) repairs.emplace_back(l, p);
    }
  }
  if (repairs.empty()) return true;
  std::vector<int> exclude;
  for (int p = 0; p < nodes_; ++p)
    if (stale_[static_cast<std::size_t>(p)] || !up(p)) exclude.push_back(p);
  const std::optional<double> t = regenerate(repairs, exclude);
  if (!t) return false;
  for (const auto& [layer, node] : repairs) stale_[static_cast<std::size_t>(node)] = false;
  regeneration_s = *t;
  return true;
}

void CodedTrainingRun::start_round(int layer, Direction dir) {
  phase_ = Phase::round;
  round_layer_ = layer;
  round_dir_ = dir;
  round_start_s_ = engine_.now();
  progress_.time.charge_later(round_start_s_, TimeKind::compute);
  const DirectionGeometry& g =
      geometry_[static_cast<std::size_t>(layer)].dir[static_cast<std::size_t>(dir_index(dir))];
  std::fill(task_state_.begin(), task_state_.end(), TaskState::none);
  for (auto& partial : partials_) partial.reset();
  member_done_.assign(g.members.size(), 0);
  symbol_complete_.assign(g.members.size(), 0);
  tally_.reset(
      codewords_[static_cast<std::size_t>(layer)][static_cast<std::size_t>(dir_index(dir))], wait_);
  pending_tasks_ = 0;
  withheld_blocks_.clear();
  const double flops = g.task_flops_per_column * columns(layer);
  for (int p : g.participants) {
    if (!usable(p)) {
      task_state_[static_cast<std::size_t>(p)] = TaskState::lost;
      continue;
    }
    start_task(p, flops, &CodedTrainingRun::on_partial);
  }
  if (pending_tasks_ == 0) finish_round();
}

void CodedTrainingRun::start_task(int p, double flops, void (CodedTrainingRun::*done)(int)) {
  sim::Node& node = cluster_.node(p);
  CODESIM_CHECK(!node.is_busy(), "a node starts its task idle");
  task_state_[static_cast<std::size_t>(p)] = TaskState::pending;
  ++pending_tasks_;
  const std::uint32_t attempt = attempt_;
  const Phase phase = phase_;
  task_start_s_[static_cast<std::size_t>(p)] = engine_.now();
  const double duration_s = node.run_task(engine_, flops, [this, p, attempt, phase, done] {
    progress_.energy.busy(p, engine_.now() - task_start_s_[static_cast<std::size_t>(p)]);
    trace_.task_ended(p, engine_.now(), "done");
    if (attempt == attempt_ && phase_ == phase) (this->*done)(p);
  });
  if (trace_.on()) {
    const char* name = done == &CodedTrainingRun::on_update_done ? "update"
                       : done == &CodedTrainingRun::on_partial   ? dir_name(round_dir_)
                                                                 : "block check";
    trace_.task_started(p, engine_.now(), name, phase_ == Phase::update ? -1 : round_layer_, flops,
                        flops / node.speed_flops_per_s(), duration_s);
  }
}

void CodedTrainingRun::cancel_task(int p) {
  sim::Node& node = cluster_.node(p);
  // The part that ran was spent.
  if (node.is_busy())
    progress_.energy.busy(p, engine_.now() - task_start_s_[static_cast<std::size_t>(p)]);
  node.cancel_task(engine_);
}

void CodedTrainingRun::on_partial(int p) {
  const int l = round_layer_;
  const Direction dir = round_dir_;
  const DirectionGeometry& g =
      geometry_[static_cast<std::size_t>(l)].dir[static_cast<std::size_t>(dir_index(dir))];
  CodingScheme& scheme = *schemes_[static_cast<std::size_t>(l)];
  const NodeCopies& input = dir == Direction::forward ? x_[static_cast<std::size_t>(l)]
                                                      : delta_[static_cast<std::size_t>(l)];
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
  if (check.withheld_block) withheld_blocks_.push_back(p);  // regenerated after the decode
  if (check.corrected) ++progress_.counts.corrected;
  trace_sync(p, "node check");
  if (check.kept) partials_[static_cast<std::size_t>(p)] = std::move(partial);
  if (check.extra_flops > 0.0) {
    // The node checked its block (and recomputed): the partial leaves when that is done.
    --pending_tasks_;
    start_task(p, check.extra_flops, &CodedTrainingRun::deliver_partial);
    return;
  }
  deliver_partial(p);
}

// Node p's task (product, or its block check) is over: its partial joins its symbols.
void CodedTrainingRun::deliver_partial(int p) {
  --pending_tasks_;
  if (!partials_[static_cast<std::size_t>(p)]) {
    task_state_[static_cast<std::size_t>(p)] = TaskState::lost;  // withheld: an erasure
    check_round_done();
    return;
  }
  const DirectionGeometry& g = geometry_[static_cast<std::size_t>(round_layer_)]
                                   .dir[static_cast<std::size_t>(dir_index(round_dir_))];
  task_state_[static_cast<std::size_t>(p)] = TaskState::done;
  for (int s : g.node_symbols[static_cast<std::size_t>(p)]) {
    if (++member_done_[static_cast<std::size_t>(s)] ==
        static_cast<int>(g.members[static_cast<std::size_t>(s)].size())) {
      symbol_complete_[static_cast<std::size_t>(s)] = 1;
      tally_.add(s);
    }
  }
  check_round_done();
}

// The node's own check of its partial (ABFT; nothing for the other schemes), counted when it
// corrects. A failed check makes the node check its block (its time charged): when it repaired
// the block, the product is computed again from it (charged too); a block beyond repair, or a
// product wrong beyond repair from a sound block, is withheld (an erasure); the former's block is
// regenerated from the other nodes after the decode (abft_codenet), or the job rolls back (abft).
CodedTrainingRun::NodeCheck CodedTrainingRun::checked_at_node(CodingScheme& scheme, int p,
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
      out.extra_flops += geometry_[static_cast<std::size_t>(round_layer_)]
                             .dir[static_cast<std::size_t>(dir_index(dir))]
                             .task_flops_per_column *
                         columns(round_layer_);
    }
  }
  out.corrected = check.status == DecodeStatus::corrected;
  out.kept = check.status != DecodeStatus::detected;
  return out;
}

void CodedTrainingRun::check_round_done() {
  if (pending_tasks_ == 0 || (wait_.stops_early() && tally_.enough())) {
    finish_round();
  }
}

void CodedTrainingRun::finish_round() {
  progress_.time.pending.compute_s += engine_.now() - round_start_s_;
  phase_ = Phase::after_round;
  for (int p = 0; p < nodes_; ++p) {
    if (task_state_[static_cast<std::size_t>(p)] == TaskState::pending) {
      cancel_task(p);
      trace_.task_ended(p, engine_.now(), "cancelled");
      task_state_[static_cast<std::size_t>(p)] = TaskState::lost;
    }
  }
  const int l = round_layer_;
  const Direction dir = round_dir_;
  const DirectionGeometry& g =
      geometry_[static_cast<std::size_t>(l)].dir[static_cast<std::size_t>(dir_index(dir))];
  int present = 0;
  ranks_.share_partials(partials_);  // every rank decodes every symbol
  const std::vector<std::optional<Matrix>> symbols = gather_symbols(g, present);
  const double symbol_bytes = static_cast<double>(g.partial_rows) * columns(l) * kBytesPerValue;
  const double communication_s = communicate(g, symbols, symbol_bytes);
  round_decode_ = schemes_[static_cast<std::size_t>(l)]->decode(dir, symbols, spec_.decode);
  ++progress_.counts.decodes;
  const double decoder_speed =
      spec_.decentralized ? slowest_live_speed() : cluster_.node(0).speed_flops_per_s();
  const double decode_s = decode_flops(present, g.partial_rows, columns(l),
                                       round_decode_.status == DecodeStatus::clean) /
                          decoder_speed;
  progress_.energy.decode(live_nodes(), spec_.decentralized, decode_s);
  progress_.time.charge_ahead(
      engine_.now(), {{TimeKind::communication, communication_s}, {TimeKind::decode, decode_s}});
  if (trace_.on()) {
    const std::vector<int> live = live_nodes();
    // Centralized, node 0 receives the symbols even while down (the master is not modelled as
    // failing): its row shows the phase too.
    std::vector<int> talking = live;
    if (!spec_.decentralized && (live.empty() || live.front() != 0))
      talking.insert(talking.begin(), 0);
    trace_.phase(talking, "communication", engine_.now(), communication_s,
                 {{"layer", l}, {"direction", dir_name(dir)}, {"symbols", present}});
    trace_.phase(spec_.decentralized ? live : std::vector<int>{0}, "decode",
                 engine_.now() + communication_s, decode_s,
                 {{"layer", l}, {"direction", dir_name(dir)}});
  }
  after(communication_s + decode_s, [this] { after_decode(); });
}

// The complete symbols of the round, each the sum of its members' partials in member order
// (absent: an erasure); `present` counts them. Releases the partials.
std::vector<std::optional<Matrix>> CodedTrainingRun::gather_symbols(const DirectionGeometry& g,
                                                                    int& present) {
  std::vector<std::optional<Matrix>> symbols(g.members.size());
  for (std::size_t s = 0; s < g.members.size(); ++s) {
    if (!symbol_complete_[s]) continue;
    const int first = g.members[s].front();
    // A partial that feeds only this symbol is moved rather than copied.
    Matrix sum = g.node_symbols[static_cast<std::size_t>(first)].size() == 1
                     ? std::move(*partials_[static_cast<std::size_t>(first)])
                     : *partials_[static_cast<std::size_t>(first)];
    for (std::size_t i = 1; i < g.members[s].size(); ++i)
      sum += *partials_[static_cast<std::size_t>(g.members[s][i])];
    symbols[s] = std::move(sum);
    ++present;
  }
  for (auto& partial : partials_) partial.reset();
  return symbols;
}

double CodedTrainingRun::communicate(const DirectionGeometry& g,
                                     const std::vector<std::optional<Matrix>>& symbols,
                                     double symbol_bytes) {
  std::vector<char> present(symbols.size());
  for (std::size_t s = 0; s < symbols.size(); ++s) present[s] = symbols[s].has_value();
  const double product_bytes =
      static_cast<double>(g.product_rows) * columns(round_layer_) * kBytesPerValue;
  const std::vector<int> live = live_nodes();
  const sim::CommunicationCost cost = round_communication_cost(
      cluster_.topology(), g, present, live, symbol_bytes, product_bytes, spec_.decentralized);
  progress_.energy.network(round_communication_bytes(g, present, live, symbol_bytes, product_bytes,
                                                     spec_.decentralized));
  progress_.time.link_wait_s += cost.link_wait_s;
  if (trace_.on()) {
    for (const TimedTransfer& t :
         round_transfers(cluster_.topology(), g, present, live, symbol_bytes, product_bytes,
                         spec_.decentralized, cost.time_s))
      trace_.transfer("coded result", t.src, t.dst, engine_.now() + t.start_s, t.end_s - t.start_s);
  }
  return cost.time_s;
}

void CodedTrainingRun::after_decode() {
  const int l = round_layer_;
  const Direction dir = round_dir_;
  double regeneration_s = 0.0;
  if (round_decode_.status == DecodeStatus::detected) {
    ++progress_.counts.detected;
    trace_sync(sim::kJobTrack, "decode");
    rollback();
    return;
  }
  // Decoded around blocks their nodes could not repair: they are regenerated like blamed ones.
  blame_withheld(round_decode_, withheld_blocks_);
  if (round_decode_.status == DecodeStatus::corrected) {
    ++progress_.counts.corrected;
    trace_sync(sim::kJobTrack, "decode");
    const std::optional<double> t = regenerate_blamed(l, round_decode_.blamed_nodes);
    if (!t) {
      rollback();
      return;
    }
    regeneration_s = *t;
  }
  if (dir == Direction::forward) {
    apply_forward(l);
  } else {
    apply_backward(l);
  }
  trace_sync(sim::kJobTrack, "decode");
  if (regeneration_s > 0.0) {
    spend(TimeKind::communication, regeneration_s, [this, l, dir] { start_next_round(l, dir); });
  } else {
    start_next_round(l, dir);
  }
}

// After the round of layer `l` in `dir`: forward 0 .. L-1, backward L-1 .. 1, then the update.
void CodedTrainingRun::start_next_round(int l, Direction dir) {
  if (dir == Direction::forward && l + 1 < layers_) {
    start_round(l + 1, Direction::forward);
  } else if (dir == Direction::forward && l >= 1) {
    start_round(l, Direction::backward);
  } else if (dir == Direction::backward && l >= 2) {
    start_round(l - 1, Direction::backward);
  } else {
    start_update();
  }
}

// Offers (decode) on every live node's copy of `value` (centralized: node 0's only, which every
// node receives).
void CodedTrainingRun::offer_decode_faults(NodeCopies& value, const char* operation, int layer,
                                           double flops) {
  if (spec_.decentralized) {
    for (int p = 0; p < nodes_; ++p)
      if (up(p)) offer_copy(value, p, operation, layer, FaultTarget::decode, flops);
  } else if (up(0)) {
    offer(0, operation, layer, FaultTarget::decode, flops, value.shared);
  }
}

double CodedTrainingRun::decode_fault_flops(int layer, Direction dir) const {
  const DirectionGeometry& g =
      geometry_[static_cast<std::size_t>(layer)].dir[static_cast<std::size_t>(dir_index(dir))];
  const double symbols = static_cast<double>(g.members.size());
  return 2.0 * symbols * symbols * g.partial_rows * columns(layer);
}

void CodedTrainingRun::apply_forward(int l) {
  const auto index = static_cast<std::size_t>(l);
  Matrix z = std::move(round_decode_.product);
  z.colwise() += biases_[index];
  NodeCopies& zc = z_[index];
  zc.reset(std::move(z));
  offer_decode_faults(zc, "forward", l, decode_fault_flops(l, Direction::forward));
  const double elementwise = static_cast<double>(zc.shared.size());
  if (l + 1 < layers_) {
    NodeCopies& x = x_[index + 1];
    x.reset(steps_->next_input(l, zc.shared));
    for (int p = 0; p < nodes_; ++p) {
      if (!up(p)) continue;
      if (zc.differs(p)) x.set_own(p, steps_->next_input(l, zc.of(p)), nodes_);
      offer_copy(x, p, "forward", l, FaultTarget::activation, elementwise);
    }
  } else {
    iteration_loss_ = cross_entropy(zc.shared, labels_);
    NodeCopies& d = delta_[index];
    d.reset(output_delta(zc.shared, labels_));
    for (int p = 0; p < nodes_; ++p) {
      if (!up(p)) continue;
      if (zc.differs(p)) d.set_own(p, output_delta(zc.of(p), labels_), nodes_);
      offer_copy(d, p, "loss", l, FaultTarget::activation, elementwise);
    }
  }
}

void CodedTrainingRun::apply_backward(int l) {
  // c = W_l^T delta_l; delta_{l-1} = c o f'(z_{l-1}) for an MLP (layer_steps.hpp).
  NodeCopies c;
  c.reset(std::move(round_decode_.product));
  offer_decode_faults(c, "backward", l, decode_fault_flops(l, Direction::backward));
  const NodeCopies& z = z_[static_cast<std::size_t>(l) - 1];
  NodeCopies& d = delta_[static_cast<std::size_t>(l) - 1];
  d.reset(steps_->previous_delta(l, c.shared, z.shared));
  const double elementwise = static_cast<double>(c.shared.size());
  for (int p = 0; p < nodes_; ++p) {
    if (!up(p)) continue;
    if (c.differs(p) || z.differs(p)) {
      d.set_own(p, steps_->previous_delta(l, c.of(p), z.of(p)), nodes_);
    }
    offer_copy(d, p, "backward", l - 1, FaultTarget::activation, elementwise);
  }
}

double CodedTrainingRun::update_flops() const {
  double flops = 0.0;
  for (int l = 0; l < layers_; ++l)
    flops += geometry_[static_cast<std::size_t>(l)].update_flops_per_column * columns(l);
  return flops;
}

void CodedTrainingRun::start_update() {
  phase_ = Phase::update;
  round_start_s_ = engine_.now();
  progress_.time.charge_later(round_start_s_, TimeKind::compute);
  pending_tasks_ = 0;
  const double flops = update_flops();
  for (int p = 0; p < nodes_; ++p) {
    task_state_[static_cast<std::size_t>(p)] = TaskState::none;
    if (!usable(p)) {
      stale_[static_cast<std::size_t>(p)] = true;  // misses this update
      continue;
    }
    start_task(p, flops, &CodedTrainingRun::on_update_done);
  }
  if (pending_tasks_ == 0) finish_update();
}

void CodedTrainingRun::on_update_done(int p) {
  const double eta = spec_.sgd.learning_rate;
  const bool here = ranks_.mine(p);  // the update runs where p's blocks live
  for (int l = 0; l < layers_; ++l) {
    const auto index = static_cast<std::size_t>(l);
    CodingScheme& scheme = *schemes_[index];
    const Matrix& delta = delta_[index].of(p);
    const Matrix& input = x_[index].of(p);
    const double flops = geometry_[index].update_flops_per_column * columns(l);
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
  task_state_[static_cast<std::size_t>(p)] = TaskState::done;
  if (--pending_tasks_ == 0) finish_update();
}

void CodedTrainingRun::finish_update() {
  progress_.time.pending.compute_s += engine_.now() - round_start_s_;
  phase_ = Phase::idle;
  const double eta = spec_.sgd.learning_rate;
  for (int l = 0; l < layers_; ++l) {
    const auto index = static_cast<std::size_t>(l);
    biases_[index] += eta * delta_[index].shared.rowwise().sum();
  }
  if (spec_.audit && ranks_.root()) {  // the shadow lives on the root
    DenseKernels kernels(spec_.arithmetic);
    kernels.use_team(team_.get());
    const double shadow_loss = steps_->reference_step(shadow_, x0_, labels_, kernels);
    if (std::abs(iteration_loss_ - shadow_loss) >
        spec_.audit_tolerance * std::max(1.0, std::abs(shadow_loss))) {
      ++silent_corruptions_;
    }
  }
  progress_.iteration_done(engine_.now() - iteration_start_s_);
  trace_.instant(sim::kJobTrack, "iteration done", engine_.now(),
                 {{"iteration", progress_.done()}, {"started_s", iteration_start_s_}});
  if (trace_.on())
    trace_.energy(engine_.now(), progress_.energy.spent_J(engine_.now(), down_since_s_));
  trace_.progress(progress_.done());
  loss_sum_ += iteration_loss_;
  ++loss_count_;
  if (spec_.record_loss) {
    metrics_.append_row("loss_vs_iteration",
                        {static_cast<double>(progress_.done()), engine_.now(), iteration_loss_});
  }
  end_iteration();
}

void CodedTrainingRun::end_iteration() {
  const bool last = progress_.all_done();
  double eval_s = 0.0;
  if (last || (spec_.eval_every > 0 && progress_.done() % spec_.eval_every == 0)) {
    const double accuracy = evaluate_accuracy();
    const double mean_loss = loss_count_ > 0 ? loss_sum_ / loss_count_ : 0.0;
    metrics_.append_row("accuracy_vs_time",
                        {engine_.now(), static_cast<double>(progress_.done()), accuracy, mean_loss,
                         progress_.energy.spent_J(engine_.now(), down_since_s_)});
    loss_sum_ = 0.0;
    loss_count_ = 0;
    final_accuracy_ = accuracy;
    final_loss_ = mean_loss;
    eval_s = spec_.eval_cost_s;
    trace_.accuracy_and_loss(engine_.now(), accuracy, mean_loss);
    trace_.phase(live_nodes(), "evaluation", engine_.now(), eval_s);
  }
  const auto next = [this, last] {
    if (last) {
      finish();
    } else if (progress_.checkpoint_due(policy_)) {
      start_checkpoint();
    } else {
      start_iteration();
    }
  };
  if (eval_s > 0.0) {
    spend(TimeKind::eval, eval_s, next);
  } else {
    next();
  }
}

}  // namespace codesim::models::detail
