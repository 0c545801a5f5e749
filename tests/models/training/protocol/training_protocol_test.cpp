// The protocol rules both training modes share: wait rules, codewords, the start condition of an
// iteration and the progress, checkpoint and rollback bookkeeping.
#include "models/training/protocol/training_protocol.hpp"
#include "sim/enum_names.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "models/training/protocol/round_costs.hpp"

using namespace codesim;
using namespace codesim::models;

namespace {

// A round of `symbols` single-member symbols (member i is node i) that needs K = `threshold`.
RoundShape single_member_round(int symbols, int threshold) {
  RoundShape shape;
  for (int s = 0; s < symbols; ++s) {
    shape.participants.push_back(s);
    shape.members.push_back({s});
    shape.node_symbols.push_back({s});
  }
  shape.threshold = threshold;
  return shape;
}

// The forward round of a real scheme of `spec` on an 8 x 8 W.
RoundShape forward_round(const SchemeSpec& spec) {
  const std::unique_ptr<CodingScheme> scheme = make_scheme(spec, 8, 8);
  scheme->encode(Matrix::Zero(8, 8));
  return layer_shape(spec, *scheme, 8, 8, 8, 8).dir[0];
}

std::vector<char> flags(int count, std::initializer_list<int> set) {
  std::vector<char> f(static_cast<std::size_t>(count), 0);
  for (int i : set) f[static_cast<std::size_t>(i)] = 1;
  return f;
}

sim::CheckpointSpec every_iterations(int n) {
  sim::CheckpointSpec c;
  c.policy = sim::CheckpointKind::every_iterations;
  c.every_iterations = n;
  return c;
}

TrainingSpec waiting(WaitRule rule, int errors) {
  TrainingSpec spec;
  spec.wait_for = rule;
  spec.wait_errors = errors;
  return spec;
}

}  // namespace

TEST_CASE("the three wait rule names parse and nothing else does") {
  CHECK(sim::parse_name<WaitRule>("all", kWaitRuleNames) == WaitRule::all);
  CHECK(sim::parse_name<WaitRule>("k", kWaitRuleNames) == WaitRule::k);
  CHECK(sim::parse_name<WaitRule>("k_plus_2t", kWaitRuleNames) == WaitRule::k_plus_2t);
  CHECK_FALSE(sim::parse_name<WaitRule>("K", kWaitRuleNames).has_value());
  CHECK_FALSE(sim::parse_name<WaitRule>("", kWaitRuleNames).has_value());
  CHECK_FALSE(sim::parse_name<WaitRule>("k_plus_t", kWaitRuleNames).has_value());
}

TEST_CASE("the wait policy of a spec carries its wait_errors") {
  const WaitPolicy wait = wait_policy(waiting(WaitRule::k_plus_2t, 3));
  CHECK(wait.rule == WaitRule::k_plus_2t);
  CHECK(wait.extra_symbols() == 6);
  CHECK(wait.stops_early());
  CHECK(wait_policy(waiting(WaitRule::k, 3)).extra_symbols() == 0);
  CHECK_FALSE(wait_policy(waiting(WaitRule::all, 3)).stops_early());
}

TEST_CASE("uncoded and replication are the repetition schemes") {
  CHECK(repetition_copies(uncoded_spec(2, 2)) == 1);
  CHECK(repetition_copies(replication_spec(2, 2, 3)) == 3);
  CHECK(repetition_copies(mds_spec(2, 5)) == 0);
  CHECK(repetition_copies(gpd_spec(2, 2, 8)) == 0);
  CHECK(repetition_copies(codenet_grid_spec(2, 2, 4, 4)) == 0);
}

TEST_CASE("k_plus_2t waits for 2t symbols beyond K") {
  const RoundCodewords layout = round_codewords(mds_spec(4, 10), single_member_round(10, 4));
  REQUIRE(layout.codewords == 1);
  CHECK(layout.decode_need == 4);
  CHECK(layout.wait_need({WaitRule::k, 2}) == 4);
  CHECK(layout.wait_need({WaitRule::k_plus_2t, 2}) == 8);
  CHECK(layout.wait_need({WaitRule::k_plus_2t, 0}) == 4);
  CHECK(layout.wait_need({WaitRule::k_plus_2t, 4}) == 10);  // at most every symbol
  CHECK(layout.wait_need({WaitRule::all, 0}) == 10);
  const WaitPolicy wait{WaitRule::k_plus_2t, 1};
  CHECK_FALSE(enough_symbols(layout, flags(10, {0, 2, 4, 6, 8}), wait));
  CHECK(enough_symbols(layout, flags(10, {0, 2, 4, 6, 8, 9}), wait));
}

TEST_CASE("any K symbols of a coded round are enough under k") {
  const RoundCodewords layout = round_codewords(mds_spec(4, 10), single_member_round(10, 4));
  const WaitPolicy wait{WaitRule::k, 1};
  CHECK(enough_symbols(layout, flags(10, {6, 7, 8, 9}), wait));
  CHECK(enough_symbols(layout, flags(10, {0, 3, 5, 9}), wait));
  CHECK_FALSE(enough_symbols(layout, flags(10, {0, 3, 5}), wait));
}

TEST_CASE("a round under all waits for every symbol") {
  const RoundCodewords layout = round_codewords(mds_spec(4, 10), single_member_round(10, 4));
  const WaitPolicy wait{WaitRule::all, 1};
  CHECK_FALSE(enough_symbols(layout, flags(10, {0, 1, 2, 3, 4, 5, 6, 7, 8}), wait));
  CHECK(enough_symbols(layout, flags(10, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9}), wait));
}

TEST_CASE("a repetition round needs a copy of every block, not just K symbols") {
  const SchemeSpec spec = replication_spec(2, 2, 3);
  const RoundShape shape = forward_round(spec);
  const RoundCodewords layout = round_codewords(spec, shape);
  REQUIRE(layout.codewords == shape.threshold);
  REQUIRE(layout.symbols == 3 * layout.codewords);
  CHECK(layout.decode_need == 1);
  const int K = layout.codewords;
  for (int s = 0; s < layout.symbols; ++s) CHECK(layout.codeword_of(s) == s % K);
  const WaitPolicy k{WaitRule::k, 1};
  // The first copy of every block: decodable.
  std::vector<char> first_copy(static_cast<std::size_t>(layout.symbols), 0);
  for (int b = 0; b < K; ++b) first_copy[static_cast<std::size_t>(b)] = 1;
  CHECK(enough_symbols(layout, first_copy, k));
  // Every copy of all blocks but block 0: many symbols, but block 0 is missing.
  std::vector<char> no_block_0(static_cast<std::size_t>(layout.symbols), 1);
  for (int c = 0; c < 3; ++c) no_block_0[static_cast<std::size_t>(c * K)] = 0;
  CHECK_FALSE(enough_symbols(layout, no_block_0, k));
  // k_plus_2t with t = 1 waits for 1 + 2 = 3 copies of every block (all of them here).
  CHECK_FALSE(enough_symbols(layout, first_copy, {WaitRule::k_plus_2t, 1}));
  CHECK(layout.wait_need({WaitRule::k_plus_2t, 1}) == 3);
  CHECK(layout.wait_need({WaitRule::k_plus_2t, 5}) == 3);
}

TEST_CASE("a tally counts present symbols per codeword and decodes with K of each") {
  const SchemeSpec spec = replication_spec(2, 2, 3);
  const RoundCodewords layout = round_codewords(spec, forward_round(spec));
  const int K = layout.codewords;
  CodewordTally tally;
  tally.reset(layout, {WaitRule::k_plus_2t, 0});
  CHECK_FALSE(tally.decodable());
  for (int b = 0; b + 1 < K; ++b) tally.add(b);
  CHECK_FALSE(tally.enough());
  tally.add(K - 1 + 2 * K);  // block K - 1's third copy
  CHECK(tally.enough());
  CHECK(tally.decodable());
  CHECK(tally.present_total() == K);
  CHECK(tally.present(K - 1) == 1);
  tally.reset(layout, {WaitRule::k, 0});
  CHECK(tally.present_total() == 0);
  CHECK_FALSE(tally.enough());
}

TEST_CASE("an iteration can start when every needed round decodes from the usable nodes") {
  // Layer 0 forward needs node 0 or 1, layer 0 backward node 2 (never needed), layer 1 forward
  // node 3 and layer 1 backward node 4.
  LayerShape layer0;
  layer0.dir[0] = single_member_round(2, 1);
  layer0.dir[1].members = {{2}};
  layer0.dir[1].threshold = 1;
  LayerShape layer1;
  layer1.dir[0].members = {{3}};
  layer1.dir[0].threshold = 1;
  layer1.dir[1].members = {{4}};
  layer1.dir[1].threshold = 1;
  const SchemeSpec coded = mds_spec(1, 2);
  std::vector<LayerShape> shapes{layer0, layer1};
  std::vector<std::array<RoundCodewords, 2>> codewords;
  for (const LayerShape& s : shapes)
    codewords.push_back({round_codewords(coded, s.dir[0]), round_codewords(coded, s.dir[1])});
  const auto without = [](int down) { return [down](int p) { return p != down; }; };
  CHECK(iteration_decodable(shapes, codewords, without(2)));  // layer 0's backward is not run
  CHECK(iteration_decodable(shapes, codewords, without(0)));  // node 1 serves layer 0 forward
  CHECK_FALSE(iteration_decodable(shapes, codewords, without(3)));
  CHECK_FALSE(iteration_decodable(shapes, codewords, without(4)));
  CHECK(iteration_decodable(std::span(shapes).first(1), std::span(codewords).first(1), without(4)));
}

TEST_CASE("a rollback returns to the last checkpoint and loses the work since it") {
  TrainingProgress progress(10, 20);
  for (int i = 0; i < 3; ++i) progress.iteration_done(1.0);
  progress.time.pending.compute_s += 3.0;
  progress.checkpoint_written(0.5);
  CHECK(progress.counts.checkpoints == 1);
  CHECK(progress.time.committed.checkpoint_s == 0.5);
  CHECK(progress.time.committed.compute_s == 3.0);
  progress.iteration_done(1.0);
  progress.iteration_done(1.0);
  progress.time.pending.compute_s += 2.0;
  CHECK(progress.done() == 5);
  progress.roll_back(true);
  CHECK(progress.done() == 3);
  CHECK(progress.executed() == 5);
  CHECK(progress.counts.rollbacks == 1);
  CHECK(progress.time.lost_s == 2.0);
  CHECK(progress.time.committed.compute_s == 3.0);
  CHECK(progress.time.pending.compute_s == 0.0);
}

TEST_CASE("a rollback before any checkpoint returns to iteration 0") {
  TrainingProgress progress(10, 20);
  progress.iteration_done(1.0);
  progress.iteration_done(1.0);
  progress.roll_back(true);
  CHECK(progress.done() == 0);
  CHECK(progress.executed() == 2);
}

TEST_CASE("a checkpoint is due by the iterations since the last checkpoint or rollback") {
  const sim::CheckpointPolicy policy(every_iterations(2), 0.0);
  TrainingProgress progress(10, 20);
  progress.iteration_done(1.0);
  CHECK_FALSE(progress.checkpoint_due(policy));
  progress.iteration_done(1.0);
  CHECK(progress.checkpoint_due(policy));
  progress.checkpoint_written(0.0);
  CHECK_FALSE(progress.checkpoint_due(policy));
  progress.iteration_done(1.0);
  progress.roll_back(true);
  progress.iteration_done(1.0);
  CHECK_FALSE(progress.checkpoint_due(policy));
}

TEST_CASE("an unfinished run reports the given end time and a completed one its own") {
  TrainingProgress progress(2, 20);
  progress.iteration_done(1.0);
  CHECK_FALSE(progress.all_done());
  sim::MetricSet unfinished;
  progress.add_to(unfinished, 42.0);
  CHECK(unfinished.get("completed") == 0.0);
  CHECK(unfinished.get("completion_time_s") == 42.0);
  CHECK(unfinished.get("iterations") == 1.0);
  progress.iteration_done(1.0);
  CHECK(progress.all_done());
  progress.complete(7.0);
  sim::MetricSet finished;
  progress.add_to(finished, 42.0);
  CHECK(finished.get("completed") == 1.0);
  CHECK(finished.get("completion_time_s") == 7.0);
  CHECK(finished.get("iterations_executed") == 2.0);
}

TEST_CASE(
    "rollbacks that repeat without any fault fall back to the previous checkpoint, then "
    "the initial state, then stop the run with a reason") {
  TrainingProgress progress(100, 1000);
  for (int checkpoint = 1; checkpoint <= 3; ++checkpoint) {
    for (int i = 0; i < 2; ++i) progress.iteration_done(1.0);
    progress.checkpoint_written(0.0);  // at iterations 2, 4 and 6
  }
  // Each attempt from iteration 6 fails before one iteration, with no fault or crash: the
  // third such attempt gives the checkpoint up.
  CHECK(progress.roll_back(false) == RollbackTarget::last_checkpoint);
  CHECK(progress.roll_back(true) == RollbackTarget::last_checkpoint);  // a random failure
  CHECK(progress.roll_back(false) == RollbackTarget::last_checkpoint);
  CHECK(progress.roll_back(false) == RollbackTarget::previous_checkpoint);
  CHECK(progress.done() == 4);
  CHECK(progress.counts.checkpoint_fallbacks == 1);
  for (int i = 0; i < 2; ++i) CHECK(progress.roll_back(false) == RollbackTarget::last_checkpoint);
  CHECK(progress.roll_back(false) == RollbackTarget::initial_state);
  CHECK(progress.done() == 0);
  for (int i = 0; i < 2; ++i) CHECK(progress.roll_back(false) == RollbackTarget::last_checkpoint);
  CHECK(progress.stop_reason().empty());
  CHECK(progress.roll_back(false) == RollbackTarget::stop);
  CHECK(progress.stop_reason().find("no progress from the initial state") == 0);
  CHECK(progress.stop_reason().find("without any fault or crash") != std::string::npos);
  sim::MetricSet metrics;
  progress.add_to(metrics, 9.0);
  CHECK(metrics.get("completed") == 0.0);
  REQUIRE(metrics.notes().size() == 1);
  CHECK(metrics.notes()[0].first == "stop_reason");
}

TEST_CASE(
    "max_stalled_rollbacks failed attempts in a row give a checkpoint up whatever failed "
    "them") {
  TrainingProgress progress(100, 3);
  progress.iteration_done(1.0);
  progress.checkpoint_written(0.0);
  CHECK(progress.roll_back(true) == RollbackTarget::last_checkpoint);
  CHECK(progress.roll_back(true) == RollbackTarget::last_checkpoint);
  CHECK(progress.roll_back(true) == RollbackTarget::initial_state);
  CHECK(progress.counts.checkpoint_fallbacks == 1);
  for (int i = 0; i < 2; ++i) CHECK(progress.roll_back(true) == RollbackTarget::last_checkpoint);
  CHECK(progress.roll_back(true) == RollbackTarget::stop);
  CHECK(progress.stop_reason().find("3 rollbacks in a row") != std::string::npos);
}

TEST_CASE("attempts that get further each time, or a new checkpoint, keep the watchdog quiet") {
  TrainingProgress progress(100, 2);
  for (int attempt = 1; attempt <= 10; ++attempt) {
    for (int i = 0; i < attempt; ++i) progress.iteration_done(1.0);
    CHECK(progress.roll_back(false) == RollbackTarget::last_checkpoint);
  }
  progress.iteration_done(1.0);
  progress.checkpoint_written(0.0);
  CHECK(progress.roll_back(true) == RollbackTarget::last_checkpoint);
  progress.iteration_done(1.0);
  progress.checkpoint_written(0.0);  // a new checkpoint restarts the count
  CHECK(progress.roll_back(true) == RollbackTarget::last_checkpoint);
  CHECK(progress.counts.checkpoint_fallbacks == 0);
}

TEST_CASE("the verification pass re-checks a layer after regenerating what a decode blamed") {
  // Layer 1's forward decode corrects once; after its regeneration it must decode clean.
  std::vector<std::pair<int, int>> decoded;
  int regenerated = 0;
  auto decode_with = [&](int corrected_times) {
    return [&decoded, corrected_times](int l, int d) {
      decoded.emplace_back(l, d);
      const auto earlier = std::count(decoded.begin(), decoded.end(), std::pair{1, 0});
      return l == 1 && d == 0 && earlier <= corrected_times ? DecodeStatus::corrected
                                                            : DecodeStatus::clean;
    };
  };
  auto regenerate = [&](int, int) { return ++regenerated, true; };
  ProtocolCounters counts;
  CHECK(verification_passes(2, decode_with(1), regenerate, counts));
  CHECK(regenerated == 1);
  CHECK(counts.corrected == 1);
  // Layer 0 once, layer 1 twice (the second pass clean).
  CHECK(decoded ==
        std::vector<std::pair<int, int>>{{0, 0}, {0, 1}, {1, 0}, {1, 1}, {1, 0}, {1, 1}});

  // Still corrected after the regeneration: the pass fails rather than checkpoint that state.
  decoded.clear();
  regenerated = 0;
  CHECK_FALSE(verification_passes(2, decode_with(2), regenerate, counts));
  CHECK(regenerated == 1);
  // A detected error, or a regeneration that cannot be done, fails it at once.
  CHECK_FALSE(verification_passes(
      2, [](int, int) { return DecodeStatus::detected; }, regenerate, counts));
  CHECK_FALSE(verification_passes(
      2, [](int, int) { return DecodeStatus::corrected; }, [](int, int) { return false; }, counts));
}

TEST_CASE("a link wait that rounds below zero is reported as zero, a positive one as it is") {
  // The rounds' waits are differences of two makespans: a run without sharing totalled
  // -5.4e-19 s (codenet_mnist_paper) and reported it.
  TimeBreakdown time;
  time.report_link_wait = true;
  time.link_wait_s = -5.421010862427522e-19;
  codesim::sim::MetricSet metrics;
  time.add_to(metrics);
  CHECK(metrics.get("time_link_wait_s") == 0.0);
  time.link_wait_s = 3e-7;
  codesim::sim::MetricSet positive;
  time.add_to(positive);
  CHECK(positive.get("time_link_wait_s") == 3e-7);
}
