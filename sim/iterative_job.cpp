// The iterative_job workload as a small state machine of engine events.
#include "sim/iterative_job.hpp"

#include <algorithm>
#include <cmath>
#include <deque>

#include "sim/check.hpp"
#include "sim/collectives.hpp"
#include "sim/energy_meter.hpp"
#include "sim/enum_names.hpp"
#include "sim/progress_watchdog.hpp"
#include "sim/run_stopped.hpp"

namespace codesim::sim {
namespace {

enum class Phase { compute, exchange, checkpoint, restart, waiting, done };

class IterativeJob {
 public:
  IterativeJob(const ClusterSpec& cluster_spec, const CheckpointSpec& checkpoint,
               const IterativeJobSpec& job, std::uint64_t seed, std::uint64_t replica,
               const std::function<bool()>& should_stop)
      : should_stop_(should_stop),
        cluster_(engine_, cluster_spec, seed, replica),
        job_(job),
        task_count_(job.tasks > 0 ? job.tasks : cluster_.size()),
        policy_(checkpoint, job_mtbf_s(),
                iterative_job_checkpoint_costs(checkpoint, cluster_.topology())),
        watchdog_(checkpoint.max_stalled_rollbacks),
        needed_(job.wait_for > 0 ? std::min(job.wait_for, task_count_) : task_count_),
        queues_(cluster_.size()),
        energy_(cluster_spec, cluster_.size()),  // the job uses every node
        checkpoint_bytes_(checkpoint.bytes),
        task_start_s_(cluster_.size(), -1.0),
        down_since_s_(cluster_.size(), -1.0) {
    CODESIM_CHECK(job.iterations >= 1, "iterative_job needs at least one iteration");
    CODESIM_CHECK(job.task_flops > 0.0, "task_flops must be positive");
    storm_.poll_interrupts_with(should_stop_);
    cluster_.crashes().on_crash([this](int node, bool) { on_crash(node); });
    cluster_.crashes().on_repair([this](int node) { on_repair(node); });
  }

  MetricSet run() {
    cluster_.crashes().start();
    engine_.schedule_at(0.0, [this] { start_iteration(); });
    engine_.run_until(job_.time_limit_s);
    if (!completed_) stop_at_limit();
    return metrics();
  }

 private:
  // --- phases -------------------------------------------------------------------------------
  void start_iteration() {
    if (should_stop_ && should_stop_()) throw RunStopped("iterative job stopped on request");
    charge_down();  // down time so far belongs to the phase that ends here (restart or work)
    ++attempt_;
    phase_ = Phase::compute;
    phase_start_s_ = iteration_start_s_ = engine_.now();
    completed_tasks_ = 0;
    struck_used_ = false;
    for (auto& q : queues_) q.clear();
    used_nodes_.clear();
    for (int t = 0; t < task_count_; ++t) queues_[t % cluster_.size()].push_back(t);
    if (!enough_nodes_up()) {
      wait_for_repairs();
      return;
    }
    for (int node = 0; node < cluster_.size(); ++node) start_next_task(node);
  }

  void start_next_task(int node) {
    Node& n = cluster_.node(node);
    if (!n.is_up() || n.is_busy() || queues_[node].empty()) return;
    const std::uint64_t attempt = attempt_;
    task_start_s_[node] = engine_.now();
    n.run_task(engine_, job_.task_flops, [this, node, attempt] {
      end_task(node);
      if (attempt == attempt_ && phase_ == Phase::compute) on_task_done(node);
    });
  }

  // Node `node`'s running task, if any, ended now (done, cancelled, or lost to a crash): the node
  // was busy for what actually ran.
  void end_task(int node) {
    double& start_s = task_start_s_[node];
    if (start_s < 0.0) return;
    energy_.busy(node, engine_.now() - start_s);
    start_s = -1.0;
  }

  void cancel_tasks() {
    for (int node = 0; node < cluster_.size(); ++node) {
      end_task(node);
      cluster_.node(node).cancel_task(engine_);
    }
  }

  void on_task_done(int node) {
    queues_[node].pop_front();
    if (cluster_.soft_errors().sample(node, job_.task_flops, engine_.now(), "task")) {
      ++soft_errors_;
      struck_used_ = true;
    }
    used_nodes_.push_back(node);
    if (++completed_tasks_ == needed_) {
      finish_compute();
    } else {
      start_next_task(node);
    }
  }

  // Moves the time since the phase started into the progress not yet protected by a checkpoint.
  double close_phase(double& category_pending_s) {
    const double spent_s = engine_.now() - phase_start_s_;
    time_pending_s_ += spent_s;
    category_pending_s += spent_s;
    phase_start_s_ = engine_.now();
    return spent_s;
  }

  void finish_compute() {
    close_phase(compute_pending_s_);
    cancel_tasks();
    phase_ = Phase::exchange;
    // The bytes are charged when sent, so that a rollback during the exchange loses them.
    energy_.network(exchange_bytes());
    const std::uint64_t attempt = attempt_;
    const CommunicationCost exchange = exchange_cost();
    link_wait_pending_s_ += exchange.link_wait_s;  // a rollback during the exchange drops it
    engine_.schedule_in(exchange.time_s, [this, attempt] {
      if (attempt == attempt_) finish_exchange();
    });
  }

  // The nodes whose tasks were used, ascending, once each.
  std::vector<int> participants() const {
    std::vector<int> nodes = used_nodes_;
    std::sort(nodes.begin(), nodes.end());
    nodes.erase(std::unique(nodes.begin(), nodes.end()), nodes.end());
    return nodes;
  }

  // Bytes the exchange sends from one node to another: to_one, every used task's result not on
  // node 0; all_gather, every participant's block to each other participant.
  double exchange_bytes() const {
    if (job_.bytes_per_task <= 0.0 || job_.exchange == ExchangeKind::none) return 0.0;
    if (job_.exchange == ExchangeKind::to_one) {
      const auto remote =
          std::count_if(used_nodes_.begin(), used_nodes_.end(), [](int node) { return node != 0; });
      return static_cast<double>(remote) * job_.bytes_per_task;
    }
    const auto p = static_cast<double>(participants().size());
    const auto others = p - 1.0;
    if (job_.exchange == ExchangeKind::all_reduce) {
      // The ring moves 2 (p - 1) pieces of vector / p from each of the p participants, whose
      // vectors hold all the used tasks' results between them.
      return 2.0 * others * static_cast<double>(used_nodes_.size()) * job_.bytes_per_task / p;
    }
    return static_cast<double>(used_nodes_.size()) * job_.bytes_per_task * others;
  }

  CommunicationCost exchange_cost() const {
    if (job_.bytes_per_task <= 0.0 || job_.exchange == ExchangeKind::none) return {};
    const std::vector<int> participants = this->participants();
    if (job_.exchange == ExchangeKind::to_one) {
      // Every used task's result goes to node 0; the network model says how they share its links.
      const Incast results{.dst = 0, .sources = used_nodes_, .bytes = job_.bytes_per_task};
      return incast_cost(cluster_.topology(), results);
    }
    // A participant's block (all_gather) or vector (all_reduce): the results of its used tasks.
    const double tasks_per_node = static_cast<double>(used_nodes_.size()) / participants.size();
    const double bytes = job_.bytes_per_task * tasks_per_node;
    if (job_.exchange == ExchangeKind::all_reduce)
      return all_reduce_cost(cluster_.topology(), participants, bytes);
    CODESIM_CHECK(job_.exchange == ExchangeKind::all_gather, "unknown exchange kind");
    return all_gather_cost(cluster_.topology(), participants, bytes);
  }

  void finish_exchange() {
    close_phase(communication_pending_s_);
    if (struck_used_) {
      if (job_.detect_soft_errors) {
        ++detected_soft_errors_;
        rollback();
        return;
      }
      ++silent_soft_errors_;
    }
    ++iterations_done_;
    storm_.progressed();
    ++iterations_since_checkpoint_;
    progress_since_checkpoint_s_ += engine_.now() - iteration_start_s_;
    const bool last = iterations_done_ == job_.iterations;
    if ((last && job_.checkpoint_at_end) ||
        (!last && policy_.due(iterations_since_checkpoint_, progress_since_checkpoint_s_))) {
      start_checkpoint();
    } else if (last) {
      finish_job();
    } else {
      start_iteration();
    }
  }

  // Enters `phase` for duration_s; at its end, unless a crash moved on, adds the time spent to
  // `spent_s` and calls `then`.
  template <typename Then>
  void start_phase(Phase phase, double duration_s, double& spent_s, Then then) {
    charge_down();
    phase_ = phase;
    phase_start_s_ = engine_.now();
    const std::uint64_t attempt = ++attempt_;
    engine_.schedule_in(duration_s, [this, attempt, &spent_s, then] {
      if (attempt != attempt_) return;
      spent_s += engine_.now() - phase_start_s_;
      then();
    });
  }

  void start_checkpoint() {
    start_phase(Phase::checkpoint, policy_.write_cost_s(), time_checkpoint_s_, [this] {
      commit_pending();
      // Bytes of completed writes only: an interrupted write's time is lost work, priced idle.
      energy_.checkpoint_written(checkpoint_bytes_);
      ++checkpoints_;
      checkpointed_iterations_ = iterations_done_;
      watchdog_.restart_record();
      iterations_since_checkpoint_ = 0;
      progress_since_checkpoint_s_ = 0.0;
      if (iterations_done_ == job_.iterations) {
        finish_job();
      } else {
        start_iteration();
      }
    });
  }

  void rollback() {
    ++rollbacks_;
    // Crashes and soft errors are the job's only causes of rollback: always random events.
    const bool stalled =
        watchdog_.rolled_back(iterations_done_ - checkpointed_iterations_, /*random_events=*/true);
    // Everything since the last checkpoint is lost, including the interrupted phase.
    time_lost_s_ += time_pending_s_ + (engine_.now() - phase_start_s_);
    time_pending_s_ = compute_pending_s_ = communication_pending_s_ = link_wait_pending_s_ = 0.0;
    iterations_redone_ += iterations_done_ - checkpointed_iterations_;
    iterations_done_ = checkpointed_iterations_;
    iterations_since_checkpoint_ = 0;
    progress_since_checkpoint_s_ = 0.0;
    cancel_tasks();
    charge_down();
    energy_.discard();  // like the time: the nodes' work since the checkpoint is lost
    if (stalled) {
      // The job holds one checkpoint and no data that could be poisoned: nothing older helps.
      phase_ = Phase::done;
      ++attempt_;
      stop_reason_ = "no progress from the last checkpoint: " + watchdog_.why();
      engine_.stop();
      return;
    }
    start_restart();
  }

  // Stops as at the time limit (completed = 0), with the reason.
  void stop_in_storm() {
    stop_reason_ = FailureStormGuard::why();
    engine_.stop();
  }

  // A restart that would end after the time limit: every later rollback would take the same
  // restart, so the job ends as at its limit at once (the failures in between, which cannot
  // change that, are not simulated), stop_reason saying so.
  void start_restart() {
    start_phase(Phase::restart, policy_.restart_s(), time_restart_s_,
                [this] { start_iteration(); });
    const std::string hopeless = policy_.restart_past_limit(engine_.now(), job_.time_limit_s);
    if (hopeless.empty()) return;
    stop_reason_ = hopeless;
    engine_.finish_at(job_.time_limit_s);
  }

  void wait_for_repairs() {
    phase_ = Phase::waiting;
    phase_start_s_ = engine_.now();
    ++attempt_;
    stop_if_never_enough();
  }

  // Stops as at the time limit when the nodes down for good (an availability trace interval
  // without an end) leave too few tasks for an iteration ever to finish: no repair will come.
  void stop_if_never_enough() {
    int possible = 0;
    std::vector<int> gone;
    for (int node = 0; node < cluster_.size(); ++node) {
      if (cluster_.crashes().down_for_good(node)) {
        gone.push_back(node);
      } else {
        possible += static_cast<int>(queues_[node].size());
      }
    }
    if (gone.empty() || possible >= needed_) return;
    stop_reason_ =
        no_node_comes_back(gone, "leave " + std::to_string(possible) + " of the " +
                                     std::to_string(needed_) + " tasks an iteration needs");
    engine_.stop();
  }

  void finish_job() {
    phase_ = Phase::done;
    completed_ = true;
    completion_time_s_ = engine_.now();
    commit_pending();
    engine_.stop();
  }

  // The replica gave up at the time limit: the phase it was in is charged up to now, and the
  // work since the last checkpoint is kept (not lost), so the breakdown adds up to now.
  void stop_at_limit() {
    for (int node = 0; node < cluster_.size(); ++node) end_task(node);  // ran until now
    switch (phase_) {
      case Phase::compute:
        close_phase(compute_pending_s_);
        break;
      case Phase::exchange:
        close_phase(communication_pending_s_);
        break;
      case Phase::checkpoint:
        time_checkpoint_s_ += engine_.now() - phase_start_s_;
        break;
      case Phase::restart:
      case Phase::waiting:
        time_restart_s_ += engine_.now() - phase_start_s_;
        break;
      case Phase::done:
        break;
    }
    commit_pending();
  }

  void commit_pending() {
    charge_down();
    energy_.commit();
    time_compute_s_ += compute_pending_s_;
    time_communication_s_ += communication_pending_s_;
    time_link_wait_s_ += link_wait_pending_s_;
    time_pending_s_ = compute_pending_s_ = communication_pending_s_ = link_wait_pending_s_ = 0.0;
  }

  // --- fault reactions ----------------------------------------------------------------------
  bool enough_nodes_up() const {
    int available = 0;
    for (int node = 0; node < cluster_.size(); ++node)
      if (cluster_.node(node).is_up()) available += static_cast<int>(queues_[node].size());
    return available >= needed_;
  }

  void on_crash(int node) {
    if (storm_.failure_event()) return stop_in_storm();
    ++crashes_;
    end_task(node);  // the crash lost the task it ran
    down_since_s_[node] = engine_.now();
    switch (phase_) {
      case Phase::compute: {
        if (queues_[node].empty()) return;  // this node owes nothing
        int possible = completed_tasks_;
        for (int n = 0; n < cluster_.size(); ++n)
          if (cluster_.node(n).is_up()) possible += static_cast<int>(queues_[n].size());
        if (job_.wait_for == 0 || possible < needed_) {
          rollback();
        } else {
          queues_[node].pop_front();  // the running task is lost; the rest resume after repair
        }
        return;
      }
      case Phase::exchange:
        if (std::find(used_nodes_.begin(), used_nodes_.end(), node) != used_nodes_.end())
          rollback();
        return;
      case Phase::checkpoint:
        rollback();
        return;
      case Phase::restart:
        time_restart_s_ += engine_.now() - phase_start_s_;
        start_restart();
        return;
      case Phase::waiting:
        stop_if_never_enough();
        return;
      case Phase::done:
        return;
    }
  }

  void on_repair(int node) {
    if (storm_.failure_event()) return stop_in_storm();
    if (down_since_s_[node] >= 0.0)
      energy_.down(node, engine_.now() - down_since_s_[node], restarting());
    down_since_s_[node] = -1.0;
    if (phase_ == Phase::compute) {
      start_next_task(node);
    } else if (phase_ == Phase::waiting) {
      time_restart_s_ += engine_.now() - phase_start_s_;
      start_iteration();  // waits again if still too few nodes are up
    }
  }

  MetricSet metrics() const {
    MetricSet m;
    const double end_s = completed_ ? completion_time_s_ : engine_.now();
    m.set("completed", completed_ ? 1.0 : 0.0);
    m.set("completion_time_s", end_s);
    m.set("iterations_done", iterations_done_);
    m.set("iterations_redone", static_cast<double>(iterations_redone_));
    m.set("checkpoints", static_cast<double>(checkpoints_));
    m.set("rollbacks", static_cast<double>(rollbacks_));
    m.set("crashes", static_cast<double>(crashes_));
    m.set("soft_errors", static_cast<double>(soft_errors_));
    m.set("detected_soft_errors", static_cast<double>(detected_soft_errors_));
    m.set("silent_soft_errors", static_cast<double>(silent_soft_errors_));
    m.set("time_compute_s", time_compute_s_);
    m.set("time_communication_s", time_communication_s_);
    m.set("time_checkpoint_s", time_checkpoint_s_);
    m.set("time_restart_s", time_restart_s_);
    m.set("time_lost_s", time_lost_s_);
    if (cluster_.topology().network_cost_model().reports_link_wait())
      m.set("time_link_wait_s", std::max(0.0, time_link_wait_s_));
    energy_.add_to(m, EnergyTimes{time_compute_s_ + time_communication_s_, time_checkpoint_s_,
                                  time_restart_s_, time_lost_s_});
    if (!stop_reason_.empty()) m.set_note("stop_reason", stop_reason_);
    add_network_notes(m, cluster_.topology());
    return m;
  }

  // --- energy -------------------------------------------------------------------------------
  // Time in these phases is restart time (time_restart_s); in the others, work or checkpoints.
  bool restarting() const { return phase_ == Phase::restart || phase_ == Phase::waiting; }

  // Charges the down nodes' time since their last charge to the current phase's kind, so that a
  // node down across a rollback, a commit or a restart has each part priced where the time
  // breakdown puts it (down time during a checkpoint write counts as work time).
  void charge_down() {
    for (int node = 0; node < cluster_.size(); ++node) {
      double& since_s = down_since_s_[node];
      if (since_s < 0.0) continue;
      energy_.down(node, engine_.now() - since_s, restarting());
      since_s = engine_.now();
    }
  }

  // Mean time between rollbacks for young/daly: crashes of any node, plus detected soft errors
  // at their rate per second of nominal (straggler-free) iteration time.
  double job_mtbf_s() const {
    double rate_per_s =
        std::isfinite(cluster_.system_mtbf_s()) ? 1.0 / cluster_.system_mtbf_s() : 0;
    if (job_.detect_soft_errors) {
      double strikes_per_iteration = 0.0, slowest_node_s = 0.0;
      std::vector<double> busy_s(cluster_.size(), 0.0);
      for (int t = 0; t < task_count_; ++t) {
        const int node = t % cluster_.size();
        strikes_per_iteration += cluster_.soft_errors().strike_probability(node, job_.task_flops);
        busy_s[node] += job_.task_flops / cluster_.node(node).speed_flops_per_s();
        slowest_node_s = std::max(slowest_node_s, busy_s[node]);
      }
      // Tasks of no time (flops / speed underflowed) with strikes: rollbacks at an infinite rate.
      if (strikes_per_iteration > 0.0) rate_per_s += strikes_per_iteration / slowest_node_s;
    }
    return rate_per_s > 0.0 ? 1.0 / rate_per_s : INFINITY;
  }

  const std::function<bool()>& should_stop_;
  Engine engine_;
  Cluster cluster_;
  IterativeJobSpec job_;
  int task_count_;
  CheckpointPolicy policy_;
  ProgressWatchdog watchdog_;
  int needed_;

  std::vector<std::deque<int>> queues_;  // unfinished tasks of this attempt, per node
  std::vector<int> used_nodes_;          // node of each finished task, in finishing order
  Phase phase_ = Phase::compute;
  std::uint64_t attempt_ = 0;  // bumps invalidate callbacks of abandoned phases
  double phase_start_s_ = 0.0;
  double iteration_start_s_ = 0.0;
  int completed_tasks_ = 0;
  bool struck_used_ = false;

  int iterations_done_ = 0;
  int checkpointed_iterations_ = 0;
  int iterations_since_checkpoint_ = 0;
  double progress_since_checkpoint_s_ = 0.0;
  bool completed_ = false;
  std::string stop_reason_;  // why the watchdog (or a failure storm) stopped the job
  FailureStormGuard storm_;
  double completion_time_s_ = 0.0;

  std::uint64_t iterations_redone_ = 0, checkpoints_ = 0, rollbacks_ = 0, crashes_ = 0;
  std::uint64_t soft_errors_ = 0, detected_soft_errors_ = 0, silent_soft_errors_ = 0;
  double time_pending_s_ = 0.0, compute_pending_s_ = 0.0, communication_pending_s_ = 0.0;
  double time_compute_s_ = 0.0, time_communication_s_ = 0.0, time_checkpoint_s_ = 0.0;
  double link_wait_pending_s_ = 0.0, time_link_wait_s_ = 0.0;  // parts of the communication
  double time_restart_s_ = 0.0, time_lost_s_ = 0.0;

  EnergyMeter energy_;
  double checkpoint_bytes_;
  std::vector<double> task_start_s_;  // per node: when its running task started, -1: none
  std::vector<double> down_since_s_;  // per node: down time charged up to here, -1: up
};

}  // namespace

CheckpointCosts iterative_job_checkpoint_costs(const CheckpointSpec& checkpoint,
                                               const Topology& topology) {
  const int nodes = topology.node_count();
  return add_storage_transfers(checkpoint_costs(checkpoint), checkpoint, topology, nodes,
                               checkpoint.bytes / nodes);
}

MetricSet run_iterative_job(const ClusterSpec& cluster, const CheckpointSpec& checkpoint,
                            const IterativeJobSpec& job, std::uint64_t seed, std::uint64_t replica,
                            const std::function<bool()>& should_stop) {
  IterativeJob state(cluster, checkpoint, job, seed, replica, should_stop);
  return state.run();
}

std::string_view to_string(ExchangeKind kind) { return name_of(kind, kExchangeKindNames); }

std::optional<ExchangeKind> parse_exchange_kind(std::string_view name) {
  return parse_name<ExchangeKind>(name, kExchangeKindNames);
}

}  // namespace codesim::sim
