// ObjectReader: reads one JSON object field by field (type, range, default), records the resolved
// value of every field, and rejects unknown keys with a "did you mean" suggestion.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include <nlohmann/json.hpp>

namespace codesim::app {

using Json = nlohmann::ordered_json;

/// `text` in double quotes, for messages.
std::string in_quotes(std::string_view text);

/// Allowed values of a number field; describe() says them the way error messages expect them.
struct Range {
  double min = -std::numeric_limits<double>::infinity();
  bool min_open = false;  ///< true: min itself is excluded
  double max = std::numeric_limits<double>::infinity();
  bool max_open = false;

  bool contains(double value) const;
  /// "any number", "> 0", ">= 1", "<= 5", "in [0, 1]", "in (0, 1]".
  std::string describe() const;
};
Range any_number();
Range at_least(double min);
Range above(double min);
Range between(double min, double max);

/// Reads the fields of the JSON object at `pointer` in `file`. Every read marks its key as known
/// and records the value used (given or default) in resolved(); finish() rejects the keys that no
/// read asked for. Missing fields take the fallback; a nullopt fallback makes the field required.
/// Every error is a ScenarioError at the field's pointer.
class ObjectReader {
 public:
  /// `object` may be null (a missing section: every field takes its default); it must outlive
  /// the reader. Throws when it is not an object.
  ObjectReader(const Json* object, std::string pointer, std::string file);

  double number(std::string_view key, std::optional<double> fallback, const Range& range);
  /// A number in `range`, or null for infinity (recorded as null).
  double number_or_infinity(std::string_view key, std::optional<double> fallback,
                            const Range& range);
  std::int64_t integer(std::string_view key, std::optional<std::int64_t> fallback, std::int64_t min,
                       std::int64_t max);
  std::uint64_t unsigned_integer(std::string_view key, std::optional<std::uint64_t> fallback);
  bool boolean(std::string_view key, std::optional<bool> fallback);
  std::string string(std::string_view key, std::optional<std::string> fallback);
  /// A file's name the scenario must give (no fallback): a non-empty string; `what` says what the
  /// file is, for the error ("an availability trace").
  std::string file_name(std::string_view key, std::string_view what);
  /// A string out of `allowed`; an unknown one is rejected with the list (and a suggestion).
  std::string choice(std::string_view key, std::optional<std::string> fallback,
                     std::span<const std::string_view> allowed);
  /// choice() for an enum: `names` is its name table (indexed by the enum's values); returns the
  /// value named, `fallback` when the key is missing.
  template <typename Enum, std::size_t N>
  requires std::is_enum_v<Enum> Enum choice(std::string_view key, Enum fallback,
                                            const std::array<std::string_view, N>& names) {
    const std::string name = choice(key, std::string(names[static_cast<std::size_t>(fallback)]),
                                    std::span<const std::string_view>(names));
    return static_cast<Enum>(std::find(names.begin(), names.end(), name) - names.begin());
  }
  /// choice() of the field that selects this object's kind: later unknown-key messages name it
  /// ("for checkpoint policy \"young\""), `what` being "checkpoint policy".
  template <typename Enum, std::size_t N>
  requires std::is_enum_v<Enum> Enum kind(std::string_view key, Enum fallback,
                                          const std::array<std::string_view, N>& names,
                                          std::string_view what) {
    const Enum value = choice(key, fallback, names);
    set_unknown_key_note("for " + std::string(what) + " " +
                         in_quotes(names[static_cast<std::size_t>(value)]));
    return value;
  }
  /// Reads the sub-object `key` (missing = every default) with `read`, checks its keys and
  /// records its resolved form.
  void object(std::string_view key, const std::function<void(ObjectReader&)>& read);

  /// True when `key` is present; marks it as known. For fields read by hand with raw().
  bool has(std::string_view key);
  /// The raw value of `key` (nullptr when missing); marks it as known.
  const Json* raw(std::string_view key);
  /// Records `value` as the resolved value of `key`.
  void record(std::string_view key, Json value);

  /// Declares every key this object may have (listed in this order in messages) and rejects any
  /// other key now, before a field is read; for formats whose keys do not depend on their values.
  void expect_keys(std::initializer_list<std::string_view> keys);

  /// Whether integer reads take a whole float (2.0, 1e6) as an integer; true unless set false.
  void accept_whole_floats(bool accept) { whole_floats_ = accept; }

  /// Added to unknown-key messages, e.g. "for straggler kind \"pareto\"".
  void set_unknown_key_note(std::string note) { unknown_key_note_ = std::move(note); }
  /// Throws when a key was never read; returns the resolved object.
  Json finish();

  /// The pointer of `key` inside this object, e.g. "/cluster" + "nodes" -> "/cluster/nodes".
  std::string pointer_of(std::string_view key) const;
  const std::string& pointer() const { return pointer_; }
  const std::string& file() const { return file_; }
  /// Throws a ScenarioError at `key` (or at this object when `key` is empty).
  [[noreturn]] void fail(std::string_view key, const std::string& message) const;

 private:
  /// The number at `key` (or the fallback) in `range`; null reads as infinity when allowed.
  double read_number(std::string_view key, std::optional<double> fallback, const Range& range,
                     const std::string& expected, bool null_is_infinity);
  /// The value of `key` (marked known), or null when it is missing and has a fallback; fails
  /// when it is missing without one.
  const Json* find_field(std::string_view key, bool has_fallback, const std::string& expected);
  /// Fails at `key`: `value` has the wrong type for `expected`.
  [[noreturn]] void fail_type(std::string_view key, const Json& value,
                              const std::string& expected) const;
  const Json* find(std::string_view key);
  /// The string at `key` (or the fallback), before any recording.
  std::string read_string(std::string_view key, const std::optional<std::string>& fallback,
                          const std::string& expected);
  /// Throws at the first key of the object that no read or expect_keys() asked for.
  void reject_unknown_keys() const;

  const Json* object_;
  std::string pointer_;
  std::string file_;
  std::vector<std::string> known_;
  Json resolved_ = Json::object();
  std::string unknown_key_note_;
  bool whole_floats_ = true;
};

/// Reads `key` of `r` as a non-empty array of distinct node ids in [0, nodes - 1]; errors name
/// the offending element.
std::vector<int> read_node_ids(ObjectReader& r, std::string_view key, int nodes);

/// `message` from a sim validator (which says what is wrong), with " (expected EXPECTED)" added
/// unless it already says what is expected.
std::string with_expectation(const std::string& message, const std::string& expected);

/// Escapes one JSON pointer token ("~" -> "~0", "/" -> "~1").
std::string escape_pointer_token(std::string_view token);
/// Short description of a JSON value for messages: `string "abc"`, `number 2.5`, `an array`...
std::string describe_json(const Json& value);
/// Levenshtein distance between two strings.
int edit_distance(std::string_view a, std::string_view b);
/// The candidate closest to `word` when it is close enough to be a likely typo, else "".
std::string closest_match(std::string_view word, std::span<const std::string> candidates);

}  // namespace codesim::app
