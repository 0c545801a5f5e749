// Max-min flow sharing against hand-computed completion times and the max-min certificate.
#include "sim/flow_network.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include "sim/random_stream.hpp"
#include "sim/run_stopped.hpp"

using codesim::sim::FlowId;
using codesim::sim::FlowLink;
using codesim::sim::FlowNetwork;
using codesim::sim::FlowSpec;
using codesim::sim::simulate_flows;

namespace {

constexpr double kGBps = 1e9;

void check_times(const std::vector<double>& actual_s, const std::vector<double>& expected_s) {
  REQUIRE(actual_s.size() == expected_s.size());
  for (std::size_t i = 0; i < actual_s.size(); ++i) {
    INFO("flow " << i);
    CHECK(actual_s[i] == doctest::Approx(expected_s[i]).epsilon(1e-12));
  }
}

// A flow is max-min fair when it crosses a saturated link on which no flow is faster.
void check_max_min_certificate(const FlowNetwork& network, const std::vector<FlowLink>& links,
                               const std::vector<FlowSpec>& flows) {
  std::vector<double> load_Bps(links.size(), 0.0);
  std::vector<double> fastest_Bps(links.size(), 0.0);
  for (FlowId id = 0; id < flows.size(); ++id) {
    for (std::size_t link : flows[id].route) {
      load_Bps[link] += network.rate_Bps(id);
      fastest_Bps[link] = std::max(fastest_Bps[link], network.rate_Bps(id));
    }
  }
  for (std::size_t link = 0; link < links.size(); ++link) {
    CHECK(load_Bps[link] <= links[link].bandwidth_Bps * (1 + 1e-12));
  }
  for (FlowId id = 0; id < flows.size(); ++id) {
    const double rate_Bps = network.rate_Bps(id);
    if (rate_Bps == 0.0) continue;  // waiting or finished
    bool has_bottleneck = false;
    for (std::size_t link : flows[id].route) {
      const bool saturated = load_Bps[link] >= links[link].bandwidth_Bps * (1 - 1e-9);
      if (saturated && rate_Bps >= fastest_Bps[link] * (1 - 1e-9)) has_bottleneck = true;
    }
    INFO("flow " << id << " at " << rate_Bps << " B/s");
    CHECK(has_bottleneck);
  }
}

// Progressive filling over every moving flow at once (a flow moves when its rate is positive),
// scanning the links in id order: the definition the network's component-by-component solver
// must reproduce bit for bit.
std::vector<double> reference_rates(const FlowNetwork& network, const std::vector<FlowLink>& links,
                                    const std::vector<FlowSpec>& flows) {
  std::vector<double> capacity_Bps(links.size());
  std::vector<std::size_t> unfixed(links.size(), 0);
  std::vector<double> rate_Bps(flows.size(), 0.0);
  for (std::size_t link = 0; link < links.size(); ++link)
    capacity_Bps[link] = links[link].bandwidth_Bps;
  for (FlowId id = 0; id < flows.size(); ++id) {
    if (network.rate_Bps(id) == 0.0) continue;
    rate_Bps[id] = -1.0;
    for (std::size_t link : flows[id].route) ++unfixed[link];
  }
  for (;;) {
    std::size_t bottleneck = links.size();
    double share_Bps = std::numeric_limits<double>::infinity();
    for (std::size_t link = 0; link < links.size(); ++link) {
      if (unfixed[link] > 0 && capacity_Bps[link] / double(unfixed[link]) < share_Bps) {
        share_Bps = capacity_Bps[link] / double(unfixed[link]);
        bottleneck = link;
      }
    }
    if (bottleneck == links.size()) return rate_Bps;
    for (FlowId id = 0; id < flows.size(); ++id) {
      const auto& route = flows[id].route;
      if (rate_Bps[id] >= 0.0 || std::find(route.begin(), route.end(), bottleneck) == route.end())
        continue;
      rate_Bps[id] = share_Bps;
      for (std::size_t link : route) {
        capacity_Bps[link] = std::max(0.0, capacity_Bps[link] - share_Bps);
        --unfixed[link];
      }
    }
  }
}

void check_reference_rates(const FlowNetwork& network, const std::vector<FlowLink>& links,
                           const std::vector<FlowSpec>& flows) {
  const std::vector<double> expected_Bps = reference_rates(network, links, flows);
  for (FlowId id = 0; id < flows.size(); ++id) {
    INFO("flow " << id);
    CHECK(network.rate_Bps(id) == expected_Bps[id]);
  }
}

// Sixteen senders, each on its own uplink (links 0-15), into one receiver's downlink (link 16).
std::vector<FlowLink> incast_links() {
  std::vector<FlowLink> links(17, FlowLink{kGBps, 1e-6});
  return links;
}

}  // namespace

TEST_CASE("one flow takes its route latency plus its bytes over the slowest link") {
  const std::vector<FlowLink> links{{kGBps, 1e-3}, {0.5 * kGBps, 2e-3}};
  check_times(simulate_flows(links, {{{0, 1}, 1e6, 0.0}}), {3e-3 + 1e6 / (0.5 * kGBps)});
  check_times(simulate_flows(links, {{{0, 1}, 1e6, 0.25}}), {0.25 + 5e-3});
}

TEST_CASE("two flows on one link share it equally and the shorter one's end speeds up the other") {
  // Both move at 5e8 B/s from 1e-4 s; the first ends after 1e6 B at 2.1e-3 s, the second then
  // has 2e6 B left at the full 1e9 B/s: 4.1e-3 s. Without sharing they would end at 1.1e-3 s and
  // 3.1e-3 s; without the speed-up, the second at 6.1e-3 s.
  const std::vector<FlowLink> links{{kGBps, 1e-4}};
  check_times(simulate_flows(links, {{{0}, 1e6, 0.0}, {{0}, 3e6, 0.0}}), {2.1e-3, 4.1e-3});
}

TEST_CASE("a flow bottlenecked elsewhere leaves its unused share to the others") {
  // A crosses the slow link 2 and link 0; B link 0; C links 0 and 1; D link 1. Progressive
  // filling: link 2 fixes A at 2e8, link 0 splits its remaining 8e8 between B and C (4e8 each),
  // link 1 gives D the remaining 6e8. An equal split of link 0 would give B only 3.33e8.
  const std::vector<FlowLink> links{{kGBps, 0.0}, {kGBps, 0.0}, {2e8, 0.0}};
  const std::vector<FlowSpec> flows{
      {{2, 0}, 2e5, 0.0}, {{0}, 9e5, 0.0}, {{0, 1}, 1.4e6, 0.0}, {{1}, 2.1e6, 0.0}};
  FlowNetwork network(links);
  for (const FlowSpec& flow : flows) network.add_flow(flow.route, flow.bytes, flow.start_s);
  network.advance_to(0.0);
  CHECK(network.rate_Bps(0) == doctest::Approx(2e8));
  CHECK(network.rate_Bps(1) == doctest::Approx(4e8));
  CHECK(network.rate_Bps(2) == doctest::Approx(4e8));
  CHECK(network.rate_Bps(3) == doctest::Approx(6e8));
  check_max_min_certificate(network, links, flows);
  // A ends at 1e-3 s; then B, C, D move at 5e8 each: B ends at 2e-3 s; C (alone on link 0 but
  // sharing link 1 with D) at 3e-3 s; D has 5e5 B left and takes link 1 alone: 3.5e-3 s.
  check_times(simulate_flows(links, flows), {1e-3, 2e-3, 3e-3, 3.5e-3});
}

TEST_CASE("sixteen flows into one link share it and finish as a cascade") {
  // Flow k (k = 1..16) carries k * 1e5 B; the downlink is the bottleneck: while 17 - j flows
  // remain, each gets 1e9 / (17 - j) B/s, so T_k = 2e-6 + sum_{j <= k} 1e5 (17 - j) / 1e9.
  std::vector<FlowSpec> flows;
  for (std::size_t k = 1; k <= 16; ++k) flows.push_back({{k - 1, 16}, 1e5 * double(k), 0.0});
  std::vector<double> expected_s;
  double t_s = 2e-6;
  for (int k = 1; k <= 16; ++k) {
    t_s += 1e5 * (17.0 - k) / kGBps;
    expected_s.push_back(t_s);
  }
  check_times(simulate_flows(incast_links(), flows), expected_s);
  // Equal sizes: every flow ends together, at 16 times a lone flow's transfer time.
  for (FlowSpec& flow : flows) flow.bytes = 1e6;
  check_times(simulate_flows(incast_links(), flows), std::vector<double>(16, 2e-6 + 16e6 / kGBps));
}

TEST_CASE("flows in opposite directions of a full-duplex link do not share it") {
  const std::vector<FlowLink> links{{kGBps, 0.0}, {kGBps, 0.0}};  // a -> b and b -> a
  check_times(simulate_flows(links, {{{0}, 1e6, 0.0}, {{1}, 1e6, 0.0}}), {1e-3, 1e-3});
  check_times(simulate_flows(links, {{{0}, 1e6, 0.0}, {{0}, 1e6, 0.0}}), {2e-3, 2e-3});
}

TEST_CASE("a flow posted later joins the sharing after its own latency") {
  // A moves alone from 1e-4 s; B, posted at 1e-3 s, moves from 1.1e-3 s, when A has 1e6 B left.
  // Sharing at 5e8 each, B's 5e5 B end at 2.1e-3 s; A's last 5e5 B then run alone: 2.6e-3 s.
  const std::vector<FlowLink> links{{kGBps, 1e-4}};
  check_times(simulate_flows(links, {{{0}, 2e6, 0.0}, {{0}, 5e5, 1e-3}}), {2.6e-3, 2.1e-3});

  // The same through the engine-facing calls: B is added once the clock has reached 1e-3 s.
  FlowNetwork network(links);
  const FlowId a = network.add_flow({0}, 2e6, 0.0);
  CHECK(network.advance_to(1e-3).empty());
  CHECK(network.rate_Bps(a) == doctest::Approx(kGBps));
  const FlowId b = network.add_flow({0}, 5e5, 1e-3);
  CHECK(network.next_event_time_s() == doctest::Approx(1.1e-3));
  std::vector<FlowId> order;
  for (double t_s = network.next_event_time_s(); t_s < 1.0; t_s = network.next_event_time_s()) {
    for (FlowId id : network.advance_to(t_s)) order.push_back(id);
  }
  CHECK(order == std::vector<FlowId>{b, a});
  CHECK(network.completion_time_s(b) == doctest::Approx(2.1e-3).epsilon(1e-12));
  CHECK(network.completion_time_s(a) == doctest::Approx(2.6e-3).epsilon(1e-12));
}

TEST_CASE("a zero-byte flow finishes after its latency and takes no share") {
  const std::vector<FlowLink> links{{kGBps, 2e-3}};
  check_times(simulate_flows(links, {{{0}, 0.0, 0.5}}), {0.5 + 2e-3});
  check_times(simulate_flows(links, {{{0}, 0.0, 0.0}, {{0}, 1e6, 0.0}}), {2e-3, 3e-3});
  check_times(simulate_flows(links, {{{}, 1e6, 0.25}}), {0.25});  // no link: nothing limits it
}

TEST_CASE("random patterns are max-min at every event and identical from run to run") {
  // 12 links, 150 flows of 1 to 4 distinct links, posted over 10 ms: the allocation is checked
  // against the max-min certificate after every event, and a second run gives the same bits.
  codesim::sim::RandomStream random({7, 0, "flow_network_test", 0});
  std::vector<FlowLink> links;
  for (int i = 0; i < 12; ++i)
    links.push_back({random.uniform(1e8, 1e10), random.uniform(0, 1e-4)});
  std::vector<FlowSpec> flows;
  for (int i = 0; i < 150; ++i) {
    FlowSpec flow;
    const auto hops = random.uniform_int(1, 4);
    while (flow.route.size() < std::size_t(hops)) {
      const auto link = std::size_t(random.uniform_int(0, 11));
      if (std::find(flow.route.begin(), flow.route.end(), link) == flow.route.end()) {
        flow.route.push_back(link);
      }
    }
    flow.bytes = random.bernoulli(0.05) ? 0.0 : random.uniform(1e3, 1e7);
    flow.start_s = random.uniform(0, 1e-2);
    flows.push_back(flow);
  }

  FlowNetwork network(links);
  for (const FlowSpec& flow : flows) network.add_flow(flow.route, flow.bytes, flow.start_s);
  std::vector<std::pair<double, FlowId>> finished;
  int events = 0;
  for (double t_s = network.next_event_time_s(); t_s < 1e3; t_s = network.next_event_time_s()) {
    for (FlowId id : network.advance_to(t_s)) finished.emplace_back(t_s, id);
    check_max_min_certificate(network, links, flows);
    check_reference_rates(network, links, flows);
    REQUIRE(++events < 1000);
  }
  CHECK(finished.size() == flows.size());
  CHECK(std::is_sorted(finished.begin(), finished.end()));
  const std::vector<double> first = simulate_flows(links, flows);
  const std::vector<double> second = simulate_flows(links, flows);
  CHECK(first == second);
  for (const auto& [t_s, id] : finished) CHECK(first[id] == t_s);

  // An owner that wakes at arbitrary times (every 0.7 ms) sees the same completions.
  FlowNetwork coarse(links);
  for (const FlowSpec& flow : flows) coarse.add_flow(flow.route, flow.bytes, flow.start_s);
  std::vector<FlowId> coarse_order;
  for (double t_s = 0.0; std::isfinite(coarse.next_event_time_s()); t_s += 7e-4) {
    for (FlowId id : coarse.advance_to(t_s)) coarse_order.push_back(id);
  }
  CHECK(coarse_order.size() == flows.size());
  for (FlowId id = 0; id < flows.size(); ++id) CHECK(coarse.completion_time_s(id) == first[id]);
  for (std::size_t i = 0; i < finished.size(); ++i) CHECK(coarse_order[i] == finished[i].second);
}

TEST_CASE("a long chain of links sharing neighbouring flows gets the reference rates") {
  // Flow i crosses links i, i + 1 and i + 2: one component of 3000 links whose filling fixes a
  // few flows per round. Runs of four links have one speed, so shares tie between links that
  // share flows and the tie-break (lower link id first) shows in the last bits of the rates. The
  // network solves such chains with a tournament tree rather than by scanning; the rates must
  // not differ from the reference's.
  const std::size_t n = 3000;
  std::vector<FlowLink> links;
  for (std::size_t i = 0; i < n; ++i)
    links.push_back({kGBps * (1.0 + double((i / 4) % 5) / 8), 1e-6});
  std::vector<FlowSpec> flows;
  for (std::size_t i = 0; i + 2 < n; ++i)
    flows.push_back({{i, i + 1, i + 2}, 1e6 + 1e3 * double(i % 7), 0.0});
  FlowNetwork network(links);
  for (const FlowSpec& flow : flows) network.add_flow(flow.route, flow.bytes, flow.start_s);
  for (int event = 0; event < 4 && std::isfinite(network.next_event_time_s()); ++event) {
    network.advance_to(network.next_event_time_s());
    check_reference_rates(network, links, flows);
  }
  check_max_min_certificate(network, links, flows);
}

TEST_CASE("a long flow simulation ends on a stop request when its replica may stop alone") {
  // 5,000 flows starting one after another on one link. Without StopPolling (a distributed
  // replica's ranks, which stop in lockstep) the request is left to the workload's own polls.
  const std::vector<codesim::sim::FlowLink> links = {{1e9, 0.0}};
  std::vector<codesim::sim::FlowSpec> flows;
  for (int i = 0; i < 5000; ++i) flows.push_back({{0}, 1e3, 1e-3 * i});
  codesim::sim::note_stop_request();
  CHECK(simulate_flows(links, flows).size() == flows.size());
  {
    const codesim::sim::StopPolling polling;
    CHECK_THROWS_AS(simulate_flows(links, flows), codesim::sim::RunStopped);
  }
  codesim::sim::clear_stop_request();
  const codesim::sim::StopPolling polling;
  CHECK(simulate_flows(links, flows).size() == flows.size());
}
