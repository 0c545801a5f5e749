// Fault targets: paper defaults, per-node overrides that touch only the named nodes, validation,
// and the strike law shared with the engine's soft-error process.
#include "models/faults/fault_targets.hpp"

#include <doctest/doctest.h>

#include <cmath>

#include "sim/soft_error_process.hpp"

using namespace codesim::models;
using codesim::sim::SoftErrorSpec;

TEST_CASE("the default configuration strikes only weights, at the papers' epsilon") {
  const FaultConfig config = default_fault_config();
  CHECK(config[FaultTarget::weights].rate.probability_per_operation == 3e-4);
  CHECK(config[FaultTarget::weights].rate.rate_per_flop == 0.0);
  for (const FaultTarget t :
       {FaultTarget::product, FaultTarget::activation, FaultTarget::decode, FaultTarget::update}) {
    CAPTURE(to_string(t));
    CHECK(is_disabled(config[t].rate));
  }
  for (const FaultTargetSpec& target : config.targets) {
    CHECK(target.model.kind == ValueModelKind::sparse_additive);
    CHECK(target.model.density == 0.005);
    CHECK(target.model.magnitude == 5.0);
  }
  CHECK(validate_fault_config(config, 38).empty());
  CHECK(config.overrides.empty());
}

TEST_CASE("per-node overrides apply only to the named nodes and targets; later ones win") {
  FaultConfig config = default_fault_config();
  config.overrides.push_back({{1, 4}, FaultTarget::weights, {0.2, 0.0}});
  config.overrides.push_back({{4}, FaultTarget::weights, {0.5, 1e-9}});
  config.overrides.push_back({{2}, FaultTarget::product, {0.1, 0.0}});
  REQUIRE(validate_fault_config(config, 6).empty());
  const std::vector<NodeFaultRates> rates = resolve_fault_rates(config, 6);
  REQUIRE(rates.size() == 6);
  auto weights = [&](int node) {
    return rates[static_cast<std::size_t>(node)][static_cast<std::size_t>(FaultTarget::weights)];
  };
  auto product = [&](int node) {
    return rates[static_cast<std::size_t>(node)][static_cast<std::size_t>(FaultTarget::product)];
  };
  CHECK(weights(1).probability_per_operation == 0.2);
  CHECK(weights(4).probability_per_operation == 0.5);
  CHECK(weights(4).rate_per_flop == 1e-9);
  for (const int node : {0, 2, 3, 5}) {
    CAPTURE(node);
    CHECK(weights(node).probability_per_operation == 3e-4);
    CHECK(weights(node).rate_per_flop == 0.0);
  }
  CHECK(product(2).probability_per_operation == 0.1);
  for (const int node : {0, 1, 3, 4, 5}) CHECK(is_disabled(product(node)));
  for (const NodeFaultRates& node : rates) {
    CHECK(is_disabled(node[static_cast<std::size_t>(FaultTarget::decode)]));
  }
}

TEST_CASE("invalid fault configurations are rejected with a reason") {
  FaultConfig config = default_fault_config();
  config.overrides.push_back({{6}, FaultTarget::weights, {0.1, 0.0}});
  CHECK(validate_fault_config(config, 6).find("node 6 does not exist") != std::string::npos);
  config.overrides.back().nodes.clear();
  CHECK(validate_fault_config(config, 6).find("lists no nodes") != std::string::npos);
  config.overrides.back() = {{0}, FaultTarget::weights, {1.5, 0.0}};
  CHECK(validate_fault_config(config, 6).find("probability_per_operation") != std::string::npos);
  config = default_fault_config();
  config[FaultTarget::decode].rate.rate_per_flop = -1.0;
  CHECK(validate_fault_config(config, 6).find("target decode") != std::string::npos);
  config = default_fault_config();
  config[FaultTarget::update].model.density = 0.0;
  CHECK(validate_fault_config(config, 6).find("target update: value model") != std::string::npos);
}

TEST_CASE("the strike probability follows the engine's soft-error law") {
  const std::vector<SoftErrorSpec> specs = {{0.1, 0.0}, {0.0, 1e-9}, {0.1, 1e-9}, {3e-4, 2e-12}};
  codesim::sim::SoftErrorProcess process(specs, 1, 0);
  for (std::size_t i = 0; i < specs.size(); ++i) {
    for (const double flops : {0.0, 1e3, 1e8, 1e12}) {
      CAPTURE(i);
      CAPTURE(flops);
      CHECK(strike_probability(specs[i], flops) ==
            process.strike_probability(static_cast<int>(i), flops));
    }
  }
  // 1 - (1 - 0.1) e^(-0.1) = 0.1856463
  CHECK(strike_probability({0.1, 1e-9}, 1e8) == doctest::Approx(0.1856463).epsilon(1e-6));
  CHECK(strike_probability({0.0, 1e-20}, 1e3) == doctest::Approx(1e-17).epsilon(1e-9));
}

TEST_CASE("target names round-trip") {
  for (int t = 0; t < kFaultTargetCount; ++t) {
    const auto target = static_cast<FaultTarget>(t);
    CHECK(parse_fault_target(to_string(target)) == target);
  }
  CHECK(!parse_fault_target("weight").has_value());
}
