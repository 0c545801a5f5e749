// Crashes in the stochastic mode against the numeric mode's: the same crash instants, erasures,
// rollbacks, waits and regenerations when both runs are at the same simulated times (no soft
// errors), the same means with soft errors too.
#include <doctest/doctest.h>

#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "models/training/stochastic/stochastic_validation.hpp"
#include "models/training/train.hpp"
#include "sim/energy_meter.hpp"
#include "sim/progress_watchdog.hpp"
#include "tests/models/training/coded_training_test_support.hpp"

using namespace codesim;
using namespace codesim::models;

namespace {

// Every node of the 16-node cluster crashes with `mtbf_s` and is down for `repair_s`.
sim::ClusterSpec crashing_cluster(double mtbf_s, double repair_s) {
  sim::ClusterSpec c = testing::cluster();
  for (sim::CrashSpec& spec : c.crashes) spec = sim::exponential_crashes(mtbf_s, repair_s);
  c.speeds_flops_per_s[1] = 5e8;  // a slower node: the decoder's speed follows the live nodes
  return c;
}

sim::MetricSet numeric(const sim::ClusterSpec& c, const sim::CheckpointSpec& checkpoint,
                       const TrainingSpec& spec, const FaultConfig& faults, std::uint64_t replica) {
  const testing::Data& d = testing::data();
  return run_coded_training(c, checkpoint, spec, faults, d.train, d.test, 3, replica);
}

// |a - b| within z standard deviations of two Poisson-like counts (plus one for discreteness).
bool counts_agree(double a, double b) { return std::abs(a - b) <= 1.96 * std::sqrt(a + b) + 1.0; }

std::string stop_reason(const sim::MetricSet& m) {
  for (const auto& [key, value] : m.notes())
    if (key == "stop_reason") return value;
  return "";
}

// Sigmoid units change every block at every update (a ReLU layer's block can be left as it was),
// so that an outdated block is wrong in both modes.
void sigmoid_units(TrainingSpec& spec) { spec.mlp.hidden_activation = Activation::sigmoid; }

// Both modes on `kind` (its spec changed by `adjust`) with every node crashing and no soft error:
// the same crashes, erasures, rollbacks, waits and regenerations, so the same counts, times and
// energy.
void check_same_as_numeric(const char* kind, const sim::CheckpointSpec& checkpoint,
                           const sim::ClusterSpec& c = crashing_cluster(4e-4, 3e-5),
                           void (*adjust)(TrainingSpec&) = sigmoid_units) {
  for (bool decentralized : {true, false}) {
    TrainingSpec spec = testing::training(kind, 80);
    spec.decentralized = decentralized;
    adjust(spec);
    for (std::uint64_t replica : {0, 1}) {
      const sim::MetricSet a = numeric(c, checkpoint, spec, testing::no_faults(), replica);
      const sim::MetricSet b =
          run_stochastic_training(c, checkpoint, spec, testing::no_faults(), 3, replica);
      const std::string scheme = kind;
      CAPTURE(scheme);
      CAPTURE(decentralized);
      CAPTURE(replica);
      CHECK(a.get("crashes") > 10.0);
      for (const char* name : {"crashes", "rollbacks", "regenerations", "decodes", "detected",
                               "checkpoints", "iterations", "iterations_executed", "completed"}) {
        const std::string metric = name;
        CAPTURE(metric);
        CHECK(b.get(name) == a.get(name));
      }
      for (const char* name :
           {"completion_time_s", "time_compute_s", "time_communication_s", "time_decode_s",
            "time_checkpoint_s", "time_restart_s", "time_lost_s"}) {
        const std::string metric = name;
        CAPTURE(metric);
        CHECK(b.get(name) == doctest::Approx(a.get(name)).epsilon(1e-12));
      }
      // Energy sums the same terms in another order.
      for (const char* name : {"energy_J", "energy_compute_J", "energy_idle_J", "energy_network_J",
                               "energy_checkpoint_J", "energy_restart_J", "energy_lost_J"}) {
        const std::string metric = name;
        CAPTURE(metric);
        CHECK(b.get(name) == doctest::Approx(a.get(name)).epsilon(1e-9));
      }
    }
  }
}

}  // namespace

TEST_CASE("without soft errors the stochastic mode crashes, waits and regenerates as the numeric") {
  // No checkpoint within the run: every rollback goes back to the initial state. GPD, MDS and the
  // CodeNet grid decode around down nodes and regenerate them once back; replication with two
  // copies, uncoded and abft roll back and wait when a block is missing; abft_codenet's nodes
  // check their partials, and a crash can lose a check task too.
  for (const char* kind :
       {"gpd", "codenet_grid", "mds", "replication", "uncoded", "abft", "abft_codenet"})
    check_same_as_numeric(kind, testing::every(1000, 2e-6, 3e-6));
}

TEST_CASE("with checkpoints and their verification the crashes take the numeric mode's course") {
  // A node stale at a checkpoint is stale again after a rollback to it in both modes (its blocks
  // there are outdated), and regenerated before it is used: MDS, the CodeNet grid and
  // replication write checkpoints while a node is stale here.
  sim::CheckpointSpec checkpoint = testing::every(4, 2e-6, 3e-6);
  checkpoint.write_bandwidth_Bps = 1e8;
  for (const char* kind : {"gpd", "uncoded", "mds", "codenet_grid", "replication"})
    check_same_as_numeric(kind, checkpoint);
}

// Racks of four nodes that fail together (on top of the nodes' own crashes).
sim::ClusterSpec racked_cluster() {
  sim::ClusterSpec c = crashing_cluster(1.5e-3, 3e-5);
  for (int first = 0; first < c.node_count(); first += 4) {
    sim::FailureDomainSpec rack;
    rack.name = "rack " + std::to_string(first / 4);
    for (int p = first; p < first + 4; ++p) rack.nodes.push_back(p);
    rack.failure = sim::ExponentialLaw{2e-3};
    rack.repair = sim::FixedLaw{2e-5};
    c.shared_failures.domains.push_back(rack);
  }
  return c;
}

TEST_CASE("an availability trace and speed traces take the numeric course in stochastic mode") {
  // Node 5 down by a trace, nodes 2 and 9 slowed and sped up by speed traces (one looping): both
  // modes run the same crash process and the same task times.
  sim::ClusterSpec c = crashing_cluster(1.5e-3, 3e-5);
  c.shared_failures.trace.assign(static_cast<std::size_t>(c.node_count()), {});
  c.shared_failures.trace[5] = {{1e-4, 1.5e-4}, {3e-4, 3.2e-4}};
  c.speed_traces.assign(static_cast<std::size_t>(c.node_count()), {});
  c.speed_traces[2].steps = {{5e-5, 0.25}, {2e-4, 1.0}};
  c.speed_traces[9].steps = {{0.0, 2.0}, {1e-5, 0.5}};
  c.speed_traces[9].period_s = 3e-5;
  for (const char* kind : {"gpd", "codenet_grid", "replication", "abft"})
    check_same_as_numeric(kind, testing::every(1000, 2e-6, 3e-6), c);
}

TEST_CASE("failure domains strike both modes alike: crashes, rollbacks and regenerations") {
  // A rack's members go down in one event and come back in one; the two modes react to the
  // members one by one within that instant in different orders (the numeric mode's listeners run
  // inside the event), so single runs may differ in a wait or a lost task, not in the means.
  const TrainingSpec spec = testing::training("codenet_grid", 60);
  const sim::ClusterSpec c = racked_cluster();
  const sim::CheckpointSpec checkpoint = testing::every(5, 1e-6, 2e-6);
  double crashes[2] = {0, 0}, rollbacks[2] = {0, 0}, regenerations[2] = {0, 0};
  for (std::uint64_t replica = 0; replica < 12; ++replica) {
    const sim::MetricSet runs[2] = {
        numeric(c, checkpoint, spec, testing::no_faults(), replica),
        run_stochastic_training(c, checkpoint, spec, testing::no_faults(), 3, replica)};
    for (int m = 0; m < 2; ++m) {
      crashes[m] += runs[m].get("crashes");
      rollbacks[m] += runs[m].get("rollbacks");
      regenerations[m] += runs[m].get("regenerations");
    }
  }
  INFO("crashes " << crashes[0] << " / " << crashes[1] << ", rollbacks " << rollbacks[0] << " / "
                  << rollbacks[1] << ", regenerations " << regenerations[0] << " / "
                  << regenerations[1]);
  CHECK(crashes[0] > 100.0);
  CHECK(regenerations[0] > 20.0);
  CHECK(counts_agree(crashes[0], crashes[1]));
  CHECK(counts_agree(rollbacks[0], rollbacks[1]));
  CHECK(counts_agree(regenerations[0], regenerations[1]));
}

TEST_CASE("a scheme without redundancy rolls back and waits for repairs in both modes") {
  const TrainingSpec spec = testing::training("uncoded", 60);
  const sim::ClusterSpec c = crashing_cluster(3e-4, 4e-5);
  const sim::CheckpointSpec checkpoint = testing::every(5, 1e-6, 2e-6);
  const sim::MetricSet a = numeric(c, checkpoint, spec, testing::no_faults(), 0);
  const sim::MetricSet b = run_stochastic_training(c, checkpoint, spec, testing::no_faults(), 3, 0);
  CHECK(b.get("rollbacks") > 5.0);
  CHECK(b.get("rollbacks") == a.get("rollbacks"));
  CHECK(b.get("detected") == a.get("detected"));
  // Waiting for repairs is restart time beyond the restarts' own.
  CHECK(b.get("time_restart_s") > b.get("rollbacks") * 2e-6);
  CHECK(b.get("time_restart_s") == doctest::Approx(a.get("time_restart_s")).epsilon(1e-12));
}

TEST_CASE("with crashes and soft errors the modes agree on mean rollbacks and regenerations") {
  // Weight strikes that change every entry (seen by every numeric decode) on GPD, which corrects
  // one error per decode and tolerates erasures; crashes often enough that waits, stale nodes and
  // rollbacks of both causes mix.
  TrainingSpec spec = testing::training("gpd", 60);
  spec.mlp.hidden_activation = Activation::sigmoid;
  FaultConfig faults = testing::weights_at(4e-3);
  faults[FaultTarget::weights].model = value_model_defaults(ValueModelKind::gaussian);
  faults[FaultTarget::weights].model.density = 1.0;
  const sim::ClusterSpec c = crashing_cluster(6e-4, 4e-5);
  const sim::CheckpointSpec checkpoint = testing::every(5, 1e-6, 2e-6);
  double numeric_rollbacks = 0.0, stochastic_rollbacks = 0.0;
  double numeric_regenerations = 0.0, stochastic_regenerations = 0.0;
  double stochastic_crashes = 0.0;
  for (std::uint64_t replica = 0; replica < 24; ++replica) {
    const sim::MetricSet a = numeric(c, checkpoint, spec, faults, replica);
    const sim::MetricSet b = run_stochastic_training(c, checkpoint, spec, faults, 3, replica);
    numeric_rollbacks += a.get("rollbacks");
    stochastic_rollbacks += b.get("rollbacks");
    numeric_regenerations += a.get("regenerations");
    stochastic_regenerations += b.get("regenerations");
    stochastic_crashes += b.get("crashes");
  }
  INFO("rollbacks: numeric " << numeric_rollbacks << ", stochastic " << stochastic_rollbacks);
  INFO("regenerations: numeric " << numeric_regenerations << ", stochastic "
                                 << stochastic_regenerations);
  CHECK(stochastic_crashes > 100.0);
  CHECK(numeric_rollbacks > 20.0);
  CHECK(numeric_regenerations > 20.0);
  CHECK(counts_agree(numeric_rollbacks, stochastic_rollbacks));
  CHECK(counts_agree(numeric_regenerations, stochastic_regenerations));
}

TEST_CASE("the crashes metric appears only when a node can crash") {
  const TrainingSpec spec = testing::training("gpd", 10);
  const sim::MetricSet quiet = run_stochastic_training(testing::cluster(), testing::every(5), spec,
                                                       testing::no_faults(), 3, 0);
  CHECK(!quiet.contains("crashes"));
  const sim::MetricSet crashing = run_stochastic_training(
      crashing_cluster(1e3, 1.0), testing::every(5), spec, testing::no_faults(), 3, 0);
  CHECK(crashing.get("crashes") == 0.0);
}

TEST_CASE("a run with crashes cut at its time limit has a breakdown and energy that add up") {
  const TrainingSpec full_spec = testing::training("replication", 60);
  const sim::ClusterSpec c = crashing_cluster(3e-4, 4e-5);
  const sim::CheckpointSpec checkpoint = testing::every(5, 1e-6, 2e-6);
  const sim::MetricSet full =
      run_stochastic_training(c, checkpoint, full_spec, testing::no_faults(), 3, 0);
  REQUIRE(full.get("crashes") > 10.0);
  for (int k = 1; k < 100; ++k) {
    TrainingSpec spec = full_spec;
    spec.time_limit_s = full.get("completion_time_s") * k / 100.0;
    CAPTURE(spec.time_limit_s);
    const sim::MetricSet m =
        run_stochastic_training(c, checkpoint, spec, testing::no_faults(), 3, 0);
    CHECK(m.get("completed") == 0.0);
    CHECK(m.get("completion_time_s") == spec.time_limit_s);
    double breakdown = 0.0;
    for (const char* part : {"time_compute_s", "time_communication_s", "time_decode_s",
                             "time_checkpoint_s", "time_restart_s", "time_eval_s", "time_lost_s"})
      breakdown += m.get(part);
    CHECK(breakdown == doctest::Approx(spec.time_limit_s).epsilon(1e-12));
    CHECK(m.get("energy_J") == doctest::Approx(sim::sum_of_energy_parts_J(m)).epsilon(1e-12));
    CHECK(m.get("crashes") <= full.get("crashes"));
  }
}

TEST_CASE("nodes cut off by link failures take the numeric course in stochastic mode") {
  // A star (fat_tree of arity 16, one switch): a failed link cuts its node off and changes no
  // other route, so both modes see the same erasures at the same times and the same costs.
  sim::ClusterSpec c = crashing_cluster(1.5e-3, 3e-5);
  c.network.shape = sim::TopologyShape::fat_tree;
  c.network.fat_tree_arity = 16;
  c.shared_failures.links = sim::LinkFailureSpec{sim::ExponentialLaw{6e-3}, sim::FixedLaw{3e-5}};
  for (const char* kind : {"gpd", "uncoded"})
    check_same_as_numeric(kind, testing::every(1000, 2e-6, 3e-6), c);
}

TEST_CASE("stochastic mode reroutes around failed links as the numeric mode does") {
  // A 4 x 4 torus: a failed link cuts no node off, but the routes that crossed it take a longer
  // way round (and share other links), so the rounds' communication costs change while it is down.
  sim::ClusterSpec c = crashing_cluster(1.5e-3, 3e-5);
  c.network.shape = sim::TopologyShape::torus2d;
  c.shared_failures.links = sim::LinkFailureSpec{sim::ExponentialLaw{2e-3}, sim::FixedLaw{5e-5}};
  for (const char* kind : {"gpd", "replication"})
    check_same_as_numeric(kind, testing::every(1000, 2e-6, 3e-6), c);
}

TEST_CASE("a convolutional network in stochastic mode takes the numeric mode's course") {
  // Its conv layers' products, bytes, decodes and updates are charged on positions x batch columns
  // in both modes. No ReLU, so that every update changes every block (see sigmoid_units).
  const auto conv_network = [](TrainingSpec& spec) {
    spec.network = testing::small_network();
    std::erase_if(spec.network->layers,
                  [](const Layer& layer) { return std::holds_alternative<Relu>(layer); });
    spec.sgd.batch_size = 2;
  };
  for (const char* kind : {"gpd", "codenet_grid", "replication", "abft"})
    check_same_as_numeric(kind, testing::every(1000, 2e-6, 3e-6), crashing_cluster(4e-4, 3e-5),
                          conv_network);
}

TEST_CASE("a failure storm stops both modes with its reason instead of running without end") {
  // Up and repair times of 1 ns against tasks of about 0.1 us, on an uncoded 4 x 4 grid that
  // needs all 16 nodes up: no task, hence no iteration, ends; the run waits for repairs, and the
  // rare attempts roll back too seldom for the rollback watchdog (its limit raised) to stop it.
  const sim::ClusterSpec c = crashing_cluster(1e-9, 1e-9);
  TrainingSpec spec = testing::training("uncoded", 5);
  spec.scheme = uncoded_spec(4, 4);
  sim::CheckpointSpec checkpoint = testing::every(1000, 2e-6, 3e-6);
  checkpoint.max_stalled_rollbacks = 1000000;
  const sim::MetricSet a = numeric(c, checkpoint, spec, testing::no_faults(), 0);
  const sim::MetricSet b = run_stochastic_training(c, checkpoint, spec, testing::no_faults(), 3, 0);
  for (const sim::MetricSet* m : {&a, &b}) {
    CHECK(m->get("completed") == 0.0);
    CHECK(m->get("iterations") == 0.0);
    // Crashes and repairs alternate: half of the guard's events are crashes.
    CHECK(m->get("crashes") ==
          doctest::Approx(sim::FailureStormGuard::kMaxEventsWithoutProgress / 2.0).epsilon(1e-3));
    const std::string reason = stop_reason(*m);
    INFO(reason << " rollbacks " << m->get("rollbacks") << " t " << m->get("completion_time_s"));
    CHECK(reason.find("failure storm: 100000000 crashes and repairs") == 0);
  }
}

TEST_CASE("an interrupt ends a training run that makes no progress between crashes") {
  // The failure storm above, with an interrupt asked for after the first iteration's poll: the
  // protocol polls between crashes and repairs too, so the run stops at once instead of after
  // the storm guard's 1e8 events.
  const sim::ClusterSpec c = crashing_cluster(1e-9, 1e-9);
  TrainingSpec spec = testing::training("uncoded", 5);
  spec.scheme = uncoded_spec(4, 4);
  sim::CheckpointSpec checkpoint = testing::every(1000, 2e-6, 3e-6);
  checkpoint.max_stalled_rollbacks = 1000000;
  int polls = 0;
  const std::function<bool()> interrupt = [&] { return ++polls > 1; };
  CHECK_THROWS_AS(
      run_stochastic_training(c, checkpoint, spec, testing::no_faults(), 3, 0, interrupt),
      sim::RunStopped);
  CHECK(polls == 2);
}

TEST_CASE("a training run whose needed node is down for good stops with a reason, in both modes") {
  // Node 3 goes down at 0.1 ms and never comes back (a trace interval without an end) while the
  // other nodes keep failing and coming back. Uncoded needs every node: before, both modes waited
  // for repairs until the time limit (1e12 s), the crashes going on. GPD decodes without node 3
  // and completes.
  sim::ClusterSpec c = crashing_cluster(4e-4, 3e-5);
  c.shared_failures.trace.assign(static_cast<std::size_t>(c.node_count()), {});
  c.shared_failures.trace[3] = {{1e-4, INFINITY}};
  const sim::CheckpointSpec checkpoint = testing::every(5, 1e-6, 2e-6);
  for (const char* kind : {"uncoded", "gpd"}) {
    TrainingSpec spec = testing::training(kind, 40);
    sigmoid_units(spec);
    const sim::MetricSet a = numeric(c, checkpoint, spec, testing::no_faults(), 0);
    const sim::MetricSet b =
        run_stochastic_training(c, checkpoint, spec, testing::no_faults(), 3, 0);
    const std::string scheme = kind;
    CAPTURE(scheme);
    for (const sim::MetricSet* m : {&a, &b}) {
      const std::string reason = stop_reason(*m);
      CAPTURE(reason);
      if (scheme == "uncoded") {
        CHECK(m->get("completed") == 0.0);
        CHECK(reason.find("no node can come back: 1 node(s) down for good") == 0);
        CHECK(m->get("completion_time_s") < 1e-3);
      } else {
        CHECK(m->get("completed") == 1.0);
        CHECK(reason.empty());
      }
      double breakdown = 0.0;
      for (const char* part : {"time_compute_s", "time_communication_s", "time_decode_s",
                               "time_checkpoint_s", "time_restart_s", "time_eval_s", "time_lost_s"})
        breakdown += m->get(part);
      CHECK(breakdown == doctest::Approx(m->get("completion_time_s")).epsilon(1e-12));
    }
    CHECK(b.get("completion_time_s") == doctest::Approx(a.get("completion_time_s")).epsilon(1e-12));
  }
}

TEST_CASE(
    "a training run whose restart would end after its time limit ends at its first rollback") {
  // With crashes every 0.4 ms and a restart of 1e308 s, both modes used to run every crash up to
  // the time limit (1e12 s); no restart can end in time, so the run ends as at its limit at its
  // first rollback, the crashes after it not simulated.
  const sim::ClusterSpec c = crashing_cluster(4e-4, 3e-5);
  sim::CheckpointSpec checkpoint = testing::every(5, 1e-6, 2e-6);
  checkpoint.restart_s = 1e308;
  TrainingSpec spec = testing::training("uncoded", 40);
  const sim::MetricSet a = numeric(c, checkpoint, spec, testing::no_faults(), 0);
  const sim::MetricSet b = run_stochastic_training(c, checkpoint, spec, testing::no_faults(), 3, 0);
  for (const sim::MetricSet* m : {&a, &b}) {
    const std::string reason = stop_reason(*m);
    CAPTURE(reason);
    CHECK(m->get("completed") == 0.0);
    CHECK(m->get("rollbacks") == 1.0);
    CHECK(reason.find("the restart after a rollback takes 1e+308 s") == 0);
    CHECK(m->get("completion_time_s") == spec.time_limit_s);
    CHECK(m->get("crashes") < 100.0);
    CHECK(m->get("time_restart_s") > 0.99 * spec.time_limit_s);
  }
  CHECK(b.get("time_restart_s") == doctest::Approx(a.get("time_restart_s")).epsilon(1e-12));
  CHECK(b.get("crashes") == a.get("crashes"));
}
