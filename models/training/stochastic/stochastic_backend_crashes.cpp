// The stochastic backend's crashes, with the numeric backend's semantics (numeric_backend.cpp's
// on_crash and on_repair, numeric_rounds.cpp's rounds and update, numeric_recovery.cpp's
// regeneration of stale nodes and waiting for repairs): a down node is an erasure and loses its
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

#include "models/training/stochastic/stochastic_backend.hpp"

namespace codesim::models::detail {

// The next crash or repair within the time limit (the numeric mode's engine stops there).
double StochasticBackend::next_event_s() const {
  const double next_s = timeline_.next_s();
  return next_s <= spec_.time_limit_s ? next_s : kInf;
}

void StochasticBackend::process_events_before(double time_s) {
  while (next_event_s() < time_s) on_event(timeline_.pop());
}

// What a crash or repair changes whatever the run does: the counts, the node's state, the live
// nodes and, at a repair, the energy of its down time (charged to waiting when the run waits
// then, as the numeric mode's on_repair does).
void StochasticBackend::on_event(const CrashEvent& e) {
  if (e.link < 0 && progress().failure_event()) throw FailureStorm{};
  if (e.link >= 0) {
    on_link_event(e.link, !e.crash);
    return;
  }
  if (e.crash) ++crashes_;
  if (e.node >= nodes_) return;
  const auto index = static_cast<std::size_t>(e.node);
  if (e.crash) {
    cluster_.down[index] = 1;
    cluster_.down_since_s[index] = e.time_s;
  } else {
    progress().energy.down(e.node, e.time_s - cluster_.down_since_s[index],
                           protocol_.phase() == RunPhase::waiting);
    cluster_.down_since_s[index] = -1.0;
    cluster_.down[index] = 0;
  }
  update_live();
}

// A link went down or came back: the run's network reroutes (as the numeric mode's, which the
// crash process changes itself), and the cached costs are keyed by the links down.
void StochasticBackend::on_link_event(int link, bool up) {
  topology_.set_link_up(link, up);
  const auto at = std::lower_bound(caches_.links_down.begin(), caches_.links_down.end(), link);
  if (up) {
    caches_.links_down.erase(at);
  } else {
    caches_.links_down.insert(at, link);
  }
}

// Cache keys of costs that depend on the routes: the links down, after a -2, when there are any.
void StochasticBackend::append_links_down(std::vector<int>& key) const {
  if (caches_.links_down.empty()) return;
  key.push_back(-2);
  key.insert(key.end(), caches_.links_down.begin(), caches_.links_down.end());
}

// The live nodes and the decoder's speed (the slowest live node's when decentralized).
void StochasticBackend::update_live() {
  cluster_.live.clear();
  double slowest = kInf;
  for (int p = 0; p < nodes_; ++p) {
    if (cluster_.down[static_cast<std::size_t>(p)]) continue;
    cluster_.live.push_back(p);
    slowest = std::min(slowest, cluster_.speeds[static_cast<std::size_t>(p)]);
  }
  if (slowest == kInf) slowest = cluster_.speeds.front();
  cluster_.decoder_speed = spec_.decentralized ? slowest : cluster_.speeds.front();
}

bool StochasticBackend::decodable() {
  return !timeline_.active() ||
         iteration_decodable(layout_.shapes, codewords_, [this](int p) { return node_usable(p); });
}

// Every layer's blocks of the stale nodes that are up, from sources neither stale nor down, at
// once (the numeric mode's regenerate_repaired_nodes); false when one has no sources.
bool StochasticBackend::regenerate_stale_nodes(double& regeneration_s) {
  if (!timeline_.active()) return true;
  std::vector<int> exclude;
  for (int p = 0; p < nodes_; ++p)
    if (state_.stale[static_cast<std::size_t>(p)] || cluster_.down[static_cast<std::size_t>(p)])
      exclude.push_back(p);
  std::vector<RegenerationJob> transfers;
  for (int p = 0; p < nodes_; ++p) {
    if (!state_.stale[static_cast<std::size_t>(p)] || cluster_.down[static_cast<std::size_t>(p)])
      continue;
    for (int l = 0; l < layout_.layers; ++l) {
      std::vector<int> sources = layout_.structure->regeneration_sources(p, exclude);
      if (sources.empty()) return false;
      ++progress().counts.regenerations;
      transfers.push_back({p, std::move(sources),
                           layout_.shapes[static_cast<std::size_t>(l)].stored_values_per_node,
                           cluster_.speeds[static_cast<std::size_t>(p)]});
    }
  }
  if (transfers.empty()) return true;
  const sim::CommunicationCost cost = parallel_regeneration_cost(topology_, transfers);
  progress().energy.network(regeneration_bytes(transfers));
  progress().time.link_wait_s += cost.link_wait_s;
  for (std::size_t j = 0; j < transfers.size(); ++j) {
    const RegenerationJob& job = transfers[j];
    const int l = static_cast<int>(j) % layout_.layers;
    const auto index = static_cast<std::size_t>(job.node);
    state_.stale[index] = 0;
    const int from_wrong = wrong_sources(l, job.sources);
    for (int b = layout_.first_block[index]; b < layout_.first_block[index + 1]; ++b)
      state_.wrong[static_cast<std::size_t>(l * layout_.per_layer + b)] = from_wrong;
  }
  regeneration_s = cost.time_s;
  return true;
}

// 1 when a source's block of `layer` is wrong (the numeric mode rebuilds from what the sources
// hold: a wrong source makes the rebuilt block wrong), else 0.
int StochasticBackend::wrong_sources(int layer, const std::vector<int>& sources) const {
  for (int q : sources) {
    const auto index = static_cast<std::size_t>(q);
    for (int b = layout_.first_block[index]; b < layout_.first_block[index + 1]; ++b)
      if (state_.wrong[static_cast<std::size_t>(layer * layout_.per_layer + b)] != 0) return 1;
  }
  return 0;
}

// The clock moves to a scheme node's repair; the protocol goes on from there (unless a scheme
// node's crash meanwhile leaves too few that can come back: the protocol then stops the run).
void StochasticBackend::wait_for_repair() {
  while (true) {
    if (next_event_s() == kInf) throw OutOfTime{};  // no repair before the limit
    const CrashEvent e = timeline_.pop();
    on_event(e);
    if (!e.crash && e.node < nodes_) {  // a scheme node's (or a link's) repair
      now_s_ = e.time_s;
      break;
    }
    if (e.crash && e.link < 0 && e.node < nodes_) {
      const double waiting_since_s = now_s_;
      now_s_ = e.time_s;  // the run stops here if it can never go on
      protocol_.node_lost_while_waiting();
      if (stopped_) return;
      now_s_ = waiting_since_s;
    }
  }
  next_step_ = ProtocolStep::repaired;
}

std::vector<int> StochasticBackend::needed_nodes_gone() {
  return models::needed_nodes_gone(layout_.shapes, codewords_, nodes_, [this](int p) {
    return timeline_.down_for_good_since_s(p) <= now_s_;
  });
}

// A round with crashes: the usable participants run their tasks, which crashes lose (an
// erasure); the decode, its regenerations and the rollback as without crashes.
void StochasticBackend::run_crashing_round(const Round& r) {
  const std::size_t n = r.participants.size();
  scratch_.started.assign(n, 0);
  scratch_.durations.assign(n, 0.0);
  scratch_.check_s.assign(n, 0.0);
  for (std::size_t i = 0; i < n; ++i) {
    const int p = r.participants[i];
    if (!node_usable(p)) continue;
    scratch_.started[i] = 1;
    ++node_operations_;
    scratch_.durations[i] =
        cluster_.stragglers
            ? cluster_.tasks[static_cast<std::size_t>(p)].draw_task_duration_s(r.flops, now_s_)
            : r.flops / cluster_.speeds[static_cast<std::size_t>(p)];
  }
  const std::function<CheckedProduct(std::size_t)> check = [this, &r](std::size_t i) {
    return check_participant(r, i);
  };
  const RoundCrashes crashes{[this] { return next_event_s(); },
                             [this] {
                               const CrashEvent e = timeline_.pop();
                               on_event(e);
                               return e.crash ? e.node : -1;
                             }};
  RoundTiming& t = scratch_.timing;
  scratch_.resolver.resolve_crashing(r, now_s_, scratch_.durations, scratch_.started,
                                     protocol_.wait(), t, local_.active() ? &check : nullptr,
                                     crashes);
  scratch_.errors.next_mark();
  if (local_.active()) {
    mark_unchecked_errors(r, t);
  } else {
    strike_finished(r, t);
  }
  const Outcome outcome = scratch_.errors.decode(r, t, spec_.decode.error_model);
  charge_crashing_round(r, t, outcome.status == Status::clean);
  finish_round(r, t, t.end_s, outcome);
}

// charge_round_tasks with crashes: a task runs until it ends, the round does or its node
// crashes; tasks that did not start cost nothing.
void StochasticBackend::charge_crashing_round(const Round& r, const RoundTiming& t, bool clean) {
  for (std::size_t i = 0; i < r.participants.size(); ++i) {
    if (!scratch_.started[i]) continue;
    const double task_s = scratch_.durations[i] + (t.done[i] ? scratch_.check_s[i] : 0.0);
    const double stop_s = std::min(t.end_s, t.lost_s[i]);
    progress().energy.busy(r.participants[i], std::min(task_s, stop_s - now_s_));
  }
  const double decode_s = decode_flops(t.tally.present_total(), r.shape->partial_rows,
                                       layout_.columns(r.layer), clean) /
                          cluster_.decoder_speed;
  progress().energy.decode(cluster_.live, spec_.decentralized, decode_s);
  progress().energy.network(
      round_communication_bytes(*r.shape, t.present, cluster_.live, r.symbol_bytes, r.product_bytes,
                                spec_.decentralized, topology_.collectives().broadcast));
}

// The update with crashes: usable nodes update (a crash loses the update, and the node is stale);
// the others miss it (stale). It ends when no update is left running.
void StochasticBackend::run_crashing_update() {
  struct Task {
    double end_s;
    int node;
  };
  std::vector<Task> tasks;
  std::vector<double> duration_s(static_cast<std::size_t>(nodes_), 0.0);
  for (int p = 0; p < nodes_; ++p) {
    const auto index = static_cast<std::size_t>(p);
    if (!node_usable(p)) {
      state_.stale[index] = 1;  // misses this update
      continue;
    }
    ++node_operations_;
    duration_s[index] = cluster_.stragglers
                            ? cluster_.tasks[index].draw_task_duration_s(update_.flops, now_s_)
                            : update_.flops / cluster_.speeds[index];
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
      state_.stale[static_cast<std::size_t>(e.node)] = 1;  // its update is lost
      progress().energy.busy(e.node, crash_s - now_s_);
      end_s = crash_s;
      --pending;
      continue;
    }
    const Task task = tasks[next++];
    const auto index = static_cast<std::size_t>(task.node);
    if (!running[index]) continue;
    running[index] = 0;
    progress().energy.busy(task.node, duration_s[index]);
    update_faults(task.node);
    end_s = task.end_s;
    --pending;
  }
  progress().time.charge_ahead(now_s_, {{TimeKind::compute, end_s - now_s_}});
  now_s_ = end_s;
  check_time();
}

// round_communication_cost of the round's present symbols, the live nodes and the links down,
// cached.
sim::CommunicationCost StochasticBackend::crashing_communication(const Round& r,
                                                                 const RoundTiming& t) {
  std::vector<int> key;
  key.reserve(t.present.size() + cluster_.live.size() + 2);
  key.push_back(r.layer * 2 + r.dir);
  for (char present : t.present) key.push_back(present);
  key.push_back(-1);
  key.insert(key.end(), cluster_.live.begin(), cluster_.live.end());
  append_links_down(key);
  if (const auto it = caches_.communication.find(key); it != caches_.communication.end())
    return it->second;
  if (caches_.communication.size() >= 4096) caches_.communication.clear();  // bounded memory
  const sim::CommunicationCost cost =
      round_communication_cost(topology_, *r.shape, t.present, cluster_.live, r.symbol_bytes,
                               r.product_bytes, spec_.decentralized);
  caches_.communication.emplace(std::move(key), cost);
  return cost;
}

// A verification round's nominal time from the nodes usable and live now.
double StochasticBackend::current_nominal_s(const Round& r) const {
  std::vector<char> usable(cluster_.speeds.size(), 0);
  for (int p = 0; p < nodes_; ++p) usable[static_cast<std::size_t>(p)] = node_usable(p);
  return nominal_round_time_s(topology_, *r.shape, usable, cluster_.speeds, cluster_.live,
                              cluster_.decoder_speed, layout_.columns(r.layer),
                              spec_.decentralized);
}

// The untimed read-out's regeneration of the stale nodes' blocks (down ones too), from the nodes
// that are not stale, as the numeric mode's repair_before_read_out.
void StochasticBackend::read_out_regeneration() {
  std::vector<int> stale;
  for (int p = 0; p < nodes_; ++p)
    if (state_.stale[static_cast<std::size_t>(p)]) stale.push_back(p);
  for (int p : stale) {
    for (int l = 0; l < layout_.layers; ++l) {
      if (layout_.structure->regeneration_sources(p, stale).empty()) return;
      ++progress().counts.regenerations;
    }
  }
  for (int p : stale) {
    const auto index = static_cast<std::size_t>(p);
    state_.stale[index] = 0;
    for (int l = 0; l < layout_.layers; ++l) {
      for (int b = layout_.first_block[index]; b < layout_.first_block[index + 1]; ++b)
        state_.wrong[static_cast<std::size_t>(l * layout_.per_layer + b)] = 0;
    }
  }
}

// At the end of the run: the crashes and repairs up to the time limit when it stopped there (the
// numeric mode's engine runs them; a completed run stops at once), then the down time of the
// nodes still down.
void StochasticBackend::end_crashes(double end_s) {
  if (!progress().completed() && !stopped_)
    while (next_event_s() <= end_s) on_event(timeline_.pop());
  for (int p = 0; p < nodes_; ++p) {
    const double since_s = cluster_.down_since_s[static_cast<std::size_t>(p)];
    if (since_s >= 0.0)
      progress().energy.down(p, end_s - since_s, protocol_.phase() == RunPhase::waiting);
  }
  progress().energy.commit();  // what is still pending at the end was kept, as in train_coded
}

}  // namespace codesim::models::detail
