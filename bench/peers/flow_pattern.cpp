// Reads the text flow patterns of flow_pattern.hpp.
#include "bench/peers/flow_pattern.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>
#include <string>

namespace codesim::bench {

namespace {

sim::FlowSpec read_flow(std::istringstream& fields, std::size_t link_count) {
  sim::FlowSpec flow;
  if (!(fields >> flow.start_s >> flow.bytes))
    throw std::invalid_argument("expected START_S BYTES");
  if (flow.start_s < 0 || flow.bytes < 0 || flow.bytes != std::floor(flow.bytes)) {
    throw std::invalid_argument("start and size must be >= 0 and the size a whole number");
  }
  for (std::size_t link = 0; fields >> link;) {
    if (link >= link_count) throw std::invalid_argument("unknown link " + std::to_string(link));
    if (std::find(flow.route.begin(), flow.route.end(), link) != flow.route.end()) {
      throw std::invalid_argument("link " + std::to_string(link) + " twice in a route");
    }
    flow.route.push_back(link);
  }
  if (flow.route.empty()) throw std::invalid_argument("a flow needs at least one link");
  return flow;
}

}  // namespace

FlowPattern read_flow_pattern(std::istream& in) {
  FlowPattern pattern;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    line = line.substr(0, line.find('#'));
    std::istringstream fields(line);
    std::string kind;
    if (!(fields >> kind)) continue;
    try {
      if (kind == "link") {
        sim::FlowLink link;
        if (!(fields >> link.bandwidth_Bps >> link.latency_s) || link.bandwidth_Bps <= 0 ||
            link.latency_s < 0) {
          throw std::invalid_argument("expected BANDWIDTH_BPS > 0 and LATENCY_S >= 0");
        }
        pattern.links.push_back(link);
      } else if (kind == "flow") {
        pattern.flows.push_back(read_flow(fields, pattern.links.size()));
      } else {
        throw std::invalid_argument("unknown line kind '" + kind + "'");
      }
      std::string extra;
      if (fields.clear(), fields >> extra) throw std::invalid_argument("trailing '" + extra + "'");
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument("line " + std::to_string(number) + ": " + e.what());
    }
  }
  return pattern;
}

}  // namespace codesim::bench
