// `codesim-bench network`: flows completed per second of wall time by sim::run_schedule on a named
// pattern and platform (bench/patterns), against the SimGrid peer running the very same transfers
// (bench/peers/simgrid_schedules.cpp) in interleaved runs; and, with --small, the time per call
// of the quickstart's collectives, which training will run every round under the flow model.
#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <numeric>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench/bench_timing.hpp"
#include "bench/benchmarks.hpp"
#include "bench/option_values.hpp"
#include "bench/patterns/network_patterns.hpp"
#include "sim/collective_schedules.hpp"
#include "sim/collectives.hpp"

namespace codesim::bench {
namespace {

constexpr const char* kUsage =
    "usage: codesim-bench network --pattern P --platform T --nodes N [--runs R] [--calls K]\n"
    "                             [--peer PATH | --no-peer] [--json]\n"
    "       codesim-bench network --small [--runs R] [--json]\n"
    "  flows completed per second of wall time by run_schedule (K calls per run, default 1, each\n"
    "  on a topology of its own so that none finds the run remembered),\n"
    "  interleaved with R runs (default 5) of the SimGrid peer on the same pattern (by default\n"
    "  peers/simgrid-schedules next to codesim-bench, when built); medians, and the median of\n"
    "  the per-run ratios. --small: microseconds per call of the quickstart's collectives.\n";

struct Options {
  std::string pattern;
  std::string platform = "star";
  int nodes = 0;
  int runs = 5;
  int calls = 1;
  std::string peer;  // "" = look next to codesim-bench
  bool no_peer = false;
  bool small = false;
  bool json = false;
  bool help = false;
};

// Empty string when valid, else what is wrong.
std::string parse(const std::vector<std::string>& args, Options& o) {
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    const bool has_value = i + 1 < args.size();
    if (a == "--json") {
      o.json = true;
    } else if (a == "--help" || a == "-h") {
      o.help = true;
    } else if (a == "--small") {
      o.small = true;
    } else if (a == "--no-peer") {
      o.no_peer = true;
    } else if (a == "--pattern" && has_value) {
      o.pattern = args[++i];
    } else if (a == "--platform" && has_value) {
      o.platform = args[++i];
    } else if (a == "--peer" && has_value) {
      o.peer = args[++i];
    } else if ((a == "--nodes" || a == "--runs" || a == "--calls") && has_value) {
      const int value = positive(args[++i]);
      if (value == 0) return a + " expects a positive integer";
      (a == "--nodes" ? o.nodes : a == "--runs" ? o.runs : o.calls) = value;
    } else {
      return "unknown argument '" + a + "'";
    }
  }
  if (!o.small && !o.help && (o.pattern.empty() || o.nodes == 0))
    return "--pattern and --nodes are required (or --small)";
  return "";
}

std::string join(const std::vector<double>& values) {
  std::ostringstream out;
  out << std::setprecision(4);
  for (std::size_t i = 0; i < values.size(); ++i) out << (i ? " " : "") << values[i];
  return out.str();
}

// ---- the peer ----

std::string shell_quoted(const std::string& text) {
  std::string quoted = "'";
  for (char c : text) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

// The value after "key": in the peer's JSON, if any.
std::optional<double> json_number(const std::string& json, const std::string& key) {
  const std::size_t at = json.find("\"" + key + "\": ");
  if (at == std::string::npos) return std::nullopt;
  try {
    return std::stod(json.substr(at + key.size() + 4));
  } catch (...) {
    return std::nullopt;
  }
}

struct PeerRun {
  double wall_s = 0.0;
  double makespan_s = 0.0;
  std::optional<double> max_relative_difference;  // with --compare
};

// One run of the peer; --compare (checking every completion time against run_schedule, after
// SimGrid's timed run) on the first one. Throws std::runtime_error when it fails.
PeerRun run_peer(const Options& o, bool compare) {
  std::string command = shell_quoted(o.peer) + " --pattern " + shell_quoted(o.pattern) +
                        " --platform " + shell_quoted(o.platform) + " --nodes " +
                        std::to_string(o.nodes) + " --summary --log=xbt_cfg.thres:warning" +
                        (compare ? " --compare" : "");
  FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) throw std::runtime_error("cannot run " + o.peer);
  std::string output;
  std::array<char, 4096> buffer{};
  for (std::size_t got; (got = std::fread(buffer.data(), 1, buffer.size(), pipe)) > 0;)
    output.append(buffer.data(), got);
  const int status = ::pclose(pipe);
  PeerRun run;
  const auto wall_s = json_number(output, "wall_s");
  const auto makespan_s = json_number(output, "makespan_s");
  if (!wall_s || !makespan_s) throw std::runtime_error("the peer failed: " + command);
  run.wall_s = *wall_s;
  run.makespan_s = *makespan_s;
  run.max_relative_difference = json_number(output, "max_relative_difference");
  if (compare && status != 0)
    throw std::runtime_error(
        "the peer's completion times differ from codesim's by more than "
        "0.1%: " +
        command + " --compare");
  return run;
}

// --peer, else peers/simgrid-schedules next to this executable when it was built; "" for none.
std::string find_peer(const Options& o, const std::string& argv0) {
  if (o.no_peer) return "";
  if (!o.peer.empty()) return o.peer;
  const std::filesystem::path self(argv0);
  if (!self.has_parent_path()) return "";
  const std::filesystem::path peer = self.parent_path() / "peers" / "simgrid-schedules";
  std::error_code error;
  return std::filesystem::is_regular_file(peer, error) ? peer.string() : "";
}

// ---- the pattern benchmark ----

struct Side {
  std::vector<double> wall_s;       // per run
  std::vector<double> flows_per_s;  // per run
};

struct Measured {
  std::size_t flows = 0;
  Side ours;
  Side peer;  // empty without a peer
  std::vector<double> ratios;
  double makespan_s = 0.0;
  std::optional<double> peer_makespan_s;
  std::optional<double> max_difference;  // from the first peer run's --compare
};

// Interleaved runs: a load change on the shared machine hits both sides. A topology remembers
// the flow runs of the schedules it has seen (Topology::remember), so each call gets its own,
// built before the clock starts. Throws std::runtime_error when the peer fails.
Measured measure(const Options& o, const NetworkPattern& pattern) {
  Measured m;
  for (const sim::Transfer& t : pattern.schedule.transfers()) m.flows += t.src != t.dst;
  const auto flows = static_cast<double>(m.flows);
  for (int r = 0; r < o.runs; ++r) {
    std::vector<sim::Topology> fresh;
    for (int c = 0; c < o.calls; ++c) fresh.emplace_back(pattern.platform);
    const auto start = std::chrono::steady_clock::now();
    for (const sim::Topology& topology : fresh)
      m.makespan_s = sim::run_schedule(topology, pattern.schedule).makespan_s;
    m.ours.wall_s.push_back(seconds_since(start) / o.calls);
    m.ours.flows_per_s.push_back(flows / m.ours.wall_s.back());
    if (o.peer.empty()) continue;
    const PeerRun run = run_peer(o, r == 0);
    if (r == 0) m.max_difference = run.max_relative_difference;
    m.peer_makespan_s = run.makespan_s;
    m.peer.wall_s.push_back(run.wall_s);
    m.peer.flows_per_s.push_back(flows / run.wall_s);
    m.ratios.push_back(m.ours.flows_per_s.back() / m.peer.flows_per_s.back());
  }
  return m;
}

std::string number_or_null(const std::optional<double>& value) {
  std::ostringstream text;
  text << std::setprecision(6);
  if (value) {
    text << *value;
  } else {
    text << "null";
  }
  return text.str();
}

std::optional<double> median_if_any(const std::vector<double>& values) {
  return values.empty() ? std::nullopt : std::optional<double>(median(values));
}

void print_json(const Options& o, const Measured& m, std::ostream& out) {
  out << std::setprecision(6) << "{\"pattern\": \"" << o.pattern << "\", \"platform\": \""
      << o.platform << "\", \"nodes\": " << o.nodes << ", \"flows\": " << m.flows
      << ", \"runs\": " << o.runs << ", \"calls\": " << o.calls
      << ", \"codesim_wall_s\": " << median(m.ours.wall_s)
      << ", \"codesim_flows_per_s\": " << median(m.ours.flows_per_s)
      << ", \"simgrid_wall_s\": " << number_or_null(median_if_any(m.peer.wall_s))
      << ", \"simgrid_flows_per_s\": " << number_or_null(median_if_any(m.peer.flows_per_s))
      << ", \"ratio\": " << number_or_null(median_if_any(m.ratios))
      << ", \"makespan_s\": " << std::setprecision(12) << m.makespan_s
      << ", \"max_relative_difference\": " << number_or_null(m.max_difference) << "}\n";
}

void print_text(const Options& o, const Measured& m, std::ostream& out) {
  out << std::setprecision(4) << "network benchmark: " << o.pattern << " on " << o.platform << ", "
      << o.nodes << " nodes, " << m.flows << " flows; " << o.runs << " runs per side, interleaved"
      << (o.calls > 1 ? " (" + std::to_string(o.calls) + " calls per codesim run)" : "") << "\n"
      << "codesim: median " << median(m.ours.wall_s) << " s per run, " << median(m.ours.flows_per_s)
      << " flows/s (runs, s: " << join(m.ours.wall_s) << ")\n";
  if (m.peer.wall_s.empty()) {
    out << "simgrid: no peer (build simgrid-schedules or pass --peer PATH)\n";
  } else {
    out << "simgrid: median " << median(m.peer.wall_s) << " s per run, "
        << median(m.peer.flows_per_s) << " flows/s (runs, s: " << join(m.peer.wall_s) << ")\n"
        << "ratio: " << median(m.ratios) << "x (median of the per-run ratios: " << join(m.ratios)
        << ")\n";
  }
  out << std::setprecision(12) << "simulated makespan: " << m.makespan_s << " s";
  if (m.peer_makespan_s) out << " (simgrid " << *m.peer_makespan_s << " s)";
  if (m.max_difference)
    out << "; largest relative difference of a completion time " << std::setprecision(3)
        << *m.max_difference;
  out << "\n";
}

int run_pattern_bench(Options o, const std::string& argv0, std::ostream& out) {
  NetworkPattern pattern;
  try {
    pattern = make_network_pattern(o.pattern, o.platform, o.nodes);
  } catch (const std::invalid_argument& e) {
    std::cerr << "error: " << e.what() << "\n" << kUsage;
    return 2;
  }
  o.peer = find_peer(o, argv0);
  try {
    const Measured m = measure(o, pattern);
    if (o.json) {
      print_json(o, m, out);
    } else {
      print_text(o, m, out);
    }
  } catch (const std::runtime_error& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  }
  return 0;
}

}  // namespace

int run_network_bench(const std::vector<std::string>& args, const std::string& argv0,
                      std::ostream& out) {
  Options o;
  if (const std::string error = parse(args, o); !error.empty()) {
    std::cerr << "error: " << error << "\n" << kUsage;
    return 2;
  }
  if (o.help) {
    out << kUsage;
    return 0;
  }
  if (o.small) return run_small_collectives_bench(o.runs, o.json, out);
  return run_pattern_bench(o, argv0, out);
}

}  // namespace codesim::bench
