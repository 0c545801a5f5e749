// Trace files: CSV lines checked one by one, errors at FILE:LINE.
#include "app/config/trace_files.hpp"

#include <charconv>
#include <cmath>
#include <functional>
#include <optional>
#include <system_error>
#include <utility>

#include "app/config/json_input.hpp"
#include "app/config/scenario_error.hpp"
#include "app/config/text_format.hpp"

namespace codesim::app {
namespace {

constexpr std::string_view kAvailabilityHeader = "node,down_s,up_s";
constexpr std::string_view kStepHeader = "node,from_s,multiplier";

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

using LineFail = std::function<void(const std::string&)>;

/// Calls `read(line, fail)` for every non-blank line after the header, which must be `header`.
void for_each_line(const std::string& text, const std::string& file, std::string_view header,
                   const std::function<void(std::string_view, const LineFail&)>& read) {
  std::size_t number = 0;
  for (std::size_t at = 0; at < text.size() || number == 0;) {
    const std::size_t newline = text.find('\n', at);
    const std::string_view line = trim(std::string_view(text).substr(
        at, newline == std::string::npos ? std::string::npos : newline - at));
    at = newline == std::string::npos ? text.size() : newline + 1;
    ++number;
    const LineFail fail = [&](const std::string& message) {
      throw ScenarioError::at_line(file, number, message);
    };
    if (number == 1) {
      // Spreadsheets save CSV as UTF-8 with a byte-order mark: it is not part of the header.
      constexpr std::string_view kByteOrderMark = "\xEF\xBB\xBF";
      if (line != header && line.starts_with(kByteOrderMark) &&
          line.substr(kByteOrderMark.size()) == header)
        continue;
      if (line != header) {
        fail("the first line is \"" + std::string(line) + "\" (expected the header \"" +
             std::string(header) + "\")");
      }
      continue;
    }
    if (line.empty()) continue;  // blank lines (a trailing one, say) carry nothing
    read(line, fail);
  }
}

/// The node id in `field`, which must name one of `nodes` nodes.
int parse_node(std::string_view field, int nodes, const LineFail& fail) {
  const std::string ids = "(expected a node id in [0, " + std::to_string(nodes - 1) + "])";
  const std::optional<double> node = parse_number(field);
  if (!node || *node != std::floor(*node)) fail("node \"" + std::string(field) + "\" " + ids);
  if (*node < 0 || *node >= nodes) fail("node " + std::string(field) + " does not exist " + ids);
  return static_cast<int>(*node);
}

/// One line of an availability trace: (node, interval).
std::pair<int, sim::DownInterval> parse_trace_line(std::string_view line, int nodes,
                                                   const LineFail& fail) {
  const std::vector<std::string_view> fields = split_fields(line);
  if (fields.size() != 3) {
    fail(std::to_string(fields.size()) + " fields (expected 3: node,down_s,up_s)");
  }
  const int node = parse_node(fields[0], nodes, fail);
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
  return {node, sim::DownInterval{*down_s, up_s}};
}

/// One step line: (node, step).
std::pair<int, sim::StepTrace::Step> parse_step_line(std::string_view line, int nodes,
                                                     double period_s, StepTraceKind kind,
                                                     const LineFail& fail) {
  const std::vector<std::string_view> fields = split_fields(line);
  if (fields.size() != 3) {
    fail(std::to_string(fields.size()) + " fields (expected 3: node,from_s,multiplier)");
  }
  const int node = parse_node(fields[0], nodes, fail);
  const std::optional<double> from_s = parse_number(fields[1]);
  if (!from_s || !std::isfinite(*from_s) || *from_s < 0) {
    fail("from_s \"" + std::string(fields[1]) + "\" (expected a finite number of seconds >= 0)");
  }
  if (*from_s >= period_s) {
    fail("from_s " + std::string(fields[1]) + " is not inside the period of " +
         significant(period_s, 15) + " s (expected from_s < period_s)");
  }
  const std::optional<double> value = parse_number(fields[2]);
  const bool speed = kind == StepTraceKind::speed;
  if (!value || !std::isfinite(*value) || (speed ? *value <= 0 : *value < 0)) {
    fail("multiplier \"" + std::string(fields[2]) + "\" (expected a finite number " +
         (speed ? "> 0: a node never stops" : ">= 0") + ")");
  }
  return {node, {*from_s, *value}};
}

}  // namespace

std::vector<std::vector<sim::DownInterval>> parse_availability_trace(const std::string& text,
                                                                     const std::string& file,
                                                                     int nodes) {
  std::vector<std::vector<sim::DownInterval>> trace(static_cast<std::size_t>(nodes));
  for_each_line(text, file, kAvailabilityHeader, [&](std::string_view line, const LineFail& fail) {
    const auto [node, interval] = parse_trace_line(line, nodes, fail);
    std::vector<sim::DownInterval>& intervals = trace[static_cast<std::size_t>(node)];
    if (!intervals.empty() && interval.down_s < intervals.back().up_s) {
      const sim::DownInterval& last = intervals.back();
      fail("node " + std::to_string(node) + " is already down from " +
           significant(last.down_s, 15) + " to " + significant(last.up_s, 15) +
           " s (expected its intervals in order of time, not overlapping)");
    }
    intervals.push_back(interval);
  });
  return trace;
}

std::vector<sim::StepTrace> parse_step_trace(const std::string& text, const std::string& file,
                                             int nodes, double period_s, StepTraceKind kind) {
  std::vector<sim::StepTrace> traces(static_cast<std::size_t>(nodes));
  for (sim::StepTrace& trace : traces) trace.period_s = period_s;
  for_each_line(text, file, kStepHeader, [&](std::string_view line, const LineFail& fail) {
    const auto [node, step] = parse_step_line(line, nodes, period_s, kind, fail);
    std::vector<sim::StepTrace::Step>& steps = traces[static_cast<std::size_t>(node)].steps;
    if (!steps.empty() && step.from_s <= steps.back().from_s) {
      fail("node " + std::to_string(node) + " already has a step from " +
           significant(steps.back().from_s, 15) +
           " s (expected its steps in increasing order of from_s)");
    }
    steps.push_back(step);
  });
  return traces;
}

std::vector<sim::StepTrace> read_step_trace(ObjectReader& r, std::string_view key, int nodes,
                                            StepTraceKind kind) {
  if (!r.has(key)) return {};
  const std::string what = std::string(kind == StepTraceKind::speed ? "a speed" : "a rate") +
                           " trace: a CSV file with the header " + std::string(kStepHeader);
  std::string path;
  double period_s = INFINITY;
  const Json* raw = r.raw(key);
  if (raw != nullptr && raw->is_object()) {
    r.object(key, [&](ObjectReader& o) {
      path = o.file_name("file", what);
      period_s = o.number_or_infinity("period_s", INFINITY, at_least(sim::kMinTracePeriod_s));
    });
  } else {
    path = r.file_name(key, what);
  }
  std::vector<sim::StepTrace> traces =
      parse_step_trace(read_input_file(path, what), path, nodes, period_s, kind);
  if (kind == StepTraceKind::speed) {
    for (std::size_t node = 0; node < traces.size(); ++node) {
      // Multipliers so small that a period's work underflows: the node would never finish.
      if (!(sim::work_per_period_s(traces[node]) > 0.0)) {
        r.fail(key, "node " + std::to_string(node) + "'s speeds do no work over a period of " +
                        significant(period_s, 15) +
                        " s (expected multipliers whose work over the period is > 0)");
      }
    }
  }
  return traces;
}

}  // namespace codesim::app
