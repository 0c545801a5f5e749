// The training protocol written once (ProtocolRun) over a scripted backend: the course of an
// iteration, a round's outcomes, checkpoints, rollbacks and waiting for repairs, with the time
// each step charges.
#include "models/training/protocol/protocol_run.hpp"

#include <doctest/doctest.h>

#include <deque>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

#include "sim/cluster.hpp"
#include "sim/topology.hpp"

using namespace codesim;
using namespace codesim::models;
using namespace codesim::models::detail;

namespace {

// Rounds take 1 s of tasks, then 0.5 s of communication and 0.25 s of decode; the update 1 s;
// decodes are clean unless `statuses` says otherwise (one per round, in order). The steps that
// follow time run from a trampoline, as the stochastic backend's.
class ScriptedBackend final : public TrainingBackend {
 public:
  ProtocolRun* protocol = nullptr;
  double now = 0.0;
  std::optional<ProtocolStep> next;
  std::vector<std::string> log;
  std::deque<DecodeStatus> statuses;
  bool decodable_now = true;
  std::vector<int> gone;  // needed_nodes_gone's answer
  double repair_after_s = 5.0;
  std::uint64_t events = 0;

  void run() {
    protocol->start();
    while (next) {
      const ProtocolStep step = *next;
      next.reset();
      protocol->resume(step);
    }
  }

  double now_s() const override { return now; }
  void after(double seconds, ProtocolStep step) override {
    now += seconds;
    next = step;
  }
  void stop() override {
    log.push_back("stop");
    next.reset();
  }
  void end_at(double time_s) override {
    log.push_back("end at " + std::to_string(time_s));
    now = time_s;
    next.reset();
  }
  bool regenerate_stale_nodes(double&) override { return true; }
  bool decodable() override { return decodable_now; }
  void wait_for_repair() override {
    log.push_back("wait");
    now += repair_after_s;
    decodable_now = true;
    next = ProtocolStep::repaired;
  }
  std::vector<int> needed_nodes_gone() override { return gone; }
  void begin_iteration(int iteration) override {
    log.push_back("iteration " + std::to_string(iteration));
  }
  void start_round(int layer, Direction dir) override {
    log.push_back((dir == Direction::forward ? "forward " : "backward ") + std::to_string(layer));
    now += 1.0;
    protocol->round_finished(0.5, 0.25);
  }
  DecodeStatus round_status() override {
    if (statuses.empty()) return DecodeStatus::clean;
    const DecodeStatus status = statuses.front();
    statuses.pop_front();
    if (status != DecodeStatus::clean) ++events;
    return status;
  }
  std::optional<double> regenerate_blamed(int, Direction) override {
    log.push_back("regenerate");
    return 2.0;
  }
  void apply_round(int, Direction) override {}
  void start_update() override {
    log.push_back("update");
    now += 1.0;
    protocol->update_finished();
  }
  void iteration_done() override {}
  double evaluate() override { return 0.0; }
  int read_out_failures = 0;  // read-out checks that fail before one passes
  bool read_out_passes() override {
    log.push_back("read-out");
    if (read_out_failures == 0) return true;
    --read_out_failures;
    return false;
  }
  VerificationDecode verification_decode(int, Direction) override {
    return {DecodeStatus::clean, 0.125};
  }
  std::optional<double> verification_regenerate(int, Direction, double) override { return 0.0; }
  void save_checkpoint() override { log.push_back("checkpoint"); }
  void restore_checkpoint(RollbackTarget) override { log.push_back("restore"); }
  void abandon_work() override {}
  std::uint64_t random_events() const override { return events; }
  void trace_sync(int, const char*) override {}
  std::vector<int> live_nodes() const override { return {}; }
};

// A run of two weighted layers (rounds forward 0, forward 1, backward 1) on 4 nodes.
struct Fixture {
  sim::ClusterSpec cluster = sim::uniform_cluster(4, 1e9);
  sim::Topology topology{cluster.network};
  sim::CheckpointSpec checkpoint;
  TrainingSpec spec;
  std::function<bool()> should_stop;
  ScriptedBackend backend;
  std::optional<ProtocolRun> protocol;

  explicit Fixture(int iterations, int checkpoint_every = 0) {
    spec.iterations = iterations;
    if (checkpoint_every > 0) {
      checkpoint.policy = sim::CheckpointKind::every_iterations;
      checkpoint.every_iterations = checkpoint_every;
      checkpoint.write_s = 3.0;
    }
    checkpoint.restart_s = 7.0;
    protocol.emplace(backend, cluster, checkpoint, spec, should_stop, nullptr);
    protocol->plan(cluster, checkpoint, 4, 2, 1e30, 10.0, topology);
    backend.protocol = &*protocol;
  }
  TrainingProgress& progress() { return protocol->progress(); }
};

const std::vector<std::string> kIteration = {"forward 0", "forward 1", "backward 1", "update"};

// The log of a course of steps, each "iteration N" followed by that iteration's rounds.
std::vector<std::string> course(std::initializer_list<std::string> steps) {
  std::vector<std::string> log;
  for (const std::string& step : steps) {
    log.push_back(step);
    if (step.rfind("iteration ", 0) == 0)
      log.insert(log.end(), kIteration.begin(), kIteration.end());
  }
  return log;
}

}  // namespace

TEST_CASE(
    "an iteration runs the forward rounds, the backward rounds down to layer 1, then the "
    "update") {
  Fixture f(2);
  f.backend.run();
  CHECK(f.backend.log == course({"iteration 0", "iteration 1", "read-out", "stop"}));
  CHECK(f.progress().completed());
  CHECK(f.progress().done() == 2);
  CHECK(f.progress().counts.decodes == 6);
  // Per iteration: 3 rounds of 1 + 0.75 s and an update of 1 s.
  CHECK(f.backend.now == doctest::Approx(12.5));
  CHECK(f.progress().time.committed.communication_s == doctest::Approx(3.0));
  CHECK(f.progress().time.committed.decode_s == doctest::Approx(1.5));
}

TEST_CASE(
    "a corrected round regenerates what it blamed and spends that time before the next "
    "round") {
  Fixture f(1);
  f.backend.statuses = {DecodeStatus::clean, DecodeStatus::corrected};
  f.backend.run();
  const std::vector<std::string> expected = {"iteration 0", "forward 0", "forward 1", "regenerate",
                                             "backward 1",  "update",    "read-out",  "stop"};
  CHECK(f.backend.log == expected);
  CHECK(f.progress().counts.corrected == 1);
  CHECK(f.progress().time.committed.communication_s == doctest::Approx(1.5 + 2.0));
  CHECK(f.backend.now == doctest::Approx(6.25 + 2.0));
}

TEST_CASE(
    "a detected round rolls back to the last checkpoint, restarts, and runs the iteration "
    "again") {
  Fixture f(1);
  f.backend.statuses = {DecodeStatus::clean, DecodeStatus::detected};
  f.backend.run();
  const std::vector<std::string> expected = {"iteration 0", "forward 0", "forward 1", "restore",
                                             "iteration 0", "forward 0", "forward 1", "backward 1",
                                             "update",      "read-out",  "stop"};
  CHECK(f.backend.log == expected);
  CHECK(f.progress().counts.detected == 1);
  CHECK(f.progress().counts.rollbacks == 1);
  CHECK(f.progress().time.restart_s == doctest::Approx(7.0));
  // The communication and decodes of the two rounds before the detection are lost work (the
  // tasks' compute is the backend's to charge).
  CHECK(f.progress().time.lost_s == doctest::Approx(2 * 0.75));
  CHECK(f.backend.now == doctest::Approx(2 * 1.75 + 7.0 + 6.25));
}

TEST_CASE("a due checkpoint is verified and written before the next iteration") {
  Fixture f(2, 1);
  f.backend.run();
  CHECK(f.backend.log == course({"iteration 0", "checkpoint", "iteration 1", "read-out", "stop"}));
  CHECK(f.progress().counts.checkpoints == 1);
  // The verification pass decodes both directions of both layers (0.125 s each), then the write.
  CHECK(f.progress().counts.decodes == 2 * 3 + 4);
  CHECK(f.progress().time.committed.checkpoint_s == doctest::Approx(4 * 0.125 + 3.0));
}

TEST_CASE(
    "a read-out check that fails rolls back to the last checkpoint and runs the iterations "
    "after it again, so that no corrupted model is reported") {
  Fixture f(2, 1);
  f.backend.read_out_failures = 1;
  f.backend.run();
  CHECK(f.backend.log == course({"iteration 0", "checkpoint", "iteration 1", "read-out", "restore",
                                 "iteration 1", "read-out", "stop"}));
  CHECK(f.progress().completed());
  CHECK(f.progress().done() == 2);
  CHECK(f.progress().counts.rollbacks == 1);
  CHECK(f.progress().time.restart_s == doctest::Approx(7.0));
}

TEST_CASE(
    "an iteration the usable nodes cannot decode waits for a repair, counted as restart "
    "time") {
  Fixture f(1);
  f.backend.decodable_now = false;
  f.backend.run();
  CHECK(f.backend.log.front() == "wait");
  CHECK(f.backend.log[1] == "iteration 0");
  CHECK(f.progress().time.restart_s == doctest::Approx(5.0));
  CHECK(f.progress().completed());
}

TEST_CASE("a wait for repairs that nodes down for good make endless stops the run at once") {
  Fixture f(1);
  f.backend.decodable_now = false;
  f.backend.gone = {2, 7};
  f.backend.run();
  REQUIRE(f.backend.log.size() == 1);
  CHECK(f.backend.log.front() == "stop");
  CHECK_FALSE(f.progress().completed());
  CHECK(f.progress().stop_reason().find("no node can come back: 2 node(s) down for good") == 0);
  CHECK(f.progress().stop_reason().find("first node 2") != std::string::npos);
}
