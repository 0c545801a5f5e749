// The fault log: one plain record per injected fault (when, where, what it changed), its summary,
// its consistency checks and the digest that ties a log to its run's sequence of opportunities.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "models/faults/fault_targets.hpp"
#include "models/faults/value_model.hpp"

namespace codesim::models {

/// One injected fault.
struct FaultRecord {
  std::uint64_t opportunity = 0;  ///< 0-based position in the run's sequence of opportunities
  double time_s = 0.0;            ///< simulated time of the opportunity, finite
  int node = 0;
  std::string operation;  ///< "forward", "backward", "update", ... (non-empty)
  int layer = -1;         ///< layer index, -1 when the operation belongs to no layer
  FaultTarget target = FaultTarget::weights;
  ValueModelKind model = ValueModelKind::sparse_additive;
  ScalarType scalar = ScalarType::float64;
  std::int64_t rows = 0;  ///< shape of the matrix struck
  std::int64_t cols = 0;
  /// Digest of the opportunities 0..opportunity (see extend_digest); absent in hand-written logs.
  std::optional<std::uint64_t> sequence_digest;
  std::vector<FaultEntry> entries;  ///< in the order applied

  friend bool operator==(const FaultRecord&, const FaultRecord&) = default;
};

/// Every fault of one run (one replica), in opportunity order.
struct FaultLog {
  /// Seed and replica of the run that recorded the log (a replay must use the same ones for its
  /// other random streams); absent in hand-written logs.
  std::optional<std::uint64_t> seed;
  std::optional<std::uint64_t> replica;
  /// Opportunities the run offered in all; absent when unknown (a hand-written log).
  std::optional<std::uint64_t> opportunities;
  /// Digest of all of them; absent when unknown.
  std::optional<std::uint64_t> sequence_digest;
  std::vector<FaultRecord> records;

  friend bool operator==(const FaultLog&, const FaultLog&) = default;
};

/// Counts over a log. A value is counted once per changed entry, at its final state (a bitflip
/// of k bits counts its entry once, after the k-th flip).
struct FaultLogSummary {
  std::uint64_t records = 0;
  std::uint64_t changes = 0;     ///< FaultEntry items (one per flipped bit)
  std::uint64_t entries = 0;     ///< distinct matrix entries changed (summed over records)
  std::uint64_t nan_values = 0;  ///< entries left NaN
  std::uint64_t inf_values = 0;  ///< entries left +-infinity
  std::array<std::uint64_t, kFaultTargetCount> records_per_target{};
};
FaultLogSummary summarize(const FaultLog& log);

/// A log that is malformed or does not match the run replaying it. `pointer` locates the fault
/// in the log's JSON form (RFC 6901, field names as in FaultRecord, e.g.
/// "/records/3/entries/0/old_bits"); what() is "pointer: message".
class FaultLogError : public std::runtime_error {
 public:
  FaultLogError(std::string pointer, std::string message);
  const std::string& pointer() const { return pointer_; }
  const std::string& message() const { return message_; }

 private:
  std::string pointer_;
  std::string message_;
};

/// Throws FaultLogError at the first inconsistency: opportunities not strictly ascending (or not
/// below `opportunities`), a non-finite time, a negative node, a layer < -1, an empty operation, a
/// negative shape, an entry index outside rows x cols, a pattern wider than the scalar, a bit
/// outside the scalar or given for a non-bitflip model (or missing for bitflip), a bitflip whose
/// new pattern is not the old one with that bit flipped, entries out of ascending index order, or
/// repeated changes of one entry that do not chain (old = previous new).
void check_fault_log(const FaultLog& log);

/// Digest of an empty sequence of opportunities.
inline constexpr std::uint64_t kEmptyDigest = 0xcbf29ce484222325ULL;
/// "0x" + `digits` lowercase hex digits of `bits` (bit patterns and digests in logs and messages).
std::string hex_bits(std::uint64_t bits, int digits = 16);

/// FNV-1a of `digest` extended by one opportunity: the bits of time_s, node, layer, target and
/// the operation name (not its flops, which only set rates).
std::uint64_t extend_digest(std::uint64_t digest, double time_s, int node,
                            std::string_view operation, int layer, FaultTarget target);

}  // namespace codesim::models
