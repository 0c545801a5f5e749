// SimGrid's CM02 and LV08 sharing in the flow network: hand-computed rates, and the weighted
// max-min certificate on random networks large enough for the tournament solver.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "sim/flow_network.hpp"
#include "sim/flow_sharing.hpp"
#include "sim/random_stream.hpp"

using codesim::sim::FlowId;
using codesim::sim::FlowLink;
using codesim::sim::FlowNetwork;
using codesim::sim::FlowSharing;
using codesim::sim::FlowSpec;
using codesim::sim::sharing_law;
using codesim::sim::SharingLaw;

namespace {

constexpr double kGBps = 1e9;

double route_latency_s(const std::vector<FlowLink>& links, const std::vector<std::size_t>& route) {
  double latency_s = 0.0;
  for (std::size_t link : route) latency_s += links[link].latency_s;
  return latency_s;
}

// SimGrid's penalty of a flow (sim/flow_sharing.hpp), computed here from its definition.
double penalty_of(const SharingLaw& law, const std::vector<FlowLink>& links,
                  const std::vector<std::size_t>& route) {
  const double latency_s = route_latency_s(links, route);
  if (latency_s == 0.0) return 1.0;
  double penalty = latency_s;
  for (std::size_t link : route) penalty += law.weight_S_B / links[link].bandwidth_Bps;
  return penalty;
}

// Posts every flow at 0 with bytes enough to keep all of them moving, and advances past the
// longest scaled latency: the network then holds the rates of every flow moving at once.
FlowNetwork moving_network(const std::vector<FlowLink>& links, const std::vector<FlowSpec>& flows,
                           FlowSharing sharing) {
  FlowNetwork network(links, sharing);
  double last_start_s = 0.0;
  for (const FlowSpec& flow : flows) {
    network.add_flow_along(flow.route, flow.bytes, 0.0, flow.back_route);
    last_start_s = std::max(
        last_start_s, route_latency_s(links, flow.route) * sharing_law(sharing).latency_factor);
  }
  network.advance_to(last_start_s);
  return network;
}

// Weighted max-min: every flow is at its bound, or crosses a saturated link (counting the
// cross-traffic of back routes) on which no flow has a larger value x penalty.
void check_weighted_certificate(const FlowNetwork& network, const std::vector<FlowLink>& links,
                                const std::vector<FlowSpec>& flows, FlowSharing sharing) {
  const SharingLaw law = sharing_law(sharing);
  std::vector<double> load_Bps(links.size(), 0.0);
  std::vector<double> top_level(links.size(), 0.0);
  std::vector<double> value(flows.size());
  std::vector<double> level(flows.size());
  for (FlowId id = 0; id < flows.size(); ++id) {
    value[id] = network.rate_Bps(id) / law.rate_factor;
    level[id] = value[id] * penalty_of(law, links, flows[id].route);
    for (std::size_t link : flows[id].route) {
      load_Bps[link] += value[id];
      top_level[link] = std::max(top_level[link], level[id]);
    }
    for (std::size_t link : flows[id].back_route) {
      load_Bps[link] += law.cross_traffic_weight * value[id];
      top_level[link] = std::max(top_level[link], level[id]);
    }
  }
  for (std::size_t link = 0; link < links.size(); ++link)
    CHECK(load_Bps[link] <= links[link].bandwidth_Bps * (1 + 1e-9));
  for (FlowId id = 0; id < flows.size(); ++id) {
    REQUIRE(value[id] > 0.0);
    const double bound_Bps =
        codesim::sim::window_bound_Bps(law, route_latency_s(links, flows[id].route));
    bool fair = value[id] >= bound_Bps * (1 - 1e-9);
    std::vector<std::size_t> used = flows[id].route;
    used.insert(used.end(), flows[id].back_route.begin(), flows[id].back_route.end());
    for (std::size_t link : used) {
      const bool saturated = load_Bps[link] >= links[link].bandwidth_Bps * (1 - 1e-9);
      if (saturated && level[id] >= top_level[link] * (1 - 1e-9)) fair = true;
    }
    INFO("flow " << id << " at " << value[id] << " B/s");
    CHECK(fair);
  }
}

}  // namespace

TEST_CASE("under cm02 two flows on one link share it in inverse proportion to their latencies") {
  // Flow 0 crosses links 0 and 2 (latency 1 ms), flow 1 links 1 and 2 (3 ms); link 2 is shared.
  const std::vector<FlowLink> links = {
      {100 * kGBps, 0.5e-3}, {100 * kGBps, 2.5e-3}, {kGBps, 0.5e-3}};
  const std::vector<FlowSpec> flows = {{{0, 2}, 1e12, 0.0}, {{1, 2}, 1e12, 0.0}};
  const FlowNetwork network = moving_network(links, flows, FlowSharing::cm02);
  // Values v_i = level / latency_i with v_0 + v_1 = 1 GB/s: v_0 = 0.75, v_1 = 0.25 GB/s (the TCP
  // window bounds, 4 MiB / (2 x latency) = 2.1 and 0.7 GB/s, bind neither).
  CHECK(network.rate_Bps(0) == doctest::Approx(0.75 * kGBps).epsilon(1e-12));
  CHECK(network.rate_Bps(1) == doctest::Approx(0.25 * kGBps).epsilon(1e-12));
}

TEST_CASE("under cm02 a flow alone is held to the TCP window over twice its latency") {
  const std::vector<FlowLink> links = {{10 * kGBps, 1e-3}};
  const FlowNetwork network = moving_network(links, {{{0}, 1e12, 0.0}}, FlowSharing::cm02);
  CHECK(network.rate_Bps(0) == doctest::Approx(4194304.0 / 2e-3).epsilon(1e-12));
  // Under max_min nothing but the link holds it.
  const FlowNetwork plain = moving_network(links, {{{0}, 1e12, 0.0}}, FlowSharing::max_min);
  CHECK(plain.rate_Bps(0) == 10 * kGBps);
}

TEST_CASE("under lv08 a lone transfer takes 13.01 latencies and moves at 97% of its link") {
  const std::vector<FlowLink> links = {{kGBps, 1e-6}, {2 * kGBps, 2e-6}};
  const std::vector<double> done_s =
      codesim::sim::simulate_flows(links, {{{0, 1}, 1e6, 0.0}}, FlowSharing::lv08);
  REQUIRE(done_s.size() == 1);
  CHECK(done_s[0] == doctest::Approx(13.01 * 3e-6 + 1e6 / (0.97 * kGBps)).epsilon(1e-12));
  CHECK(codesim::sim::lone_flow_time_s(sharing_law(FlowSharing::lv08), 3e-6, kGBps, 1e6) ==
        doctest::Approx(done_s[0]).epsilon(1e-12));
}

TEST_CASE("under cm02 a flow's acknowledgements take 5% of its rate on its route back") {
  // Flow 0 goes out on link 0; flow 1 goes out on link 1 and comes back over link 0. Equal
  // latencies: link 0 holds 1 + 0.05 units of weight and is the bottleneck of both.
  const std::vector<FlowLink> links = {{kGBps, 1e-6}, {kGBps, 1e-6}};
  const std::vector<FlowSpec> flows = {{{0}, 1e12, 0.0}, {{1}, 1e12, 0.0, {0}}};
  const FlowNetwork network = moving_network(links, flows, FlowSharing::cm02);
  CHECK(network.rate_Bps(0) == doctest::Approx(kGBps / 1.05).epsilon(1e-12));
  CHECK(network.rate_Bps(1) == doctest::Approx(kGBps / 1.05).epsilon(1e-12));
  // max_min ignores the route back.
  const FlowNetwork plain = moving_network(links, flows, FlowSharing::max_min);
  CHECK(plain.rate_Bps(1) == kGBps);
}

TEST_CASE("cm02 and lv08 rates are weighted max-min fair on random networks of every size") {
  for (const FlowSharing sharing : {FlowSharing::cm02, FlowSharing::lv08}) {
    for (const std::size_t link_count : {6u, 40u, 400u}) {
      codesim::sim::RandomStream random(codesim::sim::StreamKey{
          7, link_count, "flow sharing", static_cast<std::uint64_t>(sharing)});
      std::vector<FlowLink> links;
      for (std::size_t k = 0; k < link_count; ++k)
        links.push_back({random.uniform(0.5, 20.0) * kGBps, random.uniform(0.0, 4e-4)});
      std::vector<FlowSpec> flows;
      for (std::size_t f = 0; f < 2 * link_count; ++f) {
        FlowSpec flow;
        flow.bytes = 1e15;
        const auto hops = static_cast<std::size_t>(random.uniform_int(1, 5));
        std::vector<std::size_t> order(link_count);
        for (std::size_t k = 0; k < link_count; ++k) order[k] = k;
        for (std::size_t h = 0; h < 2 * hops && h < link_count; ++h) {
          const auto pick = static_cast<std::size_t>(
              random.uniform_int(static_cast<int>(h), static_cast<int>(link_count) - 1));
          std::swap(order[h], order[pick]);
          (h < hops ? flow.route : flow.back_route).push_back(order[h]);
        }
        flows.push_back(std::move(flow));
      }
      INFO(codesim::sim::to_string(sharing) << " on " << link_count << " links");
      const FlowNetwork network = moving_network(links, flows, sharing);
      check_weighted_certificate(network, links, flows, sharing);
    }
  }
}
