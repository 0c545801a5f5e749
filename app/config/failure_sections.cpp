// Failure sections of a scenario: laws, crashes, failure domains and availability traces.
#include "app/config/failure_sections.hpp"

#include <array>
#include <charconv>
#include <cmath>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <variant>
#include <vector>

#include "app/config/json_input.hpp"
#include "app/config/scenario_error.hpp"
#include "app/config/text_format.hpp"

namespace codesim::app {
namespace {

constexpr std::array<std::string_view, 3> kFailureLawNames = {"exponential", "weibull",
                                                              "lognormal"};
constexpr std::array<std::string_view, 3> kRepairLawNames = {"fixed", "exponential", "lognormal"};

sim::LogNormalLaw read_lognormal(ObjectReader& r) {
  return {r.number("mean_s", std::nullopt, above(0.0)),
          r.number("sigma", std::nullopt, at_least(0.0))};
}

}  // namespace

sim::FailureLaw read_failure_law(ObjectReader& r) {
  const std::string law = r.choice("law", std::nullopt, kFailureLawNames);
  r.set_unknown_key_note("for failure law " + in_quotes(law));
  sim::FailureLaw out;
  if (law == "exponential") {
    out = sim::ExponentialLaw{r.number_or_infinity("mean_s", std::nullopt, above(0.0))};
  } else if (law == "weibull") {
    out = sim::WeibullLaw{r.number("shape", std::nullopt, above(0.0)),
                          r.number("scale_s", std::nullopt, above(0.0))};
  } else {
    out = read_lognormal(r);
  }
  const std::string problem = sim::validate(out);
  if (!problem.empty()) r.fail("", with_expectation(problem, "a valid failure law"));
  return out;
}

sim::RepairLaw read_repair_law(ObjectReader& r) {
  const std::string law = r.choice("law", std::nullopt, kRepairLawNames);
  r.set_unknown_key_note("for repair law " + in_quotes(law));
  sim::RepairLaw out;
  if (law == "fixed") {
    out = sim::FixedLaw{r.number("value_s", std::nullopt, at_least(0.0))};
  } else if (law == "exponential") {
    out = sim::ExponentialLaw{r.number("mean_s", std::nullopt, above(0.0))};
  } else {
    out = read_lognormal(r);
  }
  const std::string problem = sim::validate(out);
  if (!problem.empty()) r.fail("", with_expectation(problem, "a valid repair law"));
  return out;
}

sim::CrashSpec read_crashes(ObjectReader& r, const sim::CrashSpec& defaults) {
  sim::CrashSpec c = defaults;
  if (r.has("failure")) {
    if (r.has("mtbf_s")) {
      r.fail("mtbf_s",
             "mtbf_s and failure both given (expected one: mtbf_s for exponential up "
             "times, failure for a law)");
    }
    r.object("failure", [&](ObjectReader& law) { c.failure = read_failure_law(law); });
  } else if (const auto* exponential = std::get_if<sim::ExponentialLaw>(&defaults.failure);
             exponential != nullptr || r.has("mtbf_s")) {
    const double fallback = exponential != nullptr ? exponential->mean_s : INFINITY;
    c.failure = sim::ExponentialLaw{r.number_or_infinity("mtbf_s", fallback, above(0.0))};
  }
  if (r.has("repair")) {
    if (r.has("repair_s")) {
      r.fail("repair_s",
             "repair_s and repair both given (expected one: repair_s for a fixed "
             "repair time, repair for a law)");
    }
    r.object("repair", [&](ObjectReader& law) { c.repair = read_repair_law(law); });
  } else if (const auto* fixed = std::get_if<sim::FixedLaw>(&defaults.repair);
             fixed != nullptr || r.has("repair_s")) {
    c.repair =
        sim::FixedLaw{r.number("repair_s", fixed != nullptr ? fixed->value_s : 0.0, at_least(0.0))};
  }
  return c;
}

namespace {

constexpr std::string_view kTraceHeader = "node,down_s,up_s";

/// The members of domain entry `o`: `nodes` (one domain) or `group_size` (consecutive groups of
/// that many nodes, the last one possibly smaller, each its own domain).
std::vector<std::vector<int>> read_domain_members(ObjectReader& o, int nodes) {
  const bool listed = o.has("nodes");
  if (listed == o.has("group_size")) {
    o.fail(listed ? "group_size" : "",
           listed ? "nodes and group_size both given (expected one of them)"
                  : "no members given (expected \"nodes\": [ids] or \"group_size\": G)");
  }
  if (listed) return {read_node_ids(o, "nodes", nodes)};
  const int size = static_cast<int>(o.integer("group_size", std::nullopt, 1, nodes));
  std::vector<std::vector<int>> groups;
  for (int first = 0; first < nodes; first += size) {
    std::vector<int>& group = groups.emplace_back();
    for (int id = first; id < nodes && id < first + size; ++id) group.push_back(id);
  }
  return groups;
}

/// Appends the domains of entry `o` (one, or one per group) to `out`.
void read_domain(ObjectReader& o, std::size_t index, int nodes,
                 std::vector<sim::FailureDomainSpec>& out) {
  const std::string name = o.string("name", "domain " + std::to_string(index));
  const std::vector<std::vector<int>> members = read_domain_members(o, nodes);
  if (!o.has("failure")) {
    o.fail("failure",
           "missing required key (expected a failure law, e.g. {\"law\": \"exponential\", "
           "\"mean_s\": 1e6})");
  }
  sim::FailureDomainSpec spec;
  o.object("failure", [&](ObjectReader& law) { spec.failure = read_failure_law(law); });
  if (o.has("repair")) {
    o.object("repair", [&](ObjectReader& law) { spec.repair = read_repair_law(law); });
  } else {
    o.record("repair", Json{{"law", "fixed"}, {"value_s", 0.0}});
  }
  for (std::size_t g = 0; g < members.size(); ++g) {
    spec.name = members.size() == 1 ? name : name + "[" + std::to_string(g) + "]";
    spec.nodes = members[g];
    out.push_back(spec);
  }
}

void read_domains(ObjectReader& r, sim::ClusterSpec& cluster) {
  const Json* raw = r.raw("domains");
  if (raw == nullptr) return;
  if (!raw->is_array()) {
    r.fail("domains", "wrong type: got " + describe_json(*raw) +
                          " (expected an array of {name, nodes or group_size, failure, repair} "
                          "objects)");
  }
  Json resolved = Json::array();
  for (std::size_t i = 0; i < raw->size(); ++i) {
    ObjectReader o(&(*raw)[i], r.pointer_of("domains") + "/" + std::to_string(i), r.file());
    read_domain(o, i, cluster.node_count(), cluster.shared_failures.domains);
    resolved.push_back(o.finish());
  }
  r.record("domains", std::move(resolved));
}

std::string_view trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t' || text.back() == '\r'))
    text.remove_suffix(1);
  return text;
}

/// The comma-separated fields of `line`.
std::vector<std::string_view> split_fields(std::string_view line) {
  std::vector<std::string_view> fields;
  for (std::size_t at = 0;;) {
    const std::size_t comma = line.find(',', at);
    fields.push_back(trim(line.substr(at, comma == std::string_view::npos ? comma : comma - at)));
    if (comma == std::string_view::npos) return fields;
    at = comma + 1;
  }
}

/// `text` as a whole number; nullopt when it is not one.
std::optional<double> parse_number(std::string_view text) {
  double value = 0.0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

/// One data line of a trace: (node, interval). `fail` throws at the line.
template <typename Fail>
std::pair<int, sim::DownInterval> parse_trace_line(std::string_view line, int nodes,
                                                   const Fail& fail) {
  const std::vector<std::string_view> fields = split_fields(line);
  if (fields.size() != 3) {
    fail(std::to_string(fields.size()) + " fields (expected 3: node,down_s,up_s)");
  }
  const std::string ids = "(expected a node id in [0, " + std::to_string(nodes - 1) + "])";
  const std::optional<double> node = parse_number(fields[0]);
  if (!node || *node != std::floor(*node)) fail("node \"" + std::string(fields[0]) + "\" " + ids);
  if (*node < 0 || *node >= nodes)
    fail("node " + std::string(fields[0]) + " does not exist " + ids);
  const std::optional<double> down_s = parse_number(fields[1]);
  if (!down_s || !std::isfinite(*down_s) || *down_s < 0) {
    fail("down_s \"" + std::string(fields[1]) + "\" (expected a finite number of seconds >= 0)");
  }
  double up_s = INFINITY;
  if (!fields[2].empty() && fields[2] != "inf") {
    const std::optional<double> up = parse_number(fields[2]);
    if (!up || !std::isfinite(*up)) {
      fail("up_s \"" + std::string(fields[2]) +
           "\" (expected a finite number of seconds, or empty or inf for never back)");
    }
    up_s = *up;
  }
  if (up_s <= *down_s) {
    fail("up_s " + std::string(fields[2]) + " is not after down_s " + std::string(fields[1]) +
         " (expected down_s < up_s)");
  }
  return {static_cast<int>(*node), sim::DownInterval{*down_s, up_s}};
}

void read_availability_trace(ObjectReader& r, sim::ClusterSpec& cluster) {
  if (!r.has("availability_trace")) return;
  const std::string path = r.string("availability_trace", std::nullopt);
  const std::string text =
      read_input_file(path, "an availability trace: a CSV file with the header node,down_s,up_s");
  cluster.shared_failures.trace = parse_availability_trace(text, path, cluster.node_count());
}

}  // namespace

std::vector<std::vector<sim::DownInterval>> parse_availability_trace(const std::string& text,
                                                                     const std::string& file,
                                                                     int nodes) {
  std::vector<std::vector<sim::DownInterval>> trace(static_cast<std::size_t>(nodes));
  std::size_t number = 0;
  for (std::size_t at = 0; at < text.size() || number == 0;) {
    const std::size_t newline = text.find('\n', at);
    const std::string_view line = trim(std::string_view(text).substr(
        at, newline == std::string::npos ? std::string::npos : newline - at));
    at = newline == std::string::npos ? text.size() : newline + 1;
    ++number;
    const auto fail = [&](const std::string& message) {
      throw ScenarioError::at_line(file, number, message);
    };
    if (number == 1) {
      if (line != kTraceHeader) {
        fail("the first line is \"" + std::string(line) + "\" (expected the header \"" +
             std::string(kTraceHeader) + "\")");
      }
      continue;
    }
    if (line.empty()) continue;  // blank lines (a trailing one, say) carry nothing
    const auto [node, interval] = parse_trace_line(line, nodes, fail);
    std::vector<sim::DownInterval>& intervals = trace[static_cast<std::size_t>(node)];
    if (!intervals.empty() && interval.down_s < intervals.back().up_s) {
      const sim::DownInterval& last = intervals.back();
      fail("node " + std::to_string(node) + " is already down from " +
           significant(last.down_s, 15) + " to " + significant(last.up_s, 15) +
           " s (expected its intervals in order of time, not overlapping)");
    }
    intervals.push_back(interval);
  }
  return trace;
}

void read_shared_failures(ObjectReader& r, sim::ClusterSpec& cluster) {
  read_domains(r, cluster);
  read_availability_trace(r, cluster);
}
}  // namespace codesim::app
