// Value models: entry selection, IEEE-754 bit flips through std::bit_cast, additive and
// replacement corruptions, for float64 and float32 data.
#include "models/faults/value_model.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <set>
#include <type_traits>

#include "sim/check.hpp"

namespace codesim::models {

namespace {

/// Largest finite double: a uniform range must not be wider.
constexpr double kMaxSpan = std::numeric_limits<double>::max();

template <typename Enum, std::size_t N>
std::optional<Enum> parse_name(std::string_view name,
                               const std::array<std::string_view, N>& names) {
  for (std::size_t i = 0; i < N; ++i)
    if (names[i] == name) return static_cast<Enum>(i);
  return std::nullopt;
}

/// Unsigned integer of the same width as T.
template <typename T>
using BitsOf = std::conditional_t<sizeof(T) == 8, std::uint64_t, std::uint32_t>;

template <typename T>
constexpr ScalarType scalar_of() {
  return sizeof(T) == 8 ? ScalarType::float64 : ScalarType::float32;
}

/// Applies a value model to a matrix of T (double or float).
template <typename T>
std::vector<FaultEntry> apply(const ValueModelSpec& spec,
                              Eigen::Ref<Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>> data,
                              sim::RandomStream& stream) {
  constexpr ScalarType scalar = scalar_of<T>();
  CODESIM_CHECK(validate_value_model(spec, scalar).empty(), "invalid value model");
  const Eigen::Index rows = data.rows();
  const std::int64_t size = static_cast<std::int64_t>(data.size());
  const std::vector<std::int64_t> chosen =
      choose_without_replacement(size, entries_to_corrupt(spec, size), stream);
  const std::vector<int> positions =
      spec.kind == ValueModelKind::bitflip ? allowed_bits(spec, scalar) : std::vector<int>{};

  std::vector<FaultEntry> changes;
  changes.reserve(chosen.size() * (spec.kind == ValueModelKind::bitflip ? spec.bits : 1));
  for (const std::int64_t index : chosen) {
    T& value =
        data(static_cast<Eigen::Index>(index % rows), static_cast<Eigen::Index>(index / rows));
    if (spec.kind == ValueModelKind::bitflip) {
      const std::vector<std::int64_t> picks = choose_without_replacement(
          static_cast<std::int64_t>(positions.size()), spec.bits, stream);
      for (const std::int64_t pick : picks) {
        const int bit = positions[static_cast<std::size_t>(pick)];
        const BitsOf<T> before = std::bit_cast<BitsOf<T>>(value);
        const BitsOf<T> after = before ^ (BitsOf<T>{1} << bit);
        value = std::bit_cast<T>(after);
        changes.push_back({index, bit, before, after});
      }
      continue;
    }
    const BitsOf<T> before = std::bit_cast<BitsOf<T>>(value);
    switch (spec.kind) {
      case ValueModelKind::sparse_additive:
        // Boost's uniform_real_distribution never returns for an empty range, so magnitude 0
        // adds 0 without a draw.
        if (spec.magnitude > 0.0) {
          value += static_cast<T>(stream.uniform(-spec.magnitude, spec.magnitude));
        }
        break;
      case ValueModelKind::random_value:
        value = static_cast<T>(stream.uniform(spec.lo, spec.hi));
        break;
      case ValueModelKind::gaussian:
        value += static_cast<T>(stream.normal(0.0, spec.sigma));
        break;
      case ValueModelKind::stuck_at_zero:
        value = T{0};
        break;
      case ValueModelKind::bitflip:
        break;
    }
    changes.push_back({index, -1, before, std::bit_cast<BitsOf<T>>(value)});
  }
  return changes;
}

}  // namespace

std::string_view to_string(ValueModelKind kind) {
  return kValueModelKindNames[static_cast<std::size_t>(kind)];
}
std::string_view to_string(BitField field) {
  return kBitFieldNames[static_cast<std::size_t>(field)];
}
std::string_view to_string(ScalarType scalar) {
  return kScalarTypeNames[static_cast<std::size_t>(scalar)];
}
std::optional<ValueModelKind> parse_value_model_kind(std::string_view name) {
  return parse_name<ValueModelKind>(name, kValueModelKindNames);
}
std::optional<BitField> parse_bit_field(std::string_view name) {
  return parse_name<BitField>(name, kBitFieldNames);
}
std::optional<ScalarType> parse_scalar_type(std::string_view name) {
  return parse_name<ScalarType>(name, kScalarTypeNames);
}

int bit_width(ScalarType scalar) { return scalar == ScalarType::float64 ? 64 : 32; }

ValueModelSpec value_model_defaults(ValueModelKind kind) {
  ValueModelSpec spec;
  spec.kind = kind;
  if (kind == ValueModelKind::bitflip) spec.entries = 1;
  return spec;
}

std::string validate_value_model(const ValueModelSpec& spec, ScalarType scalar) {
  if (spec.entries < 0) return "entries must be >= 0";
  if (!(spec.density >= 0.0 && spec.density <= 1.0)) return "density must be in [0, 1]";
  if (spec.entries == 0 && spec.density == 0.0) {
    return "a fault would change nothing: entries is 0 and density is 0";
  }
  switch (spec.kind) {
    case ValueModelKind::bitflip: {
      const int width = bit_width(scalar);
      for (std::size_t i = 0; i < spec.bit_list.size(); ++i) {
        const int bit = spec.bit_list[i];
        if (bit < 0 || bit >= width) {
          return "bit_list holds bit " + std::to_string(bit) + ", outside [0, " +
                 std::to_string(width - 1) + "] for " + std::string(to_string(scalar));
        }
        if (std::find(spec.bit_list.begin(), spec.bit_list.begin() + static_cast<long>(i), bit) !=
            spec.bit_list.begin() + static_cast<long>(i)) {
          return "bit_list holds bit " + std::to_string(bit) + " twice";
        }
      }
      if (!spec.bit_list.empty() && spec.field != BitField::any) {
        return "both field and bit_list are given; give one";
      }
      if (spec.bits < 1) return "bits must be >= 1";
      const std::size_t available = allowed_bits(spec, scalar).size();
      if (static_cast<std::size_t>(spec.bits) > available) {
        return "bits = " + std::to_string(spec.bits) + " but only " + std::to_string(available) +
               " bit positions are allowed";
      }
      return "";
    }
    case ValueModelKind::sparse_additive:
      if (!(spec.magnitude >= 0.0 && spec.magnitude <= kMaxSpan / 2)) {
        return "magnitude must be in [0, 8.9e307]";
      }
      return "";
    case ValueModelKind::random_value:
      if (!(std::isfinite(spec.lo) && std::isfinite(spec.hi) && spec.lo < spec.hi &&
            std::isfinite(spec.hi - spec.lo))) {
        return "random_value needs finite lo < hi with a finite hi - lo";
      }
      return "";
    case ValueModelKind::gaussian:
      if (!(spec.sigma >= 0.0 && std::isfinite(spec.sigma))) return "sigma must be finite and >= 0";
      return "";
    case ValueModelKind::stuck_at_zero:
      return "";
  }
  return "unknown value model kind";
}

std::int64_t entries_to_corrupt(const ValueModelSpec& spec, std::int64_t size) {
  CODESIM_CHECK(size >= 0, "block size must be >= 0");
  if (size == 0) return 0;
  if (spec.entries > 0) return std::min(spec.entries, size);
  if (spec.density <= 0.0) return 0;
  const auto rounded =
      static_cast<std::int64_t>(std::llround(spec.density * static_cast<double>(size)));
  return std::clamp<std::int64_t>(rounded, 1, size);
}

std::vector<int> allowed_bits(const ValueModelSpec& spec, ScalarType scalar) {
  std::vector<int> bits;
  if (!spec.bit_list.empty()) {
    bits = spec.bit_list;
    std::sort(bits.begin(), bits.end());
    return bits;
  }
  const int width = bit_width(scalar);
  const int mantissa_bits = scalar == ScalarType::float64 ? 52 : 23;
  int first = 0;
  int last = width - 1;
  switch (spec.field) {
    case BitField::any:
      break;
    case BitField::sign:
      first = width - 1;
      break;
    case BitField::exponent:
      first = mantissa_bits;
      last = width - 2;
      break;
    case BitField::mantissa:
      last = mantissa_bits - 1;
      break;
  }
  for (int b = first; b <= last; ++b) bits.push_back(b);
  return bits;
}

std::uint64_t bits_of(double value) { return std::bit_cast<std::uint64_t>(value); }
std::uint64_t bits_of(float value) { return std::bit_cast<std::uint32_t>(value); }

double value_of_bits(std::uint64_t bits, ScalarType scalar) {
  if (scalar == ScalarType::float64) return std::bit_cast<double>(bits);
  return static_cast<double>(std::bit_cast<float>(static_cast<std::uint32_t>(bits)));
}

bool is_nan_bits(std::uint64_t bits, ScalarType scalar) {
  if (scalar == ScalarType::float64) return std::isnan(std::bit_cast<double>(bits));
  return std::isnan(std::bit_cast<float>(static_cast<std::uint32_t>(bits)));
}

bool is_inf_bits(std::uint64_t bits, ScalarType scalar) {
  if (scalar == ScalarType::float64) return std::isinf(std::bit_cast<double>(bits));
  return std::isinf(std::bit_cast<float>(static_cast<std::uint32_t>(bits)));
}

std::vector<FaultEntry> apply_value_model(const ValueModelSpec& spec,
                                          Eigen::Ref<Eigen::MatrixXd> data,
                                          sim::RandomStream& stream) {
  return apply<double>(spec, data, stream);
}

std::vector<FaultEntry> apply_value_model(const ValueModelSpec& spec,
                                          Eigen::Ref<Eigen::MatrixXf> data,
                                          sim::RandomStream& stream) {
  return apply<float>(spec, data, stream);
}

std::vector<std::int64_t> choose_without_replacement(std::int64_t n, std::int64_t count,
                                                     sim::RandomStream& stream) {
  CODESIM_CHECK(count >= 0 && count <= n, "cannot choose more entries than there are");
  std::vector<std::int64_t> chosen;
  chosen.reserve(static_cast<std::size_t>(count));
  // Floyd: for j = n - count .. n - 1 draw t in [0, j]; take t, or j when t is already taken.
  // Membership lives in a bitmap when the sample is a sizeable share of n, else in a set; both
  // see the same draws, so the choice does not depend on the structure.
  if (count > n / 16) {
    std::vector<bool> taken(static_cast<std::size_t>(n), false);
    for (std::int64_t j = n - count; j < n; ++j) {
      const std::int64_t t = stream.uniform_int(0, j);
      const std::int64_t pick = taken[static_cast<std::size_t>(t)] ? j : t;
      taken[static_cast<std::size_t>(pick)] = true;
    }
    for (std::int64_t i = 0; i < n; ++i)
      if (taken[static_cast<std::size_t>(i)]) chosen.push_back(i);
    return chosen;
  }
  std::set<std::int64_t> taken;
  for (std::int64_t j = n - count; j < n; ++j) {
    const std::int64_t t = stream.uniform_int(0, j);
    taken.insert(taken.count(t) != 0 ? j : t);
  }
  chosen.assign(taken.begin(), taken.end());
  return chosen;
}

}  // namespace codesim::models
