// Closed-form exposure of coded training: opportunities and exposures per scheme, probabilities
// against hand-computed forms and the every-layer counts of docs/reproduction.md, limits, eps
// scaling, and a Monte Carlo replay.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "models/coding/coding_scheme.hpp"
#include "models/theory/training_theory.hpp"
#include "sim/random_stream.hpp"
#include "tests/models/theory/binomial_interval.hpp"
#include "tests/models/theory/protocol_replay.hpp"

namespace {

using codesim::models::codenet_grid_spec;
using codesim::models::Direction;
using codesim::models::gpd_spec;
using codesim::models::mds_spec;
using codesim::models::replication_spec;
using codesim::models::SchemeSpec;
using codesim::models::TrainingTheory;
using codesim::models::TrainingTheoryOptions;
using codesim::models::uncoded_spec;

const std::vector<int> kPaperMlp = {784, 10000, 10000, 10};

TrainingTheoryOptions every_layer_backward_protocol() {
  TrainingTheoryOptions options;
  options.first_layer_backward = true;
  return options;
}

// Strikes per symbol of one decode, flattened over codewords.
std::vector<int> strikes(const codesim::models::DecodeExposure& decode) {
  std::vector<int> out;
  for (const auto& codeword : decode.codewords)
    for (const auto& symbol : codeword) out.push_back(symbol.strikes);
  return out;
}

std::vector<int> per_iteration(const codesim::models::DecodeExposure& decode) {
  std::vector<int> out;
  for (const auto& codeword : decode.codewords)
    for (const auto& symbol : codeword) out.push_back(symbol.strikes_per_iteration);
  return out;
}

double hit(int strikes, double eps) { return 1.0 - std::pow(1.0 - eps, strikes); }

// CodeNet 7 x 6 / (5, 4): P(>= 2 of 7 rows), each with 8 strikes (4 nodes x (update + forward)).
double codenet_forward_failure(double eps) {
  const double q = hit(8, eps);
  return 1.0 - std::pow(1.0 - q, 7) - 7.0 * q * std::pow(1.0 - q, 6);
}

// P(>= 2 of 6 columns): 4 systematic columns with 5 strikes, 2 row-parity ones with 10.
double codenet_backward_failure(double eps) {
  const double a = hit(5, eps);
  const double b = hit(10, eps);
  const double none = std::pow(1 - a, 4) * std::pow(1 - b, 2);
  const double one =
      4 * a * std::pow(1 - a, 3) * std::pow(1 - b, 2) + 2 * b * (1 - b) * std::pow(1 - a, 4);
  return 1.0 - none - one;
}

using codesim::models::testing::Interval;
using codesim::models::testing::wilson;

// Monte Carlo replay of train_coded's weight-fault protocol on corrupted/clean flags: per
// iteration, forward of layers 0..L-1 then backward of L-1..1, each participant struck with
// probability eps before its product; a decode counts erroneous symbols (any member corrupted)
// per codeword (replication: the copies of one block row / column), fails beyond t, else clears
// the members of erroneous symbols (regeneration); after the update every node is struck once.
// A failure restores the clean checkpoint. After tau useful iterations the verification pass
// decodes forward and backward of every layer without strikes; a failure rolls back.
using MonteCarloCounts = codesim::models::testing::ReplayCounts;

MonteCarloCounts simulate(const SchemeSpec& spec, int layers, double eps, int tau, int iterations,
                          std::uint64_t seed) {
  const auto [grid_rows, grid_cols] = codesim::models::block_grid(spec);
  const auto scheme = codesim::models::make_scheme(spec, grid_rows, grid_cols);
  const int nodes = scheme->node_count();
  const codesim::models::SchemeSummary summary = scheme->summary();
  const int copies = std::holds_alternative<codesim::models::ReplicationSpec>(spec)
                         ? codesim::models::repetition_copies(spec)
                         : 0;
  // Per direction (0 forward, 1 backward): participants, symbol members, t.
  const Direction directions[2] = {Direction::forward, Direction::backward};
  std::vector<int> participants[2];
  std::vector<std::vector<int>> members[2];
  const int correctable[2] = {summary.forward.correctable_adversarial,
                              summary.backward.correctable_adversarial};
  for (int d = 0; d < 2; ++d) {
    participants[d] = scheme->participants(directions[d]);
    for (int s = 0; s < scheme->symbol_count(directions[d]); ++s) {
      members[d].push_back(scheme->symbol_members(directions[d], s));
    }
  }
  codesim::sim::RandomStream stream({seed, 0, "theory_monte_carlo", 0});
  std::vector<std::vector<char>> corrupted(static_cast<std::size_t>(layers),
                                           std::vector<char>(static_cast<std::size_t>(nodes), 0));
  const auto strike = [&](int l, int p) {
    if (stream.bernoulli(eps)) {
      corrupted[static_cast<std::size_t>(l)][static_cast<std::size_t>(p)] = 1;
    }
  };
  const auto decode = [&](int l, int d) {
    auto& layer = corrupted[static_cast<std::size_t>(l)];
    const auto symbols = static_cast<int>(members[d].size());
    const int codewords = copies > 0 ? symbols / copies : 1;
    std::vector<int> errors(static_cast<std::size_t>(codewords), 0);
    std::vector<int> erroneous;
    for (int s = 0; s < symbols; ++s) {
      const auto& m = members[d][static_cast<std::size_t>(s)];
      if (std::any_of(m.begin(), m.end(),
                      [&](int p) { return layer[static_cast<std::size_t>(p)] != 0; })) {
        ++errors[static_cast<std::size_t>(s % codewords)];  // symbol copy * blocks + block
        erroneous.push_back(s);
      }
    }
    if (*std::max_element(errors.begin(), errors.end()) > correctable[d]) return false;
    for (int s : erroneous)
      for (int p : members[d][static_cast<std::size_t>(s)]) layer[static_cast<std::size_t>(p)] = 0;
    return true;
  };
  codesim::models::testing::ReplayHooks hooks;
  hooks.strike = [&](int l, int d) {
    for (int p : participants[d]) strike(l, p);
  };
  hooks.read = decode;
  hooks.strike_update = [&](int l) {
    for (int p = 0; p < nodes; ++p) strike(l, p);
  };
  hooks.verify = [&](int l) { return decode(l, 0) && decode(l, 1); };
  hooks.restore = [&] {
    for (auto& layer : corrupted) std::fill(layer.begin(), layer.end(), 0);
  };
  return codesim::models::testing::replay_protocol(layers, tau, iterations, hooks);
}

using codesim::models::testing::check_within;

}  // namespace

TEST_CASE("opportunities follow the protocol: layer 0 has no backward round") {
  const TrainingTheory cn(codenet_grid_spec(5, 4, 7, 6), kPaperMlp);
  REQUIRE(cn.layers() == 3);
  CHECK(cn.opportunities()[0].forward == 28);  // grid columns c < 4, all 7 rows
  CHECK(cn.opportunities()[0].backward == 0);
  CHECK(cn.opportunities()[0].update == 38);
  CHECK(cn.opportunities()[1].backward == 30);  // grid rows r < 5, all 6 columns
  CHECK(cn.opportunities_per_iteration() == 258);
  CHECK(cn.latent_blocks() == 10);  // layer 0's row-parity nodes: only backward symbols read them
  CHECK(cn.expected_strikes(3e-4) == doctest::Approx(0.0774));

  // A backward round in every layer, as the CodeNet experiment code runs it: 96 per layer, 288
  // per iteration.
  const TrainingTheory cn_every_layer(codenet_grid_spec(5, 4, 7, 6), kPaperMlp,
                                      every_layer_backward_protocol());
  CHECK(cn_every_layer.opportunities_per_iteration() == 288);
  CHECK(cn_every_layer.latent_blocks() == 0);
  CHECK(cn_every_layer.expected_strikes(3e-4) == doctest::Approx(0.0864));

  CHECK(TrainingTheory(replication_spec(5, 4, 2), kPaperMlp).opportunities_per_iteration() == 320);
  CHECK(TrainingTheory(replication_spec(5, 4, 2), kPaperMlp, every_layer_backward_protocol())
            .opportunities_per_iteration() == 360);
  CHECK(TrainingTheory(uncoded_spec(5, 8), kPaperMlp).opportunities_per_iteration() == 320);
  // MDS stores a row-split and a column-split block: two update strikes per node; layer 0's
  // column-split blocks are latent.
  const TrainingTheory m(mds_spec(4, 8), {16, 16, 16});
  CHECK(m.opportunities()[0].forward == 8);
  CHECK(m.opportunities()[0].update == 16);
  CHECK(m.opportunities()[1].backward == 8);
  CHECK(m.opportunities_per_iteration() == 24 + 32);
  CHECK(m.latent_blocks() == 8);
  // GPD: every node in both directions with one block; nothing latent.
  const TrainingTheory g(gpd_spec(2, 2, 8), {16, 16, 16, 16});
  CHECK(g.opportunities_per_iteration() == 16 + 24 + 24);
  CHECK(g.latent_blocks() == 0);
}

TEST_CASE("CodeNet exposures per symbol match the protocol and the hand count") {
  const TrainingTheory cn(codenet_grid_spec(5, 4, 7, 6), kPaperMlp);
  const auto& steady = cn.steady_decodes();
  REQUIRE(steady.size() == 5);  // forward 0, 1, 2; backward 2, 1
  for (int l = 0; l < 3; ++l) {
    CHECK(steady[static_cast<std::size_t>(l)].direction == Direction::forward);
    CHECK(steady[static_cast<std::size_t>(l)].correctable == 1);
    // Each grid row: 4 nodes x (previous update + this forward).
    CHECK(strikes(steady[static_cast<std::size_t>(l)]) == std::vector<int>(7, 8));
  }
  CHECK(steady[3].layer == 2);
  CHECK(steady[4].layer == 1);
  // Systematic columns: 5 backward strikes (their update strikes were read by the forward);
  // row-parity columns also carry the previous update: 10.
  CHECK(strikes(steady[4]) == std::vector<int>{5, 5, 5, 5, 10, 10});
  // The first iteration after a restore has no earlier update.
  CHECK(strikes(cn.first_decodes()[0]) == std::vector<int>(7, 4));
  CHECK(strikes(cn.first_decodes()[4]) == std::vector<int>(6, 5));
  // Verification: the last update's strikes, then the latent layer-0 row-parity blocks.
  const auto& verify = cn.verification_decodes();
  REQUIRE(verify.size() == 6);
  CHECK(strikes(verify[0]) == std::vector<int>(7, 4));
  CHECK(strikes(verify[1]) == std::vector<int>(6, 0));
  CHECK(per_iteration(verify[1]) == std::vector<int>{0, 0, 0, 0, 5, 5});
  CHECK(strikes(verify[3]) == std::vector<int>{0, 0, 0, 0, 5, 5});
  CHECK(per_iteration(verify[3]) == std::vector<int>(6, 0));
}

TEST_CASE("CodeNet failure probabilities equal the closed forms and the hand-derived numbers") {
  const double eps = 3e-4;
  const TrainingTheory cn(codenet_grid_spec(5, 4, 7, 6), kPaperMlp);
  const auto forward = codesim::models::decode_probabilities(cn.steady_decodes()[0], eps);
  const auto backward = codesim::models::decode_probabilities(cn.steady_decodes()[4], eps);
  CHECK(forward.failure == doctest::Approx(codenet_forward_failure(eps)).epsilon(1e-9));
  CHECK(backward.failure == doctest::Approx(codenet_backward_failure(eps)).epsilon(1e-9));
  // docs/reproduction.md, "Rollback probability per iteration": 1.20e-4 and 5.8e-5.
  CHECK(forward.failure == doctest::Approx(1.20e-4).epsilon(0.01));
  CHECK(backward.failure == doctest::Approx(5.8e-5).epsilon(0.01));
  // Corrected: at least one row hit but not two.
  CHECK(forward.corrected ==
        doctest::Approx(1.0 - std::pow(1.0 - hit(8, eps), 7) - codenet_forward_failure(eps))
            .epsilon(1e-9));
  const double f = codenet_forward_failure(eps);
  const double b = codenet_backward_failure(eps);
  // train_coded: three forward decodes, two backward ones.
  CHECK(cn.rollback_probability(eps) ==
        doctest::Approx(1.0 - std::pow(1 - f, 3) * std::pow(1 - b, 2)).epsilon(1e-9));
  CHECK(cn.rollback_probability(eps) == doctest::Approx(4.753e-4).epsilon(0.001));
  // A backward round in every layer: p_CN ~ 5.3e-4 per iteration.
  const TrainingTheory cn_every_layer(codenet_grid_spec(5, 4, 7, 6), kPaperMlp,
                                      every_layer_backward_protocol());
  CHECK(cn_every_layer.rollback_probability(eps) == doctest::Approx(5.3e-4).epsilon(0.01));
  // Expected corrected decodes ~ strikes read per iteration (248 of 258) times eps.
  CHECK(cn.expected_corrected_decodes(eps) == doctest::Approx(248 * eps).epsilon(0.02));
  CHECK(cn.silent_corruption_probability(eps) == 0.0);
  // The first iteration sees fewer strikes; the verification risk grows with tau.
  CHECK(cn.first_rollback_probability(eps) < cn.rollback_probability(eps));
  double previous = 0.0;
  for (int tau : {1, 10, 100, 1000, 10000}) {
    const double v = cn.verification_failure_probability(eps, tau);
    CHECK(v > previous);
    previous = v;
  }
  CHECK(cn.verification_failure_probability(eps, 1000000) == doctest::Approx(1.0));
}

TEST_CASE("replication rolls back on any strike a decode reads; three copies take a majority") {
  const double eps = 3e-4;
  const TrainingTheory two(replication_spec(5, 4, 2), kPaperMlp);
  CHECK(two.rollback_probability(eps) == doctest::Approx(1.0 - std::pow(1.0 - eps, 320)));
  CHECK(two.rollback_probability(eps) == doctest::Approx(0.0915).epsilon(0.005));
  const TrainingTheory two_every_layer(replication_spec(5, 4, 2), kPaperMlp,
                                       every_layer_backward_protocol());
  CHECK(two_every_layer.rollback_probability(eps) == doctest::Approx(0.102).epsilon(0.005));
  // First iteration: no earlier update (200 = 120 forward + 80 backward strikes).
  CHECK(two.first_rollback_probability(eps) == doctest::Approx(1.0 - std::pow(1.0 - eps, 200)));
  // Replication detects every read strike: nothing is ever corrected.
  CHECK(two.expected_corrected_decodes(eps) == 0.0);
  // Codewords: the copies of one block row (5 forward) or column (4 backward).
  CHECK(two.steady_decodes()[0].codewords.size() == 5);
  CHECK(two.steady_decodes()[4].codewords.size() == 4);

  // Three copies: a block row fails with 2 of its 3 copies hit; copy rows have 4 nodes x 2.
  const TrainingTheory three(replication_spec(5, 4, 3), kPaperMlp);
  const double q = hit(8, eps);
  const double row_failure = 3 * q * q * (1 - q) + q * q * q;
  const double forward_failure = 1.0 - std::pow(1.0 - row_failure, 5);
  CHECK(codesim::models::decode_probabilities(three.steady_decodes()[0], eps).failure ==
        doctest::Approx(forward_failure).epsilon(1e-9));
  CHECK(three.expected_corrected_decodes(eps) > 0.0);
  CHECK(three.rollback_probability(eps) < 1e-3);
}

TEST_CASE("every step error-prone: two copies roll back at each strike's first read") {
  // Per node and iteration (3 layers, no backward round in layer 0): 5 products, 5 copies of
  // activations or deltas (x_1, x_2, the loss delta_2, delta_1, delta_0), 5 decoded vectors
  // (z_0, z_1, z_2, W_2^T delta_2, W_1^T delta_1) and 3 updates. Each reaches a read once:
  // delta_0 and W_1^T delta_1 only through the update of layer 0, read next iteration.
  const double eps = 2e-4;
  codesim::models::TargetProbabilities every{};
  every.fill(eps);
  const TrainingTheory two(replication_spec(5, 4, 2), kPaperMlp);
  using codesim::models::FaultTarget;
  const auto& opportunities = two.target_opportunities();
  CHECK(opportunities[static_cast<std::size_t>(FaultTarget::product)] == 200);
  CHECK(opportunities[static_cast<std::size_t>(FaultTarget::activation)] == 200);
  CHECK(opportunities[static_cast<std::size_t>(FaultTarget::decode)] == 200);
  CHECK(opportunities[static_cast<std::size_t>(FaultTarget::update)] == 120);
  CHECK(two.rollback_probability(every) ==
        doctest::Approx(1.0 - std::pow(1.0 - eps, 320 + 40 * 18)).epsilon(1e-12));
  // The first iteration after a restore: no update before it (200 weights + 40 x 13).
  CHECK(two.first_rollback_probability(every) ==
        doctest::Approx(1.0 - std::pow(1.0 - eps, 200 + 40 * 13)).epsilon(1e-12));
  CHECK(two.expected_strikes(every) == doctest::Approx(eps * (320 + 720)));
  // The other targets at 0 change nothing.
  codesim::models::TargetProbabilities weights = codesim::models::weights_only(eps);
  CHECK(two.rollback_probability(weights) == two.rollback_probability(eps));
}

TEST_CASE("every step error-prone: CodeNet still fails only with two bad symbols in a codeword") {
  codesim::models::TargetProbabilities every{};
  const TrainingTheory cn(codenet_grid_spec(5, 4, 7, 6), kPaperMlp);
  for (double eps : {1e-5, 1e-4}) {
    every.fill(eps);
    const double p = cn.rollback_probability(every);
    CHECK(p > cn.rollback_probability(eps));
    every.fill(10 * eps);
    // Quadratic in eps: ten times the rate, nearly a hundred times the rollbacks (84 at
    // 1e-4 -> 1e-3, where p is no longer small).
    CHECK(cn.rollback_probability(every) / p > 80.0);
    CHECK(cn.rollback_probability(every) / p < 100.0);
  }
}

TEST_CASE("uncoded never rolls back and reports silent corruptions") {
  const double eps = 3e-4;
  const TrainingTheory u(uncoded_spec(5, 8), kPaperMlp);
  CHECK(u.rollback_probability(eps) == 0.0);
  CHECK(u.expected_corrected_decodes(eps) == 0.0);
  CHECK(u.silent_corruption_probability(eps) == doctest::Approx(1.0 - std::pow(1.0 - eps, 320)));
  CHECK(u.expected_strikes(eps) == doctest::Approx(0.096));
  CHECK_FALSE(u.steady_decodes()[0].detects);
}

TEST_CASE("probabilities are zero without faults, one when every operation strikes") {
  for (const SchemeSpec& spec : {codenet_grid_spec(5, 4, 7, 6), replication_spec(5, 4, 2),
                                 replication_spec(5, 4, 3), gpd_spec(2, 2, 9)}) {
    CAPTURE(codesim::models::scheme_name(spec));
    const std::vector<int> sizes = std::holds_alternative<codesim::models::GpdSpec>(spec)
                                       ? std::vector<int>{16, 16, 16}
                                       : kPaperMlp;
    const TrainingTheory theory(spec, sizes);
    CHECK(theory.rollback_probability(0.0) == 0.0);
    CHECK(theory.first_rollback_probability(0.0) == 0.0);
    CHECK(theory.verification_failure_probability(0.0, 100) == 0.0);
    CHECK(theory.expected_corrected_decodes(0.0) == 0.0);
    CHECK(theory.rollback_probability(1.0) == 1.0);
  }
  CHECK(TrainingTheory(uncoded_spec(5, 8), kPaperMlp).silent_corruption_probability(1.0) == 1.0);
}

TEST_CASE("rollback probability grows with eps: slope 1 for replication, 2 for CodeNet") {
  const TrainingTheory cn(codenet_grid_spec(5, 4, 7, 6), kPaperMlp);
  const TrainingTheory rep(replication_spec(5, 4, 2), kPaperMlp);
  const auto slope = [](const TrainingTheory& t, double low, double high) {
    return std::log(t.rollback_probability(high) / t.rollback_probability(low)) /
           std::log(high / low);
  };
  CHECK(slope(rep, 1e-5, 1e-4) == doctest::Approx(1.0).epsilon(0.02));
  CHECK(slope(cn, 1e-5, 1e-4) == doctest::Approx(2.0).epsilon(0.02));
  double previous_cn = 0.0;
  double previous_rep = 0.0;
  for (double eps = 1e-6; eps < 0.5; eps *= 3) {
    CHECK(cn.rollback_probability(eps) > previous_cn);
    CHECK(rep.rollback_probability(eps) > previous_rep);
    previous_cn = cn.rollback_probability(eps);
    previous_rep = rep.rollback_probability(eps);
  }
}

TEST_CASE("tiny probabilities keep their precision") {
  const TrainingTheory cn(codenet_grid_spec(5, 4, 7, 6), kPaperMlp);
  const double eps = 1e-9;
  // Leading order: C(7, 2) (8 eps)^2 per forward decode.
  const auto forward = codesim::models::decode_probabilities(cn.steady_decodes()[0], eps);
  CHECK(forward.failure == doctest::Approx(21.0 * 64e-18).epsilon(1e-6));
  CHECK(forward.corrected == doctest::Approx(56e-9).epsilon(1e-6));
}

TEST_CASE("the random error model corrects more erroneous symbols") {
  // GPD 2 x 2 on 10 nodes: K_ff = 5, so t = 2 adversarial and 4 random.
  TrainingTheoryOptions random;
  random.error_model = codesim::models::ErrorModel::random;
  const TrainingTheory adversarial_theory(gpd_spec(2, 2, 10), {16, 16, 16});
  const TrainingTheory random_theory(gpd_spec(2, 2, 10), {16, 16, 16}, random);
  CHECK(adversarial_theory.steady_decodes()[0].correctable == 2);
  CHECK(random_theory.steady_decodes()[0].correctable == 4);
  CHECK(random_theory.rollback_probability(1e-2) < adversarial_theory.rollback_probability(1e-2));
}

TEST_CASE("invalid schemes and MLPs are rejected with a reason") {
  CHECK(
      codesim::models::validate_training_theory(codenet_grid_spec(5, 4, 7, 6), kPaperMlp).empty());
  CHECK(codesim::models::validate_training_theory(codenet_grid_spec(5, 4, 7, 6),
                                                  std::vector<int>{784}) != "");
  CHECK(codesim::models::validate_training_theory(codenet_grid_spec(5, 4, 7, 6),
                                                  std::vector<int>{784, 0}) != "");
  // n = 3 does not divide 784 (layer 0's columns).
  const std::string problem =
      codesim::models::validate_training_theory(codenet_grid_spec(5, 3, 7, 5), kPaperMlp);
  CHECK(problem.find("layer 0") != std::string::npos);
}

TEST_CASE(
    "Monte Carlo replay agrees with the CodeNet rollback, first-iteration and verification "
    "probabilities") {
  const double eps = 3e-3;
  const int tau = 10;
  const TrainingTheory cn(codenet_grid_spec(5, 4, 7, 6), kPaperMlp);
  const MonteCarloCounts counts = simulate(codenet_grid_spec(5, 4, 7, 6), 3, eps, tau, 150000, 7);
  check_within(counts.steady_failures, counts.steady, cn.rollback_probability(eps));
  check_within(counts.first_failures, counts.first, cn.first_rollback_probability(eps));
  check_within(counts.verification_failures, counts.verifications,
               cn.verification_failure_probability(eps, tau));
  // The every-layer count (a layer-0 backward round) is outside the replay's interval.
  const TrainingTheory cn_every_layer(codenet_grid_spec(5, 4, 7, 6), kPaperMlp,
                                      every_layer_backward_protocol());
  const Interval steady = wilson(counts.steady_failures, counts.steady);
  CHECK(cn_every_layer.rollback_probability(eps) > steady.high);
}

TEST_CASE("Monte Carlo replay agrees with the replication rollback probabilities") {
  const double eps = 1e-3;
  const int tau = 4;
  const TrainingTheory rep(replication_spec(5, 4, 2), kPaperMlp);
  const MonteCarloCounts counts = simulate(replication_spec(5, 4, 2), 3, eps, tau, 60000, 11);
  check_within(counts.steady_failures, counts.steady, rep.rollback_probability(eps));
  check_within(counts.first_failures, counts.first, rep.first_rollback_probability(eps));
  check_within(counts.verification_failures, counts.verifications,
               rep.verification_failure_probability(eps, tau));
}
