// The pure max-min SimGrid configuration (see the header for why each option).
#include "bench/peers/simgrid_max_min.hpp"

#include <xbt/config.hpp>

#include <string>
#include <utility>

namespace codesim::bench {

void configure_max_min() {
  const std::pair<const char*, const char*> settings[] = {
      {"network/model", "CM02"}, {"network/latency-factor", "1"}, {"network/bandwidth-factor", "1"},
      {"network/weight-S", "0"}, {"network/TCP-gamma", "0"},      {"network/crosstraffic", "0"}};
  for (const auto& [name, value] : settings) {
    if (simgrid::config::is_default(name)) {
      simgrid::s4u::Engine::set_config(std::string(name) + ":" + value);
    }
  }
}

void configure_sharing(sim::FlowSharing sharing) {
  if (sharing == sim::FlowSharing::max_min) {
    configure_max_min();
    return;
  }
  if (simgrid::config::is_default("network/model"))
    simgrid::s4u::Engine::set_config(std::string("network/model:") +
                                     (sharing == sim::FlowSharing::cm02 ? "CM02" : "LV08"));
}

void zero_link_latencies(const simgrid::s4u::Engine& engine) {
  // get_all_links lists each direction of a split-duplex link (NAME_UP, NAME_DOWN) on its own.
  for (simgrid::s4u::Link* link : engine.get_all_links()) link->set_latency(0.0);
}

}  // namespace codesim::bench
