// ABFT in the training theory: q(s) against an exhaustive run of the real check_block over every
// set of struck entries, single-entry and dense strikes, Monte Carlo of the real value model on
// random blocks, and a replay of train_coded's protocol on real blocks against the rollback
// probabilities.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <utility>
#include <vector>

#include "models/coding/abft_checksums.hpp"
#include "models/coding/coding_scheme.hpp"
#include "models/faults/value_model.hpp"
#include "models/theory/abft_correction.hpp"
#include "models/theory/training_theory.hpp"
#include "sim/random_stream.hpp"
#include "tests/models/theory/binomial_interval.hpp"
#include "tests/models/theory/protocol_replay.hpp"

namespace {

namespace abft = codesim::models::abft;
using codesim::models::AbftBlockShape;
using codesim::models::AbftCorrection;
using codesim::models::AbftStrikeModel;
using codesim::models::ValueModelKind;
using codesim::models::ValueModelSpec;
using codesim::sim::RandomStream;

// A random block of W (entries U(-1, 1), as trained weights) with its checksums.
abft::Matrix random_block(AbftBlockShape shape, RandomStream& stream) {
  abft::Matrix w(shape.rows, shape.cols);
  for (Eigen::Index i = 0; i < w.size(); ++i) w.data()[i] = stream.uniform(-1.0, 1.0);
  return abft::augment(w);
}

// check_block as the scheme's repair_block calls it (round-off scale of a fresh block).
bool not_detected(abft::Matrix& block, AbftBlockShape shape) {
  abft::CheckOptions options;
  options.inner_dimension = std::max(shape.rows, shape.cols) + 1;
  return abft::check_block(block, shape.rows, shape.cols, options).verdict !=
         abft::Verdict::detected;
}

// The verification pass at one node: its all-ones products checked (forward, then backward when
// forward is clean) before any repair; a product check that corrected makes the node repair its
// block. False: a product or the block withheld.
bool passes_verification(abft::Matrix& block, AbftBlockShape shape) {
  abft::CheckOptions options;
  options.inner_dimension = std::max(shape.rows, shape.cols) + 1;
  abft::Matrix forward = block.leftCols(shape.cols).rowwise().sum();
  abft::Matrix backward = block.topRows(shape.rows).colwise().sum().transpose();
  const abft::Verdict f = abft::check_columns(forward, shape.rows, options).verdict;
  const abft::Verdict b = f == abft::Verdict::clean
                              ? abft::check_columns(backward, shape.cols, options).verdict
                              : abft::Verdict::clean;
  if (f == abft::Verdict::detected || b == abft::Verdict::detected) return false;
  if (f == abft::Verdict::clean && b == abft::Verdict::clean) return true;
  return not_detected(block, shape);
}

// Fraction of the s-subsets of the stored entries that `passes` lets through, each struck entry
// moved by a random amount of 1 to 5 either way; every subset in lexicographic order.
template <typename Passes>
double exhaustive_fraction(AbftBlockShape shape, int s, RandomStream& stream, Passes passes) {
  const abft::Matrix clean = random_block(shape, stream);
  const auto n = static_cast<int>(clean.size());
  std::vector<int> chosen(static_cast<std::size_t>(s));
  for (int i = 0; i < s; ++i) chosen[static_cast<std::size_t>(i)] = i;
  long corrected = 0;
  long total = 0;
  while (true) {
    abft::Matrix block = clean;
    for (int index : chosen) {
      const double size = stream.uniform(1.0, 5.0);
      block.data()[index] += stream.bernoulli(0.5) ? size : -size;
    }
    corrected += passes(block, shape) ? 1 : 0;
    ++total;
    int i = s - 1;
    while (i >= 0 && chosen[static_cast<std::size_t>(i)] == n - s + i) --i;
    if (i < 0) break;
    ++chosen[static_cast<std::size_t>(i)];
    for (int j = i + 1; j < s; ++j) {
      chosen[static_cast<std::size_t>(j)] = chosen[static_cast<std::size_t>(j) - 1] + 1;
    }
  }
  return static_cast<double>(corrected) / static_cast<double>(total);
}

using codesim::models::testing::Interval;
using codesim::models::testing::wilson;

// Blocks struck `strikes` times by the real value model, then checked: how many pass.
long struck_and_checked(AbftBlockShape shape, const ValueModelSpec& spec, int strikes, long trials,
                        std::uint64_t seed) {
  RandomStream blocks({seed, 0, "abft_theory_blocks", 0});
  RandomStream faults({seed, 0, "abft_theory_faults", 0});
  long passed = 0;
  for (long trial = 0; trial < trials; ++trial) {
    abft::Matrix block = random_block(shape, blocks);
    for (int j = 0; j < strikes; ++j) codesim::models::apply_value_model(spec, block, faults);
    passed += not_detected(block, shape) ? 1 : 0;
  }
  return passed;
}

ValueModelSpec one_entry(ValueModelKind kind) {
  ValueModelSpec spec = codesim::models::value_model_defaults(kind);
  spec.entries = 1;
  return spec;
}

ValueModelSpec sparse_additive(double density) {
  ValueModelSpec spec = codesim::models::value_model_defaults(ValueModelKind::sparse_additive);
  spec.density = density;
  return spec;
}

AbftCorrection correction(AbftBlockShape shape, const ValueModelSpec& spec, int max_strikes = 2) {
  return {shape, codesim::models::abft_strike_model(spec, shape), max_strikes};
}

}  // namespace

TEST_CASE("q(s) equals check_block's verdict over every set of s struck entries") {
  RandomStream stream({3, 0, "abft_exhaustive", 0});
  for (const AbftBlockShape shape : {AbftBlockShape{2, 3}, AbftBlockShape{3, 2}}) {
    const AbftCorrection c(shape, AbftStrikeModel{.entries = 5}, 1);
    REQUIRE(c.exact_entries() >= 5);
    for (int s = 0; s <= 5; ++s) {
      CAPTURE(shape.rows);
      CAPTURE(s);
      const double fraction = exhaustive_fraction(shape, s, stream, not_detected);
      CHECK(c.given_entries(s) == doctest::Approx(fraction).epsilon(1e-12));
    }
  }
}

TEST_CASE("V(s) equals the verification pass's product checks over every set of s entries") {
  RandomStream stream({4, 0, "abft_exhaustive", 0});
  for (const AbftBlockShape shape : {AbftBlockShape{2, 3}, AbftBlockShape{3, 2}}) {
    for (int s = 1; s <= 4; ++s) {
      CAPTURE(shape.rows);
      CAPTURE(s);
      const AbftCorrection c(shape, AbftStrikeModel{.entries = s}, 1);
      const double fraction = exhaustive_fraction(shape, s, stream, passes_verification);
      CHECK(c.at_verification(1) == doctest::Approx(fraction).epsilon(1e-12));
    }
  }
}

TEST_CASE("two struck entries fail only as two checksum-row entries of one column") {
  // q(2) = 1 - 3 C / binom(N, 2): the column pass fails on any two entries of one column, and
  // the row pass then puts right every pair but two in the same column's checksum rows.
  for (const AbftBlockShape shape : {AbftBlockShape{8, 5}, AbftBlockShape{400, 196}}) {
    const auto n = static_cast<double>(shape.stored_entries());
    const AbftCorrection c(shape, AbftStrikeModel{.entries = 2}, 1);
    CHECK(c.given_entries(2) == doctest::Approx(1.0 - 3.0 * shape.cols / (n * (n - 1) / 2)));
  }
}

TEST_CASE("one struck entry is always corrected, except a flipped top exponent bit") {
  for (const AbftBlockShape shape : {AbftBlockShape{4, 3}, AbftBlockShape{2000, 196}}) {
    for (const ValueModelKind kind : {ValueModelKind::sparse_additive, ValueModelKind::random_value,
                                      ValueModelKind::gaussian, ValueModelKind::stuck_at_zero}) {
      CHECK(correction(shape, one_entry(kind)).per_strike() == 1.0);
    }
    ValueModelSpec mantissa = one_entry(ValueModelKind::bitflip);
    mantissa.field = codesim::models::BitField::mantissa;
    CHECK(correction(shape, mantissa).per_strike() == 1.0);
    // Field any: bit 62 of 64 scales a weight by 2^1024, and bits 56 to 61 a checksum of
    // magnitude 2 to 2^16 by 2^16 or more: detected when they land in W or a checksum row (the
    // checksum columns and the corner are recomputed).
    const auto n = static_cast<double>(shape.stored_entries());
    const double beyond = (shape.rows * 1.0 + 3.0 * 6.0) / 64.0 * shape.cols / n;
    CHECK(correction(shape, one_entry(ValueModelKind::bitflip)).per_strike() ==
          doctest::Approx(1.0 - beyond));
    // Two single entries fail together only in one column's checksum rows (or hit one entry).
    const AbftCorrection two = correction(shape, one_entry(ValueModelKind::sparse_additive));
    const double q2 = 1.0 - 3.0 * shape.cols / (n * (n - 1) / 2);
    CHECK(two.given_strikes(2) == doctest::Approx(1.0 / n + (1.0 - 1.0 / n) * q2));
    CHECK(two.exact());
  }
}

TEST_CASE("dense strikes are corrected less often, down to never on the paper's blocks") {
  const AbftBlockShape shape{8, 5};
  const AbftCorrection c(shape, AbftStrikeModel{.entries = 30}, 1);
  for (int s = 1; s <= 30; ++s) CHECK(c.given_entries(s) <= c.given_entries(s - 1));
  CHECK(c.given_entries(30) < 1e-3);
  // The CodeNet experiment's 0.5% of a 2000 x 196 block (layer 0 of 784-10000-10000-10 on a
  // 5 x 4 grid) is 1993 entries: more than 196 columns hold, and no row pass sorts them.
  const AbftCorrection paper = correction({2000, 196}, sparse_additive(0.005), 3);
  CHECK(paper.model().entries == 1993);
  CHECK(!paper.exact());
  CHECK(paper.per_strike() < 1e-50);
  // Layer 1's 2000 x 2500 blocks: 25068 entries, more than any pattern check_block corrects.
  CHECK(correction({2000, 2500}, sparse_additive(0.005), 3).per_strike() == 0.0);
}

TEST_CASE("Monte Carlo of the real value model on random blocks agrees with q and Q_2") {
  struct Case {
    AbftBlockShape shape;
    ValueModelSpec spec;
    int strikes;
    long trials;
  };
  ValueModelSpec flip_any = one_entry(ValueModelKind::bitflip);
  const Case cases[] = {
      {{6, 5}, sparse_additive(0.06), 1, 20000},   // 4 entries of 72
      {{6, 5}, sparse_additive(0.06), 2, 20000},   // two strikes before a read combine
      {{12, 9}, sparse_additive(0.02), 1, 20000},  // 4 entries of 180
      {{4, 3}, one_entry(ValueModelKind::gaussian), 3, 20000},
      {{60, 60}, flip_any, 1, 4000},
      {{2000, 196}, sparse_additive(0.005), 1, 20},  // 1993 entries: never corrected
  };
  std::uint64_t seed = 20;
  for (const Case& test : cases) {
    const AbftCorrection c = correction(test.shape, test.spec, test.strikes);
    const double predicted = c.given_strikes(test.strikes);
    const long passed =
        struck_and_checked(test.shape, test.spec, test.strikes, test.trials, ++seed);
    const Interval interval = wilson(passed, test.trials);
    CAPTURE(test.shape.rows);
    CAPTURE(test.shape.cols);
    CAPTURE(test.strikes);
    CAPTURE(predicted);
    CAPTURE(passed);
    CHECK(predicted >= interval.low);
    CHECK(predicted <= interval.high);
  }
}

TEST_CASE("a struck partial is corrected at its node with abft_partial_correction's probability") {
  // The real value model on random partials (values and their checksums), then check_columns.
  struct Case {
    int length;
    int batch;
    ValueModelSpec spec;
  };
  ValueModelSpec two_entries = one_entry(ValueModelKind::gaussian);
  two_entries.entries = 2;
  const Case cases[] = {
      {6, 4, two_entries},             // 2 entries of 36: distinct columns 77%
      {10, 8, sparse_additive(0.03)},  // 3 entries of 104
      // One value of 203: all bits but the top exponent bit (and a few of a checksum's, whose
      // share the formula takes for the block's checksums: conservative on short partials).
      {200, 1, one_entry(ValueModelKind::bitflip)},
      {5, 1, two_entries},               // two entries of one column: never
      {20, 64, sparse_additive(0.005)},  // 7 entries of 1472
  };
  constexpr long kTrials = 20000;
  std::uint64_t seed = 40;
  for (const Case& test : cases) {
    RandomStream values({++seed, 0, "abft_partial_values", 0});
    RandomStream faults({seed, 0, "abft_partial_faults", 0});
    long passed = 0;
    for (long trial = 0; trial < kTrials; ++trial) {
      abft::Matrix y(test.length, test.batch);
      for (Eigen::Index i = 0; i < y.size(); ++i) y.data()[i] = values.uniform(-1.0, 1.0);
      abft::Matrix partial = abft::with_checksums(y);
      codesim::models::apply_value_model(test.spec, partial, faults);
      const abft::CheckResult result = abft::check_columns(partial, test.length);
      passed += result.verdict != abft::Verdict::detected ? 1 : 0;
    }
    const double predicted =
        codesim::models::abft_partial_correction(test.spec, test.length, test.batch);
    const Interval interval = wilson(passed, kTrials);
    CAPTURE(test.length);
    CAPTURE(test.batch);
    CAPTURE(predicted);
    CAPTURE(passed);
    CHECK(predicted >= interval.low);
    CHECK(predicted <= interval.high);
  }
}

namespace {

using codesim::models::testing::ReplayCounts;

// Replay of train_coded's weight-fault protocol for abft on an m x n grid of real blocks: per
// iteration, forward of layers 0..L-1 then backward of L-1..1 (no backward round in layer 0);
// before its product each node's block is struck with probability eps by the value model, and a
// block struck since its last check is checked (check_block) when read: detected withholds the
// partial, which fails the uncoded decode. After the update every block is struck once. A failure
// restores the checkpoint's clean blocks. After tau useful iterations the verification pass
// checks every block's all-ones products without strikes, as train_coded does.
ReplayCounts replay(int m, int n, const std::vector<int>& sizes, const ValueModelSpec& spec,
                    double eps, int tau, int iterations, std::uint64_t seed) {
  const int layers = static_cast<int>(sizes.size()) - 1;
  const int nodes = m * n;
  RandomStream stream({seed, 0, "abft_replay_strikes", 0});
  RandomStream values({seed, 0, "abft_replay_values", 0});
  std::vector<AbftBlockShape> shape;
  std::vector<std::vector<abft::Matrix>> clean(static_cast<std::size_t>(layers));
  for (int l = 0; l < layers; ++l) {
    const auto index = static_cast<std::size_t>(l);
    shape.push_back({sizes[index + 1] / m, sizes[index] / n});
    for (int p = 0; p < nodes; ++p) clean[index].push_back(random_block(shape.back(), values));
  }
  auto blocks = clean;
  std::vector<std::vector<char>> struck(static_cast<std::size_t>(layers),
                                        std::vector<char>(static_cast<std::size_t>(nodes), 0));
  const auto at = [](auto& table, int l, int p) -> auto& {
    return table[static_cast<std::size_t>(l)][static_cast<std::size_t>(p)];
  };
  const auto strike = [&](int l, int p) {
    if (!stream.bernoulli(eps)) return;
    codesim::models::apply_value_model(spec, at(blocks, l, p), values);
    at(struck, l, p) = 1;
  };
  int corrections = 0;
  // Every node reads its block (all compute even when one withholds); false: a withheld partial.
  const auto read_all = [&](int l) {
    bool ok = true;
    for (int p = 0; p < nodes; ++p) {
      if (!at(struck, l, p)) continue;
      at(struck, l, p) = 0;
      if (not_detected(at(blocks, l, p), shape[static_cast<std::size_t>(l)])) {
        ++corrections;
      } else {
        ok = false;
      }
      at(blocks, l, p) = at(clean, l, p);  // repaired (to round-off), or rolled back below
    }
    return ok;
  };
  const auto verify_all = [&](int l) {
    bool ok = true;
    for (int p = 0; p < nodes; ++p) {
      if (!at(struck, l, p)) continue;
      at(struck, l, p) = 0;
      ok = passes_verification(at(blocks, l, p), shape[static_cast<std::size_t>(l)]) && ok;
      at(blocks, l, p) = at(clean, l, p);
    }
    return ok;
  };
  const auto restore = [&] {
    blocks = clean;
    for (auto& layer : struck) std::fill(layer.begin(), layer.end(), 0);
  };
  codesim::models::testing::ReplayHooks hooks;
  hooks.strike = [&](int l, int) {
    for (int p = 0; p < nodes; ++p) strike(l, p);
  };
  hooks.read = [&](int l, int) { return read_all(l); };
  hooks.strike_update = [&](int l) {
    for (int p = 0; p < nodes; ++p) strike(l, p);
  };
  hooks.verify = verify_all;
  hooks.restore = restore;
  hooks.take_corrections = [&] { return std::exchange(corrections, 0); };
  return codesim::models::testing::replay_protocol(layers, tau, iterations, hooks);
}

using codesim::models::testing::check_within;

}  // namespace

TEST_CASE("a replay on real blocks agrees with abft's rollback and correction probabilities") {
  // Blocks 4 x 6, 3 x 4 and 2 x 3 with 6, 4 and 3 of their 63, 42 and 30 stored entries struck.
  const std::vector<int> sizes = {12, 8, 6, 4};
  const ValueModelSpec spec = sparse_additive(0.1);
  const double eps = 0.02;
  const int tau = 5;
  codesim::models::TrainingTheoryOptions options;
  options.weight_fault_model = spec;
  const codesim::models::TrainingTheory theory(codesim::models::abft_spec(2, 2), sizes, options);
  REQUIRE(theory.local_corrections().size() == 3);
  for (const AbftCorrection& layer : theory.local_corrections()) CHECK(layer.exact());
  const ReplayCounts counts = replay(2, 2, sizes, spec, eps, tau, 100000, 5);
  check_within(counts.steady_failures, counts.steady, theory.rollback_probability(eps));
  check_within(counts.first_failures, counts.first, theory.first_rollback_probability(eps));
  check_within(counts.verification_failures, counts.verifications,
               theory.verification_failure_probability(eps, tau));
  // Corrections per steady iteration: a mean of small counts, within 5 standard errors (the
  // count per iteration is at most 32; its variance is below its mean times 32).
  const double mean = counts.local_corrections / static_cast<double>(counts.steady);
  const double predicted = theory.expected_local_corrections(eps);
  CAPTURE(mean);
  CAPTURE(predicted);
  CHECK(std::abs(mean - predicted) <= 5.0 * std::sqrt(predicted * 32.0 / counts.steady));
  CHECK(theory.silent_corruption_probability(eps) == 0.0);
  CHECK(theory.rollback_probability(eps) > 0.05);
}

TEST_CASE("abft rolls back on every dense strike of the paper's blocks and on none of one entry") {
  const std::vector<int> paper = {784, 10000, 10000, 10};
  const double eps = 3e-4;
  const codesim::models::TrainingTheory dense(codesim::models::abft_spec(5, 4), paper);
  // Layers 0 and 1 never correct 0.5% of a block; layer 2's 2 x 2500 blocks correct 63 entries
  // with q = 0.785.
  CHECK(dense.local_corrections()[0].per_strike() < 1e-50);
  CHECK(dense.local_corrections()[1].per_strike() == 0.0);
  CHECK(dense.local_corrections()[2].per_strike() == doctest::Approx(0.785).epsilon(1e-3));
  CHECK(dense.silent_corruption_probability(eps) == 0.0);
  codesim::models::TrainingTheoryOptions single;
  single.weight_fault_model = one_entry(ValueModelKind::sparse_additive);
  const codesim::models::TrainingTheory sparse(codesim::models::abft_spec(5, 4), paper, single);
  // One entry per strike: only two strikes in one column's checksum rows between two reads fail.
  CHECK(sparse.rollback_probability(eps) < 1e-9);
  CHECK(sparse.expected_local_corrections(eps) ==
        doctest::Approx(sparse.expected_strikes(eps)).epsilon(1e-3));
  // Dense strikes: every strike of layers 0 and 1 rolls back (100 of the 160 opportunities per
  // iteration), and 21.5% of layer 2's 60.
  const auto& layers = dense.opportunities();
  const double rollback_strikes =
      (layers[0].total() + layers[1].total()) * eps + layers[2].total() * eps * (1.0 - 0.785);
  CHECK(dense.rollback_probability(eps) == doctest::Approx(rollback_strikes).epsilon(0.05));
}
