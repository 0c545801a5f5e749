// Experiment runner: sweep points validated up front, data loaded once per point, work units
// (point, replica) run by a UnitExecutor and their outputs, encoded bit-exactly, stored by index.
#include "app/exec/runner.hpp"

#include <atomic>
#include <bit>
#include <cstdio>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <variant>

#include "analysis/results_json.hpp"
#include "app/config/fault_log_json.hpp"
#include "app/config/scenario_error.hpp"
#include "app/config/scenario_loader.hpp"
#include "app/config/sweep.hpp"
#include "app/config/training_sections.hpp"
#include "app/exec/decoding_guard.hpp"
#include "app/exec/point_inputs.hpp"
#include "app/exec/unit_executor.hpp"
#include "models/linalg/dense_kernels.hpp"
#include "models/training/numeric/node_ranks.hpp"
#include "models/training/stochastic/stochastic_validation.hpp"
#include "models/training/train.hpp"
#include "sim/check.hpp"
#include "sim/iterative_job.hpp"
#include "sim/overloaded.hpp"
#include "sim/run_stopped.hpp"

#ifndef CODESIM_VERSION
#define CODESIM_VERSION "unknown"
#endif

namespace codesim::app {

std::string codesim_version() { return CODESIM_VERSION; }

namespace {

struct ReplicaOutput {
  sim::MetricSet metrics;
  std::optional<models::FaultLog> fault_log;
  std::string trace_warning;  ///< "" unless the trace hit its cap
  std::string trace_error;    ///< "" unless the trace could not be written (the metrics stand)
};

// Polled before every simulated iteration: counts it for progress and says whether the run was
// interrupted (an interrupted run abandons running replicas too).
std::function<bool()> stop_poll(std::atomic<std::uint64_t>* iterations,
                                const std::atomic<bool>& stop) {
  return [iterations, &stop] {
    if (iterations != nullptr) iterations->fetch_add(1, std::memory_order_relaxed);
    return stop.load(std::memory_order_relaxed);
  };
}

/// The trace writer of replica `replica` of point `point`, or null when none is asked for.
std::unique_ptr<analysis::ChromeTraceWriter> trace_writer(const Scenario& scenario,
                                                          const TrainingWorkload& training,
                                                          std::size_t point,
                                                          std::uint64_t replica) {
  const analysis::TraceOptions& trace = training.trace;
  // Distributed over ranks, the root writes the trace (every rank runs the same events).
  if (trace.file.empty() || (training.spec.ranks && training.spec.ranks->rank() != 0))
    return nullptr;
  return std::make_unique<analysis::ChromeTraceWriter>(
      fault_log_path(trace.file, scenario.name, point, replica), trace,
      scenario.cluster.node_count());
}

/// Closes the replica's trace into `output`: a warning when it hit its cap, an error when it
/// could not be written (a full disk), which loses the trace but never the replica's metrics.
void close_trace(analysis::ChromeTraceWriter* writer, ReplicaOutput& output) {
  if (writer == nullptr) return;
  try {
    writer->close();
  } catch (const std::exception& e) {
    output.trace_error =
        std::string("error: ") + e.what() + " (the results are written without it)";
    return;
  }
  if (!writer->truncated()) return;
  output.trace_warning =
      "warning: the trace " + in_quotes(writer->path()) + " stopped at its cap of " +
      std::to_string(writer->written()) + " events (" + std::to_string(writer->dropped()) +
      " more dropped; the run went on): raise trace.max_events or narrow its window";
}

/// Where a replica reports its iterations and learns that its run must stop.
struct ReplicaPolls {
  std::atomic<std::uint64_t>* iterations = nullptr;  ///< counted when set
  const std::atomic<bool>& stop;
};

ReplicaOutput run_training_replica(const Scenario& scenario, const TrainingWorkload& training,
                                   const PointInputs& inputs, std::size_t point,
                                   std::uint64_t replica, const ReplicaPolls& polls) {
  std::optional<models::FaultInjector> injector;
  try {
    if (inputs.replay) {
      injector.emplace(*inputs.replay);
    } else {
      // The digests are only read from a written log.
      injector.emplace(training.faults, scenario.cluster.node_count(), scenario.seed, replica,
                       training.fault_log_file.empty() ? models::SequenceDigest::skipped
                                                       : models::SequenceDigest::computed);
    }
    models::TrainingObserver observer;
    // Ranks in lockstep cannot stop at different iterations: a distributed run is not polled.
    if (training.spec.ranks == nullptr)
      observer.should_stop = stop_poll(polls.iterations, polls.stop);
    const std::unique_ptr<analysis::ChromeTraceWriter> trace =
        trace_writer(scenario, training, point, replica);
    observer.trace = trace.get();
    models::TrainingResult result = models::train_coded(
        scenario.cluster, scenario.checkpoint, *inputs.training, *injector, inputs.data->train,
        inputs.data->test, scenario.seed, replica, observer);
    ReplicaOutput output{std::move(result.metrics), std::nullopt, "", ""};
    close_trace(trace.get(), output);
    if (!training.fault_log_file.empty()) output.fault_log = std::move(result.faults);
    return output;
  } catch (const models::FaultLogError& e) {
    throw to_scenario_error(e, training.replay_file);
  }
}

ReplicaOutput run_one(const Scenario& scenario, const PointInputs& inputs, std::size_t point,
                      std::uint64_t replica, const ReplicaPolls& polls) {
  // Loops inside an event (flow simulations) poll for interrupts too, but not a distributed
  // replica's: its ranks must stop in lockstep.
  std::optional<sim::StopPolling> polling;
  if (const auto* training = std::get_if<TrainingWorkload>(&scenario.workload);
      training == nullptr || training->spec.ranks == nullptr) {
    polling.emplace(polls.stop);
  }
  const auto run_job = [&](const sim::IterativeJobSpec& job) -> ReplicaOutput {
    return {sim::run_iterative_job(scenario.cluster, scenario.checkpoint, job, scenario.seed,
                                   replica, stop_poll(nullptr, polls.stop)),
            std::nullopt, "", ""};
  };
  const auto run_training = [&](const TrainingWorkload& training) -> ReplicaOutput {
    switch (training.spec.mode) {
      case models::TrainingMode::stochastic:
        return {models::run_stochastic_training(scenario.cluster, scenario.checkpoint,
                                                *inputs.training, training.faults, scenario.seed,
                                                replica, stop_poll(polls.iterations, polls.stop)),
                std::nullopt, "", ""};
      case models::TrainingMode::numeric:
        break;
    }
    return run_training_replica(scenario, training, inputs, point, replica, polls);
  };
  return std::visit(sim::Overloaded{run_job, run_training}, scenario.workload);
}

std::string hex_bits(double value) { return models::hex_bits(std::bit_cast<std::uint64_t>(value)); }

double from_hex_bits(const Json& text) {
  return std::bit_cast<double>(
      static_cast<std::uint64_t>(std::stoull(text.get<std::string>(), nullptr, 16)));
}

/// A replica's output as text, every double by its bits, so it crosses processes exactly.
std::string encode_output(const ReplicaOutput& output) {
  Json document = {{"scalars", Json::array()}, {"notes", Json::array()}, {"series", Json::array()}};
  for (const auto& [name, value] : output.metrics.scalars())
    document["scalars"].push_back({name, hex_bits(value)});
  for (const auto& [name, text] : output.metrics.notes()) document["notes"].push_back({name, text});
  for (const sim::MetricSeries& series : output.metrics.all_series()) {
    Json values = Json::array();
    for (double value : series.values) values.push_back(hex_bits(value));
    document["series"].push_back(
        {{"name", series.name}, {"columns", series.columns}, {"values", std::move(values)}});
  }
  if (output.fault_log) document["fault_log"] = fault_log_to_json(*output.fault_log);
  if (!output.trace_warning.empty()) document["trace_warning"] = output.trace_warning;
  if (!output.trace_error.empty()) document["trace_error"] = output.trace_error;
  return document.dump();
}

ReplicaOutput decode_output(const std::string& text) {
  const Json document = Json::parse(text);
  ReplicaOutput output;
  for (const Json& scalar : document["scalars"])
    output.metrics.set(scalar[0].get<std::string>(), from_hex_bits(scalar[1]));
  for (const Json& note : document["notes"])
    output.metrics.set_note(note[0].get<std::string>(), note[1].get<std::string>());
  for (const Json& series : document["series"]) {
    const std::string name = series["name"].get<std::string>();
    const auto columns = series["columns"].get<std::vector<std::string>>();
    output.metrics.add_series(name, columns);
    std::vector<double> row;
    for (const Json& value : series["values"]) {
      row.push_back(from_hex_bits(value));
      if (row.size() == columns.size()) {
        output.metrics.append_row(name, row);
        row.clear();
      }
    }
  }
  if (document.contains("fault_log"))
    output.fault_log = fault_log_from_json(document["fault_log"], "(fault log of a replica)");
  if (document.contains("trace_warning"))
    output.trace_warning = document["trace_warning"].get<std::string>();
  if (document.contains("trace_error"))
    output.trace_error = document["trace_error"].get<std::string>();
  return output;
}

/// The key (or option) that names the trace files, for messages.
std::string trace_pointer(const Experiment& experiment) {
  return experiment.trace_from_command_line ? "" : "/trace/file";
}

/// Fault-log and trace patterns must not make two replicas (or points) write the same file.
void check_output_patterns(const Experiment& experiment) {
  const auto check = [&](const Scenario& s, const TrainingWorkload& training,
                         const std::string& pattern, const std::string& pointer,
                         const std::string& what) {
    const bool many_replicas = s.replicas > 1 && training.replay_file.empty();
    if (many_replicas && pattern.find("{replica}") == std::string::npos) {
      throw ScenarioError(experiment.file, pointer,
                          what + "every replica would write the same file " + in_quotes(pattern) +
                              " (expected {replica} in the pattern)");
    }
    if (experiment.points.size() > 1 && pattern.find("{point}") == std::string::npos) {
      throw ScenarioError(experiment.file, pointer,
                          what + "every sweep point would write the same file " +
                              in_quotes(pattern) + " (expected {point} in the pattern)");
    }
  };
  for (const ExperimentPoint& point : experiment.points) {
    const TrainingWorkload* training = training_of(point.scenario.workload);
    if (training == nullptr) continue;
    if (!training->fault_log_file.empty())
      check(point.scenario, *training, training->fault_log_file, "/faults/log_file", "");
    if (!training->trace.file.empty()) {
      check(point.scenario, *training, training->trace.file, trace_pointer(experiment),
            experiment.trace_from_command_line ? "--trace: " : "");
    }
  }
}

/// Runs every unit on `executor`, reporting progress; returns the encoded outputs by unit ("" for
/// a unit that never ran).
std::vector<std::string> run_units(const Experiment& experiment, const PreparedRun& prepared,
                                   const RunOptions& options, UnitExecutor& executor) {
  // Points whose every replica finished in this process; exact only when this process runs
  // every unit (no MPI), else not reported.
  const bool counts_points = mpi_size() == 1;
  std::vector<std::atomic<std::size_t>> replicas_left(experiment.points.size());
  for (std::size_t p = 0; p < prepared.inputs.size(); ++p)
    replicas_left[p] = prepared.inputs[p].replicas.size();
  std::atomic<std::size_t> points_done{0};
  const ReplicaPolls polls{options.simulated_iterations,
                           options.stop != nullptr ? *options.stop : sim::process_stop_flag()};
  return executor.run(
      prepared.units.size(), options.jobs,
      [&](std::size_t i) {
        if (polls.stop.load()) return std::string();  // stopped: the unit never runs
        const Unit& unit = prepared.units[i];
        try {
          std::string output =
              encode_output(run_one(experiment.points[unit.point].scenario,
                                    prepared.inputs[unit.point], unit.point, unit.replica, polls));
          if (replicas_left[unit.point].fetch_sub(1) == 1) points_done.fetch_add(1);
          return output;
        } catch (const sim::RunStopped&) {
          return std::string();  // interrupted while running: the replica counts as not run
        }
      },
      [&](std::size_t done, std::size_t total) {
        if (!options.on_progress) return;
        RunProgress progress{done, total};
        if (counts_points) {
          progress.points_done = points_done.load();
          progress.points_total = experiment.points.size();
        }
        options.on_progress(progress);
      });
}

/// The results document without its points.
Json results_header(const Experiment& experiment, bool complete) {
  Json results = Json::object();
  results["schema_version"] = 1;
  results["codesim_version"] = codesim_version();
  results["complete"] = complete;
  results["scenario"] = experiment.scenario;
  results["seed"] = experiment.points.front().scenario.seed;
  results["arithmetic"] = models::arithmetic_name(experiment.arithmetic);
  results["points"] = Json::array();
  return results;
}

/// Builds the results from the encoded unit outputs and collects the fault logs to write.
RunOutput collect_results(const Experiment& experiment, const PreparedRun& prepared,
                          const std::vector<std::string>& encoded, const RunOptions& options) {
  // An empty output is a unit that never ran (the run was interrupted).
  std::vector<std::optional<ReplicaOutput>> outputs;
  outputs.reserve(encoded.size());
  bool complete = true;
  for (const std::string& text : encoded) {
    complete = complete && !text.empty();
    outputs.push_back(text.empty() ? std::nullopt : std::optional(decode_output(text)));
  }
  // Condition numbers of every point's decoding systems (cached per strategy: milliseconds).
  std::optional<DecodingGuard> computed;
  if (options.decoding_guard == nullptr) computed = guard_experiment(experiment);
  const DecodingGuard& guard = computed ? *computed : *options.decoding_guard;
  RunOutput output;
  Json& results = output.results;
  results = results_header(experiment, complete);
  std::size_t next = 0;
  for (std::size_t p = 0; p < experiment.points.size(); ++p) {
    const ExperimentPoint& point = experiment.points[p];
    std::vector<sim::MetricSet> replicas;
    std::vector<std::uint64_t> numbers;
    for (std::uint64_t r : prepared.inputs[p].replicas) {
      std::optional<ReplicaOutput>& unit = outputs[next++];
      if (!unit) continue;
      replicas.push_back(std::move(unit->metrics));
      numbers.push_back(r);
      if (!unit->trace_warning.empty()) output.warnings.push_back(unit->trace_warning);
      if (!unit->trace_error.empty()) output.errors.push_back(unit->trace_error);
      if (const TrainingWorkload* training = training_of(point.scenario.workload);
          training != nullptr && !training->trace.file.empty() && unit->trace_error.empty()) {
        output.traces.push_back(fault_log_path(training->trace.file, point.scenario.name, p, r));
      }
      if (unit->fault_log) {
        output.fault_logs.push_back(
            {fault_log_path(std::get<TrainingWorkload>(point.scenario.workload).fault_log_file,
                            point.scenario.name, p, r),
             std::move(*unit->fault_log)});
      }
    }
    results["points"].push_back(analysis::point_json(point.params, point.label, replicas, numbers));
    if (!guard.records[p].is_null()) results["points"].back()["decoding"] = guard.records[p];
  }
  if (!experiment.searches.empty()) {
    results["checkpoint_search"] = checkpoint_search_json(experiment.searches, results["points"]);
  }
  return output;
}

/// Adds the candidates of `point`'s checkpoint-interval search (loaded from `document`) and the
/// search: each candidate is the point with policy daly and one interval factor, named by it.
void add_checkpoint_search(Experiment& experiment, const ExperimentPoint& point,
                           const Json& document, const std::string& file) {
  const std::vector<double>& factors = point.scenario.checkpoint.search_factors;
  experiment.searches.push_back({experiment.points.size(), factors, point.label});
  const std::vector<Json> documents = checkpoint_search_documents(document, factors);
  for (std::size_t k = 0; k < factors.size(); ++k) {
    ExperimentPoint candidate;
    candidate.params = point.params;
    candidate.params["/checkpoint/interval_factor"] = factors[k];
    candidate.sources = point.sources;
    candidate.scenario = load_scenario(documents[k], file);
    std::ostringstream name;
    name << (point.label.empty() ? "" : point.label + ", ") << "interval_factor=" << factors[k];
    candidate.label = name.str();
    experiment.points.push_back(std::move(candidate));
  }
}

}  // namespace

Experiment make_experiment(const Json& document, const std::string& file) {
  Experiment experiment;
  experiment.file = file;
  const std::vector<SweepPoint> points = expand_sweep(document, file);
  for (std::size_t i = 0; i < points.size(); ++i) {
    ExperimentPoint point;
    point.params = points[i].params;
    point.sources = points[i].sources;
    try {
      point.scenario = load_scenario(points[i].document, file);
      check_training_mode(point.scenario, file);
    } catch (const ScenarioError& e) {
      throw in_sweep_point(e, i, points[i].label, point.sources);
    }
    point.label = point.scenario.label.empty() ? points[i].label : point.scenario.label;
    if (i == 0) experiment.scenario = point.scenario.resolved;
    if (point.scenario.checkpoint.policy == sim::CheckpointKind::optimal_simulated) {
      // Each candidate is a point of the sweep: together they keep to its limit (checked before
      // any candidate is loaded, which costs a scenario each).
      const std::size_t candidates = point.scenario.checkpoint.search_factors.size();
      if (experiment.points.size() + candidates + (points.size() - i - 1) > kMaxSweepPoints) {
        throw ScenarioError(file, "/checkpoint/search_factors",
                            "the sweep's points and their checkpoint searches' candidates make "
                            "more than " +
                                std::to_string(kMaxSweepPoints) +
                                " points (expected fewer search_factors or sweep points)");
      }
      add_checkpoint_search(experiment, point, points[i].document, file);
    } else {
      experiment.points.push_back(std::move(point));
    }
  }
  if (document.is_object() && document.contains("sweep")) {
    experiment.scenario["sweep"] = document["sweep"];
  }
  check_output_patterns(experiment);
  return experiment;
}

Experiment load_experiment(const std::string& path, const std::vector<std::string>& sets) {
  Json document = read_scenario_file(path);
  for (const auto& assignment : sets) apply_set(document, assignment, path);
  return make_experiment(document, path);
}

void use_arithmetic(Experiment& experiment, models::Arithmetic arithmetic) {
  experiment.arithmetic = arithmetic;
  for (ExperimentPoint& point : experiment.points) {
    if (auto* training = std::get_if<TrainingWorkload>(&point.scenario.workload)) {
      training->spec.arithmetic = arithmetic;
    }
  }
}

void use_ranks(Experiment& experiment, models::RankChannel& ranks) {
  for (ExperimentPoint& point : experiment.points) {
    auto* training = std::get_if<TrainingWorkload>(&point.scenario.workload);
    if (training == nullptr) {
      throw ScenarioError(experiment.file, "/workload/kind",
                          "--distribute nodes spreads a numeric training run's blocks over the "
                          "ranks (expected a training workload)");
    }
    if (training->spec.mode == models::TrainingMode::stochastic) {
      throw ScenarioError(experiment.file, "/workload/mode",
                          "--distribute nodes spreads the simulated nodes' blocks over the ranks, "
                          "and the stochastic mode stores none (expected mode numeric)");
    }
    const int nodes = models::summarize_scheme(training->spec.scheme).nodes;
    if (ranks.size() > nodes) {
      throw ScenarioError(experiment.file, "/strategy",
                          "the scheme has " + std::to_string(nodes) +
                              " simulated nodes, fewer than the " + std::to_string(ranks.size()) +
                              " MPI ranks (expected at most " + std::to_string(nodes) +
                              " ranks with --distribute nodes: each rank holds a node's blocks)");
    }
    training->spec.ranks = &ranks;
  }
}

void use_threads(Experiment& experiment, int threads) {
  for (ExperimentPoint& point : experiment.points) {
    if (auto* training = std::get_if<TrainingWorkload>(&point.scenario.workload)) {
      training->spec.threads = threads;
    }
  }
}

std::vector<std::string> trace_paths(const Experiment& experiment, const PreparedRun& prepared) {
  std::vector<std::string> paths;
  for (const Unit& unit : prepared.units) {
    const Scenario& scenario = experiment.points[unit.point].scenario;
    const TrainingWorkload* training = training_of(scenario.workload);
    if (training == nullptr || training->trace.file.empty()) continue;
    paths.push_back(fault_log_path(training->trace.file, scenario.name, unit.point, unit.replica));
  }
  return paths;
}

void use_trace(Experiment& experiment, const TraceRequest& trace) {
  experiment.trace_from_command_line = true;
  for (ExperimentPoint& point : experiment.points) {
    auto* training = std::get_if<TrainingWorkload>(&point.scenario.workload);
    if (training == nullptr || training->spec.mode != models::TrainingMode::numeric) {
      throw ScenarioError(experiment.file, "/workload",
                          "--trace: only a numeric training run writes a timeline trace "
                          "(expected workload.kind \"training\" with mode \"numeric\")");
    }
    analysis::TraceOptions& options = training->trace;
    options.file = trace.file;
    if (trace.window_s) std::tie(options.from_s, options.to_s) = *trace.window_s;
    if (trace.iterations)
      std::tie(options.from_iteration, options.to_iteration) = *trace.iterations;
    if (trace.max_events) options.max_events = *trace.max_events;
    if (trace.no_flows) options.flows = false;
  }
  check_output_patterns(experiment);
}

std::vector<std::string> fault_log_paths(const Experiment& experiment,
                                         const PreparedRun& prepared) {
  std::vector<std::string> paths;
  for (const Unit& unit : prepared.units) {
    const Scenario& scenario = experiment.points[unit.point].scenario;
    const TrainingWorkload* training = training_of(scenario.workload);
    if (training == nullptr || training->fault_log_file.empty()) continue;
    paths.push_back(
        fault_log_path(training->fault_log_file, scenario.name, unit.point, unit.replica));
  }
  return paths;
}

RunOutput run_prepared(const Experiment& experiment, const PreparedRun& prepared,
                       const RunOptions& options) {
  std::unique_ptr<UnitExecutor> local;
  UnitExecutor* executor = options.executor;
  if (executor == nullptr) {
    local = make_local_executor();
    executor = local.get();
  }
  const std::vector<std::string> encoded = run_units(experiment, prepared, options, *executor);
  if (!executor->is_root()) {
    RunOutput output;
    output.root = false;
    return output;
  }
  return collect_results(experiment, prepared, encoded, options);
}

RunOutput run_experiment(const Experiment& experiment, const RunOptions& options) {
  const std::unique_ptr<UnitExecutor> local = options.executor ? nullptr : make_local_executor();
  RunOptions resolved = options;
  if (resolved.executor == nullptr) resolved.executor = local.get();
  return run_prepared(experiment, prepare_run(experiment, *resolved.executor), resolved);
}

sim::MetricSet run_replica(const Scenario& scenario, std::uint64_t replica) {
  DataCache cache;
  const PointInputs inputs = prepare_point(scenario, scenario.name, cache);
  return run_one(scenario, inputs, 0, replica, {nullptr, sim::process_stop_flag()}).metrics;
}

Json run_scenario(const Scenario& scenario) {
  Experiment experiment;
  experiment.file = scenario.name;
  experiment.scenario = scenario.resolved;
  experiment.points.push_back({Json::object(), scenario.label, scenario});
  return run_experiment(experiment).results;
}

}  // namespace codesim::app
