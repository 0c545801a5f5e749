// codesim run's --trace options: the trace file, its window and its cap, checked as they are read.
#include "app/cli/trace_options.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <string>
#include <tuple>
#include <utility>

#include "app/cli/command_line.hpp"
#include "app/config/scenario_error.hpp"
#include "app/config/training_sections.hpp"

namespace codesim::app {

namespace po = boost::program_options;

void add_trace_options(po::options_description& options) {
  options.add_options()(
      "trace", po::value<std::string>()->value_name("FILE.json"),
      "write each numeric training replica's timeline in the Chrome Trace Event format "
      "(Perfetto, chrome://tracing; {name}, {point}, {replica} as in faults.log_file; not "
      "recorded in the results, which do not change)")(
      "trace-window", po::value<std::string>()->value_name("T0,T1"),
      "trace only events that overlap [T0, T1] seconds of simulated time")(
      "trace-iterations", po::value<std::string>()->value_name("I0,I1"),
      "trace only while I0 <= useful iterations done < I1")(
      "trace-max-events", po::value<std::string>()->value_name("N"),
      "stop tracing after N events (default 1000000; the run goes on, the trace says it was "
      "truncated)")("trace-no-flows", po::bool_switch(),
                    "leave out the transfers' arrows (most of a training trace's size)");
}

namespace {

/// "A,B" as two numbers with 0 <= A <= B; nullopt when it is not.
std::optional<std::pair<double, double>> parse_pair(const std::string& text) {
  const std::size_t comma = text.find(',');
  if (comma == std::string::npos) return std::nullopt;
  try {
    std::size_t used_first = 0, used_second = 0;
    const std::string first = text.substr(0, comma), second = text.substr(comma + 1);
    const double a = std::stod(first, &used_first);
    const double b = std::stod(second, &used_second);
    if (used_first != first.size() || used_second != second.size()) return std::nullopt;
    if (!std::isfinite(a) || !std::isfinite(b) || a < 0 || b < a) return std::nullopt;
    return std::pair{a, b};
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

}  // namespace

bool read_trace_options(const po::variables_map& values, std::optional<TraceRequest>& out,
                        std::ostream& err) {
  const auto fail = [&](const std::string& flag, const std::string& expected) {
    err << "error: codesim run: " << flag << " "
        << (values.count(flag.substr(2)) ? printable(values[flag.substr(2)].as<std::string>())
                                         : std::string())
        << " is not valid (expected " << expected << ")\n";
    return false;
  };
  const bool no_flows = values.count("trace-no-flows") && values["trace-no-flows"].as<bool>();
  if (!values.count("trace")) {
    if (no_flows) {
      err << "error: codesim run: --trace-no-flows needs --trace (expected --trace FILE.json)\n";
      return false;
    }
    for (const char* flag : {"trace-window", "trace-iterations", "trace-max-events"}) {
      if (values.count(flag)) {
        err << "error: codesim run: --" << flag << " needs --trace (expected --trace FILE.json)\n";
        return false;
      }
    }
    return true;
  }
  TraceRequest trace;
  trace.file = values["trace"].as<std::string>();
  if (trace.file.empty()) return fail("--trace", "a file name");
  if (const std::string word = unknown_placeholder(trace.file); !word.empty()) {
    return fail("--trace",
                "a file name whose only placeholders are {name}, {point} and "
                "{replica}, not " +
                    word);
  }
  if (values.count("trace-window")) {
    const auto window = parse_pair(values["trace-window"].as<std::string>());
    if (!window) return fail("--trace-window", "T0,T1 seconds with 0 <= T0 <= T1");
    trace.window_s = *window;
  }
  if (values.count("trace-iterations")) {
    const auto window = parse_pair(values["trace-iterations"].as<std::string>());
    if (!window || window->second > INT_MAX || window->first != std::floor(window->first) ||
        window->second != std::floor(window->second))
      return fail("--trace-iterations", "I0,I1 whole iterations with 0 <= I0 <= I1");
    trace.iterations = std::pair{static_cast<int>(window->first), static_cast<int>(window->second)};
  }
  if (values.count("trace-max-events")) {
    const std::string text = values["trace-max-events"].as<std::string>();
    const bool digits =
        !text.empty() && text.size() <= 15 &&
        std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
    const std::int64_t cap = digits ? std::stoll(text) : 0;
    if (cap < 1) return fail("--trace-max-events", "an integer >= 1");
    trace.max_events = cap;
  }
  trace.no_flows = no_flows;
  out = std::move(trace);
  return true;
}

}  // namespace codesim::app
