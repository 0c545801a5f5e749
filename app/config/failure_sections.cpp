// Failure sections of a scenario: crashes, failure domains and availability traces.
#include "app/config/failure_sections.hpp"

#include <cmath>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "app/config/json_input.hpp"
#include "app/config/scenario_error.hpp"
#include "app/config/trace_files.hpp"

namespace codesim::app {

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
    o.record("repair", law_json(spec.repair));
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

}  // namespace

void read_shared_failures(ObjectReader& r, sim::ClusterSpec& cluster) {
  read_domains(r, cluster);
  if (r.has("availability_trace")) {
    const std::string path = r.file_name("availability_trace", "an availability trace CSV");
    const std::string text =
        read_input_file(path, "an availability trace: a CSV file with the header node,down_s,up_s");
    cluster.shared_failures.trace = parse_availability_trace(text, path, cluster.node_count());
  }
}

void read_link_failures(ObjectReader& r, sim::ClusterSpec& cluster) {
  if (!r.has("link_failures")) return;
  const sim::TopologySpec& network = cluster.network;
  if (network.shape == sim::TopologyShape::fully_connected &&
      network.nodes > kMaxLinkFailureNodes) {
    r.fail("link_failures", "link failures on a fully_connected network of " +
                                std::to_string(network.nodes) + " nodes (expected at most " +
                                std::to_string(kMaxLinkFailureNodes) +
                                " nodes, or a star, ring, torus2d, fat_tree or edge_list)");
  }
  sim::LinkFailureSpec spec;
  r.object("link_failures", [&](ObjectReader& o) {
    if (!o.has("failure")) {
      o.fail("failure",
             "missing required key (expected a failure law, e.g. {\"law\": \"exponential\", "
             "\"mean_s\": 1e6})");
    }
    o.object("failure", [&](ObjectReader& law) { spec.failure = read_failure_law(law); });
    if (o.has("repair")) {
      o.object("repair", [&](ObjectReader& law) { spec.repair = read_repair_law(law); });
    } else {
      o.record("repair", law_json(spec.repair));
    }
  });
  cluster.shared_failures.links = spec;
}
}  // namespace codesim::app
