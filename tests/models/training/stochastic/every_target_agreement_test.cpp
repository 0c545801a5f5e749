// The stochastic mode against the numeric mode, fault target by fault target (activation, decode
// and update; weights and products: stochastic_training_test.cpp), for every scheme family and
// both decodings where they differ: rollbacks, corrected and detected decodes per replica.
//
// The test: per metric a two-sample z of the replicas' means, |mean_n - mean_s| /
// sqrt(var_n / R + var_s / R), below 3.5, where the numeric mode counts at least 30 events over
// the replicas (below that the metric is not judged); every point judges rollbacks or corrections
// on at least 30 events. Sigmoid hidden units: neither mode's ReLU hides a perturbed entry, which
// the stochastic mode does not model (strike_reach.hpp). A value model that changes every entry,
// and one that changes a single entry, which reaches only the nodes that read its row.
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include "models/training/train.hpp"
#include "tests/models/training/coded_training_test_support.hpp"

using namespace codesim;
using namespace codesim::models;

namespace {

struct Family {
  const char* name;
  SchemeSpec scheme;
  int nodes;
};

std::vector<Family> families() {
  std::vector<Family> out;
  for (const char* kind : {"uncoded", "replication", "replication3", "mds", "gpd", "codenet_grid",
                           "abft", "abft_codenet"}) {
    const SchemeSpec s = testing::scheme(kind);
    out.push_back({kind, s, summarize_scheme(s).nodes});
  }
  return out;
}

TrainingSpec training(const SchemeSpec& scheme, bool decentralized,
                      bool first_layer_backward = false) {
  TrainingSpec t;
  t.first_layer_backward = first_layer_backward;
  t.mlp.layer_sizes = {8, 12, 12, 4};
  t.mlp.hidden_activation = Activation::sigmoid;
  t.sgd.learning_rate = 0.01;
  t.scheme = scheme;
  t.iterations = 120;
  t.decentralized = decentralized;
  return t;
}

ValueModelSpec every_entry() {
  ValueModelSpec model = value_model_defaults(ValueModelKind::gaussian);
  model.density = 1.0;
  return model;
}

FaultConfig only(FaultTarget target, double probability, const ValueModelSpec& model) {
  FaultConfig faults = fault_free_config();
  faults[target].rate.probability_per_operation = probability;
  faults[target].model = model;
  return faults;
}

struct Sample {
  double sum = 0.0;
  double squares = 0.0;
  void add(double x) {
    sum += x;
    squares += x * x;
  }
  double mean(int n) const { return sum / n; }
  double variance(int n) const {
    const double m = mean(n);
    return n > 1 ? std::max(0.0, (squares - n * m * m) / (n - 1)) : 0.0;
  }
};

constexpr double kMaxZ = 3.5;
constexpr double kMinEvents = 30.0;

// Runs both modes for `replicas` replicas and judges every metric with enough events; returns
// the events of rollbacks and corrections the numeric mode counted.
double check_agreement(const Family& f, FaultTarget target, double probability, bool decentralized,
                       int replicas, const ValueModelSpec& model = every_entry(),
                       bool first_layer_backward = false) {
  const TrainingSpec spec = training(f.scheme, decentralized, first_layer_backward);
  const FaultConfig faults = only(target, probability, model);
  const sim::ClusterSpec cluster = sim::uniform_cluster(f.nodes, 1e9);
  const sim::CheckpointSpec checkpoint = testing::every(5, 1e-3, 2e-3);
  const std::vector<const char*> names = {"rollbacks", "corrected", "detected"};
  std::vector<Sample> numeric(names.size());
  std::vector<Sample> stochastic(names.size());
  for (int r = 0; r < replicas; ++r) {
    const auto replica = static_cast<std::uint64_t>(r);
    const sim::MetricSet a = run_coded_training(
        cluster, checkpoint, spec, faults, testing::data().train, testing::data().test, 3, replica);
    const sim::MetricSet b = run_stochastic_training(cluster, checkpoint, spec, faults, 3, replica);
    for (std::size_t i = 0; i < names.size(); ++i) {
      numeric[i].add(a.get(names[i]));
      stochastic[i].add(b.get(names[i]));
    }
  }
  for (std::size_t i = 0; i < names.size(); ++i) {
    const double n = numeric[i].sum;
    const double s = stochastic[i].sum;
    const std::string what = std::string(f.name) + " " + std::string(to_string(target)) + " at " +
                             std::to_string(probability) +
                             (decentralized ? " decentralized: " : " centralized: ") + names[i] +
                             " numeric " + std::to_string(n) + ", stochastic " + std::to_string(s);
    INFO(what);
    if (n < kMinEvents && s < kMinEvents) continue;
    const double error =
        std::sqrt((numeric[i].variance(replicas) + stochastic[i].variance(replicas)) / replicas);
    const double z =
        std::abs(numeric[i].mean(replicas) - stochastic[i].mean(replicas)) / std::max(error, 1e-12);
    CHECK(z < kMaxZ);
  }
  return numeric[0].sum + numeric[1].sum;
}

void check_target(FaultTarget target, const std::vector<double>& rates, bool both_decodings) {
  for (const Family& f : families()) {
    for (double p : rates) {
      for (bool decentralized : {true, false}) {
        if (!decentralized && !both_decodings) continue;
        const double events = check_agreement(f, target, p, decentralized, 16);
        const std::string what =
            std::string(f.name) + " " + std::string(to_string(target)) + " at " + std::to_string(p);
        INFO(what);
        // Uncoded and abft see nothing of a wrong copy, and no scheme sees a wrong decode that
        // every node shares (centralized): silent, no events to judge there.
        const bool blind = std::string(f.name) == "uncoded" ||
                           (std::string(f.name) == "abft" && target != FaultTarget::update) ||
                           !decentralized;
        if (!blind) CHECK(events >= kMinEvents);
      }
    }
  }
}

}  // namespace

TEST_CASE("stochastic and numeric modes agree under activation strikes, for every scheme family") {
  check_target(FaultTarget::activation, {2e-3, 4e-3, 8e-3}, false);
}

TEST_CASE("stochastic and numeric modes agree under decode strikes, decentralized and central") {
  check_target(FaultTarget::decode, {2e-3, 4e-3, 8e-3}, true);
}

TEST_CASE("stochastic and numeric modes agree under update strikes, for every scheme family") {
  check_target(FaultTarget::update, {2e-3, 4e-3, 8e-3}, false);
}

TEST_CASE("a strike on one entry of a copy reaches only the nodes that read its row") {
  // One entry of a 12-row vector: a 2 x 2 split's node reads 6 rows of it (replication, the
  // CodeNet grid, abft_codenet), a GPD node every row (its input is encoded).
  ValueModelSpec one = value_model_defaults(ValueModelKind::gaussian);
  one.entries = 1;
  for (const Family& f : families()) {
    const std::string name = f.name;
    if (name != "replication" && name != "codenet_grid" && name != "abft_codenet" && name != "gpd")
      continue;
    for (FaultTarget target : {FaultTarget::activation, FaultTarget::decode}) {
      const double events = check_agreement(f, target, 8e-3, true, 16, one);
      const std::string what = name + " " + std::string(to_string(target));
      INFO(what);
      CHECK(events >= kMinEvents);
    }
  }
}

TEST_CASE("with the first layer's backward product the modes agree under every target") {
  // Layer 0's backward round reads the column blocks and delta_0's copies within the iteration;
  // its decoded c_0 is dropped, so a strike on it reaches nothing in either mode.
  for (const Family& f : families()) {
    if (std::string(f.name) == "uncoded" || std::string(f.name) == "abft") continue;  // blind
    for (FaultTarget target : {FaultTarget::weights, FaultTarget::activation, FaultTarget::decode,
                               FaultTarget::update}) {
      const double events = check_agreement(f, target, target == FaultTarget::weights ? 3e-3 : 2e-3,
                                            true, 16, every_entry(), true);
      const std::string what = std::string(f.name) + " " + std::string(to_string(target));
      INFO(what);
      if (target != FaultTarget::decode) CHECK(events >= kMinEvents);
    }
  }
}
