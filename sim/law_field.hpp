// What every law of a family (failure, repair, straggler) says of itself: its name and the fields
// a scenario gives it. A family is a std::variant of one struct per law; its name table is built
// from the alternatives' names, so a law's name and fields are written once, beside the law.
#pragma once

#include <array>
#include <concepts>
#include <cstddef>
#include <limits>
#include <span>
#include <string_view>
#include <variant>

namespace codesim::sim {

/// The values a field accepts; an open bound is excluded. Readers check it before the law's own
/// rules (which may say more: finiteness, relations between fields).
struct FieldRange {
  double min = -std::numeric_limits<double>::infinity();
  bool min_open = false;
  double max = std::numeric_limits<double>::infinity();
  bool max_open = false;

  static constexpr FieldRange any() { return {}; }
  static constexpr FieldRange at_least(double min) { return {.min = min}; }
  static constexpr FieldRange above(double min) { return {.min = min, .min_open = true}; }
  static constexpr FieldRange within(double min, double max) { return {.min = min, .max = max}; }
};

/// One parameter of `Law`: its scenario key, the member that holds it, its range.
template <class Law>
struct LawField {
  std::string_view key;
  double Law::*member;
  FieldRange range;
  /// The field may be infinite ("never"), written null in a scenario, where the family allows
  /// it (failure laws: a node that never fails); elsewhere it is an ordinary number.
  bool null_is_never = false;
};

/// A law of a family: a plain struct with its scenario name and its fields.
template <class Law>
concept NamedLaw = requires {
  { Law::name } -> std::convertible_to<std::string_view>;
  std::span<const LawField<Law>>(Law::fields());
};

/// The name table of a family: the alternatives' names, indexed as the variant.
template <class Family>
struct LawNames;
template <NamedLaw... Laws>
struct LawNames<std::variant<Laws...>> {
  static constexpr std::array<std::string_view, sizeof...(Laws)> value = {Laws::name...};
};
template <class Family>
inline constexpr auto kLawNames = LawNames<Family>::value;

}  // namespace codesim::sim
