// Readers of the training workload, `strategy` and `faults` sections; each error is a
// ScenarioError at the offending key.
#include "app/config/training_sections.hpp"
#include "app/config/trace_files.hpp"

#include <algorithm>
#include <array>
#include <climits>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "app/config/network_section.hpp"
#include "app/config/scenario_error.hpp"
#include "models/nn/layer_steps.hpp"
#include "models/training/stochastic/stochastic_validation.hpp"

namespace codesim::app {

namespace {

constexpr std::int64_t kMaxIterations = 1000000000;
constexpr std::int64_t kMaxBatch = 1000000;
constexpr std::int64_t kMaxSamples = 100000000;

/// An array of integers in [min, max] at `key` (at least `min_count` of them); errors name the
/// element. `what` names an element in messages.
std::vector<int> read_integer_list(ObjectReader& r, std::string_view key,
                                   std::optional<std::vector<int>> fallback, std::int64_t min,
                                   std::int64_t max, std::size_t min_count,
                                   const std::string& what) {
  const std::string range = "in [" + std::to_string(min) + ", " + std::to_string(max) + "]";
  const std::string expected = "(expected an array of at least " + std::to_string(min_count) + " " +
                               what + "s " + range + ")";
  const Json* raw = r.raw(key);
  std::vector<int> values;
  if (raw == nullptr) {
    if (!fallback) r.fail(key, "missing required key " + expected);
    values = *fallback;
  } else {
    if (!raw->is_array()) r.fail(key, "wrong type: got " + describe_json(*raw) + " " + expected);
    if (raw->size() < min_count) {
      r.fail(key, "got " + std::to_string(raw->size()) + " " + what + "s " + expected);
    }
    for (std::size_t i = 0; i < raw->size(); ++i) {
      const Json& item = (*raw)[i];
      const bool whole =
          item.is_number_integer() ||
          (item.is_number_float() && item.get<double>() == std::floor(item.get<double>()));
      if (!whole) {
        throw ScenarioError(
            r.file(), r.pointer_of(key) + "/" + std::to_string(i),
            "wrong type: got " + describe_json(item) + " (expected a " + what + " " + range + ")");
      }
      const double value = item.get<double>();
      if (value < static_cast<double>(min) || value > static_cast<double>(max)) {
        throw ScenarioError(
            r.file(), r.pointer_of(key) + "/" + std::to_string(i),
            what + " " + item.dump() + " is out of range (expected a " + what + " " + range + ")");
      }
      values.push_back(static_cast<int>(value));
    }
  }
  r.record(key, values);
  return values;
}

// ---- workload ---------------------------------------------------------------------------------

models::DatasetSource read_dataset(ObjectReader& r) {
  using models::DatasetKind;
  models::DatasetSource d;
  d.kind = r.kind("kind", d.kind, models::kDatasetKindNames, "dataset kind");
  if (d.kind == DatasetKind::mnist || d.kind == DatasetKind::fashion_mnist) {
    d.directory = r.string("directory", "");
  } else if (d.kind == DatasetKind::idx) {
    d.images = r.file_name("images", "an IDX file of images");
    d.labels = r.file_name("labels", "an IDX file of labels");
    d.test_images = r.string("test_images", "");
    d.test_labels = r.string("test_labels", "");
    if (d.test_images.empty() != d.test_labels.empty()) {
      r.fail(d.test_images.empty() ? "test_images" : "test_labels",
             "test_images and test_labels go together (expected both or neither)");
    }
    d.classes = static_cast<int>(r.integer("classes", d.classes, 1, 256));
  } else {
    models::SyntheticSpec& s = d.synthetic;
    s.classes = static_cast<int>(r.integer("classes", s.classes, 2, 1000));
    s.features = static_cast<int>(r.integer("features", s.features, 1, kMaxLayerSize));
    s.samples = static_cast<int>(r.integer("samples", s.samples, 2, kMaxSamples));
    s.separation = r.number("separation", s.separation, at_least(0.0));
  }
  const bool has_test_files = d.kind == DatasetKind::fashion_mnist || !d.test_images.empty();
  if (d.kind == DatasetKind::synthetic) {
    // A fifth of the generated samples by default: a fixed count would not fit every size.
    const int samples = d.synthetic.samples;
    d.test_samples =
        static_cast<int>(r.integer("test_samples", std::max(1, samples / 5), 1, kMaxSamples));
    if (d.test_samples >= samples) {
      r.fail("test_samples", "value " + std::to_string(d.test_samples) + " leaves no training " +
                                 "sample of the " + std::to_string(samples) +
                                 " generated (expected fewer than samples)");
    }
  } else if (!has_test_files) {
    d.test_samples = static_cast<int>(r.integer("test_samples", d.test_samples, 1, kMaxSamples));
  }
  d.train_samples = static_cast<int>(r.integer("train_samples", 0, 0, kMaxSamples));
  if (d.kind != DatasetKind::synthetic)
    d.pixel_scale = r.number("pixel_scale", d.pixel_scale, above(0.0));
  return d;
}

models::DecodeOptions read_decode(ObjectReader& r) {
  models::DecodeOptions o;
  o.error_model = r.choice("error_model", o.error_model, models::kErrorModelNames);
  o.tolerance_factor = r.number("tolerance_factor", o.tolerance_factor, above(0.0));
  o.absurd_ratio = r.number("absurd_ratio", o.absurd_ratio, above(1.0));
  return o;
}

// ---- faults -----------------------------------------------------------------------------------

models::ValueModelSpec read_value_model(ObjectReader& r, const models::ValueModelSpec& inherited) {
  using models::ValueModelKind;
  const std::string kind_name = r.choice("kind", std::string(models::to_string(inherited.kind)),
                                         models::kValueModelKindNames);
  const ValueModelKind kind = *models::parse_value_model_kind(kind_name);
  r.set_unknown_key_note("for value model " + in_quotes(kind_name));
  // Parameters start from the inherited model when the kind is the same, else from the kind's
  // documented defaults.
  const models::ValueModelSpec base =
      kind == inherited.kind ? inherited : models::value_model_defaults(kind);
  models::ValueModelSpec v = base;
  v.entries = r.integer("entries", base.entries, 0, std::numeric_limits<std::int32_t>::max());
  v.density = r.number("density", base.density, between(0.0, 1.0));
  switch (kind) {
    case ValueModelKind::bitflip: {
      v.bits = static_cast<int>(r.integer("bits", base.bits, 1, 64));
      const std::string field =
          r.choice("field", std::string(models::to_string(base.field)), models::kBitFieldNames);
      v.field = *models::parse_bit_field(field);
      v.bit_list = read_integer_list(r, "bit_list", base.bit_list, 0, 63, 0, "bit");
      if (!v.bit_list.empty() && v.field != models::BitField::any) {
        r.fail("bit_list",
               "give field or bit_list, not both (expected field \"any\" with a "
               "bit_list)");
      }
      break;
    }
    case ValueModelKind::sparse_additive:
      v.magnitude = r.number("magnitude", base.magnitude, between(0.0, 8.9e307));
      break;
    case ValueModelKind::random_value:
      v.lo = r.number("lo", base.lo, any_number());
      v.hi = r.number("hi", base.hi, any_number());
      if (!(v.lo < v.hi)) r.fail("hi", "hi must exceed lo (expected lo < hi)");
      break;
    case ValueModelKind::gaussian:
      v.sigma = r.number("sigma", base.sigma, at_least(0.0));
      break;
    case ValueModelKind::stuck_at_zero:
      break;
  }
  const std::string problem = models::validate_value_model(v);
  if (!problem.empty()) r.fail("", problem + " (expected a value model that changes something)");
  return v;
}

void read_fault_targets(ObjectReader& r, models::FaultConfig& config,
                        const models::ValueModelSpec& section_model) {
  for (int t = 0; t < models::kFaultTargetCount; ++t) {
    const auto target = static_cast<models::FaultTarget>(t);
    models::FaultTargetSpec& spec = config[target];
    r.object(models::kFaultTargetNames[static_cast<std::size_t>(t)], [&](ObjectReader& section) {
      spec.rate = read_soft_errors(section, spec.rate);
      spec.model = section_model;
      section.object("value_model",
                     [&](ObjectReader& m) { spec.model = read_value_model(m, section_model); });
    });
  }
}

void read_fault_overrides(ObjectReader& r, int cluster_nodes, models::FaultConfig& config) {
  const Json* raw = r.raw("overrides");
  if (raw != nullptr && !raw->is_array()) {
    r.fail("overrides", "wrong type: got " + describe_json(*raw) +
                            " (expected an array of {nodes, targets} objects)");
  }
  Json resolved = Json::array();
  const std::size_t count = raw == nullptr ? 0 : raw->size();
  for (std::size_t i = 0; i < count; ++i) {
    ObjectReader o(&(*raw)[i], r.pointer_of("overrides") + "/" + std::to_string(i), r.file());
    const std::vector<int> ids = read_node_ids(o, "nodes", cluster_nodes);
    if (!o.has("targets")) {
      o.fail("targets",
             "missing required key (expected an object of target rates, e.g. "
             "{\"weights\": {\"probability_per_operation\": 0.01}})");
    }
    o.object("targets", [&](ObjectReader& targets) {
      for (int t = 0; t < models::kFaultTargetCount; ++t) {
        const auto target = static_cast<models::FaultTarget>(t);
        const std::string_view name = models::kFaultTargetNames[static_cast<std::size_t>(t)];
        if (!targets.has(name)) continue;
        targets.object(name, [&](ObjectReader& section) {
          config.overrides.push_back({ids, target, read_soft_errors(section, config[target].rate)});
        });
      }
    });
    resolved.push_back(o.finish());
  }
  r.record("overrides", std::move(resolved));
}

}  // namespace

namespace {

// workload.network, which replaces the MLP's layers and hidden_activation.
void read_network_keys(ObjectReader& r, models::TrainingSpec& spec) {
  if (r.has("layers")) {
    r.fail("layers",
           "give layers (an MLP) or network, not both (expected only /workload/network for a "
           "network of conv and dense layers)");
  }
  if (r.has("hidden_activation")) {
    r.fail("hidden_activation",
           "applies to the MLP's layers, not to a network (expected relu layers in "
           "/workload/network/layers)");
  }
  r.object("network", [&](ObjectReader& n) { spec.network = read_network(n); });
  if (!std::holds_alternative<models::Dense>(spec.network->layers.back())) {
    throw ScenarioError(
        r.file(),
        r.pointer_of("network") + "/layers/" + std::to_string(spec.network->layers.size() - 1),
        "the network must end with a dense layer (expected its product to give "
        "the logits, e.g. {\"kind\": \"dense\", \"units\": 10})");
  }
}

}  // namespace

void read_training_workload(ObjectReader& r, TrainingWorkload& training) {
  models::TrainingSpec& spec = training.spec;
  spec.mode = r.choice("mode", spec.mode, models::kTrainingModeNames);
  // Stochastic mode reads no data: its dataset may be omitted (and is ignored when given).
  if (spec.mode == models::TrainingMode::numeric || r.has("dataset")) {
    r.object("dataset", [&](ObjectReader& d) { training.dataset = read_dataset(d); });
  }
  models::MlpSpec& mlp = spec.mlp;
  if (r.has("network")) {
    read_network_keys(r, spec);
  } else {
    mlp.layer_sizes =
        read_integer_list(r, "layers", mlp.layer_sizes, 1, kMaxLayerSize, 2, "layer size");
    mlp.hidden_activation =
        r.choice("hidden_activation", mlp.hidden_activation, models::kActivationNames);
  }
  spec.sgd.learning_rate = r.number("learning_rate", spec.sgd.learning_rate, above(0.0));
  spec.sgd.batch_size = static_cast<int>(r.integer("batch", spec.sgd.batch_size, 1, kMaxBatch));
  spec.iterations = static_cast<int>(r.integer("iterations", 1000, 1, kMaxIterations));
  spec.eval_every = static_cast<int>(r.integer("eval_every", spec.eval_every, 0, kMaxIterations));
  spec.eval_samples =
      static_cast<int>(r.integer("eval_samples", spec.eval_samples, 0, kMaxSamples));
  spec.eval_cost_s = r.number("eval_cost_s", spec.eval_cost_s, at_least(0.0));
  spec.wait_for = r.choice("wait_for", spec.wait_for, models::kWaitRuleNames);
  spec.wait_errors = static_cast<int>(r.integer("wait_errors", spec.wait_errors, 0, 1000000));
  spec.decentralized = r.boolean("decentralized", spec.decentralized);
  spec.verify_before_checkpoint =
      r.boolean("verify_before_checkpoint", spec.verify_before_checkpoint);
  spec.first_layer_backward = r.boolean("first_layer_backward", spec.first_layer_backward);
  spec.audit = r.boolean("audit", spec.audit);
  spec.audit_tolerance = r.number("audit_tolerance", spec.audit_tolerance, above(0.0));
  spec.record_loss = r.boolean("record_loss", spec.record_loss);
  spec.time_limit_s = r.number("time_limit_s", spec.time_limit_s, above(0.0));
  r.object("decode", [&](ObjectReader& d) { spec.decode = read_decode(d); });
}

namespace {

/// One scheme field of `strategy`, as its descriptor says (a field counting nodes defaults to and
/// is bounded by the cluster's nodes).
int read_field(ObjectReader& r, const models::SchemeField& field, int cluster_nodes) {
  if (!field.choices.empty()) {
    const std::vector<std::string_view> choices(field.choices.begin(), field.choices.end());
    const std::string fallback(field.choices[static_cast<std::size_t>(*field.scenario_default)]);
    const std::string chosen = r.choice(field.key, fallback, choices);
    return static_cast<int>(std::find(choices.begin(), choices.end(), chosen) - choices.begin());
  }
  if (field.cluster_nodes) {
    return static_cast<int>(
        r.integer(field.key, cluster_nodes, field.min, std::min(field.max, cluster_nodes)));
  }
  const std::optional<std::int64_t> fallback =
      field.scenario_default ? std::optional<std::int64_t>(*field.scenario_default) : std::nullopt;
  return static_cast<int>(r.integer(field.key, fallback, field.min, field.max));
}

}  // namespace

models::SchemeSpec read_strategy(ObjectReader& r, const models::TrainingSpec& training,
                                 int cluster_nodes, std::uint64_t seed) {
  std::vector<std::string_view> names;
  for (const models::SchemeDescriptor& d : models::scheme_descriptors()) names.push_back(d.name);
  const std::string name = r.choice("scheme", "uncoded", names);
  const models::SchemeDescriptor& descriptor = *models::find_scheme(name);
  r.set_unknown_key_note("for scheme " + in_quotes(name));
  std::vector<int> values;
  for (const models::SchemeField& field : descriptor.fields)
    values.push_back(read_field(r, field, cluster_nodes));
  models::SchemeSpec s = descriptor.make(values);
  models::set_generator_seed(s, seed);
  if (const models::SchemeProblem problem = models::validate_scheme(s); !problem.empty()) {
    r.fail(problem.field, problem.message + " (expected a valid " + name + " configuration)");
  }
  const std::vector<models::WeightShape> shapes = models::weight_shapes(training);
  for (std::size_t l = 0; l < shapes.size(); ++l) {
    const models::WeightShape& w = shapes[l];
    const models::SchemeProblem layer_problem = models::validate_scheme(s, w.rows, w.cols);
    if (layer_problem.empty()) continue;
    // At the field that does not divide the layer (m, n, k), so a sweep can name its value.
    const std::string where = w.network_layer < 0
                                  ? "layer " + std::to_string(l)
                                  : "/workload/network/layers/" + std::to_string(w.network_layer);
    r.fail(layer_problem.field,
           where + " (" + std::to_string(w.rows) + " x " + std::to_string(w.cols) +
               "): " + layer_problem.message +
               (w.network_layer < 0
                    ? " (expected block counts that divide every layer of /workload/layers)"
                    : " (expected block counts that divide the rows (output channels or units) "
                      "and columns (C_in k k or inputs) of every conv and dense layer)"));
  }
  const int needed = models::summarize_scheme(s).nodes;
  if (needed > cluster_nodes) {
    r.fail("", "the scheme needs " + std::to_string(needed) + " nodes but the cluster has " +
                   std::to_string(cluster_nodes) +
                   " (expected /cluster/nodes >= " + std::to_string(needed) + ")");
  }
  return s;
}

namespace {

/// The placeholders of a log_file pattern, in the order messages list them.
constexpr std::array<std::string_view, 3> kLogFilePlaceholders = {"{name}", "{point}", "{replica}"};

/// Fails at `key` at the first "{" that does not start a known placeholder.
void check_log_file_pattern(ObjectReader& r, std::string_view key, const std::string& pattern) {
  const std::string word = unknown_placeholder(pattern);
  if (word.empty()) return;
  r.fail(key, "unknown placeholder " + in_quotes(word) + " in " + in_quotes(pattern) +
                  " (expected only {name}, {point} and {replica})");
}

}  // namespace

std::string unknown_placeholder(const std::string& pattern) {
  for (std::size_t at = pattern.find('{'); at != std::string::npos;
       at = pattern.find('{', at + 1)) {
    const std::size_t close = pattern.find('}', at);
    const std::string_view word =
        std::string_view(pattern).substr(at, close == std::string::npos ? 1 : close - at + 1);
    if (std::find(kLogFilePlaceholders.begin(), kLogFilePlaceholders.end(), word) ==
        kLogFilePlaceholders.end())
      return std::string(word);
  }
  return "";
}

// faults.off_before_first_checkpoint: the schemes whose runs take no soft error before their
// first checkpoint (the CodeNet authors' code exempts replication); whether `scheme` is one.
bool read_off_before_first_checkpoint(ObjectReader& r, std::string_view scheme) {
  const Json* raw = r.raw("off_before_first_checkpoint");
  const std::string expected = "expected a list of scheme names out of " +
                               models::scheme_names_list() + ", e.g. [\"replication\"]";
  Json resolved = Json::array();
  bool listed = false;
  if (raw != nullptr) {
    if (!raw->is_array())
      r.fail("off_before_first_checkpoint",
             "wrong type: got " + describe_json(*raw) + " (" + expected + ")");
    for (std::size_t i = 0; i < raw->size(); ++i) {
      const Json& name = (*raw)[i];
      const std::string at = r.pointer_of("off_before_first_checkpoint") + "/" + std::to_string(i);
      if (!name.is_string() || models::find_scheme(name.get<std::string>()) == nullptr)
        throw ScenarioError(r.file(), at,
                            "not a scheme: " + describe_json(name) + " (" + expected + ")");
      if (std::find(resolved.begin(), resolved.end(), name) != resolved.end())
        throw ScenarioError(r.file(), at,
                            "repeats " + name.dump() + " (" + expected + ", each once)");
      resolved.push_back(name);
      listed = listed || name.get<std::string>() == scheme;
    }
  }
  r.record("off_before_first_checkpoint", std::move(resolved));
  return listed;
}

void read_faults(ObjectReader& r, int cluster_nodes, TrainingWorkload& training) {
  models::FaultConfig config = models::default_fault_config();
  models::ValueModelSpec section_model = config[models::FaultTarget::weights].model;
  r.object("value_model",
           [&](ObjectReader& m) { section_model = read_value_model(m, section_model); });
  r.object("targets", [&](ObjectReader& t) { read_fault_targets(t, config, section_model); });
  read_fault_overrides(r, cluster_nodes, config);
  config.rate_traces = read_step_trace(r, "rate_trace", cluster_nodes, StepTraceKind::rate);
  config.off_before_first_checkpoint =
      read_off_before_first_checkpoint(r, models::scheme_name(training.spec.scheme));
  training.replay_file = r.string("replay", "");
  training.fault_log_file = r.string("log_file", "");
  check_log_file_pattern(r, "log_file", training.fault_log_file);
  const std::string problem = models::validate_fault_config(config, cluster_nodes);
  if (!problem.empty()) r.fail("", problem + " (expected a valid fault configuration)");
  training.faults = std::move(config);
}

void read_trace(ObjectReader& r, TrainingWorkload& training) {
  analysis::TraceOptions& t = training.trace;
  t.file = r.string("file", std::nullopt);
  check_log_file_pattern(r, "file", t.file);
  if (t.file.empty()) r.fail("file", "an empty trace path (expected a file name pattern)");
  t.from_s = r.number("from_s", 0.0, at_least(0.0));
  t.to_s = r.number_or_infinity("to_s", INFINITY, at_least(t.from_s));
  t.from_iteration = static_cast<int>(r.integer("from_iteration", 0, 0, INT_MAX));
  t.to_iteration = static_cast<int>(r.integer("to_iteration", INT_MAX, t.from_iteration, INT_MAX));
  t.max_events = r.integer("max_events", 1000000, 1, std::int64_t{1} << 50);
  t.flows = r.boolean("flows", true);
}

namespace {

/// The workload key that asks for `unmodelled`.
std::string pointer_of(const models::UnmodelledSetting& unmodelled) {
  return "/workload/" + unmodelled.setting;
}

}  // namespace

std::string fault_log_path(const std::string& pattern, const std::string& name, std::size_t point,
                           std::uint64_t replica) {
  const std::array<std::string, 3> values = {name, std::to_string(point), std::to_string(replica)};
  std::string path;
  for (std::size_t at = 0; at < pattern.size();) {
    const auto known =
        std::find_if(kLogFilePlaceholders.begin(), kLogFilePlaceholders.end(),
                     [&](std::string_view p) { return pattern.compare(at, p.size(), p) == 0; });
    if (known == kLogFilePlaceholders.end()) {
      path += pattern[at++];
      continue;
    }
    path += values[static_cast<std::size_t>(known - kLogFilePlaceholders.begin())];
    at += known->size();
  }
  return path;
}

void check_training_mode(const Scenario& scenario, const std::string& file) {
  const TrainingWorkload* training_workload = training_of(scenario.workload);
  if (training_workload == nullptr) return;
  const TrainingWorkload& training = *training_workload;
  if (training.spec.mode != models::TrainingMode::stochastic) return;
  const auto fail = [&](const std::string& pointer, const std::string& what,
                        const std::string& expected) {
    throw ScenarioError(file, pointer,
                        what + " (expected " + expected + ", or workload.mode \"numeric\")");
  };
  const std::optional<models::UnmodelledSetting> unmodelled =
      models::unmodelled_setting(scenario.cluster, training.spec, training.faults);
  const auto fail_unmodelled = [&] {
    fail(pointer_of(*unmodelled), unmodelled->message, unmodelled->expected);
  };
  // In the order of the scenario's sections: faults, then the workload's keys.
  if (!training.replay_file.empty()) {
    fail("/faults/replay", "stochastic mode cannot replay a fault log", "no replay");
  }
  if (!training.fault_log_file.empty()) {
    fail("/faults/log_file", "stochastic mode writes no fault log", "no log_file");
  }
  if (!training.trace.file.empty()) {
    fail("/trace/file", "stochastic mode writes no timeline trace", "no trace");
  }
  if (unmodelled) fail_unmodelled();
  const std::string problem =
      models::validate_stochastic_training(scenario.cluster, training.spec, training.faults);
  if (!problem.empty()) fail("/workload/mode", problem, "a scenario stochastic mode models");
}

sim::SoftErrorSpec read_soft_errors(ObjectReader& r, const sim::SoftErrorSpec& defaults) {
  sim::SoftErrorSpec rate;
  rate.probability_per_operation =
      r.number("probability_per_operation", defaults.probability_per_operation, between(0.0, 1.0));
  rate.rate_per_flop = r.number("rate_per_flop", defaults.rate_per_flop, at_least(0.0));
  return rate;
}

}  // namespace codesim::app
