// Name tables of the typed settings' enums: one std::array of names per enum, indexed by the
// enum's values, so that a kind's name is written in exactly one place.
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string_view>

namespace codesim::sim {

/// The name of `value` in `names` (the table of its enum, indexed by the enum's values).
template <typename Enum, std::size_t N>
constexpr std::string_view name_of(Enum value, const std::array<std::string_view, N>& names) {
  return names[static_cast<std::size_t>(value)];
}

/// The value named `name` in `names`, or nullopt when no value has that name.
template <typename Enum, std::size_t N>
constexpr std::optional<Enum> parse_name(std::string_view name,
                                         const std::array<std::string_view, N>& names) {
  for (std::size_t i = 0; i < N; ++i)
    if (names[i] == name) return static_cast<Enum>(i);
  return std::nullopt;
}

}  // namespace codesim::sim
