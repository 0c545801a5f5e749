// Fault log JSON: writes decimal values with their hex bit patterns; reads them back strictly.
#include "app/fault_log_json.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <limits>
#include <sstream>
#include <string_view>
#include <vector>

#include "analysis/results_json.hpp"
#include "app/scenario_loader.hpp"

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

/// Reads the fields of one JSON object; unknown keys are rejected with a suggestion.
class Fields {
 public:
  Fields(const Json& object, std::string pointer, const std::string& file,
         std::initializer_list<std::string_view> allowed, std::string_view what)
      : object_(object), pointer_(std::move(pointer)), file_(file) {
    if (!object.is_object()) {
      throw ScenarioError(file_, pointer_,
                          "wrong type: got " + describe_json(object) + " (expected " +
                              std::string(what) + " object)");
    }
    std::vector<std::string> known(allowed.begin(), allowed.end());
    for (const auto& [key, value] : object.items()) {
      if (std::find(known.begin(), known.end(), key) != known.end()) continue;
      std::string message = "unknown key \"" + key + "\" in " + std::string(what);
      const std::string suggestion = closest_match(key, known);
      if (!suggestion.empty()) message += ", did you mean \"" + suggestion + "\"?";
      std::string list;
      for (const std::string& k : known) list += (list.empty() ? "" : ", ") + k;
      fail(key, message + " (expected one of: " + list + ")");
    }
  }

  std::string at(std::string_view key) const { return pointer_ + "/" + escape_pointer_token(key); }
  [[noreturn]] void fail(std::string_view key, const std::string& message) const {
    throw ScenarioError(file_, at(key), message);
  }
  const Json* find(std::string_view key) const {
    const auto it = object_.find(key);
    return it == object_.end() ? nullptr : &*it;
  }
  const Json& required(std::string_view key, std::string_view expected) const {
    const Json* value = find(key);
    if (value == nullptr)
      fail(key, "missing required key (expected " + std::string(expected) + ")");
    return *value;
  }
  [[noreturn]] void wrong_type(std::string_view key, const Json& value,
                               std::string_view expected) const {
    fail(key,
         "wrong type: got " + describe_json(value) + " (expected " + std::string(expected) + ")");
  }

  std::int64_t integer(std::string_view key, std::optional<std::int64_t> fallback, std::int64_t min,
                       std::int64_t max) const {
    const std::string expected =
        "an integer in [" + std::to_string(min) + ", " + std::to_string(max) + "]";
    const Json* value = find(key);
    if (value == nullptr) {
      if (fallback) return *fallback;
      fail(key, "missing required key (expected " + expected + ")");
    }
    if (!value->is_number_integer()) wrong_type(key, *value, expected);
    if (value->is_number_unsigned()
            ? value->get<std::uint64_t>() > static_cast<std::uint64_t>(max)
            : (value->get<std::int64_t>() < min || value->get<std::int64_t>() > max)) {
      fail(key, "value " + value->dump() + " is out of range (expected " + expected + ")");
    }
    return value->get<std::int64_t>();
  }

  std::uint64_t count(std::string_view key) const {
    const Json& value = required(key, "an integer >= 0");
    if (!value.is_number_integer()) wrong_type(key, value, "an integer >= 0");
    if (!value.is_number_unsigned() && value.get<std::int64_t>() < 0) {
      fail(key, "value " + value.dump() + " is out of range (expected an integer >= 0)");
    }
    return value.get<std::uint64_t>();
  }

  double finite_number(std::string_view key) const {
    const Json& value = required(key, "a finite number");
    if (!value.is_number()) wrong_type(key, value, "a finite number");
    return value.get<double>();
  }

  std::string string(std::string_view key) const {
    const Json& value = required(key, "a string");
    if (!value.is_string()) wrong_type(key, value, "a string");
    return value.get<std::string>();
  }

  /// A name out of `names`, mapped through `parse`.
  template <typename Enum, std::size_t N>
  Enum choice(std::string_view key, const std::array<std::string_view, N>& names,
              std::optional<Enum> (*parse)(std::string_view),
              std::optional<Enum> fallback = std::nullopt) const {
    std::string list;
    for (const std::string_view name : names) {
      list += (list.empty() ? "" : ", ") + std::string(name);
    }
    const std::string expected = "one of: " + list;
    const Json* value = find(key);
    if (value == nullptr) {
      if (fallback) return *fallback;
      fail(key, "missing required key (expected " + expected + ")");
    }
    if (!value->is_string()) wrong_type(key, *value, expected);
    const std::optional<Enum> parsed = parse(value->get<std::string>());
    if (!parsed) {
      const std::vector<std::string> candidates(names.begin(), names.end());
      const std::string suggestion = closest_match(value->get<std::string>(), candidates);
      fail(key, "unknown value \"" + value->get<std::string>() + "\"" +
                    (suggestion.empty() ? "" : ", did you mean \"" + suggestion + "\"?") +
                    " (expected " + expected + ")");
    }
    return *parsed;
  }

  /// A hex bit pattern "0x..." of at most `width` bits.
  std::uint64_t bits(std::string_view key, int width) const {
    const std::string expected =
        "a hex bit pattern \"0x\" + up to " + std::to_string(width / 4) + " hex digits";
    const Json& value = required(key, expected);
    if (!value.is_string()) wrong_type(key, value, expected);
    const std::string text = value.get<std::string>();
    if (text.size() < 3 || text.size() > 2 + static_cast<std::size_t>(width / 4) ||
        text[0] != '0' || (text[1] != 'x' && text[1] != 'X')) {
      fail(key, "malformed bit pattern \"" + text + "\" (expected " + expected + ")");
    }
    std::uint64_t result = 0;
    for (std::size_t i = 2; i < text.size(); ++i) {
      const char c = text[i];
      int digit = -1;
      if (c >= '0' && c <= '9') digit = c - '0';
      if (c >= 'a' && c <= 'f') digit = c - 'a' + 10;
      if (c >= 'A' && c <= 'F') digit = c - 'A' + 10;
      if (digit < 0)
        fail(key, "malformed bit pattern \"" + text + "\" (expected " + expected + ")");
      result = (result << 4) | static_cast<std::uint64_t>(digit);
    }
    return result;
  }

  const std::string& pointer() const { return pointer_; }

 private:
  const Json& object_;
  std::string pointer_;
  const std::string& file_;
};

/// The pattern a decimal value (number or "nan"/"-nan"/"inf"/"-inf") stands for.
std::uint64_t bits_of_decimal(const Fields& f, std::string_view key, const Json& value,
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
      f.fail(key, "unknown value \"" + text + "\" (expected " + expected + ")");
    }
  } else {
    f.wrong_type(key, value, expected);
  }
  if (scalar == ScalarType::float64) return models::bits_of(d);
  const auto narrow = static_cast<float>(d);
  if (!std::isnan(d) && static_cast<double>(narrow) != d) {
    f.fail(key, "value " + value.dump() + " is not a float32 value (expected a float32 value)");
  }
  return models::bits_of(narrow);
}

/// One value given as "NAME" (decimal) and/or "NAME_bits" (hex); the bits win and must agree.
std::uint64_t read_value(const Fields& f, const std::string& name, ScalarType scalar) {
  const std::string bits_key = name + "_bits";
  const Json* decimal_value = f.find(name);
  const bool has_bits = f.find(bits_key) != nullptr;
  if (decimal_value == nullptr && !has_bits) {
    f.fail(bits_key, "missing required key (expected \"" + bits_key + "\" or \"" + name + "\")");
  }
  if (!has_bits) return bits_of_decimal(f, name, *decimal_value, scalar);
  const std::uint64_t bits = f.bits(bits_key, models::bit_width(scalar));
  if (decimal_value != nullptr) {
    const std::uint64_t stated = bits_of_decimal(f, name, *decimal_value, scalar);
    const bool agree = models::is_nan_bits(bits, scalar)
                           ? models::is_nan_bits(stated, scalar)
                           : models::bits_of(models::value_of_bits(stated, scalar)) ==
                                 models::bits_of(models::value_of_bits(bits, scalar));
    if (!agree) {
      f.fail(name, "value " + decimal_value->dump() + " disagrees with " + bits_key + " " +
                       hex_of(bits, scalar) + " (expected the value of the bits, which win)");
    }
  }
  return bits;
}

FaultEntry read_entry(const Json& json, const std::string& pointer, const std::string& file,
                      ScalarType scalar) {
  const Fields f(json, pointer, file, {"index", "bit", "old", "old_bits", "new", "new_bits"},
                 "a fault entry");
  FaultEntry e;
  e.index = f.integer("index", std::nullopt, 0, std::numeric_limits<std::int64_t>::max());
  e.bit = static_cast<int>(f.integer("bit", -1, -1, models::bit_width(scalar) - 1));
  e.old_bits = read_value(f, "old", scalar);
  e.new_bits = read_value(f, "new", scalar);
  return e;
}

FaultRecord read_record(const Json& json, const std::string& pointer, const std::string& file) {
  const Fields f(json, pointer, file,
                 {"opportunity", "time_s", "node", "operation", "layer", "target", "model",
                  "scalar", "rows", "cols", "sequence_digest", "entries"},
                 "a fault record");
  FaultRecord r;
  r.opportunity = f.count("opportunity");
  r.time_s = f.finite_number("time_s");
  r.node = static_cast<int>(f.integer("node", std::nullopt, 0, std::numeric_limits<int>::max()));
  r.operation = f.string("operation");
  if (r.operation.empty()) f.fail("operation", "empty operation (expected a name such as forward)");
  r.layer = static_cast<int>(f.integer("layer", -1, -1, std::numeric_limits<int>::max()));
  r.target = f.choice<models::FaultTarget>("target", models::kFaultTargetNames,
                                           &models::parse_fault_target);
  r.model = f.choice<models::ValueModelKind>("model", models::kValueModelKindNames,
                                             &models::parse_value_model_kind);
  r.scalar = f.choice<ScalarType>("scalar", models::kScalarTypeNames, &models::parse_scalar_type,
                                  ScalarType::float64);
  r.rows = f.integer("rows", std::nullopt, 0, std::numeric_limits<int>::max());
  r.cols = f.integer("cols", std::nullopt, 0, std::numeric_limits<int>::max());
  if (f.find("sequence_digest") != nullptr) r.sequence_digest = f.bits("sequence_digest", 64);
  const Json& entries = f.required("entries", "an array of fault entries");
  if (!entries.is_array()) f.wrong_type("entries", entries, "an array of fault entries");
  r.entries.reserve(entries.size());
  for (std::size_t j = 0; j < entries.size(); ++j) {
    r.entries.push_back(
        read_entry(entries[j], f.at("entries") + "/" + std::to_string(j), file, r.scalar));
  }
  return r;
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
  const Fields f(document, "", file,
                 {"format", "version", "seed", "replica", "opportunities", "sequence_digest",
                  "summary", "records"},
                 "a fault log");
  if (f.string("format") != kFormat) {
    f.fail("format", "unknown format \"" + f.string("format") + "\" (expected \"" +
                         std::string(kFormat) + "\")");
  }
  f.integer("version", std::nullopt, kVersion, kVersion);
  FaultLog log;
  if (f.find("seed") != nullptr) log.seed = f.count("seed");
  if (f.find("replica") != nullptr) log.replica = f.count("replica");
  if (f.find("opportunities") != nullptr) log.opportunities = f.count("opportunities");
  if (f.find("sequence_digest") != nullptr) log.sequence_digest = f.bits("sequence_digest", 64);
  const Json& records = f.required("records", "an array of fault records");
  if (!records.is_array()) f.wrong_type("records", records, "an array of fault records");
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
  std::error_code error;
  const auto status = std::filesystem::status(path, error);
  if (!std::filesystem::exists(status) || std::filesystem::is_directory(status)) {
    throw ScenarioError(path, "", "no such file (expected a readable fault log JSON file)");
  }
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  if (!in || in.bad()) {
    throw ScenarioError(path, "", "cannot read the file (expected a readable fault log JSON file)");
  }
  return fault_log_from_json(parse_scenario_text(text.str(), path), path);
}

ScenarioError to_scenario_error(const models::FaultLogError& error, const std::string& file) {
  return ScenarioError(file, error.pointer(), error.message());
}

}  // namespace codesim::app
