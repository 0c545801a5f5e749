// The stochastic run's rounds: strikes on the blocks a round reads, the round's timing under the
// wait rule, its decode, regenerations after corrections and the verification pass.
#include <algorithm>
#include <optional>
#include <utility>
#include <vector>

#include "models/training/stochastic/stochastic_run.hpp"

namespace codesim::models::detail {

// Regenerates the members of the erroneous symbols of corrected codewords; the time, or
// nullopt when a block has too few sources.
std::optional<sim::CommunicationCost> StochasticRun::regenerate(const Round& r) {
  regenerated_.clear();
  for (int s : errors_.erroneous()) {
    if (!errors_.corrected(r.codewords.codeword_of(s))) continue;
    for (int p : r.shape->members[static_cast<std::size_t>(s)]) regenerated_.push_back(p);
  }
  return regenerate_nodes(r.layer);
}

// Regenerates the blocks of `regenerated_` (every layer's regeneration of that set is cached).
// With crashes, as the numeric mode's regenerate_blamed: the down ones become stale (regenerated
// once back) and the sources exclude stale and down nodes.
std::optional<sim::CommunicationCost> StochasticRun::regenerate_nodes(int layer) {
  if (regenerated_.empty()) return sim::CommunicationCost{};
  std::sort(regenerated_.begin(), regenerated_.end());
  regenerated_.erase(std::unique(regenerated_.begin(), regenerated_.end()), regenerated_.end());
  std::vector<int> key = regenerated_;
  std::vector<int> exclude = regenerated_;
  if (timeline_.active()) {
    for (int p : regenerated_)
      if (down_[static_cast<std::size_t>(p)]) stale_[static_cast<std::size_t>(p)] = 1;
    std::erase_if(key, [this](int p) { return down_[static_cast<std::size_t>(p)] != 0; });
    const std::size_t blamed = exclude.size();
    for (int p = 0; p < nodes_; ++p) {
      const bool out = stale_[static_cast<std::size_t>(p)] || down_[static_cast<std::size_t>(p)];
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
  auto it = regenerations_cache_.find(key);
  if (it == regenerations_cache_.end()) {
    Regeneration entry;
    for (int p : regenerated_)
      if (!timeline_.active() || !down_[static_cast<std::size_t>(p)]) entry.nodes.push_back(p);
    std::vector<RegenerationJob> jobs;
    for (int p : entry.nodes) {
      std::vector<int> sources = structure_->regeneration_sources(p, exclude);
      entry.possible = entry.possible && !sources.empty();
      entry.sources.push_back(sources);
      jobs.push_back({p, std::move(sources), 0.0, speeds_[static_cast<std::size_t>(p)]});
    }
    // Per layer: the nodes regenerate that layer's blocks at once.
    for (int l = 0; entry.possible && l < layers_; ++l) {
      for (RegenerationJob& job : jobs)
        job.stored_values = shapes_[static_cast<std::size_t>(l)].stored_values_per_node;
      entry.cost.push_back(parallel_regeneration_cost(topology_, jobs));
      entry.bytes.push_back(regeneration_bytes(jobs));
    }
    it = regenerations_cache_.emplace(std::move(key), std::move(entry)).first;
  }
  const Regeneration& entry = it->second;
  if (!entry.possible) return std::nullopt;
  const int base = layer * blocks_per_layer_;
  for (std::size_t j = 0; j < entry.nodes.size(); ++j) {
    const auto index = static_cast<std::size_t>(entry.nodes[j]);
    // With crashes, sources can hold blocks that are wrong unread (strikes that regenerations
    // spread): the rebuilt block is wrong then, as numerically.
    const int wrong = timeline_.active() ? wrong_sources(layer, entry.sources[j]) : 0;
    for (int b = first_block_[index]; b < first_block_[index + 1]; ++b)
      wrong_[static_cast<std::size_t>(base + b)] = wrong;
  }
  progress_.counts.regenerations += entry.nodes.size();
  progress_.energy.network(entry.bytes[static_cast<std::size_t>(layer)]);
  return entry.cost[static_cast<std::size_t>(layer)];
}

// A weight strike on the block participant i of `r` reads, before its product; true if struck.
bool StochasticRun::strike_weights(int p, const Round& r, std::size_t i) {
  double& budget = weight_budget_[static_cast<std::size_t>(p)];
  budget -= scaled(r.weight_hazard[i], rate_factor(p));
  if (budget >= 0.0) return false;
  budget = redraw(weight_streams_[static_cast<std::size_t>(p)]);
  ++wrong_[static_cast<std::size_t>(r.block[i])];
  ++faults_;
  return true;
}

// A product strike on participant i's partial; true if struck.
bool StochasticRun::strike_product(int p, const Round& r, std::size_t i) {
  double& budget = product_budget_[static_cast<std::size_t>(p)];
  budget -= scaled(r.product_hazard[i], rate_factor(p));
  if (budget >= 0.0) return false;
  budget = redraw(product_streams_[static_cast<std::size_t>(p)]);
  ++faults_;
  return true;
}

void StochasticRun::strike_finished(const Round& r, const RoundTiming& t) {
  for (std::size_t i = 0; i < r.participants.size(); ++i) {
    if (!t.done[i]) continue;
    const int p = r.participants[i];
    strike_weights(p, r, i);
    const bool product = strike_product(p, r, i);
    if (product || wrong_[static_cast<std::size_t>(r.block[i])] != 0) errors_.mark_symbols(r, i, t);
  }
}

CheckedProduct StochasticRun::check_participant(const Round& r, std::size_t i,
                                                std::vector<int>& withheld_blocks) {
  const int p = r.participants[i];
  strike_weights(p, r, i);
  const bool product = strike_product(p, r, i);
  int& strikes = wrong_[static_cast<std::size_t>(r.block[i])];
  const LocalRead read = local_.read(p, r.layer, r.dir, strikes, product, r.flops);
  if (read.corrected) {
    ++progress_.counts.corrected;
    strikes = 0;
  }
  if (read.block_beyond_repair) withheld_blocks.push_back(p);
  CheckedProduct out;
  out.withheld = read.withheld;
  if (read.extra_flops > 0.0)
    out.extra_s = nodes_state_[static_cast<std::size_t>(p)].draw_task_duration_s(
        read.extra_flops, now_s_ + durations_[i]);
  check_s_[i] = out.extra_s;
  return out;
}

// Each participant's product time, with its node's straggler factor.
void StochasticRun::draw_durations(const Round& r) {
  durations_.resize(r.participants.size());
  for (std::size_t i = 0; i < r.participants.size(); ++i) {
    durations_[i] = nodes_state_[static_cast<std::size_t>(r.participants[i])].draw_task_duration_s(
        r.flops, now_s_);
  }
}

// One training round; false when it rolled back.
bool StochasticRun::run_round(const Round& r) {
  if (timeline_.active()) return run_crashing_round(r);
  if (local_.active()) return run_checked_round(r);
  const std::size_t n = r.participants.size();
  node_operations_ += n;
  const RoundTiming* timing = &r.timing;
  double end_s = now_s_ + r.timing.end_s;
  if (!r.fixed) {
    draw_durations(r);
    resolver_.resolve(r, now_s_, durations_, wait_, scratch_timing_);
    timing = &scratch_timing_;
    end_s = scratch_timing_.end_s;
  }
  const RoundTiming& t = *timing;
  errors_.next_mark();
  strike_finished(r, t);
  const Outcome outcome = errors_.decode(r, t, spec_.decode.error_model);
  charge_round_tasks(r, t, end_s, outcome.status == Status::clean, nullptr);
  if (!finish_round(r, t, end_s, outcome)) return false;
  if (outcome.status != Status::corrected) return true;
  ++progress_.counts.corrected;
  return spend_regeneration(regenerate(r));
}

// A regeneration's time spent, or a rollback when it could not be done (false).
bool StochasticRun::spend_regeneration(const std::optional<sim::CommunicationCost>& regeneration) {
  if (!regeneration) {
    rollback();
    return false;
  }
  progress_.time.charge_ahead(now_s_, {{TimeKind::communication, regeneration->time_s}});
  progress_.time.link_wait_s += regeneration->link_wait_s;
  if (regeneration->time_s > 0.0) advance(regeneration->time_s);
  check_time();
  return true;
}

// One training round of nodes that check their own partials (LocalChecks): each node corrects
// or withholds at the end of its product, its partial leaves after its checks; what arrives is
// right. Blocks beyond their nodes' repair are regenerated when the grid decodes around them
// (abft_codenet); a round without enough partials rolls back (abft: any withheld partial).
bool StochasticRun::run_checked_round(const Round& r) {
  node_operations_ += r.participants.size();
  if (r.fixed) {
    durations_.resize(r.participants.size());
    for (std::size_t i = 0; i < r.participants.size(); ++i)
      durations_[i] = r.flops / speeds_[static_cast<std::size_t>(r.participants[i])];
  } else {
    draw_durations(r);
  }
  std::vector<int> withheld_blocks;
  check_s_.assign(r.participants.size(), 0.0);
  resolver_.resolve_checked(r, now_s_, durations_, wait_, scratch_timing_, [&](std::size_t i) {
    return check_participant(r, i, withheld_blocks);
  });
  errors_.next_mark();
  const Outcome outcome = errors_.decode(r, scratch_timing_, spec_.decode.error_model);
  charge_round_tasks(r, scratch_timing_, scratch_timing_.end_s, outcome.status == Status::clean,
                     &check_s_);
  if (!finish_round(r, scratch_timing_, scratch_timing_.end_s, outcome)) return false;
  if (withheld_blocks.empty()) return true;
  // Decoded around blocks their nodes could not repair: they are regenerated like blamed ones.
  ++progress_.counts.corrected;
  regenerated_ = std::move(withheld_blocks);
  return spend_regeneration(regenerate_nodes(r.layer));
}

// The energy of a round's tasks: each participant computes until its task (its product, then
// its check when `extra_s` gives one) ends or the round does (a cancel), the decoders for the
// decode; the bytes of its communication.
void StochasticRun::charge_round_tasks(const Round& r, const RoundTiming& t, double end_s,
                                       bool clean, const std::vector<double>* extra_s) {
  for (std::size_t i = 0; i < r.participants.size(); ++i) {
    const int p = r.participants[i];
    double task_s = r.fixed && extra_s == nullptr ? r.flops / speeds_[static_cast<std::size_t>(p)]
                                                  : durations_[i];
    if (extra_s != nullptr && t.done[i]) task_s += (*extra_s)[i];
    progress_.energy.busy(p, std::min(task_s, end_s - now_s_));
  }
  const double decode_s =
      decode_flops(t.tally.present_total(), r.shape->partial_rows, columns(r.layer), clean) /
      decoder_speed_;
  progress_.energy.decode(live_, spec_.decentralized, decode_s);
  progress_.energy.network(round_communication_bytes(*r.shape, t.present, live_, r.symbol_bytes,
                                                     r.product_bytes, spec_.decentralized));
}

// The round's compute until end_s, its communication and decode; false when the decode detected
// errors (rolled back).
bool StochasticRun::finish_round(const Round& r, const RoundTiming& t, double end_s,
                                 const Outcome& outcome) {
  progress_.time.charge_ahead(now_s_, {{TimeKind::compute, end_s - now_s_}});
  now_s_ = end_s;
  check_time();
  ++progress_.counts.decodes;
  const auto [communication_s, link_wait_s] =
      t.all_present && live_.size() == static_cast<std::size_t>(nodes_) && links_down_.empty()
          ? r.all_present_communication
      : timeline_.active()
          ? crashing_communication(r, t)
          : round_communication_cost(topology_, *r.shape, t.present, live_, r.symbol_bytes,
                                     r.product_bytes, spec_.decentralized);
  progress_.time.link_wait_s += link_wait_s;
  const double decode_s = decode_flops(t.tally.present_total(), r.shape->partial_rows,
                                       columns(r.layer), outcome.status == Status::clean) /
                          decoder_speed_;
  progress_.time.charge_ahead(
      now_s_, {{TimeKind::communication, communication_s}, {TimeKind::decode, decode_s}});
  advance(communication_s + decode_s);
  check_time();
  if (outcome.silent) ++silent_corruptions_;
  if (outcome.status != Status::detected) return true;
  ++progress_.counts.detected;
  rollback();
  return false;
}

// The all-ones verification pass, by verification_passes' rule (as the numeric mode).
StochasticRun::Verification StochasticRun::verify() {
  double t = 0.0;
  const bool passed = verification_passes(
      layers_, [&](int l, int d) { return verification_decode(round(l, d), t).status; },
      [&](int l, int d) {
        // Nodes that check their blocks have repaired them; the withheld ones are in
        // regenerated_. Otherwise the members of the corrected codewords' erroneous symbols.
        const std::optional<sim::CommunicationCost> regeneration =
            local_.active() ? regenerate_nodes(l) : regenerate(round(l, d));
        if (regeneration) t += regeneration->time_s;
        if (regeneration) progress_.time.link_wait_s += regeneration->link_wait_s;
        return regeneration.has_value();
      },
      progress_.counts);
  return {passed, t};
}

// One decode of the verification pass: every symbol present, the unrepaired strikes wrong;
// counted, its nominal time added to t_s. Nodes that check their blocks correct them (then
// clean) or withhold their partials (absent symbols, the nodes in regenerated_), and the decode
// of what arrives is corrected when they did either.
Outcome StochasticRun::verification_decode(const Round& r, double& t_s) {
  RoundTiming& v = verification_timing_;
  const std::size_t n = r.participants.size();
  node_operations_ += n;
  v.done.assign(n, 1);
  v.present.assign(r.member_count.size(), 1);
  bool locally_corrected = false;
  regenerated_.clear();
  for (std::size_t i = 0; timeline_.active() && i < n; ++i) {
    if (node_usable(r.participants[i])) continue;
    // A down or stale node's symbols are erasures, as in the numeric mode's pass.
    for (int k = r.symbol_begin[i]; k < r.symbol_begin[i + 1]; ++k)
      v.present[static_cast<std::size_t>(r.symbol_list[static_cast<std::size_t>(k)])] = 0;
  }
  for (std::size_t i = 0; local_.active() && i < n; ++i) {
    if (timeline_.active() && !node_usable(r.participants[i])) continue;
    int& strikes = wrong_[static_cast<std::size_t>(r.block[i])];
    if (strikes == 0) continue;
    if (local_.verification_corrects(r.participants[i], r.layer, strikes)) {
      strikes = 0;
      locally_corrected = true;
      continue;
    }
    regenerated_.push_back(r.participants[i]);
    for (int k = r.symbol_begin[i]; k < r.symbol_begin[i + 1]; ++k)
      v.present[static_cast<std::size_t>(r.symbol_list[static_cast<std::size_t>(k)])] = 0;
  }
  v.tally.reset(r.codewords, wait_);
  for (int s = 0; s < r.codewords.symbols; ++s)
    if (v.present[static_cast<std::size_t>(s)]) v.tally.add(s);
  v.decodable = v.tally.decodable();
  errors_.next_mark();
  for (std::size_t i = 0; !local_.active() && i < n; ++i) {
    if (wrong_[static_cast<std::size_t>(r.block[i])] != 0) errors_.mark_symbols(r, i, v);
  }
  Outcome outcome = errors_.decode(r, v, spec_.decode.error_model);
  if (outcome.status == Status::clean && (locally_corrected || !regenerated_.empty()))
    outcome.status = Status::corrected;
  ++progress_.counts.decodes;
  t_s += timeline_.active() ? current_nominal_s(r) : r.nominal_s;
  return outcome;
}

}  // namespace codesim::models::detail
