// ObjectReader: typed field reads with defaults and ranges, resolved-value recording, unknown keys.
#include "app/config/object_reader.hpp"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <sstream>

#include <fmt/format.h>

#include "app/config/scenario_error.hpp"
#include "app/config/text_format.hpp"

namespace codesim::app {

namespace {

std::string format_number(double value) {
  if (std::isinf(value)) return value > 0 ? "infinity" : "-infinity";
  if (value == std::floor(value) && std::fabs(value) < 1e15) {
    return std::to_string(static_cast<long long>(value));
  }
  return significant(value, 12);
}

// A whole number out of an integer's range, with every digit up to 1e21 (2^64 is
// 18446744073709551616, not 1.84467440737e+19, which reads as if it were inside
// [0, 18446744073709551615]); beyond, in exponent form.
std::string whole_number_text(double value) {
  if (std::abs(value) >= 1e21) return format_number(value);
  return fmt::format("{:.0f}", value);
}

std::string join(std::span<const std::string> words) {
  return fmt::format("{}", fmt::join(words, ", "));
}

std::string integer_expectation(std::int64_t min, std::int64_t max) {
  if (max == std::numeric_limits<std::int64_t>::max())
    return "an integer >= " + std::to_string(min);
  return "an integer in [" + std::to_string(min) + ", " + std::to_string(max) + "]";
}

}  // namespace

bool Range::contains(double value) const {
  if (min_open ? !(value > min) : !(value >= min)) return false;
  if (max_open ? !(value < max) : !(value <= max)) return false;
  return true;
}

std::string Range::describe() const {
  const bool has_min = std::isfinite(min);
  const bool has_max = std::isfinite(max);
  if (has_min && has_max) {
    return std::string("in ") + (min_open ? "(" : "[") + format_number(min) + ", " +
           format_number(max) + (max_open ? ")" : "]");
  }
  if (has_min) return (min_open ? "> " : ">= ") + format_number(min);
  if (has_max) return (max_open ? "< " : "<= ") + format_number(max);
  return "any number";
}

Range any_number() { return Range{}; }
Range at_least(double min) { return Range{.min = min}; }
Range above(double min) { return Range{.min = min, .min_open = true}; }
Range between(double min, double max) { return Range{.min = min, .max = max}; }

std::string escape_pointer_token(std::string_view token) {
  std::string escaped;
  for (char c : token) {
    if (c == '~') {
      escaped += "~0";
    } else if (c == '/') {
      escaped += "~1";
    } else {
      escaped += c;
    }
  }
  return escaped;
}

std::string describe_json(const Json& value) {
  switch (value.type()) {
    case Json::value_t::null:
      return "null";
    case Json::value_t::boolean:
      return std::string("boolean ") + (value.get<bool>() ? "true" : "false");
    case Json::value_t::string: {
      std::string text = value.get<std::string>();
      if (text.size() > 40) {
        std::size_t cut = 37;  // not inside a UTF-8 sequence
        while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
        text = text.substr(0, cut) + "...";
      }
      return "string " + in_quotes(text);
    }
    case Json::value_t::object:
      return "an object";
    case Json::value_t::array:
      return "an array";
    default:
      return "number " + value.dump();
  }
}

int edit_distance(std::string_view a, std::string_view b) {
  std::vector<int> previous(b.size() + 1);
  std::vector<int> current(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) previous[j] = static_cast<int>(j);
  for (std::size_t i = 1; i <= a.size(); ++i) {
    current[0] = static_cast<int>(i);
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const int substitution = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      current[j] = std::min({previous[j] + 1, current[j - 1] + 1, substitution});
    }
    std::swap(previous, current);
  }
  return previous[b.size()];
}

std::string closest_match(std::string_view word, std::span<const std::string> candidates) {
  std::string best;
  int best_distance = std::numeric_limits<int>::max();
  for (const auto& candidate : candidates) {
    int distance = edit_distance(word, candidate);
    // A prefix of a long key ("speed" for "speed_flops_per_s") is a likely abbreviation.
    const bool prefix = word.size() >= 3 && (candidate.starts_with(word) ||
                                             word.starts_with(std::string_view(candidate)));
    const int limit =
        std::max<int>(2, static_cast<int>(std::max(word.size(), candidate.size())) / 3);
    if (distance > limit && !prefix) continue;
    if (prefix) distance = std::min(distance, 1);
    if (distance < best_distance) {
      best = candidate;
      best_distance = distance;
    }
  }
  return best;
}

ObjectReader::ObjectReader(const Json* object, std::string pointer, std::string file)
    : object_(object), pointer_(std::move(pointer)), file_(std::move(file)) {
  if (object_ != nullptr && !object_->is_object()) {
    throw ScenarioError(file_, pointer_,
                        "wrong type: got " + describe_json(*object_) + " (expected an object)");
  }
}

std::string ObjectReader::pointer_of(std::string_view key) const {
  return pointer_ + "/" + escape_pointer_token(key);
}

void ObjectReader::fail(std::string_view key, const std::string& message) const {
  throw ScenarioError(file_, key.empty() ? pointer_ : pointer_of(key), message);
}

const Json* ObjectReader::find(std::string_view key) {
  if (std::find(known_.begin(), known_.end(), key) == known_.end()) known_.emplace_back(key);
  if (object_ == nullptr) return nullptr;
  auto it = object_->find(key);
  return it == object_->end() ? nullptr : &*it;
}

const Json* ObjectReader::find_field(std::string_view key, bool has_fallback,
                                     const std::string& expected) {
  const Json* value = find(key);
  if (value == nullptr && !has_fallback) fail(key, "missing required key " + expected);
  return value;
}

void ObjectReader::fail_type(std::string_view key, const Json& value,
                             const std::string& expected) const {
  fail(key, "wrong type: got " + describe_json(value) + " " + expected);
}

bool ObjectReader::has(std::string_view key) { return find(key) != nullptr; }

const Json* ObjectReader::raw(std::string_view key) { return find(key); }

void ObjectReader::record(std::string_view key, Json value) {
  resolved_[std::string(key)] = std::move(value);
}

double ObjectReader::read_number(std::string_view key, std::optional<double> fallback,
                                 const Range& range, const std::string& expected,
                                 bool null_is_infinity) {
  const Json* value = find_field(key, fallback.has_value(), expected);
  if (value == nullptr) return *fallback;
  if (null_is_infinity && value->is_null()) return std::numeric_limits<double>::infinity();
  if (!value->is_number()) fail_type(key, *value, expected);
  const double number = value->get<double>();
  if (!std::isfinite(number) || !range.contains(number)) {
    fail(key, "value " + format_number(number) + " is out of range " + expected);
  }
  return number;
}

double ObjectReader::number(std::string_view key, std::optional<double> fallback,
                            const Range& range) {
  // An unbounded range asks for any number JSON can hold: a finite one.
  const bool unbounded = !std::isfinite(range.min) && !std::isfinite(range.max);
  const std::string expected =
      unbounded ? "(expected a finite number)" : "(expected a number " + range.describe() + ")";
  const double number = read_number(key, fallback, range, expected, false);
  record(key, number);
  return number;
}

double ObjectReader::number_or_infinity(std::string_view key, std::optional<double> fallback,
                                        const Range& range) {
  const std::string expected = "(expected a number " + range.describe() + ", or null for infinity)";
  const double number = read_number(key, fallback, range, expected, true);
  record(key, std::isinf(number) ? Json(nullptr) : Json(number));
  return number;
}

std::int64_t ObjectReader::integer(std::string_view key, std::optional<std::int64_t> fallback,
                                   std::int64_t min, std::int64_t max) {
  const std::string expected = "(expected " + integer_expectation(min, max) + ")";
  const Json* value = find_field(key, fallback.has_value(), expected);
  std::int64_t integer = 0;
  if (value == nullptr) {
    integer = *fallback;
  } else if (value->is_number_unsigned()) {
    const auto u = value->get<std::uint64_t>();
    if (u > static_cast<std::uint64_t>(max)) {
      fail(key, "value " + std::to_string(u) + " is out of range " + expected);
    }
    integer = static_cast<std::int64_t>(u);
  } else if (value->is_number_integer()) {
    integer = value->get<std::int64_t>();
  } else if (value->is_number_float() && whole_floats_) {
    // 1e6 is a float in JSON; accept it when it is a whole number that fits.
    const double d = value->get<double>();
    if (d != std::floor(d) || !std::isfinite(d)) {
      fail_type(key, *value, expected);
    }
    if (d < static_cast<double>(min) || d > static_cast<double>(max)) {
      fail(key, "value " + whole_number_text(d) + " is out of range " + expected);
    }
    integer = static_cast<std::int64_t>(d);
  } else {
    fail_type(key, *value, expected);
  }
  if (integer < min || integer > max) {
    fail(key, "value " + std::to_string(integer) + " is out of range " + expected);
  }
  record(key, integer);
  return integer;
}

std::uint64_t ObjectReader::unsigned_integer(std::string_view key,
                                             std::optional<std::uint64_t> fallback) {
  const std::string expected = "(expected an integer in [0, 18446744073709551615])";
  const Json* value = find_field(key, fallback.has_value(), expected);
  std::uint64_t integer = 0;
  if (value == nullptr) {
    integer = *fallback;
  } else if (value->is_number_unsigned()) {
    integer = value->get<std::uint64_t>();
  } else if (value->is_number_integer()) {
    // A signed integer (JSON built in code rather than parsed) is fine when it is not negative.
    if (value->get<std::int64_t>() < 0) {
      fail(key, "value " + value->dump() + " is out of range " + expected);
    }
    integer = static_cast<std::uint64_t>(value->get<std::int64_t>());
  } else if (value->is_number_float() && whole_floats_) {
    const double d = value->get<double>();
    if (d != std::floor(d)) fail_type(key, *value, expected);
    if (d < 0.0 || d >= 18446744073709551616.0) {
      fail(key, "value " + whole_number_text(d) + " is out of range " + expected);
    }
    integer = static_cast<std::uint64_t>(d);
  } else {
    fail_type(key, *value, expected);
  }
  record(key, integer);
  return integer;
}

bool ObjectReader::boolean(std::string_view key, std::optional<bool> fallback) {
  const std::string expected = "(expected true or false)";
  const Json* value = find_field(key, fallback.has_value(), expected);
  if (value != nullptr && !value->is_boolean()) fail_type(key, *value, expected);
  const bool flag = value == nullptr ? *fallback : value->get<bool>();
  record(key, flag);
  return flag;
}

std::string ObjectReader::read_string(std::string_view key,
                                      const std::optional<std::string>& fallback,
                                      const std::string& expected) {
  const Json* value = find_field(key, fallback.has_value(), expected);
  if (value == nullptr) {
    return *fallback;
  }
  if (!value->is_string()) fail_type(key, *value, expected);
  return value->get<std::string>();
}

std::string ObjectReader::string(std::string_view key, std::optional<std::string> fallback) {
  std::string text = read_string(key, fallback, "(expected a string)");
  record(key, text);
  return text;
}

std::string ObjectReader::file_name(std::string_view key, std::string_view what) {
  std::string name = string(key, std::nullopt);
  if (name.empty())
    fail(key, "an empty file name (expected the path of " + std::string(what) + ")");
  return name;
}

std::string ObjectReader::choice(std::string_view key, std::optional<std::string> fallback,
                                 std::span<const std::string_view> allowed) {
  std::vector<std::string> names(allowed.begin(), allowed.end());
  const std::string expected = "(expected one of: " + join(names) + ")";
  std::string text = read_string(key, fallback, expected);
  if (std::find(names.begin(), names.end(), text) == names.end()) {
    const std::string suggestion = closest_match(text, names);
    fail(key, "unknown value " + in_quotes(text) +
                  (suggestion.empty() ? "" : ", did you mean " + in_quotes(suggestion) + "?") +
                  " " + expected);
  }
  record(key, text);
  return text;
}

void ObjectReader::object(std::string_view key, const std::function<void(ObjectReader&)>& read) {
  ObjectReader child(find(key), pointer_of(key), file_);
  read(child);
  record(key, child.finish());
}

void ObjectReader::reject_unknown_keys() const {
  if (object_ == nullptr) return;
  for (const auto& [key, value] : object_->items()) {
    if (std::find(known_.begin(), known_.end(), key) != known_.end()) continue;
    const std::string suggestion = closest_match(key, known_);
    std::string message = "unknown key " + in_quotes(key);
    if (!unknown_key_note_.empty()) message += " " + unknown_key_note_;
    if (!suggestion.empty()) message += ", did you mean " + in_quotes(suggestion) + "?";
    message += " (expected one of: " + join(known_) + ")";
    fail(key, message);
  }
}

void ObjectReader::expect_keys(std::initializer_list<std::string_view> keys) {
  for (const std::string_view key : keys) {
    if (std::find(known_.begin(), known_.end(), key) == known_.end()) known_.emplace_back(key);
  }
  reject_unknown_keys();
}

Json ObjectReader::finish() {
  reject_unknown_keys();
  return resolved_;
}

std::string with_expectation(const std::string& message, const std::string& expected) {
  if (message.find("(expected") != std::string::npos) return message;
  return message + " (expected " + expected + ")";
}

std::vector<int> read_node_ids(ObjectReader& r, std::string_view key, int nodes) {
  const Json* raw = r.raw(key);
  const std::string expected =
      "(expected a non-empty array of node ids in [0, " + std::to_string(nodes - 1) + "])";
  if (raw == nullptr) r.fail(key, "missing required key " + expected);
  if (!raw->is_array()) r.fail(key, "wrong type: got " + describe_json(*raw) + " " + expected);
  if (raw->empty()) r.fail(key, "no node ids given " + expected);
  std::vector<int> ids;
  std::vector<bool> seen(static_cast<std::size_t>(nodes), false);
  for (std::size_t i = 0; i < raw->size(); ++i) {
    const Json& id = (*raw)[i];
    auto fail_at = [&](const std::string& message) {
      throw ScenarioError(r.file(), r.pointer_of(key) + "/" + std::to_string(i), message);
    };
    const std::string range = "(expected a node id in [0, " + std::to_string(nodes - 1) + "])";
    if (!id.is_number_integer()) fail_at("wrong type: got " + describe_json(id) + " " + range);
    if (id.is_number_unsigned() ? id.get<std::uint64_t>() >= static_cast<std::uint64_t>(nodes)
                                : (id.get<std::int64_t>() < 0 || id.get<std::int64_t>() >= nodes)) {
      fail_at("node id " + id.dump() + " does not exist " + range);
    }
    const std::int64_t value = id.get<std::int64_t>();
    if (seen[static_cast<std::size_t>(value)]) {
      fail_at("node id " + std::to_string(value) + " is listed twice (expected distinct ids)");
    }
    seen[static_cast<std::size_t>(value)] = true;
    ids.push_back(static_cast<int>(value));
  }
  r.record(key, ids);
  return ids;
}

std::string in_quotes(std::string_view text) {
  // Appended piece by piece: GCC 12 warns (-Wrestrict) on the inlined "\"" + string + "\"".
  std::string quoted;
  quoted.reserve(text.size() + 2);
  quoted += '"';
  quoted += text;
  quoted += '"';
  return quoted;
}

}  // namespace codesim::app
