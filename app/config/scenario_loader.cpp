// Scenario loading: parses JSON, applies --set overrides and reads every section with ObjectReader.
// Each section has one read_* function; a later section (strategy, training, sweep) adds another.
#include "app/config/scenario_loader.hpp"
#include "app/config/trace_files.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <variant>

#include "app/config/failure_sections.hpp"
#include "app/config/json_input.hpp"
#include "app/config/json_pointer.hpp"
#include "app/config/law_reader.hpp"
#include "app/config/network_topology_section.hpp"
#include "app/config/scenario_error.hpp"
#include "app/config/training_sections.hpp"
#include "sim/overloaded.hpp"

namespace codesim::app {

namespace {

constexpr std::int64_t kMaxNodes = 100000;
constexpr std::int64_t kMaxReplicas = 1000000;
constexpr std::int64_t kMaxIterations = 1000000000;
constexpr std::int64_t kMaxTasks = 10000000;

bool is_name_character(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '-' || c == '.';
}

bool is_valid_name(const std::string& name) {
  if (name.empty() || name.front() == '.') return false;
  for (char c : name)
    if (!is_name_character(c)) return false;
  return true;
}

/// The file's stem made into a valid scenario name.
std::string default_name(const std::string& file) {
  std::string name = std::filesystem::path(file).stem().string();
  for (char& c : name)
    if (!is_name_character(c)) c = '_';
  if (name.empty() || name.front() == '.') name = "scenario" + name;
  return name;
}

// ---- cluster ----------------------------------------------------------------------------------

// A node's power draw (busy_W, idle_W, down_W), each key defaulting to `defaults`'.
sim::PowerSpec read_power(ObjectReader& r, const sim::PowerSpec& defaults) {
  sim::PowerSpec power;
  power.busy_W = r.number("busy_W", defaults.busy_W, at_least(0.0));
  power.idle_W = r.number("idle_W", defaults.idle_W, at_least(0.0));
  power.down_W = r.number("down_W", defaults.down_W, at_least(0.0));
  return power;
}

// cluster.power: the nodes' draw and the energy per byte moved and per checkpoint byte.
sim::PowerSpec read_cluster_power(ObjectReader& r, sim::TransferEnergySpec& transfer) {
  const sim::PowerSpec power = read_power(r, sim::PowerSpec{});
  transfer.network_J_per_B = r.number("network_J_per_B", transfer.network_J_per_B, at_least(0.0));
  transfer.checkpoint_J_per_B =
      r.number("checkpoint_J_per_B", transfer.checkpoint_J_per_B, at_least(0.0));
  return power;
}

void read_overrides(ObjectReader& r, sim::ClusterSpec& cluster, double speed,
                    const sim::StragglerSpec& straggler, const sim::CrashSpec& crash,
                    const sim::SoftErrorSpec& soft_error, const sim::PowerSpec& power) {
  const Json* raw = r.raw("overrides");
  Json resolved = Json::array();
  if (raw != nullptr && !raw->is_array()) {
    r.fail("overrides", "wrong type: got " + describe_json(*raw) +
                            " (expected an array of {nodes, speed_flops_per_s, stragglers, "
                            "crashes, soft_errors, power} objects)");
  }
  const std::size_t count = raw == nullptr ? 0 : raw->size();
  for (std::size_t i = 0; i < count; ++i) {
    ObjectReader o(&(*raw)[i], r.pointer_of("overrides") + "/" + std::to_string(i), r.file());
    const std::vector<int> ids = read_node_ids(o, "nodes", cluster.node_count());
    // Missing keys leave the listed nodes as they are; a given section starts from the
    // cluster-wide values, so {"crashes": {"mtbf_s": 100}} keeps the cluster's repair_s.
    if (o.has("speed_flops_per_s")) {
      const double s = o.number("speed_flops_per_s", speed, above(0.0));
      for (int id : ids) cluster.speeds_flops_per_s[id] = s;
    }
    if (o.has("stragglers")) {
      o.object("stragglers", [&](ObjectReader& section) {
        const sim::StragglerSpec s = read_straggler(section, straggler);
        for (int id : ids) cluster.stragglers[id] = s;
      });
    }
    if (o.has("crashes")) {
      o.object("crashes", [&](ObjectReader& section) {
        const sim::CrashSpec c = read_crashes(section, crash);
        for (int id : ids) cluster.crashes[id] = c;
      });
    }
    if (o.has("soft_errors")) {
      o.object("soft_errors", [&](ObjectReader& section) {
        const sim::SoftErrorSpec s = read_soft_errors(section, soft_error);
        for (int id : ids) cluster.soft_errors[id] = s;
      });
    }
    if (o.has("power")) {
      o.object("power", [&](ObjectReader& section) {
        const sim::PowerSpec p = read_power(section, power);
        for (int id : ids) cluster.power[id] = p;
      });
    }
    resolved.push_back(o.finish());
  }
  r.record("overrides", std::move(resolved));
}

sim::ClusterSpec read_cluster(ObjectReader& r) {
  const int nodes = static_cast<int>(r.integer("nodes", 4, 1, kMaxNodes));
  const double speed = r.number("speed_flops_per_s", 1e9, above(0.0));
  sim::ClusterSpec cluster;
  r.object("network", [&](ObjectReader& n) {
    cluster.network = read_network(n, nodes);
    read_link_failures(n, cluster);
  });
  sim::StragglerSpec straggler;
  r.object("stragglers", [&](ObjectReader& s) { straggler = read_straggler(s, straggler); });
  sim::CrashSpec crash;
  r.object("crashes", [&](ObjectReader& c) { crash = read_crashes(c, crash); });
  sim::SoftErrorSpec soft_error;
  r.object("soft_errors", [&](ObjectReader& s) { soft_error = read_soft_errors(s, soft_error); });
  sim::PowerSpec power;
  r.object("power",
           [&](ObjectReader& p) { power = read_cluster_power(p, cluster.transfer_energy); });
  cluster.speeds_flops_per_s.assign(nodes, speed);
  cluster.stragglers.assign(nodes, straggler);
  cluster.crashes.assign(nodes, crash);
  cluster.soft_errors.assign(nodes, soft_error);
  cluster.power.assign(nodes, power);
  read_overrides(r, cluster, speed, straggler, crash, soft_error, power);
  read_shared_failures(r, cluster);
  cluster.speed_traces = read_step_trace(r, "speed_trace", nodes, StepTraceKind::speed);
  return cluster;
}

// ---- checkpoint -------------------------------------------------------------------------------

// The vertex id of a switch named in an edge list's switches; -1 when `name` names none.
int named_switch(const sim::TopologySpec& network, const std::string& name) {
  const auto it = std::find(network.switches.begin(), network.switches.end(), name);
  return it == network.switches.end()
             ? -1
             : network.nodes + static_cast<int>(it - network.switches.begin());
}

// A switch's vertex id, an edge list switch's name, or "root": the last vertex, which is the root
// switch of a star or a fat tree (and a compute node on shapes without switches, where
// validate_storage says so).
int read_switch_vertex(ObjectReader& s, const sim::TopologySpec& network,
                       const sim::Topology& topology) {
  const std::string expected =
      "(expected a switch's vertex id, the name of an edge list's switch, or \"root\" for the "
      "root switch)";
  const Json& value = *s.raw("attach_switch");
  if (value.is_string()) {
    const std::string name = value.get<std::string>();
    const int id = named_switch(network, name);
    if (name != "root" && id < 0)
      s.fail("attach_switch", "unknown value " + in_quotes(name) + " " + expected);
    s.record("attach_switch", name);
    return id >= 0 ? id : topology.vertex_count() - 1;
  }
  const double id = value.is_number() ? value.get<double>() : 0.5;  // 0.5: not an id either
  if (id != std::floor(id)) {
    s.fail("attach_switch", "wrong type: got " + describe_json(value) + " " + expected);
  }
  // Beyond every vertex id and beyond int, which validate_storage takes: rejected here.
  if (std::abs(id) > 1e9)
    s.fail("attach_switch", "value " + value.dump() + " is out of range " + expected);
  s.record("attach_switch", static_cast<std::int64_t>(id));
  return static_cast<int>(id);
}

// Where the server hangs off: exactly one of attach_node and attach_switch; validate_storage
// checks the place against the network.
void read_storage_place(ObjectReader& s, const sim::TopologySpec& network,
                        sim::StorageSpec& storage) {
  const bool on_node = s.has("attach_node");
  const bool on_switch = s.has("attach_switch");
  if (on_node && on_switch) {
    s.fail("attach_switch",
           "attach_node and attach_switch are both given (expected exactly one: the server "
           "hangs off one place)");
  }
  if (!on_node && !on_switch) {
    s.fail("attach_switch",
           "neither attach_node nor attach_switch is given (expected exactly one: attach_node, "
           "a compute node id in 0.." +
               std::to_string(network.nodes - 1) + ", or attach_switch, a switch id or \"root\")");
  }
  const Json& place = *s.raw(on_switch ? "attach_switch" : "attach_node");
  if (on_node && place.is_string() && named_switch(network, place.get<std::string>()) >= 0) {
    s.fail("attach_node",
           in_quotes(place.get<std::string>()) +
               " is a switch, not a compute node (expected a compute node id in 0.." +
               std::to_string(network.nodes - 1) + ", or attach_switch for a server on a switch)");
  }
  const sim::Topology topology(network);
  storage.attach_to_switch = on_switch;
  storage.attach_vertex = on_switch ? read_switch_vertex(s, network, topology)
                                    : static_cast<int>(s.integer("attach_node", std::nullopt, 0,
                                                                 std::max(0, network.nodes - 1)));
  const std::string problem = sim::validate_storage(storage, topology);
  // latency_s and bandwidth_Bps are range-checked as they are read: a problem here is the place.
  if (!problem.empty()) s.fail(on_switch ? "attach_switch" : "attach_node", problem);
}

// Written in the resolved scenario only when given, so scenarios without it resolve as before.
sim::StorageSpec read_storage(ObjectReader& r, const sim::TopologySpec& network) {
  sim::StorageSpec storage;
  if (!r.has("storage")) return storage;
  r.object("storage", [&](ObjectReader& s) {
    storage.kind = s.kind("kind", storage.kind, sim::kStorageKindNames, "storage");
    if (storage.kind == sim::StorageKind::local) return;
    read_storage_place(s, network, storage);
    storage.latency_s = s.number("latency_s", storage.latency_s, at_least(0.0));
    storage.bandwidth_Bps = s.number("bandwidth_Bps", std::nullopt, above(0.0));
  });
  return storage;
}

/// optimal_simulated's search_factors: at least two distinct numbers > 0, in increasing order.
std::vector<double> read_search_factors(ObjectReader& r, const std::vector<double>& defaults) {
  const Json* raw = r.raw("search_factors");
  if (raw == nullptr) {
    r.record("search_factors", defaults);
    return defaults;
  }
  const std::string expected =
      "expected an increasing array of at least two numbers > 0, e.g. [0.25, 0.5, 1, 2, 4]";
  if (!raw->is_array() || raw->size() < 2)
    r.fail("search_factors", "not such an array (" + expected + ")");
  std::vector<double> factors;
  for (std::size_t i = 0; i < raw->size(); ++i) {
    const Json& v = (*raw)[i];
    const std::string at = r.pointer_of("search_factors") + "/" + std::to_string(i);
    if (!v.is_number() || !(v.get<double>() > 0.0) || !std::isfinite(v.get<double>()))
      throw ScenarioError(r.file(), at, "got " + describe_json(v) + " (" + expected + ")");
    if (!factors.empty() && !(v.get<double>() > factors.back()))
      throw ScenarioError(r.file(), at, "not larger than the factor before it (" + expected + ")");
    factors.push_back(v.get<double>());
  }
  r.record("search_factors", factors);
  return factors;
}

sim::CheckpointSpec read_checkpoint(ObjectReader& r, const sim::TopologySpec& network) {
  using sim::CheckpointKind;
  sim::CheckpointSpec c;
  c.storage = read_storage(r, network);
  const bool shared = c.storage.kind == sim::StorageKind::shared;
  c.policy = r.kind("policy", c.policy, sim::kCheckpointKindNames, "checkpoint policy");
  const bool young_or_daly = c.policy == CheckpointKind::young ||
                             c.policy == CheckpointKind::daly ||
                             c.policy == CheckpointKind::optimal_simulated;
  switch (c.policy) {
    case CheckpointKind::none:
      break;
    case CheckpointKind::every_iterations:
      c.every_iterations =
          static_cast<int>(r.integer("every_iterations", std::nullopt, 1, kMaxIterations));
      break;
    case CheckpointKind::every_seconds:
      c.every_s = r.number("every_s", std::nullopt, above(0.0));
      break;
    case CheckpointKind::young:
    case CheckpointKind::daly:
      c.mtbf_s = r.number("mtbf_s", 0.0, at_least(0.0));
      // Recorded only when given, so that scenarios without it resolve as before.
      if (r.has("interval_factor"))
        c.interval_factor = r.number("interval_factor", 1.0, above(0.0));
      break;
    case CheckpointKind::optimal_simulated:
      c.mtbf_s = r.number("mtbf_s", 0.0, at_least(0.0));
      c.search_factors = read_search_factors(r, c.search_factors);
      break;
  }
  if (c.policy != CheckpointKind::none) {
    c.write_s = r.number("write_s", 0.0, at_least(0.0));
    c.bytes = r.number("bytes", 0.0, at_least(0.0));
    c.write_bandwidth_Bps = r.number("write_bandwidth_Bps", 0.0, at_least(0.0));
    if (c.bytes > 0.0 && c.write_bandwidth_Bps == 0.0 && !shared) {
      r.fail("write_bandwidth_Bps",
             "checkpoint bytes need a write bandwidth (expected a number > 0 when bytes > 0, or "
             "shared storage)");
    }
    if (shared && c.write_bandwidth_Bps > 0.0) {
      r.fail("write_bandwidth_Bps",
             "with shared storage its link's bandwidth sets the write time (expected no "
             "write_bandwidth_Bps)");
    }
    if (young_or_daly && sim::checkpoint_write_cost_s(c) <= 0.0) {
      r.fail("write_s", "policy " + in_quotes(sim::to_string(c.policy)) +
                            " needs a positive checkpoint cost write_s + bytes / "
                            "write_bandwidth_Bps (expected write_s > 0, or bytes > 0 with "
                            "write_bandwidth_Bps > 0)");
    }
  }
  c.restart_s = r.number("restart_s", 0.0, at_least(0.0));
  c.max_stalled_rollbacks = static_cast<int>(
      r.integer("max_stalled_rollbacks", c.max_stalled_rollbacks, 1, 1'000'000'000));
  const std::string problem = sim::validate_checkpoint(c);
  if (!problem.empty()) r.fail("", with_expectation(problem, "a valid checkpoint policy"));
  return c;
}

// ---- workload ---------------------------------------------------------------------------------

void read_iterative_job(ObjectReader& r, sim::IterativeJobSpec& job, int cluster_nodes) {
  job.iterations = static_cast<int>(r.integer("iterations", job.iterations, 1, kMaxIterations));
  job.tasks = static_cast<int>(r.integer("tasks", job.tasks, 0, kMaxTasks));
  job.task_flops = r.number("task_flops", job.task_flops, above(0.0));
  const int tasks = job.tasks == 0 ? cluster_nodes : job.tasks;
  job.wait_for = static_cast<int>(r.integer("wait_for", job.wait_for, 0, tasks));
  job.bytes_per_task = r.number("bytes_per_task", job.bytes_per_task, at_least(0.0));
  job.exchange = r.choice("exchange", job.exchange, sim::kExchangeKindNames);
  job.detect_soft_errors = r.boolean("detect_soft_errors", job.detect_soft_errors);
  job.checkpoint_at_end = r.boolean("checkpoint_at_end", job.checkpoint_at_end);
  job.time_limit_s = r.number("time_limit_s", job.time_limit_s, above(0.0));
}

WorkloadSpec read_workload(ObjectReader& r, const sim::ClusterSpec& cluster) {
  const WorkloadKind kind =
      r.kind("kind", WorkloadKind::iterative_job, kWorkloadKindNames, "workload kind");
  switch (kind) {
    case WorkloadKind::training: {
      TrainingWorkload training;
      read_training_workload(r, training);
      return training;
    }
    case WorkloadKind::iterative_job:
      break;
  }
  sim::IterativeJobSpec job;
  read_iterative_job(r, job, cluster.node_count());
  return job;
}

/// Training reads its faults from `faults`; cluster.soft_errors only times iterative jobs.
void reject_cluster_soft_errors(ObjectReader& root, const sim::ClusterSpec& cluster) {
  for (const sim::SoftErrorSpec& s : cluster.soft_errors) {
    if (s.probability_per_operation > 0.0 || s.rate_per_flop > 0.0) {
      throw ScenarioError(root.file(), "/cluster/soft_errors",
                          "cluster soft_errors are for workload kind \"iterative_job\"; a "
                          "training run takes its soft errors from the faults section (expected "
                          "no cluster soft_errors, and faults.targets instead)");
    }
  }
}

/// The sections of a training run beside its workload: strategy, faults and trace.
void read_training_sections(ObjectReader& root, const Json& document,
                            const sim::ClusterSpec& cluster, std::uint64_t seed,
                            TrainingWorkload& training) {
  reject_cluster_soft_errors(root, cluster);
  root.object("strategy", [&](ObjectReader& r) {
    training.spec.scheme = read_strategy(r, training.spec, cluster.node_count(), seed);
  });
  root.object("faults", [&](ObjectReader& r) { read_faults(r, cluster.node_count(), training); });
  // Read only when given, so that scenarios without a trace resolve as before.
  if (document.is_object() && document.contains("trace"))
    root.object("trace", [&](ObjectReader& r) { read_trace(r, training); });
}

/// An iterative job has no strategy, faults or trace section.
void reject_training_sections(ObjectReader& root, const Json& document) {
  for (const char* key : {"strategy", "faults", "trace"}) {
    if (document.is_object() && document.contains(key)) {
      root.fail(key, std::string("the ") + key +
                         " section belongs to workload kind \"training\" (expected no " + key +
                         " section for an iterative_job)");
    }
  }
}

}  // namespace

Json parse_scenario_text(const std::string& text, const std::string& file) {
  return parse_json_text(text, file);
}

Json read_scenario_file(const std::string& path) {
  return read_json_file(path, "a readable scenario JSON file");
}

void apply_set(Json& document, const std::string& assignment, const std::string& file) {
  const auto equals = assignment.find('=');
  const std::string pointer = assignment.substr(0, equals);
  const bool well_formed = [&] {
    if (!pointer.starts_with('/')) return false;
    try {
      split_json_pointer(pointer, file, "");
    } catch (const ScenarioError&) {
      return false;
    }
    return true;
  }();
  if (!well_formed) {
    throw ScenarioError(file, "",
                        "--set " + in_quotes(assignment) +
                            " is malformed (expected /json/pointer=VALUE, e.g. /cluster/nodes=32)");
  }
  if (equals == std::string::npos) {
    throw ScenarioError(
        file, pointer,
        "--set " + in_quotes(assignment) + " has no value (expected " + pointer + "=VALUE)");
  }
  const std::string value_text = assignment.substr(equals + 1);
  if (split_json_pointer(pointer, file, "").size() > static_cast<std::size_t>(kMaxJsonDepth)) {
    throw ScenarioError(file, "",
                        "--set " + in_quotes(pointer) + " is nested deeper than " +
                            std::to_string(kMaxJsonDepth) + " levels (expected at most " +
                            std::to_string(kMaxJsonDepth) + ")");
  }
  // Not JSON: a plain string such as fat_tree. JSON: checked like a scenario file's values.
  Json value =
      Json::accept(value_text) ? parse_json_text(value_text, file, pointer) : Json(value_text);
  set_at_json_pointer(document, pointer, std::move(value), file, pointer);
}

Scenario load_scenario(const Json& document, const std::string& file) {
  Scenario s;
  ObjectReader root(&document, "", file);
  s.name = root.string("name", default_name(file));
  if (!is_valid_name(s.name)) {
    root.fail("name", "invalid name " + in_quotes(s.name) +
                          " (expected letters, digits, '_', '-' or '.', not starting with '.')");
  }
  s.description = root.string("description", "");
  s.label = root.string("label", "");
  s.seed = root.unsigned_integer("seed", 1);
  s.replicas = static_cast<int>(root.integer("replicas", 10, 1, kMaxReplicas));
  s.allow_unfinished = root.boolean("allow_unfinished", false);
  root.object("cluster", [&](ObjectReader& r) { s.cluster = read_cluster(r); });
  root.object("checkpoint",
              [&](ObjectReader& r) { s.checkpoint = read_checkpoint(r, s.cluster.network); });
  root.object("workload", [&](ObjectReader& r) { s.workload = read_workload(r, s.cluster); });
  std::visit(sim::Overloaded{
                 [&](TrainingWorkload& training) {
                   read_training_sections(root, document, s.cluster, s.seed, training);
                 },
                 [&](const sim::IterativeJobSpec&) { reject_training_sections(root, document); },
             },
             s.workload);
  root.has("sweep");  // expanded before loading (app/sweep.hpp); known here for messages
  s.resolved = root.finish();
  return s;
}

Scenario load_scenario_file(const std::string& path, const std::vector<std::string>& sets) {
  Json document = read_scenario_file(path);
  for (const auto& assignment : sets) apply_set(document, assignment, path);
  return load_scenario(document, path);
}

}  // namespace codesim::app
