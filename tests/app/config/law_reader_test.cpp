// Every law of every family round-trips by the name in its family's table: what the writer gives,
// read from a scenario, picks the same law and resolves to the same JSON, so a law's name is
// written in one place only.
#include "app/config/law_reader.hpp"

#include <doctest/doctest.h>

#include <array>
#include <cmath>
#include <cstddef>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

#include "app/config/scenario_loader.hpp"

using codesim::app::Json;
using codesim::app::law_json;
using codesim::app::load_scenario;
using codesim::app::Scenario;
namespace sim = codesim::sim;

namespace {

/// A value `range` accepts, away from its bounds.
double inside(const sim::FieldRange& range) {
  if (std::isfinite(range.min) && std::isfinite(range.max)) return (range.min + range.max) / 2.0;
  if (std::isfinite(range.min)) return range.min + 1.5;
  return 0.5;
}

/// Calls check(law, index) for each law of Family, its every field set inside its range.
template <class Family, class Check>
void for_each_law(Check check) {
  [&]<std::size_t... I>(std::index_sequence<I...>) {
    (check(Family(std::in_place_index<I>), I), ...);
  }
  (std::make_index_sequence<std::variant_size_v<Family>>());
}
template <class Family>
Family with_fields_inside(Family law) {
  std::visit(
      [](auto& chosen) {
        using Law = std::decay_t<decltype(chosen)>;
        for (const sim::LawField<Law>& field : Law::fields())
          chosen.*field.member = inside(field.range);
      },
      law);
  return law;
}

/// The scenario whose cluster has `value` at `pointer` (e.g. "/cluster/crashes/failure").
Scenario load_with(const std::string& pointer, const Json& value) {
  Json document = Json::parse(R"({
    "cluster": {"nodes": 4, "crashes": {}},
    "workload": {"kind": "iterative_job", "iterations": 5}
  })");
  document[Json::json_pointer(pointer)] = value;
  return load_scenario(document, "s.json");
}

template <std::size_t N>
bool distinct(const std::array<std::string_view, N>& names) {
  return std::set<std::string_view>(names.begin(), names.end()).size() == N;
}

}  // namespace

TEST_CASE(
    "every failure law round-trips by its table name through the reader and the resolved "
    "scenario") {
  CHECK(distinct(sim::kFailureLawNames));
  for_each_law<sim::FailureLaw>([](const sim::FailureLaw& law, std::size_t index) {
    const Json written = law_json(with_fields_inside(law));
    INFO(written.dump());
    CHECK(written["law"].get<std::string>() == sim::kFailureLawNames[index]);
    const Scenario s = load_with("/cluster/crashes/failure", written);
    const sim::FailureLaw& read = s.cluster.crashes[0].failure;
    CHECK(read.index() == index);
    CHECK(sim::law_name(read) == sim::kFailureLawNames[index]);
    CHECK(s.resolved["cluster"]["crashes"]["failure"] == written);
    CHECK(law_json(read) == written);
  });
}

TEST_CASE(
    "every repair law round-trips by its table name through the reader and the resolved "
    "scenario") {
  CHECK(distinct(sim::kRepairLawNames));
  for_each_law<sim::RepairLaw>([](const sim::RepairLaw& law, std::size_t index) {
    const Json written = law_json(with_fields_inside(law));
    INFO(written.dump());
    CHECK(written["law"].get<std::string>() == sim::kRepairLawNames[index]);
    const Scenario s = load_with("/cluster/crashes/repair", written);
    const sim::RepairLaw& read = s.cluster.crashes[0].repair;
    CHECK(read.index() == index);
    CHECK(sim::law_name(read) == sim::kRepairLawNames[index]);
    CHECK(s.resolved["cluster"]["crashes"]["repair"] == written);
    CHECK(law_json(read) == written);
  });
}

TEST_CASE(
    "every straggler law round-trips by its table name through the reader and the resolved "
    "scenario") {
  CHECK(distinct(sim::kStragglerNames));
  for_each_law<sim::StragglerSpec>([](const sim::StragglerSpec& law, std::size_t index) {
    const Json written = law_json(with_fields_inside(law));
    INFO(written.dump());
    CHECK(written["kind"].get<std::string>() == sim::kStragglerNames[index]);
    const Scenario s = load_with("/cluster/stragglers", written);
    const sim::StragglerSpec& read = s.cluster.stragglers[0];
    CHECK(read.index() == index);
    CHECK(sim::law_name(read) == sim::kStragglerNames[index]);
    CHECK(s.resolved["cluster"]["stragglers"] == written);
    CHECK(law_json(read) == written);
  });
}

TEST_CASE("an exponential failure law that never fires is written null and read back as never") {
  const Json written = law_json(sim::FailureLaw{sim::ExponentialLaw{}});
  CHECK(written == Json::parse(R"({"law": "exponential", "mean_s": null})"));
  const Scenario s = load_with("/cluster/crashes/failure", written);
  CHECK(std::isinf(sim::mean_s(s.cluster.crashes[0].failure)));
  CHECK(s.resolved["cluster"]["crashes"]["failure"] == written);
}
