// Fault injector: empirical strike rates match the configured probabilities (per operation and
// per flop), overrides stay on their nodes, targets draw independently, and replaying a log
// reproduces every corrupted matrix bit for bit or reports where the run departs from it.
#include "models/faults/fault_injector.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

using namespace codesim::models;

namespace {

/// A configuration with every target disabled.
FaultConfig silent_config() {
  FaultConfig config = default_fault_config();
  config[FaultTarget::weights].rate = {};
  return config;
}

FaultOpportunity opportunity(double time_s, int node, const char* operation, int layer,
                             FaultTarget target, double flops = 0.0) {
  return FaultOpportunity{time_s, node, operation, layer, target, flops};
}

/// Strikes among `trials` opportunities of (node, target, flops).
int count_strikes(FaultInjector& injector, int node, FaultTarget target, double flops, int trials) {
  Eigen::MatrixXd data = Eigen::MatrixXd::Ones(2, 2);
  int strikes = 0;
  for (int i = 0; i < trials; ++i) {
    if (injector.inject(opportunity(i * 1e-3, node, "forward", 0, target, flops), data)) {
      ++strikes;
    }
  }
  return strikes;
}

/// The count is within 4.5 standard deviations of the binomial mean.
void check_rate(int strikes, int trials, double p) {
  const double mean = trials * p;
  const double sd = std::sqrt(trials * p * (1.0 - p));
  INFO("strikes " << strikes << " expected " << mean);
  CHECK(std::abs(strikes - mean) < 4.5 * sd);
}

/// Appends the bytes of `m` to `trace`.
template <typename Derived>
void record(std::vector<unsigned char>& trace, const Eigen::MatrixBase<Derived>& m) {
  const auto* bytes = reinterpret_cast<const unsigned char*>(m.derived().data());
  trace.insert(trace.end(), bytes,
               bytes + static_cast<std::size_t>(m.size()) * sizeof(typename Derived::Scalar));
}

/// A small training-like loop on 4 nodes: each step offers weights (forward), product,
/// activation (float32), decode and update opportunities, and lets the corruption propagate
/// through the arithmetic. Returns the bytes of every matrix after every step.
std::vector<unsigned char> run_protocol(FaultInjector& injector, int steps) {
  const int nodes = 4;
  std::vector<Eigen::MatrixXd> weights;
  for (int p = 0; p < nodes; ++p) {
    Eigen::MatrixXd w(6, 5);
    for (Eigen::Index i = 0; i < w.size(); ++i) w.data()[i] = 0.01 * static_cast<double>(i + p);
    weights.push_back(w);
  }
  std::vector<unsigned char> trace;
  double time_s = 0.0;
  for (int step = 0; step < steps; ++step) {
    const Eigen::VectorXd x = Eigen::VectorXd::LinSpaced(5, 0.1 * step, 1.0 + 0.1 * step);
    for (int p = 0; p < nodes; ++p) {
      time_s += 0.125;
      const int layer = step % 2;
      injector.inject(opportunity(time_s, p, "forward", layer, FaultTarget::weights, 60),
                      weights[p]);
      Eigen::MatrixXd product = weights[p] * x;
      injector.inject(opportunity(time_s, p, "forward", layer, FaultTarget::product, 60), product);
      Eigen::MatrixXf activation = product.cast<float>().cwiseMax(0.0f);
      injector.inject(opportunity(time_s, p, "forward", layer, FaultTarget::activation, 6),
                      activation);
      Eigen::MatrixXd decoded = activation.cast<double>();
      injector.inject(opportunity(time_s, p, "decode", layer, FaultTarget::decode, 6), decoded);
      Eigen::MatrixXd update = 1e-3 * decoded * x.transpose();
      injector.inject(opportunity(time_s, p, "update", layer, FaultTarget::update, 30), update);
      weights[p] += update;
      injector.inject(opportunity(time_s, p, "update", layer, FaultTarget::weights, 30),
                      weights[p]);
      record(trace, product);
      record(trace, activation);
      record(trace, decoded);
      record(trace, weights[p]);
    }
  }
  return trace;
}

/// Every target on, with a different model each, rates high enough for many faults.
FaultConfig busy_config() {
  FaultConfig config = default_fault_config();
  config[FaultTarget::weights].rate = {0.05, 0.0};
  config[FaultTarget::weights].model.density = 0.1;
  config[FaultTarget::product].rate = {0.0, 1e-3};  // per flop: 60 flops -> ~5.8%
  config[FaultTarget::product].model = value_model_defaults(ValueModelKind::bitflip);
  config[FaultTarget::activation].rate = {0.05, 0.0};
  config[FaultTarget::activation].model = value_model_defaults(ValueModelKind::bitflip);
  config[FaultTarget::activation].model.field = BitField::exponent;
  config[FaultTarget::activation].model.bits = 2;
  config[FaultTarget::decode].rate = {0.05, 0.0};
  config[FaultTarget::decode].model = value_model_defaults(ValueModelKind::random_value);
  config[FaultTarget::update].rate = {0.05, 0.0};
  config[FaultTarget::update].model = value_model_defaults(ValueModelKind::gaussian);
  config[FaultTarget::update].model.density = 0.5;
  config.overrides.push_back({{2}, FaultTarget::weights, {0.3, 0.0}});
  return config;
}

/// The pointer of the FaultLogError `action` throws, or "" when it throws none.
template <typename Action>
std::string error_pointer(Action action) {
  try {
    action();
  } catch (const FaultLogError& e) {
    return e.pointer();
  }
  return "";
}

}  // namespace

TEST_CASE("empirical strike rates match the configured probability per operation") {
  FaultConfig config = silent_config();
  config[FaultTarget::weights].rate.probability_per_operation = 3e-4;
  config[FaultTarget::product].rate.probability_per_operation = 0.05;
  FaultInjector injector(config, 2, 11, 0);
  check_rate(count_strikes(injector, 0, FaultTarget::weights, 0.0, 400000), 400000, 3e-4);
  check_rate(count_strikes(injector, 1, FaultTarget::product, 0.0, 40000), 40000, 0.05);
  CHECK(count_strikes(injector, 1, FaultTarget::decode, 1e9, 10000) == 0);
  CHECK(injector.opportunities() == 450000);
  CHECK(injector.log().opportunities == 450000);
}

TEST_CASE("empirical strike rates match the configured rate per flop") {
  FaultConfig config = silent_config();
  config[FaultTarget::weights].rate = {0.0, 1e-7};
  config[FaultTarget::update].rate = {0.01, 1e-7};
  FaultInjector injector(config, 1, 12, 0);
  const double p_weights = 1.0 - std::exp(-1e-3);  // 1e4 flops
  CHECK(injector.strike_probability(0, FaultTarget::weights, 1e4) ==
        doctest::Approx(p_weights).epsilon(1e-12));
  check_rate(count_strikes(injector, 0, FaultTarget::weights, 1e4, 200000), 200000, p_weights);
  const double p_update = 1.0 - 0.99 * std::exp(-0.1);  // 1e6 flops
  check_rate(count_strikes(injector, 0, FaultTarget::update, 1e6, 20000), 20000, p_update);
  CHECK(count_strikes(injector, 0, FaultTarget::weights, 0.0, 10000) == 0);
}

TEST_CASE("per-node overrides apply only to the named nodes") {
  FaultConfig config = silent_config();
  config[FaultTarget::weights].rate.probability_per_operation = 0.01;
  config.overrides.push_back({{2, 4}, FaultTarget::weights, {0.3, 0.0}});
  config.overrides.push_back({{5}, FaultTarget::product, {0.5, 0.0}});
  FaultInjector injector(config, 6, 13, 0);
  const int trials = 20000;
  for (int node = 0; node < 6; ++node) {
    CAPTURE(node);
    const bool bad = node == 2 || node == 4;
    check_rate(count_strikes(injector, node, FaultTarget::weights, 0.0, trials), trials,
               bad ? 0.3 : 0.01);
    const int product = count_strikes(injector, node, FaultTarget::product, 0.0, 2000);
    if (node == 5) {
      check_rate(product, 2000, 0.5);
    } else {
      CHECK(product == 0);
    }
  }
}

TEST_CASE("enabling one target does not shift another target's strikes or values") {
  auto weights_faults = [](bool product_enabled) {
    FaultConfig config = silent_config();
    config[FaultTarget::weights].rate.probability_per_operation = 0.05;
    if (product_enabled) config[FaultTarget::product].rate.probability_per_operation = 0.5;
    FaultInjector injector(config, 3, 14, 2);
    Eigen::MatrixXd w = Eigen::MatrixXd::Ones(8, 8);
    Eigen::MatrixXd product = Eigen::MatrixXd::Ones(8, 1);
    for (int i = 0; i < 3000; ++i) {
      injector.inject(opportunity(i, i % 3, "forward", 0, FaultTarget::product), product);
      injector.inject(opportunity(i, i % 3, "forward", 0, FaultTarget::weights), w);
    }
    std::vector<FaultRecord> weights;
    for (const FaultRecord& r : injector.log().records) {
      // Both runs offer the same opportunities, so positions and digests agree too.
      if (r.target == FaultTarget::weights) weights.push_back(r);
    }
    return weights;
  };
  const std::vector<FaultRecord> alone = weights_faults(false);
  CHECK(alone.size() > 100);
  CHECK(weights_faults(true) == alone);
}

TEST_CASE("the same seed and replica give the same faults; another replica differs") {
  auto run = [](std::uint64_t replica) {
    FaultInjector injector(busy_config(), 4, 15, replica);
    run_protocol(injector, 30);
    return injector.log();
  };
  const FaultLog a = run(0);
  CHECK(a.records.size() > 20);
  CHECK(run(0) == a);
  CHECK(!(run(1) == a));
}

TEST_CASE("an injector that skips the digest strikes the same values and logs no digest") {
  FaultInjector with(busy_config(), 4, 17, 2);
  FaultInjector without(busy_config(), 4, 17, 2, SequenceDigest::skipped);
  CHECK(run_protocol(without, 60) == run_protocol(with, 60));
  CHECK(with.log().sequence_digest.has_value());
  CHECK_FALSE(without.log().sequence_digest.has_value());
  CHECK(without.log().opportunities == with.log().opportunities);
  FaultLog stripped = with.log();
  stripped.sequence_digest.reset();
  for (FaultRecord& r : stripped.records) {
    CHECK(r.sequence_digest.has_value());
    r.sequence_digest.reset();
  }
  CHECK(stripped.records.size() > 10);
  CHECK(without.log() == stripped);
}

TEST_CASE("replaying a recorded log reproduces every corrupted matrix bit for bit") {
  FaultInjector recorder(busy_config(), 4, 16, 3);
  const std::vector<unsigned char> recorded = run_protocol(recorder, 120);
  recorder.finish();
  const FaultLog& log = recorder.log();
  CHECK(log.seed == 16);
  CHECK(log.replica == 3);
  const FaultLogSummary summary = recorder.summary();
  INFO("records " << summary.records << ", NaN " << summary.nan_values << ", inf "
                  << summary.inf_values);
  for (int t = 0; t < kFaultTargetCount; ++t) {
    CHECK(summary.records_per_target[static_cast<std::size_t>(t)] > 0);
  }

  FaultInjector replayer(log);
  CHECK(replayer.replaying());
  const std::vector<unsigned char> replayed = run_protocol(replayer, 120);
  CHECK_NOTHROW(replayer.finish());
  REQUIRE(replayed.size() == recorded.size());
  CHECK(std::memcmp(replayed.data(), recorded.data(), recorded.size()) == 0);
  CHECK(replayer.log() == log);

  // The run without faults differs: the faults are what the replay reproduced.
  FaultInjector clean(silent_config(), 4, 16, 3);
  CHECK(run_protocol(clean, 120) != recorded);
}

TEST_CASE("exponent flips that make NaN or infinity are counted") {
  FaultConfig config = silent_config();
  config[FaultTarget::product].rate.probability_per_operation = 1.0;
  config[FaultTarget::product].model = value_model_defaults(ValueModelKind::bitflip);
  config[FaultTarget::product].model.bit_list = {62};
  FaultInjector injector(config, 1, 17, 0);
  Eigen::MatrixXd inf_maker = Eigen::MatrixXd::Constant(1, 1, 1.0);  // -> +inf
  Eigen::MatrixXd nan_maker = Eigen::MatrixXd::Constant(1, 1, 1.5);  // -> NaN
  Eigen::MatrixXd tame = Eigen::MatrixXd::Constant(1, 1, 3.0);       // -> 2^-1023
  injector.inject(opportunity(0, 0, "forward", 0, FaultTarget::product), inf_maker);
  injector.inject(opportunity(0, 0, "forward", 0, FaultTarget::product), nan_maker);
  injector.inject(opportunity(0, 0, "forward", 0, FaultTarget::product), tame);
  const FaultLogSummary s = injector.summary();
  CHECK(s.records == 3);
  CHECK(s.inf_values == 1);
  CHECK(s.nan_values == 1);
  CHECK(std::isinf(inf_maker(0, 0)));
  CHECK(std::isnan(nan_maker(0, 0)));
  CHECK(tame(0, 0) == std::ldexp(1.0, -1023));
}

TEST_CASE("a record carries the opportunity, the shape and the model") {
  FaultConfig config = silent_config();
  config[FaultTarget::decode].rate.probability_per_operation = 1.0;
  config[FaultTarget::decode].model = value_model_defaults(ValueModelKind::stuck_at_zero);
  FaultInjector injector(config, 3, 18, 0);
  Eigen::MatrixXd data = Eigen::MatrixXd::Ones(3, 4);
  CHECK(injector.inject(opportunity(0.5, 1, "forward", 2, FaultTarget::weights), data) == nullptr);
  const FaultRecord* r =
      injector.inject(opportunity(0.75, 2, "decode", 1, FaultTarget::decode), data);
  REQUIRE(r != nullptr);
  CHECK(r->opportunity == 1);
  CHECK(r->time_s == 0.75);
  CHECK(r->node == 2);
  CHECK(r->operation == "decode");
  CHECK(r->layer == 1);
  CHECK(r->target == FaultTarget::decode);
  CHECK(r->model == ValueModelKind::stuck_at_zero);
  CHECK(r->scalar == ScalarType::float64);
  CHECK(r->rows == 3);
  CHECK(r->cols == 4);
  REQUIRE(r->entries.size() == 1);  // round(0.005 * 12) = 0 -> at least one
  CHECK(data.sum() == 11.0);
  CHECK(r->sequence_digest == injector.log().sequence_digest);
}

TEST_CASE("a replay reports where the run departs from the log") {
  FaultConfig config = silent_config();
  config[FaultTarget::weights].rate.probability_per_operation = 0.2;
  auto make_run = [](FaultInjector& injector, int nodes_seen, int layer_shift) {
    Eigen::MatrixXd w = Eigen::MatrixXd::Ones(3, 3);
    for (int i = 0; i < 40; ++i) {
      injector.inject(
          opportunity(i, i % nodes_seen, "forward", (i + layer_shift) % 2, FaultTarget::weights),
          w);
    }
  };
  FaultInjector recorder(config, 2, 19, 0);
  make_run(recorder, 2, 0);
  const FaultLog log = recorder.log();
  REQUIRE(log.records.size() >= 3);
  const std::uint64_t first = log.records[0].opportunity;

  SUBCASE("a different node at a logged opportunity") {
    FaultInjector replayer(log);
    Eigen::MatrixXd w = Eigen::MatrixXd::Ones(3, 3);
    for (std::uint64_t i = 0; i < first; ++i) {
      replayer.inject(opportunity(static_cast<double>(i), static_cast<int>(i % 2), "forward",
                                  static_cast<int>(i % 2), FaultTarget::weights),
                      w);
    }
    const FaultOpportunity wrong =
        opportunity(static_cast<double>(first), static_cast<int>(first % 2) + 5, "forward",
                    static_cast<int>(first % 2), FaultTarget::weights);
    CHECK(error_pointer([&] { replayer.offer(wrong); }) == "/records/0/node");
  }
  SUBCASE("an unstruck opportunity that differs shows in the next record's digest") {
    REQUIRE(first > 0);
    {
      FaultInjector replayer(log);
      CHECK(error_pointer([&] { make_run(replayer, 2, 1); }) != "");
      FaultInjector replayer2(log);
      Eigen::MatrixXd w = Eigen::MatrixXd::Ones(3, 3);
      // Opportunity 0 renamed; the logged ones untouched.
      replayer2.inject(opportunity(0, 0, "backward", 0, FaultTarget::weights), w);
      std::string pointer;
      for (int i = 1; i < 40 && pointer.empty(); ++i) {
        pointer = error_pointer([&] {
          replayer2.inject(opportunity(i, i % 2, "forward", i % 2, FaultTarget::weights), w);
        });
      }
      CHECK(pointer == "/records/0/sequence_digest");
    }
  }
  SUBCASE("a matrix with other values") {
    FaultInjector replayer(log);
    Eigen::MatrixXd w = Eigen::MatrixXd::Ones(3, 3);
    for (std::uint64_t i = 0; i < first; ++i) {
      replayer.inject(opportunity(static_cast<double>(i), static_cast<int>(i % 2), "forward",
                                  static_cast<int>(i % 2), FaultTarget::weights),
                      w);
    }
    REQUIRE(
        replayer.offer(opportunity(static_cast<double>(first), static_cast<int>(first % 2),
                                   "forward", static_cast<int>(first % 2), FaultTarget::weights)));
    Eigen::MatrixXd other = Eigen::MatrixXd::Constant(3, 3, 2.0);
    const Eigen::MatrixXd before = other;
    CHECK(error_pointer([&] { replayer.apply(other); }) == "/records/0/entries/0/old_bits");
    CHECK(other == before);  // a rejected replay leaves the data untouched
  }
  SUBCASE("a matrix of another shape or scalar type") {
    FaultInjector replayer(log);
    Eigen::MatrixXd w = Eigen::MatrixXd::Ones(3, 3);
    for (std::uint64_t i = 0; i < first; ++i) {
      replayer.inject(opportunity(static_cast<double>(i), static_cast<int>(i % 2), "forward",
                                  static_cast<int>(i % 2), FaultTarget::weights),
                      w);
    }
    const FaultOpportunity at =
        opportunity(static_cast<double>(first), static_cast<int>(first % 2), "forward",
                    static_cast<int>(first % 2), FaultTarget::weights);
    FaultInjector replayer_f(log);
    REQUIRE(replayer.offer(at));
    Eigen::MatrixXd wide = Eigen::MatrixXd::Ones(3, 4);
    CHECK(error_pointer([&] { replayer.apply(wide); }) == "/records/0/rows");
    Eigen::MatrixXf single = Eigen::MatrixXf::Ones(3, 3);
    for (std::uint64_t i = 0; i < first; ++i) {
      replayer_f.inject(opportunity(static_cast<double>(i), static_cast<int>(i % 2), "forward",
                                    static_cast<int>(i % 2), FaultTarget::weights),
                        single);
    }
    REQUIRE(replayer_f.offer(at));
    CHECK(error_pointer([&] { replayer_f.apply(single); }) == "/records/0/scalar");
  }
  SUBCASE("a run that ends early or runs longer") {
    FaultInjector early(log);
    Eigen::MatrixXd w = Eigen::MatrixXd::Ones(3, 3);
    for (int i = 0; i < static_cast<int>(log.records.back().opportunity); ++i) {
      early.inject(opportunity(i, i % 2, "forward", i % 2, FaultTarget::weights), w);
    }
    CHECK(error_pointer([&] { early.finish(); }) ==
          "/records/" + std::to_string(log.records.size() - 1) + "/opportunity");
    FaultInjector longer(log);
    make_run(longer, 2, 0);
    longer.inject(opportunity(40, 0, "forward", 0, FaultTarget::weights), w);
    CHECK(error_pointer([&] { longer.finish(); }) == "/opportunities");
    FaultInjector exact(log);
    make_run(exact, 2, 0);
    CHECK_NOTHROW(exact.finish());
  }
  SUBCASE("a log whose entry lies outside its matrix is rejected up front") {
    FaultLog broken = log;
    broken.records[1].entries[0].index = 9;
    CHECK(error_pointer([&] { FaultInjector replayer(broken); }) == "/records/1/entries/0/index");
  }
}

TEST_CASE("a hand-written log without digests or counts replays") {
  FaultLog log;
  FaultRecord r;
  r.opportunity = 2;
  r.time_s = 1.0;
  r.node = 1;
  r.operation = "update";
  r.layer = 0;
  r.target = FaultTarget::weights;
  r.model = ValueModelKind::bitflip;
  r.rows = 2;
  r.cols = 2;
  r.entries = {{3, 62, bits_of(1.0), bits_of(std::numeric_limits<double>::infinity())}};
  log.records.push_back(r);
  FaultInjector replayer(log);
  Eigen::MatrixXd w = Eigen::MatrixXd::Ones(2, 2);
  CHECK(replayer.inject(opportunity(0.0, 0, "update", 0, FaultTarget::weights), w) == nullptr);
  CHECK(replayer.inject(opportunity(0.5, 1, "forward", 0, FaultTarget::weights), w) == nullptr);
  CHECK(replayer.inject(opportunity(1.0, 1, "update", 0, FaultTarget::weights), w) != nullptr);
  CHECK(replayer.inject(opportunity(1.5, 1, "update", 0, FaultTarget::weights), w) == nullptr);
  CHECK_NOTHROW(replayer.finish());
  CHECK(std::isinf(w(1, 1)));
  CHECK(w(0, 0) == 1.0);
}

TEST_CASE("a rate trace multiplies a node's strike hazard from its steps on") {
  // Node 1 turns mercurial at 10 s (x 200) and is cured at 20 s (x 0); node 0 is untraced.
  FaultConfig config = silent_config();
  config[FaultTarget::product].rate.probability_per_operation = 1e-3;
  config.rate_traces.assign(2, {});
  config.rate_traces[1].steps = {{10.0, 200.0}, {20.0, 0.0}};
  FaultInjector injector(config, 2, 7, 0);
  Eigen::MatrixXd data = Eigen::MatrixXd::Ones(2, 2);
  const auto strikes = [&](int node, double from_s, int trials) {
    int struck = 0;
    for (int i = 0; i < trials; ++i) {
      const double t = from_s + i * 1e-4;
      if (injector.inject(opportunity(t, node, "forward", 0, FaultTarget::product), data)) ++struck;
    }
    return struck;
  };
  const int trials = 5000;  // 0.5 s of opportunities
  check_rate(strikes(1, 0.0, trials), trials, 1e-3);
  check_rate(strikes(1, 10.0, trials), trials, 1.0 - std::pow(1.0 - 1e-3, 200.0));
  CHECK(strikes(1, 20.0, trials) == 0);
  check_rate(strikes(0, 10.0, trials), trials, 1e-3);
}
