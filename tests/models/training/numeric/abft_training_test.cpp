// ABFT strategies in training: abft corrects at the nodes and rolls back what it cannot; the
// abft_codenet hybrid corrects at the nodes and decodes around what they withhold.
#include <doctest/doctest.h>

#include "tests/models/training/coded_training_test_support.hpp"

using namespace codesim;
using namespace codesim::models;
using namespace codesim::models::testing;

TEST_CASE("abft corrects a wrong product entry at its node and a corrupted weight in place") {
  ValueModelSpec one_entry = value_model_defaults(ValueModelKind::sparse_additive);
  one_entry.entries = 1;
  for (const FaultTarget target : {FaultTarget::product, FaultTarget::weights}) {
    CAPTURE(to_string(target));
    TrainingSpec spec = training("abft", 12, 2);
    spec.audit = true;
    const TrainingResult r = train(spec, always_on(1, target, one_entry), every(5));
    CHECK(r.metrics.get("faults_injected") > 12.0);
    CHECK(r.metrics.get("corrected") > 0.0);
    // A strike at every opportunity sometimes puts two errors in one column and row of a block
    // between two checks: detected and rolled back, rarely.
    CHECK(r.metrics.get("detected") <= 0.1 * r.metrics.get("corrected"));
    CHECK(r.metrics.get("rollbacks") <= r.metrics.get("detected"));
    CHECK(r.metrics.get("regenerations") == 0.0);  // repaired at the node, not from others
    CHECK(r.metrics.get("silent_corruptions") == 0.0);
    CHECK(max_difference(r.parameters, reference(spec, 12, 3)) < 1e-9);
  }
}

TEST_CASE("abft detects what it cannot correct and rolls back instead of going on silently") {
  ValueModelSpec two_entries = value_model_defaults(ValueModelKind::sparse_additive);
  two_entries.entries = 6;  // every entry of a 6-row partial at batch 1: a column with several
  TrainingSpec spec = training("abft", 6);
  spec.audit = true;
  FaultConfig faults = always_on(2, FaultTarget::product, two_entries);
  faults.overrides.front().rate.probability_per_operation = 0.3;
  const TrainingResult r = train(spec, faults, every(2));
  CHECK(r.metrics.get("detected") > 0.0);
  CHECK(r.metrics.get("rollbacks") > 0.0);
  CHECK(r.metrics.get("silent_corruptions") == 0.0);
  CHECK(max_difference(r.parameters, reference(spec, 6, 3)) < 1e-9);
}

TEST_CASE("the hybrid decodes around a product its node cannot correct, with no rollback") {
  ValueModelSpec many_entries = value_model_defaults(ValueModelKind::sparse_additive);
  many_entries.entries = 6;  // as above: abft rolls back on these
  TrainingSpec spec = training("abft_codenet", 6);
  spec.audit = true;
  FaultConfig faults = always_on(2, FaultTarget::product, many_entries);
  faults.overrides.front().rate.probability_per_operation = 0.3;
  const TrainingResult r = train(spec, faults, every(2));
  CHECK(r.metrics.get("faults_injected") > 0.0);
  CHECK(r.metrics.get("rollbacks") == 0.0);
  CHECK(r.metrics.get("silent_corruptions") == 0.0);
  CHECK(max_difference(r.parameters, reference(spec, 6, 3)) < 1e-9);
}

TEST_CASE("the hybrid regenerates a block its node cannot repair instead of rolling back") {
  // Every entry of node 5's blocks struck before each product: beyond the checksums, so the
  // node withholds its partial and marks its block stale; the grid regenerates it.
  ValueModelSpec dense = value_model_defaults(ValueModelKind::sparse_additive);
  dense.density = 1.0;
  TrainingSpec spec = training("abft_codenet", 6);
  spec.audit = true;
  FaultConfig faults = always_on(5, FaultTarget::weights, dense);
  faults.overrides.front().rate.probability_per_operation = 0.2;
  const TrainingResult r = train(spec, faults, every(3));
  CHECK(r.metrics.get("faults_injected") > 0.0);
  CHECK(r.metrics.get("regenerations") > 0.0);
  CHECK(r.metrics.get("rollbacks") == 0.0);
  CHECK(r.metrics.get("silent_corruptions") == 0.0);
  CHECK(max_difference(r.parameters, reference(spec, 6, 3)) < 1e-9);
  // abft, the same strikes on its node 1: nothing can regenerate the block, so it rolls back.
  TrainingSpec alone = training("abft", 6);
  FaultConfig on_abft = always_on(1, FaultTarget::weights, dense);
  on_abft.overrides.front().rate.probability_per_operation = 0.2;
  const TrainingResult a = train(alone, on_abft, every(3));
  CHECK(a.metrics.get("rollbacks") > 0.0);
}

TEST_CASE("a node that checks and repairs its block delays its partial by the check's time") {
  ValueModelSpec one_entry = value_model_defaults(ValueModelKind::sparse_additive);
  one_entry.entries = 1;
  const TrainingSpec spec = training("abft", 1);
  const TrainingResult clean = train(spec, no_faults());
  const TrainingResult repaired = train(spec, always_on(1, FaultTarget::weights, one_entry));
  REQUIRE(repaired.metrics.get("corrected") > 0.0);
  // Every training read repairs at the node; only the read-out's all-ones products, which
  // cannot place a struck checksum entry, detect (V_1 < 1) and roll back.
  CHECK(repaired.metrics.get("rollbacks") == repaired.metrics.get("detected"));
  // Node 1's forward block is 6 x 4 plus 3 checksum lines: a check is 24 flops per stored entry
  // (9 x 7) at 1e9 flop/s, and a recomputation after the repair; the round waits for it.
  const double check_s = 24.0 * 9 * 7 / 1e9;
  CHECK(repaired.metrics.get("time_compute_s") >= clean.metrics.get("time_compute_s") + check_s);
  CHECK(max_difference(repaired.parameters, clean.parameters) < 1e-12);
}
