// The stochastic run's rounds: strikes on the blocks a round reads, the round's timing under the
// wait rule, its decode, regenerations after corrections and the verification pass.
#include <algorithm>
#include <optional>
#include <utility>
#include <vector>

#include "models/training/stochastic/stochastic_backend.hpp"

namespace codesim::models::detail {

// Regenerates the members of the erroneous symbols of corrected codewords; the time, or
// nullopt when a block has too few sources.
std::optional<sim::CommunicationCost> StochasticBackend::regenerate(const Round& r) {
  scratch_.regenerated.clear();
  add_corrected_members(r);
  return regenerate_nodes(r.layer);
}

void StochasticBackend::add_corrected_members(const Round& r) {
  for (int s : scratch_.errors.erroneous()) {
    if (!scratch_.errors.corrected(r.codewords.codeword_of(s))) continue;
    for (int p : r.shape->members[static_cast<std::size_t>(s)]) scratch_.regenerated.push_back(p);
  }
}

// Regenerates the blocks of `scratch_.regenerated` (every layer's regeneration of that set is
// cached). With crashes, as the numeric mode's regenerate_blamed: the down ones become stale
// (regenerated once back) and the sources exclude stale and down nodes.
std::optional<sim::CommunicationCost> StochasticBackend::regenerate_nodes(int layer) {
  if (scratch_.regenerated.empty()) return sim::CommunicationCost{};
  std::sort(scratch_.regenerated.begin(), scratch_.regenerated.end());
  scratch_.regenerated.erase(std::unique(scratch_.regenerated.begin(), scratch_.regenerated.end()),
                             scratch_.regenerated.end());
  std::vector<int> key = scratch_.regenerated;
  std::vector<int> exclude = scratch_.regenerated;
  if (timeline_.active()) {
    for (int p : scratch_.regenerated)
      if (cluster_.down[static_cast<std::size_t>(p)]) state_.stale[static_cast<std::size_t>(p)] = 1;
    std::erase_if(key, [this](int p) { return cluster_.down[static_cast<std::size_t>(p)] != 0; });
    const std::size_t blamed = exclude.size();
    for (int p = 0; p < nodes_; ++p) {
      const bool out =
          state_.stale[static_cast<std::size_t>(p)] || cluster_.down[static_cast<std::size_t>(p)];
      if (out && !std::binary_search(exclude.begin(), exclude.begin() + blamed, p))
        exclude.push_back(p);
    }
    if (key.empty()) return sim::CommunicationCost{};
    if (key != exclude) {
      key.push_back(-1);
      key.insert(key.end(), exclude.begin(), exclude.end());
    }
    append_links_down(key);
  }
  auto it = caches_.regenerations.find(key);
  if (it == caches_.regenerations.end()) {
    Regeneration entry;
    for (int p : scratch_.regenerated)
      if (!timeline_.active() || !cluster_.down[static_cast<std::size_t>(p)])
        entry.nodes.push_back(p);
    std::vector<RegenerationJob> jobs;
    for (int p : entry.nodes) {
      std::vector<int> sources = layout_.structure->regeneration_sources(p, exclude);
      entry.possible = entry.possible && !sources.empty();
      entry.sources.push_back(sources);
      jobs.push_back({p, std::move(sources), 0.0, cluster_.speeds[static_cast<std::size_t>(p)]});
    }
    // Per layer: the nodes regenerate that layer's blocks at once.
    for (int l = 0; entry.possible && l < layout_.layers; ++l) {
      for (RegenerationJob& job : jobs)
        job.stored_values = layout_.shapes[static_cast<std::size_t>(l)].stored_values_per_node;
      entry.cost.push_back(parallel_regeneration_cost(topology_, jobs));
      entry.bytes.push_back(regeneration_bytes(jobs));
    }
    it = caches_.regenerations.emplace(std::move(key), std::move(entry)).first;
  }
  const Regeneration& entry = it->second;
  if (!entry.possible) return std::nullopt;
  const int base = layer * layout_.per_layer;
  for (std::size_t j = 0; j < entry.nodes.size(); ++j) {
    const auto index = static_cast<std::size_t>(entry.nodes[j]);
    // With crashes, sources can hold blocks that are wrong unread (strikes that regenerations
    // spread): the rebuilt block is wrong then, as numerically.
    const int wrong = timeline_.active() ? wrong_sources(layer, entry.sources[j]) : 0;
    for (int b = layout_.first_block[index]; b < layout_.first_block[index + 1]; ++b)
      state_.rebuilt(static_cast<std::size_t>(base + b), wrong);
  }
  progress().counts.regenerations += entry.nodes.size();
  progress().energy.network(entry.bytes[static_cast<std::size_t>(layer)]);
  return entry.cost[static_cast<std::size_t>(layer)];
}

// A weight strike on the block participant i of `r` reads, before its product; true if struck.
bool StochasticBackend::strike_weights(int p, const Round& r, std::size_t i) {
  if (!strikes_.weights(p, r.weight_hazard[i], now_s_)) return false;
  ++state_.wrong[static_cast<std::size_t>(r.block[i])];
  return true;
}

void StochasticBackend::strike_finished(const Round& r, const RoundTiming& t) {
  for (std::size_t i = 0; i < r.participants.size(); ++i) {
    if (!t.done[i]) continue;
    const int p = r.participants[i];
    strike_weights(p, r, i);
    const bool product = strike_product(p, r, i);
    if (product || state_.wrong[static_cast<std::size_t>(r.block[i])] != 0 ||
        reads_unchecked_error(r, i))
      scratch_.errors.mark_symbols(r, i, t);
  }
}

bool StochasticBackend::reads_unchecked_error(const Round& r, std::size_t i) const {
  if (!vectors_.active()) return false;
  const Direction dir = r.dir == kForward ? Direction::forward : Direction::backward;
  return vectors_.product_wrong(r.participants[i], r.layer, dir) ||
         state_.hidden[static_cast<std::size_t>(r.block[i])] != 0;
}

// (mark_symbols skips the symbols of withheld partials: they are absent.)
void StochasticBackend::mark_unchecked_errors(const Round& r, const RoundTiming& t) {
  if (!vectors_.active()) return;
  for (std::size_t i = 0; i < r.participants.size(); ++i)
    if (t.done[i] && reads_unchecked_error(r, i)) scratch_.errors.mark_symbols(r, i, t);
}

CheckedProduct StochasticBackend::check_participant(const Round& r, std::size_t i) {
  const int p = r.participants[i];
  strike_weights(p, r, i);
  const bool product = strike_product(p, r, i);
  const auto block = static_cast<std::size_t>(r.block[i]);
  const LocalRead read = local_.read(p, r.layer, r.dir, state_.wrong[block], product, r.flops,
                                     state_.by_update[block] != 0);
  if (read.corrected) {
    ++progress().counts.corrected;
    state_.corrected_at_node(block);
  }
  if (read.block_beyond_repair) scratch_.withheld_blocks.push_back(p);
  CheckedProduct out;
  out.withheld = read.withheld;
  if (read.extra_flops > 0.0)
    out.extra_s = cluster_.tasks[static_cast<std::size_t>(p)].draw_task_duration_s(
        read.extra_flops, now_s_ + scratch_.durations[i]);
  scratch_.check_s[i] = out.extra_s;
  return out;
}

// Each participant's product time, with its node's straggler factor.
void StochasticBackend::draw_durations(const Round& r) {
  scratch_.durations.resize(r.participants.size());
  for (std::size_t i = 0; i < r.participants.size(); ++i) {
    scratch_.durations[i] =
        cluster_.tasks[static_cast<std::size_t>(r.participants[i])].draw_task_duration_s(r.flops,
                                                                                         now_s_);
  }
}

// One training round, up to its decode.
void StochasticBackend::start_round(int layer, Direction dir) {
  const Round& r = round(layer, dir);
  scratch_.withheld_blocks.clear();
  if (timeline_.active()) return run_crashing_round(r);
  if (local_.active()) return run_checked_round(r);
  const std::size_t n = r.participants.size();
  node_operations_ += n;
  const RoundTiming* timing = &r.timing;
  double end_s = now_s_ + r.timing.end_s;
  if (!r.fixed) {
    draw_durations(r);
    scratch_.resolver.resolve(r, now_s_, scratch_.durations, protocol_.wait(), scratch_.timing);
    timing = &scratch_.timing;
    end_s = scratch_.timing.end_s;
  }
  const RoundTiming& t = *timing;
  scratch_.errors.next_mark();
  strike_finished(r, t);
  const Outcome outcome = scratch_.errors.decode(r, t, spec_.decode.error_model);
  charge_round_tasks(r, t, end_s, outcome.status == Status::clean, nullptr);
  finish_round(r, t, end_s, outcome);
}

// Nodes that check their own blocks: a decode around blocks their nodes could not repair is
// corrected (they are regenerated like blamed ones).
DecodeStatus StochasticBackend::round_status() {
  if (scratch_.outcome.silent) ++silent_corruptions_;
  const DecodeStatus status = scratch_.outcome.status;
  if (!local_.active() || status == DecodeStatus::detected) return status;
  return scratch_.withheld_blocks.empty() ? status : DecodeStatus::corrected;
}

// The members of the corrected codewords' erroneous symbols, or the blocks withheld; their link
// wait is charged.
std::optional<double> StochasticBackend::regenerate_blamed(int layer, Direction dir) {
  std::optional<sim::CommunicationCost> cost;
  if (local_.active()) {
    scratch_.regenerated = std::move(scratch_.withheld_blocks);
    add_corrected_members(round(layer, dir));
    cost = regenerate_nodes(layer);
  } else {
    cost = regenerate(round(layer, dir));
  }
  if (!cost) return std::nullopt;
  progress().time.link_wait_s += cost->link_wait_s;
  return cost->time_s;
}

// One training round of nodes that check their own partials (LocalChecks): each node corrects
// or withholds at the end of its product, its partial leaves after its checks; what arrives is
// right. Blocks beyond their nodes' repair are regenerated when the grid decodes around them
// (abft_codenet); a round without enough partials rolls back (abft: any withheld partial).
void StochasticBackend::run_checked_round(const Round& r) {
  node_operations_ += r.participants.size();
  if (r.fixed) {
    scratch_.durations.resize(r.participants.size());
    for (std::size_t i = 0; i < r.participants.size(); ++i)
      scratch_.durations[i] =
          r.flops / cluster_.speeds[static_cast<std::size_t>(r.participants[i])];
  } else {
    draw_durations(r);
  }
  scratch_.check_s.assign(r.participants.size(), 0.0);
  scratch_.resolver.resolve_checked(r, now_s_, scratch_.durations, protocol_.wait(),
                                    scratch_.timing,
                                    [this, &r](std::size_t i) { return check_participant(r, i); });
  scratch_.errors.next_mark();
  mark_unchecked_errors(r, scratch_.timing);
  const Outcome outcome = scratch_.errors.decode(r, scratch_.timing, spec_.decode.error_model);
  charge_round_tasks(r, scratch_.timing, scratch_.timing.end_s, outcome.status == Status::clean,
                     &scratch_.check_s);
  finish_round(r, scratch_.timing, scratch_.timing.end_s, outcome);
}

// The energy of a round's tasks: each participant computes until its task (its product, then
// its check when `extra_s` gives one) ends or the round does (a cancel), the decoders for the
// decode; the bytes of its communication.
void StochasticBackend::charge_round_tasks(const Round& r, const RoundTiming& t, double end_s,
                                           bool clean, const std::vector<double>* extra_s) {
  for (std::size_t i = 0; i < r.participants.size(); ++i) {
    const int p = r.participants[i];
    double task_s = r.fixed && extra_s == nullptr
                        ? r.flops / cluster_.speeds[static_cast<std::size_t>(p)]
                        : scratch_.durations[i];
    if (extra_s != nullptr && t.done[i]) task_s += (*extra_s)[i];
    progress().energy.busy(p, std::min(task_s, end_s - now_s_));
  }
  const double decode_s = decode_flops(t.tally.present_total(), r.shape->partial_rows,
                                       layout_.columns(r.layer), clean) /
                          cluster_.decoder_speed;
  progress().energy.decode(cluster_.live, spec_.decentralized, decode_s);
  progress().energy.network(
      round_communication_bytes(*r.shape, t.present, cluster_.live, r.symbol_bytes, r.product_bytes,
                                spec_.decentralized, topology_.collectives().broadcast));
}

// The round's compute until end_s; the time of its communication and decode goes to the
// protocol.
void StochasticBackend::finish_round(const Round& r, const RoundTiming& t, double end_s,
                                     const Outcome& outcome) {
  progress().time.charge_ahead(now_s_, {{TimeKind::compute, end_s - now_s_}});
  now_s_ = end_s;
  check_time();
  const auto [communication_s, link_wait_s] =
      t.all_present && cluster_.live.size() == static_cast<std::size_t>(nodes_) &&
              caches_.links_down.empty()
          ? r.all_present_communication
      : timeline_.active()
          ? crashing_communication(r, t)
          : round_communication_cost(topology_, *r.shape, t.present, cluster_.live, r.symbol_bytes,
                                     r.product_bytes, spec_.decentralized);
  progress().time.link_wait_s += link_wait_s;
  const double decode_s = decode_flops(t.tally.present_total(), r.shape->partial_rows,
                                       layout_.columns(r.layer), outcome.status == Status::clean) /
                          cluster_.decoder_speed;
  scratch_.outcome = outcome;
  protocol_.round_finished(communication_s, decode_s);
}

// Nodes that check their blocks have repaired them; the withheld ones are in
// scratch_.regenerated. Otherwise the members of the corrected codewords' erroneous symbols.
std::optional<double> StochasticBackend::verification_regenerate(int layer, Direction dir, double) {
  if (local_.active()) add_corrected_members(round(layer, dir));
  const std::optional<sim::CommunicationCost> regeneration =
      local_.active() ? regenerate_nodes(layer) : regenerate(round(layer, dir));
  if (!regeneration) return std::nullopt;
  progress().time.link_wait_s += regeneration->link_wait_s;
  return regeneration->time_s;
}

// One decode of the verification pass: every symbol present, the unrepaired strikes wrong. Nodes
// that check their blocks correct them (then clean) or withhold their partials (absent symbols, the
// nodes in scratch_.regenerated), and the decode of what arrives is corrected when they did either.
VerificationDecode StochasticBackend::verification_decode(int layer, Direction dir) {
  const Round& r = round(layer, dir);
  RoundTiming& v = scratch_.verification_timing;
  const std::size_t n = r.participants.size();
  node_operations_ += n;
  v.done.assign(n, 1);
  v.present.assign(r.member_count.size(), 1);
  bool locally_corrected = false;
  scratch_.regenerated.clear();
  for (std::size_t i = 0; timeline_.active() && i < n; ++i) {
    if (node_usable(r.participants[i])) continue;
    // A down or stale node's symbols are erasures, as in the numeric mode's pass.
    for (int k = r.symbol_begin[i]; k < r.symbol_begin[i + 1]; ++k)
      v.present[static_cast<std::size_t>(r.symbol_list[static_cast<std::size_t>(k)])] = 0;
  }
  for (std::size_t i = 0; local_.active() && i < n; ++i) {
    if (timeline_.active() && !node_usable(r.participants[i])) continue;
    const auto block = static_cast<std::size_t>(r.block[i]);
    const int strikes = state_.wrong[block];
    if (strikes == 0) continue;
    if (local_.verification_corrects(r.participants[i], r.layer, strikes,
                                     state_.by_update[block] != 0)) {
      state_.corrected_at_node(block);
      locally_corrected = true;
      continue;
    }
    scratch_.regenerated.push_back(r.participants[i]);
    for (int k = r.symbol_begin[i]; k < r.symbol_begin[i + 1]; ++k)
      v.present[static_cast<std::size_t>(r.symbol_list[static_cast<std::size_t>(k)])] = 0;
  }
  v.tally.reset(r.codewords, protocol_.wait());
  for (int s = 0; s < r.codewords.symbols; ++s)
    if (v.present[static_cast<std::size_t>(s)]) v.tally.add(s);
  v.decodable = v.tally.decodable();
  scratch_.errors.next_mark();
  for (std::size_t i = 0; i < n; ++i) {
    const auto block = static_cast<std::size_t>(r.block[i]);
    if (local_.active() ? state_.hidden[block] != 0 : state_.wrong[block] != 0)
      scratch_.errors.mark_symbols(r, i, v);
  }
  Outcome outcome = scratch_.errors.decode(r, v, spec_.decode.error_model);
  if (outcome.status == Status::clean && (locally_corrected || !scratch_.regenerated.empty()))
    outcome.status = Status::corrected;
  return {outcome.status, timeline_.active() ? current_nominal_s(r) : r.nominal_s};
}

}  // namespace codesim::models::detail
