// Laws of a scenario read and written by their families' name tables and their fields: a law is
// chosen by name, built as its variant alternative, and its fields read with std::visit.
#include "app/config/law_reader.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace codesim::app {
namespace {

/// How a scenario writes the laws of one family.
template <class Family>
struct FamilyFormat {
  std::string_view key;       ///< the field naming the law: "law" or "kind"
  std::string_view what;      ///< in unknown-key messages: "for failure law \"weibull\""
  std::string_view expected;  ///< in messages of the law's own rules
  bool never_allowed;         ///< fields that may be infinite are null for infinity
  std::string (*validate)(const Family& law);  ///< the law's own rules, "" when valid
};

const FamilyFormat<sim::FailureLaw> kFailureFormat{"law", "failure law", "a valid failure law",
                                                   true, &sim::validate};
const FamilyFormat<sim::RepairLaw> kRepairFormat{"law", "repair law", "a valid repair law", false,
                                                 &sim::validate};
const FamilyFormat<sim::StragglerSpec> kStragglerFormat{
    "kind", "straggler kind", "a valid straggler law", false, &sim::validate_straggler};

Range range_of(const sim::FieldRange& range) {
  return Range{range.min, range.min_open, range.max, range.max_open};
}

/// The alternative of Family at `index`, default-constructed.
template <class Family, std::size_t... I>
Family make_alternative(std::size_t index, std::index_sequence<I...>) {
  static constexpr std::array<Family (*)(), sizeof...(I)> kMake = {
      [] { return Family(std::in_place_index<I>); }...};
  return kMake[index]();
}

/// Reads the fields of `law`; with `defaults`, a missing field keeps the value `law` holds.
template <class Law>
void read_fields(ObjectReader& r, Law& law, bool defaults, bool never_allowed) {
  for (const sim::LawField<Law>& field : Law::fields()) {
    const std::optional<double> fallback =
        defaults ? std::optional<double>(law.*field.member) : std::nullopt;
    law.*field.member = field.null_is_never && never_allowed
                            ? r.number_or_infinity(field.key, fallback, range_of(field.range))
                            : r.number(field.key, fallback, range_of(field.range));
  }
}

/// Reads a law of Family: its name picks the alternative, whose fields are then read. Without
/// `defaults` the name and every field are required.
template <class Family>
Family read_law(ObjectReader& r, const FamilyFormat<Family>& format, const Family* defaults) {
  constexpr auto& names = sim::kLawNames<Family>;
  const std::optional<std::string> fallback =
      defaults != nullptr ? std::optional<std::string>(names[defaults->index()]) : std::nullopt;
  const std::string name = r.choice(format.key, fallback, names);
  r.set_unknown_key_note("for " + std::string(format.what) + " " + in_quotes(name));
  const auto index =
      static_cast<std::size_t>(std::find(names.begin(), names.end(), name) - names.begin());
  Family law =
      make_alternative<Family>(index, std::make_index_sequence<std::variant_size_v<Family>>());
  std::visit(
      [&](auto& chosen) {
        using Law = std::decay_t<decltype(chosen)>;
        if (defaults != nullptr) {
          if (const Law* inherited = std::get_if<Law>(defaults)) chosen = *inherited;
        }
        read_fields(r, chosen, defaults != nullptr, format.never_allowed);
      },
      law);
  const std::string problem = format.validate(law);
  if (!problem.empty()) r.fail("", with_expectation(problem, std::string(format.expected)));
  return law;
}

template <class Family>
Json write_law(const Family& law, const FamilyFormat<Family>& format) {
  Json out = Json::object();
  out[std::string(format.key)] = std::string(sim::kLawNames<Family>[law.index()]);
  std::visit(
      [&](const auto& chosen) {
        using Law = std::decay_t<decltype(chosen)>;
        for (const sim::LawField<Law>& field : Law::fields()) {
          const double value = chosen.*field.member;
          const bool never = field.null_is_never && format.never_allowed && std::isinf(value);
          out[std::string(field.key)] = never ? Json(nullptr) : Json(value);
        }
      },
      law);
  return out;
}

}  // namespace

sim::FailureLaw read_failure_law(ObjectReader& r) {
  return read_law<sim::FailureLaw>(r, kFailureFormat, nullptr);
}
sim::RepairLaw read_repair_law(ObjectReader& r) {
  return read_law<sim::RepairLaw>(r, kRepairFormat, nullptr);
}
sim::StragglerSpec read_straggler(ObjectReader& r, const sim::StragglerSpec& defaults) {
  return read_law(r, kStragglerFormat, &defaults);
}

Json law_json(const sim::FailureLaw& law) { return write_law(law, kFailureFormat); }
Json law_json(const sim::RepairLaw& law) { return write_law(law, kRepairFormat); }
Json law_json(const sim::StragglerSpec& law) { return write_law(law, kStragglerFormat); }

}  // namespace codesim::app
