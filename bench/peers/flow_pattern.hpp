// Flow patterns as text, so codesim's flow model and SimGrid run the very same links and flows.
#pragma once

#include <istream>
#include <vector>

#include "sim/flow_network.hpp"

namespace codesim::bench {

/// Directed links and flows, read from lines of the form (ids count from 0 in order of appearance;
/// '#' starts a comment):
///   link BANDWIDTH_BPS LATENCY_S
///   flow START_S BYTES LINK [LINK ...]
struct FlowPattern {
  std::vector<sim::FlowLink> links;
  std::vector<sim::FlowSpec> flows;
};

/// Throws std::invalid_argument naming the line for anything else, for routes that name unknown
/// links or repeat one, empty routes, non-integral or negative sizes and non-positive bandwidths.
FlowPattern read_flow_pattern(std::istream& in);

}  // namespace codesim::bench
