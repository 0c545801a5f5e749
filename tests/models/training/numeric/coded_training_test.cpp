// Coded training: equals plain SGD without faults, corrects and regenerates, rolls back exactly,
// lets uncoded training diverge silently, is deterministic and charges the cost model's time.
#include "models/training/train.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "models/linalg/dense_kernels.hpp"
#include "sim/random_stream.hpp"
#include "tests/models/training/coded_training_test_support.hpp"

using namespace codesim;
using namespace codesim::models;

namespace {

using namespace codesim::models::testing;

double breakdown_s(const sim::MetricSet& m) {
  return m.get("time_compute_s") + m.get("time_communication_s") + m.get("time_decode_s") +
         m.get("time_checkpoint_s") + m.get("time_restart_s") + m.get("time_eval_s") +
         m.get("time_lost_s");
}

// A log holding one fault: the `index`-th opportunity of (operation, layer) among the strikes of
// a run that adds zero at every weights opportunity of `node` (so that run is error-free and, with
// the same checkpoints, has the replay's opportunity times and values up to the fault), with
// `shift` added to the struck entries. Both runs are on cluster `c`.
FaultLog single_fault(const TrainingSpec& spec, const sim::CheckpointSpec& checkpoint, int node,
                      const std::string& operation, int layer, int index, double shift,
                      const sim::ClusterSpec& c = cluster()) {
  ValueModelSpec zero = value_model_defaults(ValueModelKind::gaussian);
  zero.sigma = 0.0;
  const TrainingResult recorded =
      train(spec, always_on(node, FaultTarget::weights, zero), checkpoint, c);
  int seen = 0;
  for (const FaultRecord& r : recorded.faults.records) {
    if (r.operation != operation || r.layer != layer || seen++ != index) continue;
    FaultRecord record = r;
    record.sequence_digest.reset();
    for (FaultEntry& e : record.entries)
      e.new_bits = bits_of(value_of_bits(e.old_bits, ScalarType::float64) + shift);
    FaultLog log;
    log.records.push_back(record);
    return log;
  }
  FAIL("no such opportunity");
  return {};
}

}  // namespace

TEST_CASE("without faults one step of every strategy equals a plain SGD step") {
  for (const char* kind : {"uncoded", "replication", "replication3", "mds", "gpd", "codenet_grid",
                           "abft", "abft_codenet"}) {
    for (int batch : {1, 3}) {
      CAPTURE(kind);
      CAPTURE(batch);
      const TrainingSpec spec = training(kind, 1, batch);
      const TrainingResult r = train(spec, no_faults());
      CHECK(r.metrics.get("completed") == 1.0);
      CHECK(r.metrics.get("iterations") == 1.0);
      CHECK(max_difference(r.parameters, reference(spec, 1, 3)) < 1e-10);
      CHECK(r.metrics.get("corrected") == 0.0);
      CHECK(r.metrics.get("detected") == 0.0);
    }
  }
}

TEST_CASE("without faults a run of many steps follows plain SGD across epochs") {
  for (const char* kind : {"replication", "gpd", "codenet_grid"}) {
    CAPTURE(kind);
    // 120 steps of batch 3 cover two epochs of the 180 training samples.
    const TrainingSpec spec = training(kind, 120, 3);
    const TrainingResult r = train(spec, no_faults(), every(25));
    CHECK(max_difference(r.parameters, reference(spec, 120, 3)) < 1e-10);
    CHECK(r.metrics.get("checkpoints") == 4.0);
    CHECK(r.metrics.get("rollbacks") == 0.0);
  }
}

TEST_CASE("training on separable clusters reaches high test accuracy and logs the curve") {
  TrainingSpec spec = training("codenet_grid", 300);
  spec.eval_every = 100;
  spec.record_loss = true;
  const TrainingResult r = train(spec, no_faults());
  const sim::MetricSeries& curve = r.metrics.series("accuracy_vs_time");
  REQUIRE(curve.rows() == 4);
  CHECK(curve.column("iteration") == std::vector<double>{0, 100, 200, 300});
  const std::vector<double> times = curve.column("time_s");
  CHECK(std::is_sorted(times.begin(), times.end()));
  CHECK(times.back() == doctest::Approx(r.metrics.get("completion_time_s")));
  CHECK(r.metrics.get("final_test_accuracy") == curve.column("test_accuracy").back());
  CHECK(r.metrics.get("final_test_accuracy") > 0.9);
  // The accuracy is that of the decoded weights (the read-out, here without faults).
  CHECK(r.metrics.get("final_test_accuracy") ==
        accuracy(r.parameters, spec.mlp.hidden_activation, data().test.images, data().test.labels));
  CHECK(curve.column("train_loss").back() < curve.column("train_loss").front());
  CHECK(r.metrics.series("loss_vs_iteration").rows() == 300);
  CHECK(r.metrics.get("final_train_loss") == curve.column("train_loss").back());
}

TEST_CASE("a persistent error on one node at every opportunity is corrected and regenerated") {
  for (const char* kind : {"replication3", "mds", "gpd", "codenet_grid"}) {
    CAPTURE(kind);
    TrainingSpec spec = training(kind, 15, 2);
    spec.audit = true;
    const TrainingResult r = train(spec, always_on(1, FaultTarget::weights), every(5));
    CHECK(r.metrics.get("faults_injected") > 15.0);
    CHECK(r.metrics.get("corrected") > 0.0);
    CHECK(r.metrics.get("regenerations") >= r.metrics.get("corrected"));
    CHECK(r.metrics.get("detected") == 0.0);
    CHECK(r.metrics.get("rollbacks") == 0.0);
    CHECK(r.metrics.get("silent_corruptions") == 0.0);
    CHECK(max_difference(r.parameters, reference(spec, 15, 3)) < 1e-9);
  }
}

TEST_CASE("one injected correctable error leaves the trajectory identical to the error-free one") {
  const TrainingSpec spec = training("codenet_grid", 8);
  // Node 5 (grid row 1, column 1) is struck after its layer-1 update of iteration 3.
  FaultInjector injector(single_fault(spec, {}, 5, "update", 1, 3, 2.0));
  const TrainingResult r = train(spec, injector);
  CHECK(r.metrics.get("faults_injected") == 1.0);
  CHECK(r.metrics.get("corrected") == 1.0);
  CHECK(r.metrics.get("regenerations") >= 1.0);
  CHECK(r.metrics.get("rollbacks") == 0.0);
  const TrainingResult clean = train(spec, no_faults());
  CHECK(max_difference(r.parameters, clean.parameters) < 1e-9);
  CHECK(max_difference(r.parameters, reference(spec, 8, 3)) < 1e-9);
}

TEST_CASE("a detected error rolls back to exactly the checkpointed weights") {
  const TrainingSpec spec = training("replication", 6);
  // Two copies only compare: the struck update of iteration 2 is detected in iteration 3 and the
  // run returns to the checkpoint written after iteration 2.
  FaultInjector injector(single_fault(spec, every(2), 1, "update", 0, 2, 1.0));
  std::vector<std::pair<int, MlpParameters>> checkpoints, rollbacks;
  TrainingObserver observer;
  observer.on_checkpoint = [&](int i, const MlpParameters& p) { checkpoints.emplace_back(i, p); };
  observer.on_rollback = [&](int i, const MlpParameters& p) { rollbacks.emplace_back(i, p); };
  const TrainingResult r = train(spec, injector, every(2), cluster(), 3, observer);
  REQUIRE(rollbacks.size() == 1);
  CHECK(rollbacks[0].first == 2);
  REQUIRE(!checkpoints.empty());
  CHECK(checkpoints[0].first == 2);
  CHECK(max_difference(rollbacks[0].second, checkpoints[0].second) == 0.0);
  CHECK(max_difference(rollbacks[0].second, reference(spec, 2, 3)) < 1e-12);
  CHECK(r.metrics.get("detected") == 1.0);
  CHECK(r.metrics.get("rollbacks") == 1.0);
  CHECK(r.metrics.get("iterations") == 6.0);
  CHECK(r.metrics.get("iterations_executed") == 7.0);  // iteration 2 ran twice
  CHECK(r.metrics.get("time_lost_s") > 0.0);
  CHECK(max_difference(r.parameters, reference(spec, 6, 3)) < 1e-12);
  CHECK(breakdown_s(r.metrics) == doctest::Approx(r.metrics.get("completion_time_s")));
}

TEST_CASE("a rollback regenerates again a node that was stale when its checkpoint was written") {
  const TrainingSpec spec = training("replication", 6);
  // The times of node 1's updates of layer 0 without crashes: node 2 (a copy of another block
  // than node 1's) goes down during iteration 1, misses its update, is still down when the
  // checkpoint after iteration 1 is written and comes back during iteration 2.
  ValueModelSpec zero = value_model_defaults(ValueModelKind::gaussian);
  zero.sigma = 0.0;
  std::vector<double> updates_s;
  for (const FaultRecord& f :
       train(spec, always_on(1, FaultTarget::weights, zero), every(2)).faults.records) {
    if (f.operation == "update" && f.layer == 0) updates_s.push_back(f.time_s);
  }
  REQUIRE(updates_s.size() >= 3);
  sim::ClusterSpec c = cluster();
  c.shared_failures.trace.resize(static_cast<std::size_t>(c.node_count()));
  c.shared_failures.trace[2] = {
      {(updates_s[0] + updates_s[1]) / 2, (updates_s[1] + updates_s[2]) / 2}};
  // Node 1's update of iteration 2 is struck; iteration 3 detects it and the run returns to the
  // checkpoint after iteration 1, with node 2 up: its blocks there missed an update.
  FaultInjector injector(single_fault(spec, every(2), 1, "update", 0, 2, 1.0, c));
  std::vector<int> rollbacks;
  TrainingObserver observer;
  observer.on_rollback = [&](int i, const MlpParameters&) { rollbacks.push_back(i); };
  const TrainingResult r = train(spec, injector, every(2), c, 3, observer);
  CHECK(r.metrics.get("crashes") == 1.0);
  REQUIRE(!rollbacks.empty());
  CHECK(rollbacks[0] == 2);
  // Regenerated after the rollback as after its repair (each time a block of every layer):
  // taken as current, its outdated blocks would differ from their copies and roll back again.
  CHECK(r.metrics.get("detected") == 1.0);
  CHECK(rollbacks.size() == 1);
  CHECK(r.metrics.get("regenerations") ==
        2.0 * static_cast<double>(spec.mlp.layer_sizes.size() - 1));
  CHECK(r.metrics.get("iterations_executed") == 7.0);
  CHECK(max_difference(r.parameters, reference(spec, 6, 3)) < 1e-12);
  CHECK(breakdown_s(r.metrics) == doctest::Approx(r.metrics.get("completion_time_s")));
}

TEST_CASE("a verification pass that detects an error rolls back instead of writing") {
  const TrainingSpec spec = training("replication", 6);
  // The update of iteration 1 is struck; the all-ones pass before the checkpoint after iteration
  // 1 sees the copies differ, so the run returns to the initial state.
  FaultInjector injector(single_fault(spec, every(2), 1, "update", 0, 1, 1.0));
  std::vector<std::pair<int, MlpParameters>> rollbacks;
  TrainingObserver observer;
  observer.on_rollback = [&](int i, const MlpParameters& p) { rollbacks.emplace_back(i, p); };
  const TrainingResult r = train(spec, injector, every(2), cluster(), 3, observer);
  REQUIRE(rollbacks.size() == 1);
  CHECK(rollbacks[0].first == 0);
  CHECK(max_difference(rollbacks[0].second, glorot_init(spec.mlp, 3)) == 0.0);
  CHECK(r.metrics.get("detected") == 1.0);
  CHECK(r.metrics.get("checkpoints") == 2.0);  // after iterations 2 and 4 of the second attempt
  CHECK(r.metrics.get("iterations_executed") == 8.0);
  CHECK(max_difference(r.parameters, reference(spec, 6, 3)) < 1e-12);
  CHECK(breakdown_s(r.metrics) == doctest::Approx(r.metrics.get("completion_time_s")));
}

TEST_CASE("a verification pass corrects a latent error before the checkpoint is written") {
  const TrainingSpec spec = training("codenet_grid", 6);
  // Struck at the update of iteration 1: only the verification pass sees it before the write.
  FaultInjector injector(single_fault(spec, every(2), 7, "update", 2, 1, 3.0));
  std::vector<MlpParameters> written;
  TrainingObserver observer;
  observer.on_checkpoint = [&](int, const MlpParameters& p) { written.push_back(p); };
  const TrainingResult r = train(spec, injector, every(2), cluster(), 3, observer);
  REQUIRE(!written.empty());
  CHECK(max_difference(written[0], reference(spec, 2, 3)) < 1e-9);
  CHECK(r.metrics.get("corrected") == 1.0);
  CHECK(r.metrics.get("rollbacks") == 0.0);
  CHECK(max_difference(r.parameters, reference(spec, 6, 3)) < 1e-9);
}

TEST_CASE("uncoded training lets a corruption persist silently") {
  TrainingSpec spec = training("uncoded", 10);
  spec.audit = true;
  const TrainingResult r = train(spec, always_on(2, FaultTarget::weights), every(5));
  CHECK(r.metrics.get("faults_injected") > 10.0);
  CHECK(r.metrics.get("detected") == 0.0);
  CHECK(r.metrics.get("rollbacks") == 0.0);
  CHECK(r.metrics.get("corrected") == 0.0);
  CHECK(r.metrics.get("silent_corruptions") > 0.0);
  CHECK(r.metrics.get("audit_final_weight_deviation") > 1e-3);
  CHECK(max_difference(r.parameters, reference(spec, 10, 3)) > 1e-3);
}

TEST_CASE("decode faults are corrected when every node decodes and silent with a master") {
  TrainingSpec spec = training("codenet_grid", 6);
  spec.audit = true;
  const FaultConfig faults = always_on(0, FaultTarget::decode);
  const TrainingResult decentralized = train(spec, faults);
  CHECK(decentralized.metrics.get("faults_injected") > 6.0);
  CHECK(decentralized.metrics.get("corrected") > 0.0);
  CHECK(decentralized.metrics.get("silent_corruptions") == 0.0);
  CHECK(max_difference(decentralized.parameters, reference(spec, 6, 3)) < 1e-9);
  spec.decentralized = false;
  const TrainingResult master = train(spec, faults);
  CHECK(master.metrics.get("faults_injected") > 6.0);
  CHECK(master.metrics.get("detected") == 0.0);
  CHECK(master.metrics.get("silent_corruptions") > 0.0);
  CHECK(max_difference(master.parameters, reference(spec, 6, 3)) > 1e-6);
}

TEST_CASE("the same seed gives identical metrics and another replica differs") {
  TrainingSpec spec = training("codenet_grid", 20, 2);
  spec.eval_every = 5;
  sim::ClusterSpec c = cluster();
  for (auto& s : c.stragglers) s = sim::ShiftedExponentialStraggler{1.0, 2.0};
  FaultConfig faults = default_fault_config();
  faults[FaultTarget::weights].rate.probability_per_operation = 0.02;
  const auto run = [&](std::uint64_t replica) {
    FaultInjector injector(faults, c.node_count(), 3, replica);
    return train_coded(c, every(4), spec, injector, data().train, data().test, 3, replica).metrics;
  };
  const sim::MetricSet a = run(0), b = run(0), other = run(1);
  CHECK(a.scalars() == b.scalars());
  REQUIRE(a.all_series().size() == b.all_series().size());
  CHECK(a.series("accuracy_vs_time").values == b.series("accuracy_vs_time").values);
  CHECK(a.get("faults_injected") > 0.0);
  CHECK(a.get("completion_time_s") != other.get("completion_time_s"));
  CHECK(breakdown_s(a) == doctest::Approx(a.get("completion_time_s")));
}

TEST_CASE("one iteration takes the task, collective and decode times of the cost model") {
  // Uncoded 2 x 1 grid on a 4-6-2 network: two nodes of 1e6 flop/s, links of 1 ms and 1 MB/s.
  TrainingSpec spec;
  spec.mlp.layer_sizes = {4, 6, 2};
  spec.sgd.learning_rate = 0.05;
  spec.scheme = uncoded_spec(2, 1);
  spec.iterations = 1;
  sim::ClusterSpec c = sim::uniform_cluster(2, 1e6);
  c.network.latency_s = 1e-3;
  c.network.bandwidth_Bps = 1e6;
  SyntheticSpec ds;
  ds.classes = 2;
  ds.features = 4;
  ds.samples = 10;
  const Dataset d = make_synthetic_dataset(ds);
  FaultInjector injector(no_faults(), 2, 1, 0);
  const TrainingResult r = train_coded(c, {}, spec, injector, d, d, 1, 0);
  // Compute: forward 2*3*4 and 2*1*6 flops, backward of layer 1 2*1*6, update 2*12 + 2*6.
  const double compute_s = (24 + 12 + 12 + 36) * 1e-6;
  // Forward: two one-node symbols all-gathered (one ring step of 3 and 1 values); backward: one
  // symbol of two members reduced (one tree round) and all-gathered, 6 values each.
  const double communication_s = (1e-3 + 24e-6) + (1e-3 + 8e-6) + 2 * (1e-3 + 48e-6);
  // Decode: 2 a^2 L flops with (a, L) = (2, 3), (2, 1), (1, 6).
  const double decode_s = (24 + 8 + 12) * 1e-6;
  CHECK(r.metrics.get("time_compute_s") == doctest::Approx(compute_s).epsilon(1e-12));
  CHECK(r.metrics.get("time_communication_s") == doctest::Approx(communication_s).epsilon(1e-12));
  CHECK(r.metrics.get("time_decode_s") == doctest::Approx(decode_s).epsilon(1e-12));
  CHECK(r.metrics.get("completion_time_s") ==
        doctest::Approx(compute_s + communication_s + decode_s).epsilon(1e-12));
}

TEST_CASE("waiting for the first K results is faster under stragglers and still exact") {
  TrainingSpec spec = training("gpd", 10);
  sim::ClusterSpec c = cluster();
  for (auto& s : c.stragglers) s = sim::ParetoStraggler{1.0, 1.5};
  const TrainingResult all = train(spec, no_faults(), {}, c);
  spec.wait_for = WaitRule::k;
  const TrainingResult k = train(spec, no_faults(), {}, c);
  CHECK(k.metrics.get("time_compute_s") < all.metrics.get("time_compute_s"));
  CHECK(max_difference(k.parameters, reference(spec, 10, 3)) < 1e-9);
  CHECK(max_difference(all.parameters, reference(spec, 10, 3)) < 1e-10);
  // K + 2t symbols still correct one persistent error per decode.
  spec.wait_for = WaitRule::k_plus_2t;
  spec.wait_errors = 1;
  const TrainingResult k2t = train(spec, always_on(4, FaultTarget::weights), {}, c);
  CHECK(k2t.metrics.get("corrected") > 0.0);
  CHECK(k2t.metrics.get("detected") == 0.0);
  CHECK(k2t.metrics.get("time_compute_s") < all.metrics.get("time_compute_s"));
  CHECK(max_difference(k2t.parameters, reference(spec, 10, 3)) < 1e-9);
}

TEST_CASE("a crashed node is an erasure and is regenerated after its repair") {
  TrainingSpec spec = training("gpd", 40);
  sim::ClusterSpec c = cluster();
  // One iteration takes about 15 microseconds here; node 3 fails often and stays down a while.
  c.crashes[3] = sim::exponential_crashes(1e-4, 5e-5);
  const TrainingResult r = train(spec, no_faults(), {}, c);
  CHECK(r.metrics.get("completed") == 1.0);
  CHECK(r.metrics.get("crashes") > 0.0);
  CHECK(r.metrics.get("regenerations") > 0.0);
  CHECK(r.metrics.get("rollbacks") == 0.0);
  CHECK(max_difference(r.parameters, reference(spec, 40, 3)) < 1e-9);
}

TEST_CASE("without redundancy a crash rolls back and the run waits for the repair") {
  TrainingSpec spec = training("uncoded", 40);
  sim::ClusterSpec c = cluster();
  c.crashes[1] = sim::exponential_crashes(4e-4, 2e-4);
  const TrainingResult r = train(spec, no_faults(), every(5), c);
  CHECK(r.metrics.get("completed") == 1.0);
  CHECK(r.metrics.get("crashes") > 0.0);
  CHECK(r.metrics.get("rollbacks") > 0.0);
  CHECK(r.metrics.get("time_restart_s") > 0.0);
  CHECK(r.metrics.get("time_lost_s") > 0.0);
  CHECK(max_difference(r.parameters, reference(spec, 40, 3)) < 1e-12);
  CHECK(breakdown_s(r.metrics) == doctest::Approx(r.metrics.get("completion_time_s")));
}

TEST_CASE("training specs are validated") {
  TrainingSpec spec = training("codenet_grid", 5);
  CHECK(validate_training(spec, 16, 8, 4).empty());
  CHECK(validate_training(spec, 11, 8, 4).find("needs 12 nodes") != std::string::npos);
  CHECK(validate_training(spec, 16, 9, 4).find("features") != std::string::npos);
  spec.wait_errors = -1;
  CHECK(validate_training(spec, 16, 8, 4).find("wait_errors") != std::string::npos);
  spec = training("codenet_grid", 5);
  spec.mlp.layer_sizes = {8, 13, 4};
  CHECK(validate_training(spec, 16, 8, 4).find("layer 0") != std::string::npos);
}

TEST_CASE("a spec is checked once into a ValidTraining that keeps what it was checked against") {
  const TrainingSpec spec = training("codenet_grid", 5);
  const auto valid = check_training(spec, {16, 8, 4});
  REQUIRE(std::holds_alternative<ValidTraining>(valid));
  const ValidTraining& training = std::get<ValidTraining>(valid);
  CHECK(training.fit() == TrainingFit{16, 8, 4});
  CHECK(training.spec().iterations == spec.iterations);
  CHECK_FALSE(training.stochastic_checked());
  const auto too_few_nodes = check_training(spec, {11, 8, 4});
  REQUIRE(std::holds_alternative<std::string>(too_few_nodes));
  CHECK(std::get<std::string>(too_few_nodes) == validate_training(spec, 11, 8, 4));
}

TEST_CASE("under every vector arithmetic training is deterministic and still corrects errors") {
  for (const Arithmetic arithmetic : available_arithmetics()) {
    if (arithmetic == Arithmetic::portable) continue;
    CAPTURE(arithmetic_name(arithmetic));
    for (const char* kind : {"uncoded", "replication3", "mds", "gpd", "codenet_grid"}) {
      CAPTURE(kind);
      TrainingSpec spec = training(kind, 30, 3);
      spec.arithmetic = arithmetic;
      const TrainingResult r = train(spec, no_faults());
      CHECK(max_difference(r.parameters, reference(spec, 30, 3)) < 1e-10);
      const TrainingResult again = train(spec, no_faults());
      CHECK(max_difference(r.parameters, again.parameters) == 0.0);
    }
    TrainingSpec spec = training("codenet_grid", 8);
    spec.arithmetic = arithmetic;
    FaultInjector injector(single_fault(spec, {}, 5, "update", 1, 3, 2.0));
    const TrainingResult r = train(spec, injector);
    CHECK(r.metrics.get("corrected") == 1.0);
    CHECK(r.metrics.get("rollbacks") == 0.0);
    CHECK(max_difference(r.parameters, train(spec, no_faults()).parameters) < 1e-9);
  }
}

TEST_CASE("the last accuracy is that of the returned weights, even struck at the last update") {
  // A large shift on a weight block at the last of 6 updates: no decode meets it before the end,
  // so only the read-out's repairs (a verification pass) correct it; the last evaluation follows
  // them and sees the weights the run returns.
  for (const char* kind : {"gpd", "codenet_grid", "replication3"}) {
    CAPTURE(kind);
    TrainingSpec spec = training(kind, 6);
    FaultInjector injector(single_fault(spec, {}, 1, "update", 0, 5, 1e3));
    const TrainingResult r = train(spec, injector);
    REQUIRE(r.faults.records.size() == 1);
    CHECK(r.metrics.get("silent_corruptions") == 0.0);
    CHECK(r.metrics.get("final_test_accuracy") == accuracy(r.parameters, spec.mlp.hidden_activation,
                                                           data().test.images, data().test.labels));
    CHECK(max_difference(r.parameters, train(spec, no_faults()).parameters) < 1e-9);
  }
}

TEST_CASE("each run uses its own arithmetic: a portable run is unchanged by an avx2_fma run") {
  const TrainingSpec portable = training("codenet_grid", 20, 3);
  const TrainingResult before = train(portable, no_faults());
  if (arithmetic_available(Arithmetic::avx2_fma)) {
    TrainingSpec fast = portable;
    fast.arithmetic = Arithmetic::avx2_fma;
    const TrainingResult other = train(fast, no_faults());
    CHECK(max_difference(other.parameters, before.parameters) > 0.0);  // other last bits
  }
  CHECK(max_difference(train(portable, no_faults()).parameters, before.parameters) == 0.0);
}

TEST_CASE("a run stopped by its time limit during a huge evaluation keeps only the elapsed part") {
  // eval_cost_s 1e308: the first evaluation after iteration 2 would end long after the limit.
  TrainingSpec spec = training("codenet_grid", 6);
  spec.eval_every = 2;
  spec.eval_cost_s = 1e308;
  spec.time_limit_s = 1.0;
  const TrainingResult r = train(spec, no_faults());
  CHECK(r.metrics.get("completed") == 0.0);
  CHECK(r.metrics.get("iterations") == 2.0);
  CHECK(r.metrics.get("completion_time_s") == 1.0);
  CHECK(r.metrics.get("time_eval_s") > 0.9);
  CHECK(r.metrics.get("time_eval_s") < 1.0);
  CHECK(breakdown_s(r.metrics) == doctest::Approx(1.0).epsilon(1e-12));
}

TEST_CASE("a run stopped by its time limit at any step has a breakdown that adds up to it") {
  // Checkpoints with verification passes, a rollback (replication detects the strike) and
  // evaluations: limits spread over the run stop it in every kind of step.
  TrainingSpec spec = training("replication", 6);
  spec.eval_every = 1;
  spec.eval_cost_s = 1e-4;
  sim::CheckpointSpec checkpoint = every(2);
  checkpoint.write_s = 2e-4;
  checkpoint.restart_s = 3e-4;
  FaultConfig faults = no_faults();
  faults[FaultTarget::weights].rate.probability_per_operation = 0.01;
  const sim::MetricSet full = train(spec, faults, checkpoint).metrics;
  REQUIRE(full.get("rollbacks") >= 1.0);
  REQUIRE(full.get("checkpoints") >= 1.0);
  const double full_s = full.get("completion_time_s");
  for (int k = 1; k < 200; ++k) {
    spec.time_limit_s = full_s * k / 200.0;
    CAPTURE(spec.time_limit_s);
    const TrainingResult r = train(spec, faults, checkpoint);
    CHECK(r.metrics.get("completed") == 0.0);
    CHECK(r.metrics.get("completion_time_s") == spec.time_limit_s);
    CHECK(breakdown_s(r.metrics) == doctest::Approx(spec.time_limit_s).epsilon(1e-12));
  }
}
