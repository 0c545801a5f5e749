// Fault log: summary counts, structural checks with pointers, and the opportunity digest.
#include "models/faults/fault_log.hpp"

#include <bit>
#include <cmath>
#include <limits>

#include <fmt/format.h>

namespace codesim::models {

namespace {

std::uint64_t fnv_bytes(std::uint64_t digest, std::uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i) {
    digest = (digest ^ ((value >> (8 * i)) & 0xFF)) * 0x100000001b3ULL;
  }
  return digest;
}

void check_entries(const FaultRecord& record, const std::string& at) {
  const int width = bit_width(record.scalar);
  const std::int64_t size = record.rows * record.cols;
  const std::uint64_t mask = width == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << width) - 1;
  const bool bitflip = record.model == ValueModelKind::bitflip;
  for (std::size_t j = 0; j < record.entries.size(); ++j) {
    const FaultEntry& e = record.entries[j];
    const std::string here = at + "/entries/" + std::to_string(j);
    if (e.index < 0 || e.index >= size) {
      throw FaultLogError(here + "/index", "entry " + std::to_string(e.index) + " is outside the " +
                                               std::to_string(record.rows) + " x " +
                                               std::to_string(record.cols) + " matrix");
    }
    if ((e.old_bits & ~mask) != 0) {
      throw FaultLogError(here + "/old_bits", hex_bits(e.old_bits) + " is wider than " +
                                                  std::string(to_string(record.scalar)));
    }
    if ((e.new_bits & ~mask) != 0) {
      throw FaultLogError(here + "/new_bits", hex_bits(e.new_bits) + " is wider than " +
                                                  std::string(to_string(record.scalar)));
    }
    if (bitflip) {
      if (e.bit < 0 || e.bit >= width) {
        throw FaultLogError(here + "/bit", "bit " + std::to_string(e.bit) + " is outside [0, " +
                                               std::to_string(width - 1) + "] for a bitflip of " +
                                               std::string(to_string(record.scalar)));
      }
      if ((e.old_bits ^ e.new_bits) != (std::uint64_t{1} << e.bit)) {
        throw FaultLogError(here + "/new_bits", hex_bits(e.new_bits) + " is not " +
                                                    hex_bits(e.old_bits) + " with bit " +
                                                    std::to_string(e.bit) + " flipped");
      }
    } else if (e.bit != -1) {
      throw FaultLogError(here + "/bit", "bit " + std::to_string(e.bit) + " given for model " +
                                             std::string(to_string(record.model)) +
                                             " (only bitflip changes name a bit; use -1)");
    }
    if (j == 0) continue;
    const FaultEntry& previous = record.entries[j - 1];
    if (e.index < previous.index || (e.index == previous.index && !bitflip)) {
      throw FaultLogError(here + "/index", "entry " + std::to_string(e.index) + " follows entry " +
                                               std::to_string(previous.index) +
                                               " (entries must be in ascending order)");
    }
    if (e.index == previous.index && e.old_bits != previous.new_bits) {
      throw FaultLogError(here + "/old_bits",
                          hex_bits(e.old_bits) + " is not the previous change's new value " +
                              hex_bits(previous.new_bits) + " of the same entry");
    }
  }
}

}  // namespace

std::string hex_bits(std::uint64_t bits, int digits) {
  return fmt::format("0x{:0{}x}", bits, digits);
}

FaultLogError::FaultLogError(std::string pointer, std::string message)
    : std::runtime_error((pointer.empty() ? std::string("/") : pointer) + ": " + message),
      pointer_(std::move(pointer)),
      message_(std::move(message)) {}

FaultLogSummary summarize(const FaultLog& log) {
  FaultLogSummary summary;
  for (const FaultRecord& record : log.records) {
    ++summary.records;
    ++summary.records_per_target[static_cast<std::size_t>(record.target)];
    summary.changes += record.entries.size();
    for (std::size_t j = 0; j < record.entries.size(); ++j) {
      const FaultEntry& e = record.entries[j];
      const bool last_change =
          j + 1 == record.entries.size() || record.entries[j + 1].index != e.index;
      if (!last_change) continue;
      ++summary.entries;
      if (is_nan_bits(e.new_bits, record.scalar)) ++summary.nan_values;
      if (is_inf_bits(e.new_bits, record.scalar)) ++summary.inf_values;
    }
  }
  return summary;
}

void check_fault_log(const FaultLog& log) {
  for (std::size_t i = 0; i < log.records.size(); ++i) {
    const FaultRecord& r = log.records[i];
    const std::string at = "/records/" + std::to_string(i);
    if (i > 0 && r.opportunity <= log.records[i - 1].opportunity) {
      throw FaultLogError(at + "/opportunity",
                          "opportunity " + std::to_string(r.opportunity) + " follows " +
                              std::to_string(log.records[i - 1].opportunity) +
                              " (records must be in strictly ascending opportunity order)");
    }
    if (log.opportunities && r.opportunity >= *log.opportunities) {
      throw FaultLogError(at + "/opportunity",
                          "opportunity " + std::to_string(r.opportunity) + " is beyond the run's " +
                              std::to_string(*log.opportunities) + " opportunities");
    }
    if (!std::isfinite(r.time_s)) throw FaultLogError(at + "/time_s", "time is not finite");
    if (r.node < 0) throw FaultLogError(at + "/node", "node " + std::to_string(r.node) + " < 0");
    if (r.layer < -1) {
      throw FaultLogError(at + "/layer",
                          "layer " + std::to_string(r.layer) + " < -1 (-1 = no layer)");
    }
    if (r.operation.empty()) throw FaultLogError(at + "/operation", "operation is empty");
    if (r.rows < 0) throw FaultLogError(at + "/rows", "rows < 0");
    if (r.cols < 0) throw FaultLogError(at + "/cols", "cols < 0");
    if (r.rows > 0 && r.cols > std::numeric_limits<std::int64_t>::max() / r.rows) {
      throw FaultLogError(at + "/cols", "rows x cols overflows a 64-bit index");
    }
    check_entries(r, at);
  }
}

std::uint64_t extend_digest(std::uint64_t digest, double time_s, int node,
                            std::string_view operation, int layer, FaultTarget target) {
  digest = fnv_bytes(digest, std::bit_cast<std::uint64_t>(time_s), 8);
  digest = fnv_bytes(digest, static_cast<std::uint32_t>(node), 4);
  digest = fnv_bytes(digest, static_cast<std::uint32_t>(layer), 4);
  digest = fnv_bytes(digest, static_cast<std::uint64_t>(target), 1);
  for (const char c : operation) digest = fnv_bytes(digest, static_cast<unsigned char>(c), 1);
  // A terminator keeps ("ab", next "c") apart from ("a", next "bc").
  return fnv_bytes(digest, 0, 1);
}

}  // namespace codesim::models
