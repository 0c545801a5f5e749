// Sweep expansion: validates the sweep block, then walks the axes like nested loops (first axis
// outermost) and sets each point's values into a copy of the scenario.
#include "app/config/sweep.hpp"

#include <limits>
#include <map>
#include <string_view>
#include <utility>

#include "app/config/json_pointer.hpp"
#include "app/config/scenario_error.hpp"

namespace codesim::app {

namespace {

/// One swept pointer and its values.
struct AxisEntry {
  std::string pointer;  ///< where values go in the scenario
  std::string where;    ///< the sweep key in the user's file, e.g. /sweep/grid/~1cluster~1nodes
  const Json* values;   ///< non-empty array
};

/// Entries that vary together (one grid key, or one zip group); all have `length` values.
struct Axis {
  std::vector<AxisEntry> entries;
  std::size_t length = 0;
};

/// Checks everything about one sweep key and its value list except its length against others.
class AxisChecker {
 public:
  explicit AxisChecker(const std::string& file) : file_(file) {}

  AxisEntry check(const std::string& pointer, const std::string& where, const Json& values) {
    if (pointer.empty()) {
      throw ScenarioError(file_, where,
                          "the empty pointer names the whole scenario (expected a pointer to "
                          "one value, such as /cluster/nodes)");
    }
    const std::vector<std::string> tokens = split_json_pointer(pointer, file_, where);
    const std::string& top = tokens.front();
    if (top == "seed") {
      throw ScenarioError(file_, where,
                          "cannot sweep " + pointer +
                              ": sweeping the seed would break common random numbers across "
                              "points, so differences between points would mix in noise "
                              "(expected a pointer outside /seed; raise replicas instead)");
    }
    if (top == "sweep" || top == "name") {
      throw ScenarioError(file_, where,
                          "cannot sweep " + pointer + ": /" + top +
                              " is not a sweepable setting (expected a pointer outside /sweep, "
                              "/name and /seed)");
    }
    if (const auto [it, inserted] = seen_.emplace(pointer, where); !inserted) {
      throw ScenarioError(file_, where,
                          "pointer " + pointer + " is already swept at " + it->second +
                              " (expected each pointer on one axis only)");
    }
    if (!values.is_array()) {
      throw ScenarioError(file_, where,
                          "wrong type: got " + describe_json(values) +
                              " (expected an array of values for " + pointer + ")");
    }
    if (values.empty()) {
      throw ScenarioError(file_, where,
                          "empty list of values (expected at least one value for " + pointer + ")");
    }
    return AxisEntry{pointer, where, &values};
  }

 private:
  const std::string& file_;
  std::map<std::string, std::string> seen_;  // pointer -> where it was first swept
};

std::vector<Axis> read_axes(const Json& sweep, const std::string& file) {
  if (!sweep.is_object()) {
    throw ScenarioError(file, "/sweep",
                        "wrong type: got " + describe_json(sweep) +
                            " (expected an object with \"grid\" and/or \"zip\")");
  }
  static const std::vector<std::string> kKeys = {"grid", "zip"};
  for (const auto& [key, value] : sweep.items()) {
    if (key == "grid" || key == "zip") continue;
    std::string message = "unknown key " + in_quotes(key) + " in sweep";
    if (const std::string suggestion = closest_match(key, kKeys); !suggestion.empty()) {
      message += ", did you mean " + in_quotes(suggestion) + "?";
    }
    throw ScenarioError(file, "/sweep/" + escape_pointer_token(key),
                        message + " (expected one of: grid, zip)");
  }

  AxisChecker checker(file);
  std::vector<Axis> axes;
  if (const auto grid = sweep.find("grid"); grid != sweep.end()) {
    if (!grid->is_object()) {
      throw ScenarioError(file, "/sweep/grid",
                          "wrong type: got " + describe_json(*grid) +
                              " (expected an object of JSON pointer -> array of values)");
    }
    for (const auto& [pointer, values] : grid->items()) {
      const std::string where = "/sweep/grid/" + escape_pointer_token(pointer);
      Axis axis;
      axis.entries.push_back(checker.check(pointer, where, values));
      axis.length = values.size();
      axes.push_back(std::move(axis));
    }
  }
  if (const auto zip = sweep.find("zip"); zip != sweep.end()) {
    if (!zip->is_array()) {
      throw ScenarioError(file, "/sweep/zip",
                          "wrong type: got " + describe_json(*zip) +
                              " (expected an array of groups, each an object of JSON pointer -> "
                              "array of values)");
    }
    for (std::size_t g = 0; g < zip->size(); ++g) {
      const Json& group = (*zip)[g];
      const std::string group_where = "/sweep/zip/" + std::to_string(g);
      if (!group.is_object() || group.empty()) {
        throw ScenarioError(file, group_where,
                            (group.is_object() ? std::string("empty group")
                                               : "wrong type: got " + describe_json(group)) +
                                " (expected an object of at least one JSON pointer -> array of "
                                "values)");
      }
      Axis axis;
      for (const auto& [pointer, values] : group.items()) {
        const std::string where = group_where + "/" + escape_pointer_token(pointer);
        axis.entries.push_back(checker.check(pointer, where, values));
        if (axis.entries.size() == 1) {
          axis.length = values.size();
        } else if (values.size() != axis.length) {
          const AxisEntry& first = axis.entries.front();
          throw ScenarioError(file, where,
                              pointer + " has " + std::to_string(values.size()) + " values but " +
                                  first.pointer + " has " + std::to_string(axis.length) +
                                  " (expected every list of a zip group to have the same length)");
        }
      }
      axes.push_back(std::move(axis));
    }
  }
  return axes;
}

/// The number of points, or a ScenarioError when there are more than kMaxSweepPoints.
std::size_t count_points(const std::vector<Axis>& axes, const std::string& file) {
  std::size_t total = 1;
  bool overflow = false;
  std::string factors;
  for (const Axis& axis : axes) {
    factors += (factors.empty() ? "" : " x ") + std::to_string(axis.length);
    if (total > std::numeric_limits<std::size_t>::max() / axis.length) overflow = true;
    if (!overflow) total *= axis.length;
  }
  if (overflow || total > kMaxSweepPoints) {
    const std::string count =
        overflow ? "more than " + std::to_string(std::numeric_limits<std::size_t>::max())
                 : std::to_string(total);
    throw ScenarioError(file, "/sweep",
                        "the sweep has " + count + " points (" + factors + ") (expected at most " +
                            std::to_string(kMaxSweepPoints) + ")");
  }
  return total;
}

std::string label_of(const Json& params) {
  if (const auto label = params.find("/label"); label != params.end()) {
    return label->is_string() ? label->get<std::string>() : label->dump();
  }
  std::string text;
  for (const auto& [pointer, value] : params.items()) {
    if (!text.empty()) text += ", ";
    text += pointer + "=" + (value.is_string() ? value.get<std::string>() : value.dump());
  }
  return text;
}

}  // namespace

std::vector<SweepPoint> expand_sweep(const Json& document, const std::string& file) {
  // The axes point into `document`, which outlives them; `base` is the copy without the sweep.
  Json base = document;
  std::vector<Axis> axes;
  if (document.is_object()) {
    if (const auto sweep = document.find("sweep"); sweep != document.end()) {
      axes = read_axes(*sweep, file);
      base.erase("sweep");
    }
  }
  const std::size_t total = count_points(axes, file);

  std::vector<SweepPoint> points;
  points.reserve(total);
  std::vector<std::size_t> digits(axes.size(), 0);  // the value index of each axis
  for (std::size_t n = 0; n < total; ++n) {
    SweepPoint point{Json::object(), base, "", {}};
    for (std::size_t a = 0; a < axes.size(); ++a) {
      for (const AxisEntry& entry : axes[a].entries) {
        const Json& value = (*entry.values)[digits[a]];
        const std::string where = entry.where + "/" + std::to_string(digits[a]);
        point.params[entry.pointer] = value;
        set_at_json_pointer(point.document, entry.pointer, value, file, where);
        point.sources.push_back({entry.pointer, where});
      }
    }
    point.label = label_of(point.params);
    points.push_back(std::move(point));
    // Advance the last axis fastest, carrying into earlier ones like nested loops.
    for (std::size_t a = axes.size(); a-- > 0;) {
      if (++digits[a] < axes[a].length) break;
      digits[a] = 0;
    }
  }
  return points;
}

ScenarioError in_sweep_point(const ScenarioError& error, std::size_t index,
                             const std::string& label, const std::vector<SweepSource>& sources) {
  if (sources.empty()) return error;
  const std::string& pointer = error.pointer();
  std::string locations;
  for (const SweepSource& source : sources) {
    std::string location;
    if (pointer == source.pointer || pointer.starts_with(source.pointer + "/")) {
      location = source.where + pointer.substr(source.pointer.size());  // inside the value
    } else if (!pointer.empty() && source.pointer.starts_with(pointer + "/")) {
      location = source.where;  // a value inside what the error is about
    } else {
      continue;
    }
    locations += (locations.empty() ? "" : ", ") + location;
  }
  std::string where = "in sweep point " + std::to_string(index) + " (" + label + ")";
  if (!locations.empty()) where += ", swept at " + locations;
  return ScenarioError(error.file(), pointer, where + ": " + error.message());
}

}  // namespace codesim::app
