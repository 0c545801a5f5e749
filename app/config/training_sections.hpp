// Scenario sections of a coded training run: the training workload's keys, `strategy` (the coding
// scheme) and `faults` (what soft errors do to the numbers, or a fault log to replay).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "app/config/object_reader.hpp"
#include "app/config/scenario.hpp"

namespace codesim::app {

/// The largest layer size a scenario may give (and `codes --rows/--cols`): far beyond any network
/// a 2-core machine trains, and what keeps the closed forms over a layer's entries quick.
inline constexpr std::int64_t kMaxLayerSize = 1000000;

/// A soft-error rate (per operation and per flop); absent keys keep `defaults`. Shared by the
/// cluster's `soft_errors` and the training faults' per-target rates.
sim::SoftErrorSpec read_soft_errors(ObjectReader& r, const sim::SoftErrorSpec& defaults);

/// Reads the keys of a `workload` of kind "training" (after `kind`) into `training`.
void read_training_workload(ObjectReader& r, TrainingWorkload& training);

/// Reads `strategy` for a cluster of `cluster_nodes` nodes and checks the scheme against every
/// weighted layer of `training` (the MLP's, or its network's); the CodeNet grid's generators are
/// seeded from `seed`.
models::SchemeSpec read_strategy(ObjectReader& r, const models::TrainingSpec& training,
                                 int cluster_nodes, std::uint64_t seed);

/// Reads `faults` for a cluster of `cluster_nodes` nodes into `training`. A `log_file` pattern
/// may hold only the placeholders {name}, {point} and {replica}.
void read_faults(ObjectReader& r, int cluster_nodes, TrainingWorkload& training);

/// Reads the `trace` section (the timeline trace of a numeric training run) into training.trace.
/// Its `file` pattern may hold the placeholders of a `log_file` pattern.
void read_trace(ObjectReader& r, TrainingWorkload& training);

/// The first "{...}" of an output file pattern (faults.log_file, trace.file, --trace) that is not
/// {name}, {point} or {replica}; "" when there is none.
std::string unknown_placeholder(const std::string& pattern);

/// The fault log of replica `replica` of sweep point `point` of scenario `name`: the `log_file`
/// `pattern` with its placeholders filled in.
std::string fault_log_path(const std::string& pattern, const std::string& name, std::size_t point,
                           std::uint64_t replica);

/// For a training scenario in stochastic mode, throws a ScenarioError (in `file`) at the key of
/// the first thing it asks for that the mode does not model: crashes, the activation, decode and
/// update fault targets, fault logs, replay, audit, record_loss, eval_cost_s. Else does nothing.
/// The rules are models::unmodelled_setting's; only replay and log_file are the app's own.
void check_training_mode(const Scenario& scenario, const std::string& file);

}  // namespace codesim::app
