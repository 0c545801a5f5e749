// The stochastic run's crashes, with the numeric mode's semantics (coded_training_run.cpp's
// on_crash and on_repair, coded_training_rounds.cpp's start_iteration and update,
// coded_training_recovery.cpp's waiting for repairs): a down node is an erasure and loses its
// running task; a node that misses an update is stale until its blocks are regenerated at the
// start of an iteration; an iteration that cannot decode from the usable nodes waits for a
// repair. Used only when some node ever fails, so that runs without crashes take the paths they
// always took.
#include <algorithm>
#include <array>
#include <cstddef>
#include <functional>
#include <optional>
#include <utility>
#include <vector>

#include "models/training/stochastic/stochastic_run.hpp"

namespace codesim::models::detail {

// The next crash or repair within the time limit (the numeric mode's engine stops there).
double StochasticRun::next_event_s() const {
  const double next_s = timeline_.next_s();
  return next_s <= spec_.time_limit_s ? next_s : kInf;
}

void StochasticRun::process_events_before(double time_s) {
  while (next_event_s() < time_s) on_event(timeline_.pop());
}

// What a crash or repair changes whatever the run does: the counts, the node's state, the live
// nodes and, at a repair, the energy of its down time (charged to waiting when the run waits
// then, as the numeric mode's on_repair does).
void StochasticRun::on_event(const CrashEvent& e) {
  if (e.link < 0 && progress_.failure_event()) throw FailureStorm{};
  if (e.link >= 0) {
    on_link_event(e.link, !e.crash);
    return;
  }
  if (e.crash) ++crashes_;
  if (e.node >= nodes_) return;
  const auto index = static_cast<std::size_t>(e.node);
  if (e.crash) {
    down_[index] = 1;
    down_since_s_[index] = e.time_s;
  } else {
    progress_.energy.down(e.node, e.time_s - down_since_s_[index], waiting_);
    down_since_s_[index] = -1.0;
    down_[index] = 0;
  }
  update_live();
}

// A link went down or came back: the run's network reroutes (as the numeric mode's, which the
// crash process changes itself), and the cached costs are keyed by the links down.
void StochasticRun::on_link_event(int link, bool up) {
  topology_.set_link_up(link, up);
  const auto at = std::lower_bound(links_down_.begin(), links_down_.end(), link);
  if (up) {
    links_down_.erase(at);
  } else {
    links_down_.insert(at, link);
  }
}

// Cache keys of costs that depend on the routes: the links down, after a -2, when there are any.
void StochasticRun::append_links_down(std::vector<int>& key) const {
  if (links_down_.empty()) return;
  key.push_back(-2);
  key.insert(key.end(), links_down_.begin(), links_down_.end());
}

// The live nodes and the decoder's speed (the slowest live node's when decentralized).
void StochasticRun::update_live() {
  live_.clear();
  double slowest = kInf;
  for (int p = 0; p < nodes_; ++p) {
    if (down_[static_cast<std::size_t>(p)]) continue;
    live_.push_back(p);
    slowest = std::min(slowest, speeds_[static_cast<std::size_t>(p)]);
  }
  if (slowest == kInf) slowest = speeds_.front();
  decoder_speed_ = spec_.decentralized ? slowest : speeds_.front();
}

// The start of an iteration: stale nodes that are back get their blocks regenerated (a rollback
// when they cannot be), then the run waits for repairs when a round could not decode from the
// usable nodes. False when the iteration did not start (the loop tries again).
bool StochasticRun::start_iteration() {
  double regeneration_s = 0.0;
  if (!regenerate_stale_nodes(regeneration_s)) {
    rollback();
    return false;
  }
  if (iteration_codewords_.empty()) {
    iteration_codewords_.resize(static_cast<std::size_t>(layers_));
    for (int l = 0; l < layers_; ++l) {
      for (int d : {kForward, kBackward})
        iteration_codewords_[static_cast<std::size_t>(l)][static_cast<std::size_t>(d)] =
            round(l, d).codewords;
    }
  }
  if (!iteration_decodable(shapes_, iteration_codewords_,
                           [this](int p) { return node_usable(p); })) {
    wait_for_repairs();
    return false;
  }
  progress_.time.charge_ahead(now_s_, {{TimeKind::communication, regeneration_s}});
  advance(regeneration_s);
  check_time();
  return true;
}

// Every layer's blocks of the stale nodes that are up, from sources neither stale nor down, at
// once (the numeric mode's regenerate_repaired_nodes); false when one has no sources.
bool StochasticRun::regenerate_stale_nodes(double& regeneration_s) {
  std::vector<int> exclude;
  for (int p = 0; p < nodes_; ++p)
    if (stale_[static_cast<std::size_t>(p)] || down_[static_cast<std::size_t>(p)])
      exclude.push_back(p);
  std::vector<RegenerationJob> transfers;
  for (int p = 0; p < nodes_; ++p) {
    if (!stale_[static_cast<std::size_t>(p)] || down_[static_cast<std::size_t>(p)]) continue;
    for (int l = 0; l < layers_; ++l) {
      std::vector<int> sources = structure_->regeneration_sources(p, exclude);
      if (sources.empty()) return false;
      ++progress_.counts.regenerations;
      transfers.push_back({p, std::move(sources),
                           shapes_[static_cast<std::size_t>(l)].stored_values_per_node,
                           speeds_[static_cast<std::size_t>(p)]});
    }
  }
  if (transfers.empty()) return true;
  const sim::CommunicationCost cost = parallel_regeneration_cost(topology_, transfers);
  progress_.energy.network(regeneration_bytes(transfers));
  progress_.time.link_wait_s += cost.link_wait_s;
  for (std::size_t j = 0; j < transfers.size(); ++j) {
    const RegenerationJob& job = transfers[j];
    const int l = static_cast<int>(j) % layers_;
    const auto index = static_cast<std::size_t>(job.node);
    stale_[index] = 0;
    const int from_wrong = wrong_sources(l, job.sources);
    for (int b = first_block_[index]; b < first_block_[index + 1]; ++b)
      wrong_[static_cast<std::size_t>(l * blocks_per_layer_ + b)] = from_wrong;
  }
  regeneration_s = cost.time_s;
  return true;
}

// 1 when a source's block of `layer` is wrong (the numeric mode rebuilds from what the sources
// hold: a wrong source makes the rebuilt block wrong), else 0.
int StochasticRun::wrong_sources(int layer, const std::vector<int>& sources) const {
  for (int q : sources) {
    const auto index = static_cast<std::size_t>(q);
    for (int b = first_block_[index]; b < first_block_[index + 1]; ++b)
      if (wrong_[static_cast<std::size_t>(layer * blocks_per_layer_ + b)] != 0) return 1;
  }
  return 0;
}

// Restart time until a scheme node's repair, then the iteration starts again.
void StochasticRun::wait_for_repairs() {
  waiting_ = true;
  const double wait_start_s = now_s_;
  progress_.time.charge_later(wait_start_s, TimeKind::restart);
  while (true) {
    if (next_event_s() == kInf) throw OutOfTime{};  // no repair before the limit
    const CrashEvent e = timeline_.pop();
    on_event(e);
    if (!e.crash && e.node < nodes_) {
      now_s_ = e.time_s;
      break;
    }
  }
  waiting_ = false;
  progress_.restart(now_s_ - wait_start_s);
}

// A round with crashes: the usable participants run their tasks, which crashes lose (an
// erasure); the decode, its regenerations and the rollback as without crashes.
bool StochasticRun::run_crashing_round(const Round& r) {
  const std::size_t n = r.participants.size();
  started_.assign(n, 0);
  durations_.assign(n, 0.0);
  check_s_.assign(n, 0.0);
  for (std::size_t i = 0; i < n; ++i) {
    const int p = r.participants[i];
    if (!node_usable(p)) continue;
    started_[i] = 1;
    ++node_operations_;
    durations_[i] = stragglers_ ? nodes_state_[static_cast<std::size_t>(p)].draw_task_duration_s(
                                      r.flops, now_s_)
                                : r.flops / speeds_[static_cast<std::size_t>(p)];
  }
  std::vector<int> withheld_blocks;
  const std::function<CheckedProduct(std::size_t)> check = [&](std::size_t i) {
    return check_participant(r, i, withheld_blocks);
  };
  const RoundCrashes crashes{[this] { return next_event_s(); },
                             [this] {
                               const CrashEvent e = timeline_.pop();
                               on_event(e);
                               return e.crash ? e.node : -1;
                             }};
  RoundTiming& t = scratch_timing_;
  resolver_.resolve_crashing(r, now_s_, durations_, started_, wait_, t,
                             local_.active() ? &check : nullptr, crashes);
  errors_.next_mark();
  if (!local_.active()) strike_finished(r, t);
  const Outcome outcome = errors_.decode(r, t, spec_.decode.error_model);
  charge_crashing_round(r, t, outcome.status == Status::clean);
  if (!finish_round(r, t, t.end_s, outcome)) return false;
  if (local_.active()) {
    if (withheld_blocks.empty()) return true;
    // Decoded around blocks their nodes could not repair: they are regenerated like blamed ones.
    ++progress_.counts.corrected;
    regenerated_ = std::move(withheld_blocks);
    return spend_regeneration(regenerate_nodes(r.layer));
  }
  if (outcome.status != Status::corrected) return true;
  ++progress_.counts.corrected;
  return spend_regeneration(regenerate(r));
}

// charge_round_tasks with crashes: a task runs until it ends, the round does or its node
// crashes; tasks that did not start cost nothing.
void StochasticRun::charge_crashing_round(const Round& r, const RoundTiming& t, bool clean) {
  for (std::size_t i = 0; i < r.participants.size(); ++i) {
    if (!started_[i]) continue;
    const double task_s = durations_[i] + (t.done[i] ? check_s_[i] : 0.0);
    const double stop_s = std::min(t.end_s, t.lost_s[i]);
    progress_.energy.busy(r.participants[i], std::min(task_s, stop_s - now_s_));
  }
  const double decode_s =
      decode_flops(t.tally.present_total(), r.shape->partial_rows, columns(r.layer), clean) /
      decoder_speed_;
  progress_.energy.decode(live_, spec_.decentralized, decode_s);
  progress_.energy.network(round_communication_bytes(*r.shape, t.present, live_, r.symbol_bytes,
                                                     r.product_bytes, spec_.decentralized));
}

// The update with crashes: usable nodes update (a crash loses the update, and the node is stale);
// the others miss it (stale). It ends when no update is left running.
void StochasticRun::run_crashing_update() {
  struct Task {
    double end_s;
    int node;
  };
  std::vector<Task> tasks;
  std::vector<double> duration_s(static_cast<std::size_t>(nodes_), 0.0);
  for (int p = 0; p < nodes_; ++p) {
    const auto index = static_cast<std::size_t>(p);
    if (!node_usable(p)) {
      stale_[index] = 1;  // misses this update
      continue;
    }
    ++node_operations_;
    duration_s[index] = stragglers_
                            ? nodes_state_[index].draw_task_duration_s(update_flops_, now_s_)
                            : update_flops_ / speeds_[index];
    tasks.push_back({now_s_ + duration_s[index], p});
  }
  std::stable_sort(tasks.begin(), tasks.end(),
                   [](const Task& a, const Task& b) { return a.end_s < b.end_s; });
  std::vector<char> running(static_cast<std::size_t>(nodes_), 0);
  for (const Task& task : tasks) running[static_cast<std::size_t>(task.node)] = 1;
  std::size_t pending = tasks.size();
  std::size_t next = 0;
  double end_s = now_s_;
  while (pending > 0) {
    const double crash_s = next_event_s();
    if (crash_s < tasks[next].end_s) {
      const CrashEvent e = timeline_.pop();
      on_event(e);
      if (!e.crash || e.node >= nodes_ || !running[static_cast<std::size_t>(e.node)]) continue;
      running[static_cast<std::size_t>(e.node)] = 0;
      stale_[static_cast<std::size_t>(e.node)] = 1;  // its update is lost
      progress_.energy.busy(e.node, crash_s - now_s_);
      end_s = crash_s;
      --pending;
      continue;
    }
    const Task task = tasks[next++];
    const auto index = static_cast<std::size_t>(task.node);
    if (!running[index]) continue;
    running[index] = 0;
    progress_.energy.busy(task.node, duration_s[index]);
    strike_update(task.node);
    end_s = task.end_s;
    --pending;
  }
  progress_.time.charge_ahead(now_s_, {{TimeKind::compute, end_s - now_s_}});
  now_s_ = end_s;
  check_time();
}

// round_communication_cost of the round's present symbols, the live nodes and the links down,
// cached.
sim::CommunicationCost StochasticRun::crashing_communication(const Round& r, const RoundTiming& t) {
  std::vector<int> key;
  key.reserve(t.present.size() + live_.size() + 2);
  key.push_back(r.layer * 2 + r.dir);
  for (char present : t.present) key.push_back(present);
  key.push_back(-1);
  key.insert(key.end(), live_.begin(), live_.end());
  append_links_down(key);
  if (const auto it = communication_cache_.find(key); it != communication_cache_.end())
    return it->second;
  if (communication_cache_.size() >= 4096) communication_cache_.clear();  // bounded memory
  const sim::CommunicationCost cost = round_communication_cost(
      topology_, *r.shape, t.present, live_, r.symbol_bytes, r.product_bytes, spec_.decentralized);
  communication_cache_.emplace(std::move(key), cost);
  return cost;
}

// A verification round's nominal time from the nodes usable and live now.
double StochasticRun::current_nominal_s(const Round& r) const {
  std::vector<char> usable(speeds_.size(), 0);
  for (int p = 0; p < nodes_; ++p) usable[static_cast<std::size_t>(p)] = node_usable(p);
  return nominal_round_time_s(topology_, *r.shape, usable, speeds_, live_, decoder_speed_,
                              columns(r.layer), spec_.decentralized);
}

// The untimed read-out's regeneration of the stale nodes' blocks (down ones too), from the nodes
// that are not stale, as the numeric mode's repair_before_read_out.
void StochasticRun::read_out_regeneration() {
  std::vector<int> stale;
  for (int p = 0; p < nodes_; ++p)
    if (stale_[static_cast<std::size_t>(p)]) stale.push_back(p);
  for (int p : stale) {
    for (int l = 0; l < layers_; ++l) {
      if (structure_->regeneration_sources(p, stale).empty()) return;
      ++progress_.counts.regenerations;
    }
  }
  for (int p : stale) {
    const auto index = static_cast<std::size_t>(p);
    stale_[index] = 0;
    for (int l = 0; l < layers_; ++l) {
      for (int b = first_block_[index]; b < first_block_[index + 1]; ++b)
        wrong_[static_cast<std::size_t>(l * blocks_per_layer_ + b)] = 0;
    }
  }
}

// At the end of the run: the crashes and repairs up to the time limit when it stopped there (the
// numeric mode's engine runs them; a completed run stops at once), then the down time of the
// nodes still down.
void StochasticRun::end_crashes(double end_s) {
  if (!progress_.completed() && !stopped_)
    while (next_event_s() <= end_s) on_event(timeline_.pop());
  for (int p = 0; p < nodes_; ++p) {
    const double since_s = down_since_s_[static_cast<std::size_t>(p)];
    if (since_s >= 0.0) progress_.energy.down(p, end_s - since_s, waiting_);
  }
  progress_.energy.commit();  // what is still pending at the end was kept, as in train_coded
}

}  // namespace codesim::models::detail
