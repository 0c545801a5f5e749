// SimGrid 3.32 peer of codesim's flow model (sim/flow_network.hpp): runs a flow pattern
// (flow_pattern.hpp) with SimGrid's max-min network model and prints each flow's completion time;
// with --compare it also runs codesim's model and fails when the two disagree.
//
// SimGrid is set to pure max-min sharing (simgrid_max_min.hpp says how and why). By default
// (--latency sleep) the links carry no latency in SimGrid and each flow first sleeps its route
// latency; --latency native keeps the latencies on SimGrid's links, which agrees only where the
// flows sharing a link have equal route latencies (CM02 weighs shares by route latency).
#include <simgrid/s4u.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "bench/peers/flow_pattern.hpp"
#include "bench/peers/simgrid_max_min.hpp"

namespace sg4 = simgrid::s4u;

namespace {

struct Options {
  std::string pattern_path;
  bool native_latency = false;
  bool compare = false;
  double tolerance = 1e-3;  // relative, on each completion time
};

Options parse_options(int argc, char** argv) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--compare") {
      options.compare = true;
    } else if (arg == "--latency" && i + 1 < argc) {
      const std::string mode = argv[++i];
      if (mode != "sleep" && mode != "native")
        throw std::invalid_argument("--latency sleep|native");
      options.native_latency = mode == "native";
    } else if (arg == "--tolerance" && i + 1 < argc) {
      options.tolerance = std::stod(argv[++i]);
    } else if (options.pattern_path.empty() && arg.rfind("--", 0) != 0) {
      options.pattern_path = arg;
    } else {
      throw std::invalid_argument("unexpected argument '" + arg + "'");
    }
  }
  if (options.pattern_path.empty()) throw std::invalid_argument("no pattern file");
  return options;
}

double route_latency_s(const codesim::bench::FlowPattern& pattern,
                       const codesim::sim::FlowSpec& f) {
  double latency_s = 0.0;
  for (std::size_t link : f.route) latency_s += pattern.links[link].latency_s;
  return latency_s;
}

// One sender and one receiver host per flow, joined by an explicit one-way route of the flow's
// links (each pattern link is one direction, so a SimGrid SHARED link per pattern link).
std::vector<double> run_simgrid(const codesim::bench::FlowPattern& pattern, bool native_latency) {
  sg4::NetZone* zone = sg4::create_full_zone("flows");
  std::vector<sg4::Link*> links;
  for (std::size_t i = 0; i < pattern.links.size(); ++i) {
    const double latency_s = native_latency ? pattern.links[i].latency_s : 0.0;
    links.push_back(zone->create_link("link-" + std::to_string(i), pattern.links[i].bandwidth_Bps)
                        ->set_latency(latency_s)
                        ->seal());
  }
  std::vector<double> completion_s(pattern.flows.size(), -1.0);
  for (std::size_t i = 0; i < pattern.flows.size(); ++i) {
    const codesim::sim::FlowSpec& flow = pattern.flows[i];
    sg4::Host* src = zone->create_host("src-" + std::to_string(i), 1e9)->seal();
    sg4::Host* dst = zone->create_host("dst-" + std::to_string(i), 1e9)->seal();
    std::vector<sg4::LinkInRoute> route;
    for (std::size_t link : flow.route) route.emplace_back(links[link]);
    zone->add_route(src->get_netpoint(), dst->get_netpoint(), nullptr, nullptr, route, false);
    const double wait_s = native_latency ? 0.0 : route_latency_s(pattern, flow);
    double* done_s = &completion_s[i];
    sg4::Actor::create("flow-" + std::to_string(i), src, [=] {
      sg4::this_actor::sleep_until(flow.start_s + wait_s);
      sg4::Comm::sendto(src, dst, static_cast<std::uint64_t>(flow.bytes));
      *done_s = sg4::Engine::get_clock();
    });
  }
  zone->seal();
  sg4::Engine::get_instance()->run();
  return completion_s;
}

void print_times(const char* name, const std::vector<double>& times_s) {
  std::cout << "  \"" << name << "\": [";
  for (std::size_t i = 0; i < times_s.size(); ++i) std::cout << (i ? ", " : "") << times_s[i];
  std::cout << "]";
}

}  // namespace

int main(int argc, char** argv) {
  sg4::Engine engine(&argc, argv);  // removes its --cfg=... and --log=... arguments
  codesim::bench::configure_max_min();
  Options options;
  codesim::bench::FlowPattern pattern;
  try {
    options = parse_options(argc, argv);
    std::ifstream in(options.pattern_path);
    if (!in) throw std::invalid_argument("cannot read " + options.pattern_path);
    pattern = codesim::bench::read_flow_pattern(in);
  } catch (const std::invalid_argument& e) {
    std::cerr << "error: " << e.what() << "\nusage: simgrid-flows PATTERN [--latency sleep|native]"
              << " [--compare [--tolerance REL]] [--cfg=...]\n";
    return 2;
  }

  const std::vector<double> simgrid_s = run_simgrid(pattern, options.native_latency);
  std::cout << std::setprecision(17) << "{\n";
  print_times("simgrid_s", simgrid_s);
  if (!options.compare) {
    std::cout << "\n}\n";
    return 0;
  }
  const std::vector<double> codesim_s = codesim::sim::simulate_flows(pattern.links, pattern.flows);
  double worst = 0.0;
  for (std::size_t i = 0; i < simgrid_s.size(); ++i) {
    worst = std::max(worst, std::abs(codesim_s[i] - simgrid_s[i]) / std::max(simgrid_s[i], 1e-12));
  }
  std::cout << ",\n";
  print_times("codesim_s", codesim_s);
  std::cout << ",\n  \"max_relative_difference\": " << worst << "\n}\n";
  return worst <= options.tolerance ? 0 : 1;
}
