// Value models: what a soft error does to the numbers of a matrix (IEEE-754 bit flips, sparse
// additive noise, random replacement, Gaussian noise, stuck-at-zero), with a record per change.
#pragma once

#include <Eigen/Dense>
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/random_stream.hpp"

namespace codesim::models {

/// Floating-point format of the data a fault strikes.
enum class ScalarType { float64, float32 };

/// What a fault does to each chosen entry.
///   bitflip:         flip `bits` distinct bits of the entry's IEEE-754 representation;
///   sparse_additive: add U(-magnitude, +magnitude) (the CodeNet experiment's model);
///   random_value:    replace by U(lo, hi);
///   gaussian:        add N(0, sigma^2);
///   stuck_at_zero:   replace by +0.0.
enum class ValueModelKind { bitflip, sparse_additive, random_value, gaussian, stuck_at_zero };

/// Bits a bitflip may choose from: all of them, or the sign, exponent or mantissa field
/// (float64: 63 / 52-62 / 0-51; float32: 31 / 23-30 / 0-22). Bit 0 is the least significant.
enum class BitField { any, sign, exponent, mantissa };

inline constexpr std::array<std::string_view, 5> kValueModelKindNames = {
    "bitflip", "sparse_additive", "random_value", "gaussian", "stuck_at_zero"};
inline constexpr std::array<std::string_view, 4> kBitFieldNames = {"any", "sign", "exponent",
                                                                   "mantissa"};
inline constexpr std::array<std::string_view, 2> kScalarTypeNames = {"float64", "float32"};

std::string_view to_string(ValueModelKind kind);
std::string_view to_string(BitField field);
std::string_view to_string(ScalarType scalar);
std::optional<ValueModelKind> parse_value_model_kind(std::string_view name);
std::optional<BitField> parse_bit_field(std::string_view name);
std::optional<ScalarType> parse_scalar_type(std::string_view name);

/// Width of a scalar type's representation in bits (64 or 32).
int bit_width(ScalarType scalar);

/// Parameters of one value model. Every kind first chooses entries, uniformly without
/// replacement: `entries` of them when entries > 0 (at most all), else round(density * size),
/// at least 1 when density > 0 (scipy.sparse.rand's count, which the CodeNet code uses, plus the
/// at-least-one rule so a strike on a small block always does something).
struct ValueModelSpec {
  ValueModelKind kind = ValueModelKind::sparse_additive;
  std::int64_t entries = 0;  ///< fixed count of entries struck; 0 = use density
  double density = 0.005;    ///< fraction of entries struck when entries == 0, in [0, 1]
  // bitflip
  int bits = 1;  ///< distinct bits flipped per chosen entry, >= 1
  BitField field = BitField::any;
  std::vector<int> bit_list;  ///< when non-empty: bits are drawn from these positions only
  // sparse_additive
  double magnitude = 5.0;  ///< half-width of the added U(-magnitude, +magnitude), >= 0 (0 adds 0)
  // random_value
  double lo = -5.0;  ///< replacement values are U(lo, hi), lo < hi
  double hi = 5.0;
  // gaussian
  double sigma = 1.0;  ///< standard deviation of the added noise, >= 0
};

/// The documented defaults of `kind`: ValueModelSpec{} with that kind, except that bitflip
/// strikes one entry (entries = 1) instead of a density.
ValueModelSpec value_model_defaults(ValueModelKind kind);
/// Empty when `spec` is usable on data of `scalar`, else what is wrong.
std::string validate_value_model(const ValueModelSpec& spec,
                                 ScalarType scalar = ScalarType::float64);
/// Number of entries `spec` corrupts in a block of `size` entries.
std::int64_t entries_to_corrupt(const ValueModelSpec& spec, std::int64_t size);
/// Bit positions a bitflip of `spec` draws from for `scalar`, ascending.
std::vector<int> allowed_bits(const ValueModelSpec& spec, ScalarType scalar);

/// One change to one entry. A bitflip of k bits gives k consecutive changes of the same entry,
/// each `old_bits` equal to the previous `new_bits`.
struct FaultEntry {
  std::int64_t index = 0;      ///< column-major linear index: col * rows + row
  int bit = -1;                ///< flipped bit (0 = least significant), -1 for other models
  std::uint64_t old_bits = 0;  ///< IEEE-754 pattern before (float32 patterns in the low 32 bits)
  std::uint64_t new_bits = 0;  ///< IEEE-754 pattern after

  friend bool operator==(const FaultEntry&, const FaultEntry&) = default;
};

/// The IEEE-754 pattern of a value (std::bit_cast; float32 in the low 32 bits).
std::uint64_t bits_of(double value);
std::uint64_t bits_of(float value);
/// The value of a pattern of `scalar`, widened to double (exact except that a float32
/// signalling NaN may come back quiet; keep the bits when that matters).
double value_of_bits(std::uint64_t bits, ScalarType scalar);
/// Whether a pattern of `scalar` is a NaN / an infinity (decided on the bits).
bool is_nan_bits(std::uint64_t bits, ScalarType scalar);
bool is_inf_bits(std::uint64_t bits, ScalarType scalar);

/// Applies `spec` to `data` with draws from `stream` and returns the changes in the order made
/// (entries ascending; a bitflip's bits ascending within an entry). Precondition:
/// validate_value_model(spec, scalar of data) is empty.
std::vector<FaultEntry> apply_value_model(const ValueModelSpec& spec,
                                          Eigen::Ref<Eigen::MatrixXd> data,
                                          sim::RandomStream& stream);
std::vector<FaultEntry> apply_value_model(const ValueModelSpec& spec,
                                          Eigen::Ref<Eigen::MatrixXf> data,
                                          sim::RandomStream& stream);

/// `count` distinct integers drawn uniformly from [0, n), ascending (Floyd's algorithm: exactly
/// `count` draws). Precondition: 0 <= count <= n.
std::vector<std::int64_t> choose_without_replacement(std::int64_t n, std::int64_t count,
                                                     sim::RandomStream& stream);

}  // namespace codesim::models
