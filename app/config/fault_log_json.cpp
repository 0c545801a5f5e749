// Fault log JSON: writes decimal values with their hex bit patterns; reads them back strictly.
#include "app/config/fault_log_json.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <initializer_list>
#include <limits>
#include <string_view>
#include <vector>

#include "analysis/results_json.hpp"
#include "app/config/json_input.hpp"

namespace codesim::app {

namespace {

using models::FaultEntry;
using models::FaultLog;
using models::FaultRecord;
using models::ScalarType;

constexpr std::string_view kFormat = "codesim fault log";
constexpr int kVersion = 1;

std::string hex_of(std::uint64_t bits, ScalarType scalar) {
  return models::hex_bits(bits, models::bit_width(scalar) / 4);
}

/// The decimal form: a number, or a string for NaN and infinities.
Json decimal(std::uint64_t bits, ScalarType scalar) {
  const double value = models::value_of_bits(bits, scalar);
  if (models::is_nan_bits(bits, scalar)) return std::signbit(value) ? "-nan" : "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  return value;
}

/// An ObjectReader of `json`, a `what` ("a fault entry") whose keys are exactly `keys`: anything
/// else is rejected before a field is read.
ObjectReader reader_of(const Json& json, std::string pointer, const std::string& file,
                       std::string_view what, std::initializer_list<std::string_view> keys) {
  if (!json.is_object()) {
    throw ScenarioError(
        file, pointer,
        "wrong type: got " + describe_json(json) + " (expected " + std::string(what) + " object)");
  }
  ObjectReader r(&json, std::move(pointer), file);
  r.set_unknown_key_note("in " + std::string(what));
  r.accept_whole_floats(false);  // the format writes integers as JSON integers
  r.expect_keys(keys);
  return r;
}

/// A required name out of `names`, the name table of `Enum`.
template <typename Enum, std::size_t N>
Enum required_choice(ObjectReader& r, std::string_view key,
                     const std::array<std::string_view, N>& names) {
  const std::string name = r.choice(key, std::nullopt, names);
  return static_cast<Enum>(std::find(names.begin(), names.end(), name) - names.begin());
}

/// The required array at `key`; `expected` describes it ("an array of fault entries").
const Json& required_array(ObjectReader& r, std::string_view key, const std::string& expected) {
  const Json* value = r.raw(key);
  if (value == nullptr) r.fail(key, "missing required key (expected " + expected + ")");
  if (!value->is_array()) {
    r.fail(key, "wrong type: got " + describe_json(*value) + " (expected " + expected + ")");
  }
  return *value;
}

/// A hex bit pattern "0x..." of at most `width` bits.
std::uint64_t read_bits(ObjectReader& r, std::string_view key, int width) {
  const std::string expected =
      "a hex bit pattern \"0x\" + up to " + std::to_string(width / 4) + " hex digits";
  const Json* value = r.raw(key);
  if (value == nullptr) r.fail(key, "missing required key (expected " + expected + ")");
  if (!value->is_string()) {
    r.fail(key, "wrong type: got " + describe_json(*value) + " (expected " + expected + ")");
  }
  const std::string text = value->get<std::string>();
  const auto malformed = [&] {
    r.fail(key, "malformed bit pattern \"" + text + "\" (expected " + expected + ")");
  };
  if (text.size() < 3 || text.size() > 2 + static_cast<std::size_t>(width / 4) || text[0] != '0' ||
      (text[1] != 'x' && text[1] != 'X')) {
    malformed();
  }
  std::uint64_t result = 0;
  for (std::size_t i = 2; i < text.size(); ++i) {
    const char c = text[i];
    int digit = -1;
    if (c >= '0' && c <= '9') digit = c - '0';
    if (c >= 'a' && c <= 'f') digit = c - 'a' + 10;
    if (c >= 'A' && c <= 'F') digit = c - 'A' + 10;
    if (digit < 0) malformed();
    result = (result << 4) | static_cast<std::uint64_t>(digit);
  }
  r.record(key, text);
  return result;
}

/// The pattern a decimal value (number or "nan"/"-nan"/"inf"/"-inf") stands for.
std::uint64_t bits_of_decimal(const ObjectReader& r, std::string_view key, const Json& value,
                              ScalarType scalar) {
  const std::string expected = "a number or one of \"nan\", \"-nan\", \"inf\", \"-inf\"";
  double d = 0.0;
  if (value.is_number()) {
    d = value.get<double>();
  } else if (value.is_string()) {
    const std::string text = value.get<std::string>();
    if (text == "nan" || text == "-nan") {
      d = std::copysign(std::numeric_limits<double>::quiet_NaN(), text == "nan" ? 1.0 : -1.0);
    } else if (text == "inf" || text == "-inf") {
      d = text == "inf" ? std::numeric_limits<double>::infinity()
                        : -std::numeric_limits<double>::infinity();
    } else {
      r.fail(key, "unknown value \"" + text + "\" (expected " + expected + ")");
    }
  } else {
    r.fail(key, "wrong type: got " + describe_json(value) + " (expected " + expected + ")");
  }
  if (scalar == ScalarType::float64) return models::bits_of(d);
  const auto narrow = static_cast<float>(d);
  if (!std::isnan(d) && static_cast<double>(narrow) != d) {
    r.fail(key, "value " + value.dump() + " is not a float32 value (expected a float32 value)");
  }
  return models::bits_of(narrow);
}

/// One value given as "NAME" (decimal) and/or "NAME_bits" (hex); the bits win and must agree.
std::uint64_t read_value(ObjectReader& r, const std::string& name, ScalarType scalar) {
  const std::string bits_key = name + "_bits";
  const Json* decimal_value = r.raw(name);
  const bool has_bits = r.has(bits_key);
  if (decimal_value == nullptr && !has_bits) {
    r.fail(bits_key, "missing required key (expected \"" + bits_key + "\" or \"" + name + "\")");
  }
  if (!has_bits) return bits_of_decimal(r, name, *decimal_value, scalar);
  const std::uint64_t bits = read_bits(r, bits_key, models::bit_width(scalar));
  if (decimal_value != nullptr) {
    const std::uint64_t stated = bits_of_decimal(r, name, *decimal_value, scalar);
    const bool agree = models::is_nan_bits(bits, scalar)
                           ? models::is_nan_bits(stated, scalar)
                           : models::bits_of(models::value_of_bits(stated, scalar)) ==
                                 models::bits_of(models::value_of_bits(bits, scalar));
    if (!agree) {
      r.fail(name, "value " + decimal_value->dump() + " disagrees with " + bits_key + " " +
                       hex_of(bits, scalar) + " (expected the value of the bits, which win)");
    }
  }
  return bits;
}

FaultEntry read_entry(const Json& json, const std::string& pointer, const std::string& file,
                      ScalarType scalar) {
  ObjectReader r = reader_of(json, pointer, file, "a fault entry",
                             {"index", "bit", "old", "old_bits", "new", "new_bits"});
  FaultEntry e;
  e.index = r.integer("index", std::nullopt, 0, std::numeric_limits<std::int64_t>::max());
  e.bit = static_cast<int>(r.integer("bit", -1, -1, models::bit_width(scalar) - 1));
  e.old_bits = read_value(r, "old", scalar);
  e.new_bits = read_value(r, "new", scalar);
  return e;
}

FaultRecord read_record(const Json& json, const std::string& pointer, const std::string& file) {
  constexpr std::int64_t kMaxInt = std::numeric_limits<int>::max();
  ObjectReader r = reader_of(json, pointer, file, "a fault record",
                             {"opportunity", "time_s", "node", "operation", "layer", "target",
                              "model", "scalar", "rows", "cols", "sequence_digest", "entries"});
  FaultRecord f;
  f.opportunity = r.unsigned_integer("opportunity", std::nullopt);
  f.time_s = r.number("time_s", std::nullopt, any_number());
  f.node = static_cast<int>(r.integer("node", std::nullopt, 0, kMaxInt));
  f.operation = r.string("operation", std::nullopt);
  if (f.operation.empty()) r.fail("operation", "empty operation (expected a name such as forward)");
  f.layer = static_cast<int>(r.integer("layer", -1, -1, kMaxInt));
  f.target = required_choice<models::FaultTarget>(r, "target", models::kFaultTargetNames);
  f.model = required_choice<models::ValueModelKind>(r, "model", models::kValueModelKindNames);
  f.scalar = r.choice("scalar", ScalarType::float64, models::kScalarTypeNames);
  f.rows = r.integer("rows", std::nullopt, 0, kMaxInt);
  f.cols = r.integer("cols", std::nullopt, 0, kMaxInt);
  if (r.has("sequence_digest")) f.sequence_digest = read_bits(r, "sequence_digest", 64);
  const Json& entries = required_array(r, "entries", "an array of fault entries");
  f.entries.reserve(entries.size());
  for (std::size_t j = 0; j < entries.size(); ++j) {
    f.entries.push_back(
        read_entry(entries[j], r.pointer_of("entries") + "/" + std::to_string(j), file, f.scalar));
  }
  return f;
}

}  // namespace

Json fault_log_to_json(const FaultLog& log) {
  Json document = Json::object();
  document["format"] = kFormat;
  document["version"] = kVersion;
  if (log.seed) document["seed"] = *log.seed;
  if (log.replica) document["replica"] = *log.replica;
  if (log.opportunities) document["opportunities"] = *log.opportunities;
  if (log.sequence_digest) document["sequence_digest"] = models::hex_bits(*log.sequence_digest);
  const models::FaultLogSummary s = models::summarize(log);
  Json per_target = Json::object();
  for (int t = 0; t < models::kFaultTargetCount; ++t) {
    per_target[std::string(models::kFaultTargetNames[static_cast<std::size_t>(t)])] =
        s.records_per_target[static_cast<std::size_t>(t)];
  }
  document["summary"] = Json{{"records", s.records},       {"changes", s.changes},
                             {"entries", s.entries},       {"nan_values", s.nan_values},
                             {"inf_values", s.inf_values}, {"records_per_target", per_target}};
  Json records = Json::array();
  for (const FaultRecord& r : log.records) {
    Json record = Json::object();
    record["opportunity"] = r.opportunity;
    record["time_s"] = r.time_s;
    record["node"] = r.node;
    record["operation"] = r.operation;
    record["layer"] = r.layer;
    record["target"] = models::to_string(r.target);
    record["model"] = models::to_string(r.model);
    record["scalar"] = models::to_string(r.scalar);
    record["rows"] = r.rows;
    record["cols"] = r.cols;
    if (r.sequence_digest) record["sequence_digest"] = models::hex_bits(*r.sequence_digest);
    Json entries = Json::array();
    for (const FaultEntry& e : r.entries) {
      entries.push_back(Json{{"index", e.index},
                             {"bit", e.bit},
                             {"old", decimal(e.old_bits, r.scalar)},
                             {"old_bits", hex_of(e.old_bits, r.scalar)},
                             {"new", decimal(e.new_bits, r.scalar)},
                             {"new_bits", hex_of(e.new_bits, r.scalar)}});
    }
    record["entries"] = std::move(entries);
    records.push_back(std::move(record));
  }
  document["records"] = std::move(records);
  return document;
}

models::FaultLog fault_log_from_json(const Json& document, const std::string& file) {
  ObjectReader r = reader_of(document, "", file, "a fault log",
                             {"format", "version", "seed", "replica", "opportunities",
                              "sequence_digest", "summary", "records"});
  const std::string format = r.string("format", std::nullopt);
  if (format != kFormat) {
    r.fail("format",
           "unknown format \"" + format + "\" (expected \"" + std::string(kFormat) + "\")");
  }
  r.integer("version", std::nullopt, kVersion, kVersion);
  FaultLog log;
  if (r.has("seed")) log.seed = r.unsigned_integer("seed", std::nullopt);
  if (r.has("replica")) log.replica = r.unsigned_integer("replica", std::nullopt);
  if (r.has("opportunities")) log.opportunities = r.unsigned_integer("opportunities", std::nullopt);
  if (r.has("sequence_digest")) log.sequence_digest = read_bits(r, "sequence_digest", 64);
  const Json& records = required_array(r, "records", "an array of fault records");
  log.records.reserve(records.size());
  for (std::size_t i = 0; i < records.size(); ++i) {
    log.records.push_back(read_record(records[i], "/records/" + std::to_string(i), file));
  }
  try {
    models::check_fault_log(log);
  } catch (const models::FaultLogError& e) {
    throw to_scenario_error(e, file);
  }
  return log;
}

void write_fault_log_file(const FaultLog& log, const std::string& path) {
  analysis::write_json_atomically(fault_log_to_json(log), path);
}

models::FaultLog read_fault_log_file(const std::string& path) {
  return fault_log_from_json(
      read_json_file(path, "a readable fault log JSON file", kMaxFaultLogBytes), path);
}

ScenarioError to_scenario_error(const models::FaultLogError& error, const std::string& file) {
  return ScenarioError(file, error.pointer(), error.message());
}

}  // namespace codesim::app
