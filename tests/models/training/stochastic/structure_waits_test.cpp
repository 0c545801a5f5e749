// What a product round waits for under stragglers, from each scheme's structure: against the exact
// K-th fastest where any K nodes decode, against closed forms written out here for replication
// and the CodeNet grid, and against the mean round of whole stochastic training runs.
#include "models/training/stochastic/structure_waits.hpp"

#include <doctest/doctest.h>
#include <fmt/format.h>

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "analysis/straggler_order_statistics.hpp"
#include "models/faults/fault_targets.hpp"
#include "models/training/protocol/round_costs.hpp"
#include "models/training/train.hpp"

using namespace codesim;
using namespace codesim::models;

namespace {

constexpr int kTrials = 20'000;
constexpr std::uint64_t kSeed = 1;
// 1 + Exp(0.5): scenarios/abft_vs_coded.json's law, T1's first.
const sim::ShiftedExponentialStraggler kExponential{1.0, 0.5};

// A polynomial in u, coefficients from u^0 up, for the closed forms below.
using Polynomial = std::vector<double>;

Polynomial times(const Polynomial& a, const Polynomial& b) {
  Polynomial out(a.size() + b.size() - 1, 0.0);
  for (std::size_t i = 0; i < a.size(); ++i)
    for (std::size_t j = 0; j < b.size(); ++j) out[i + j] += a[i] * b[j];
  return out;
}

Polynomial power(const Polynomial& a, int k) {
  Polynomial out = {1.0};
  for (int i = 0; i < k; ++i) out = times(out, a);
  return out;
}

Polynomial plus(Polynomial a, const Polynomial& b, double scale) {
  if (a.size() < b.size()) a.resize(b.size(), 0.0);
  for (std::size_t i = 0; i < b.size(); ++i) a[i] += scale * b[i];
  return a;
}

// The expected value of shift + Y for Y >= 0 with P[Y > y] = survival(u) u, u = exp(-rate y):
// E[Y] = int_0^inf P[Y > y] dy = (1 / rate) int_0^1 survival(u) du.
double expected_from(const Polynomial& survival_over_u, double shift, double rate) {
  double integral = 0.0;
  for (std::size_t i = 0; i < survival_over_u.size(); ++i)
    integral += survival_over_u[i] / static_cast<double>(i + 1);
  return shift + integral / rate;
}

// With u = exp(-rate y), the slower of two Exp(rate) nodes exceeds y with probability
// S = 1 - (1 - u)^2 = u (2 - u): a 2-node grid row (column) of the 2 x 2 split.
const Polynomial kTwoMinusU = {2.0, -1.0};
const Polynomial kOneMinusU = {1.0, -1.0};

// Three copies of a 2 x 2 split: a block row decodes from one whole grid row of some copy, and the
// round waits for both block rows: P[wait - 1 > y] = 1 - (1 - S^3)^2 = 2 S^3 - S^6, with
// S^3 / u = u^2 (2 - u)^3 and S^6 / u = u^5 (2 - u)^6.
double replication_closed_form(double shift, double rate) {
  const Polynomial s3 = times({0.0, 0.0, 1.0}, power(kTwoMinusU, 3));
  const Polynomial s6 = times({0.0, 0.0, 0.0, 0.0, 0.0, 1.0}, power(kTwoMinusU, 6));
  return expected_from(plus(plus({}, s3, 2.0), s6, -1.0), shift, rate);
}

// The CodeNet grid 4 x 4 (2 x 2 split, t = 1): forward, four 2-node grid rows of which any two
// decode: the second fastest of four rows. P[X_(2:4) > y] = S^4 + 4 F S^3 with F = (1 - u)^2:
// S^4 / u = u^3 (2 - u)^4 and F S^3 / u = (1 - u)^2 u^2 (2 - u)^3. Backward is the same with
// columns.
double grid_closed_form(double shift, double rate) {
  const Polynomial s4 = times({0.0, 0.0, 0.0, 1.0}, power(kTwoMinusU, 4));
  const Polynomial fs3 = times(power(kOneMinusU, 2), times({0.0, 0.0, 1.0}, power(kTwoMinusU, 3)));
  return expected_from(plus(s4, fs3, 4.0), shift, rate);
}

std::vector<sim::StragglerSpec> laws() {
  return {kExponential, sim::ShiftedExponentialStraggler{1.0, 2.0}, sim::ParetoStraggler{1.0, 3.0},
          sim::BimodalStraggler{0.1, 5.0}, sim::LognormalStraggler{0.0, 0.5}};
}

}  // namespace

TEST_CASE("the wait of codes that any K nodes decode is the exact K-th fastest of their nodes") {
  for (const SchemeSpec& spec : {gpd_spec(2, 2, 12), mds_spec(8, 12)}) {
    for (Direction dir : {Direction::forward, Direction::backward}) {
      const RoundStructure s = round_structure(spec, dir);
      REQUIRE(s.any_k_nodes);
      CHECK(s.threshold_nodes == s.threshold_symbols);
      for (const sim::StragglerSpec& law : laws()) {
        CAPTURE(scheme_name(spec));
        CAPTURE(sim::law_name(law));
        const auto exact =
            analysis::exact_order_statistic(law, s.threshold_symbols, s.participants);
        const StructureWaitEstimate e = monte_carlo_structure_wait(spec, dir, law, kTrials, kSeed);
        // The exact standard error (a bimodal K-th fastest is slow too rarely for a sample's).
        CHECK(std::abs(e.mean_task_times - exact.mean) <=
              3.0 * std::sqrt(exact.variance / kTrials));
      }
    }
  }
  CHECK(round_structure(gpd_spec(2, 2, 12), Direction::forward).threshold_nodes == 5);
  CHECK(round_structure(gpd_spec(2, 2, 12), Direction::backward).threshold_nodes == 6);
  CHECK(round_structure(mds_spec(8, 12), Direction::forward).threshold_nodes == 8);
}

TEST_CASE("three copies of a 2 x 2 split wait for a whole grid row of some copy per block row") {
  const SchemeSpec spec = replication_spec(2, 2, 3);
  const double exact = replication_closed_form(kExponential.shift, kExponential.rate);
  CHECK(exact == doctest::Approx(2.8945165945).epsilon(1e-9));
  // Were each block decodable from any copy of it, the wait would be the slowest of 4 blocks'
  // fastest of 3 copies: 1 + H_4 / (3 x 0.5) = 2.389; a copy's grid row is one symbol, so more.
  const double per_block = 1.0 + (1.0 + 1.0 / 2 + 1.0 / 3 + 1.0 / 4) / 1.5;
  for (Direction dir : {Direction::forward, Direction::backward}) {
    const RoundStructure s = round_structure(spec, dir);
    CHECK_FALSE(s.any_k_nodes);
    CHECK(s.codewords == 2);
    CHECK(s.threshold_nodes == 10);
    const StructureWaitEstimate e =
        monte_carlo_structure_wait(spec, dir, kExponential, kTrials, kSeed);
    CHECK(std::abs(e.mean_task_times - exact) <= 3.0 * e.standard_error_task_times);
    CHECK(e.mean_task_times > per_block + 10.0 * e.standard_error_task_times);
    // Not the 10th fastest of 12 (4.21) that the table quoted before.
    CHECK(e.mean_task_times < analysis::expected_order_statistic(kExponential, 10, 12) - 1.0);
  }
}

TEST_CASE("the CodeNet grid 4 x 4 waits for the second complete grid row or column") {
  const SchemeSpec spec = codenet_grid_spec(2, 2, 4, 4);
  const double exact = grid_closed_form(kExponential.shift, kExponential.rate);
  CHECK(exact == doctest::Approx(3.1071428571).epsilon(1e-9));
  for (Direction dir : {Direction::forward, Direction::backward}) {
    const RoundStructure s = round_structure(spec, dir);
    CHECK_FALSE(s.any_k_nodes);
    CHECK(s.participants == 8);  // the parity column (row) computes nothing in this direction
    CHECK(s.threshold_nodes == 6);
    const StructureWaitEstimate e =
        monte_carlo_structure_wait(spec, dir, kExponential, kTrials, kSeed);
    CHECK(std::abs(e.mean_task_times - exact) <= 3.0 * e.standard_error_task_times);
    // Not the 6th fastest of 12 (2.31).
    CHECK(e.mean_task_times > analysis::expected_order_statistic(kExponential, 6, 12) + 0.5);
  }
}

TEST_CASE("a stochastic training run's rounds wait what the structure's Monte Carlo says") {
  // One dense layer (W 4 x 8) on 12 nodes straggling 1 + Exp(0.5), wait_for k, no faults, no
  // checkpoint: an iteration is the forward round, then the update, which waits for every node.
  // So compute per iteration = T_task E[round wait] + T_update E[X_(12:12)], and the round's mean
  // wait in task times is what is left over T_task. Replicas give its standard error.
  constexpr int kReplicas = 40;
  constexpr int kIterations = 2000;
  sim::ClusterSpec cluster = sim::uniform_cluster(12, 1e9);
  for (auto& s : cluster.stragglers) s = kExponential;
  const double slowest = analysis::expected_order_statistic(kExponential, 12, 12);
  for (const SchemeSpec& spec :
       {replication_spec(2, 2, 3), codenet_grid_spec(2, 2, 4, 4), gpd_spec(2, 2, 12)}) {
    CAPTURE(scheme_name(spec));
    TrainingSpec training;
    training.mlp.layer_sizes = {8, 4};
    training.sgd.learning_rate = 0.01;
    training.sgd.batch_size = 1;
    training.scheme = spec;
    training.iterations = kIterations;
    training.wait_for = WaitRule::k;
    const auto [rows, cols] = block_grid(spec);
    const std::unique_ptr<CodingScheme> scheme = make_scheme(spec, rows, cols);
    scheme->encode(Matrix::Zero(rows, cols));
    const LayerShape shape = layer_shape(spec, *scheme, rows, cols, 4, 8);
    const double task_s = shape.dir[0].task_flops_per_column / 1e9;
    const double update_s = shape.update_flops_per_column / 1e9;
    double sum = 0.0;
    double sum_squares = 0.0;
    for (int replica = 0; replica < kReplicas; ++replica) {
      const sim::MetricSet m = run_stochastic_training(cluster, {}, training, fault_free_config(),
                                                       7, static_cast<std::uint64_t>(replica));
      REQUIRE(m.get("completed") == 1.0);
      const double round = (m.get("time_compute_s") / kIterations - update_s * slowest) / task_s;
      sum += round;
      sum_squares += round * round;
    }
    const double run_mean = sum / kReplicas;
    const double run_error =
        std::sqrt((sum_squares - kReplicas * run_mean * run_mean) / (kReplicas - 1) / kReplicas);
    const StructureWaitEstimate table =
        monte_carlo_structure_wait(spec, Direction::forward, kExponential, kTrials, kSeed);
    INFO(fmt::format("{}: runs {:.4f} +- {:.4f}, table {:.4f} +- {:.4f}", scheme_name(spec),
                     run_mean, run_error, table.mean_task_times, table.standard_error_task_times));
    CHECK(std::abs(run_mean - table.mean_task_times) <=
          2.0 * std::hypot(run_error, table.standard_error_task_times));
  }
}
