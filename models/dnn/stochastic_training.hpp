// The stochastic mode of coded training: train_coded's protocol and time model without the
// arithmetic; every decode's outcome follows from which symbols simulated faults made erroneous.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "models/dnn/coded_training.hpp"
#include "models/faults/fault_targets.hpp"
#include "sim/checkpoint_policy.hpp"
#include "sim/cluster.hpp"
#include "sim/metric_set.hpp"

namespace codesim::models {

/// A setting run_stochastic_training does not model, asked for by a scenario.
struct UnmodelledSetting {
  /// A fault target's name ("activation", "decode", "update"), "audit", "record_loss" or
  /// "eval_cost_s".
  std::string setting;
  int node = -1;         ///< fault targets: the first node that asks for it; else -1
  std::string message;   ///< e.g. "the audit needs the arithmetic"
  std::string expected;  ///< the value that would do, e.g. "false"
};

/// The first setting stochastic mode does not model, in this order: the activation, decode and
/// update fault targets (the loss is an activation target), audit, record_loss, eval_cost_s > 0;
/// nullopt when there is none. Precondition:
/// `faults` is valid for the cluster (validate_fault_config).
std::optional<UnmodelledSetting> unmodelled_setting(const sim::ClusterSpec& cluster,
                                                    const TrainingSpec& spec,
                                                    const FaultConfig& faults);

/// Returns "" when run_stochastic_training models `spec` on `cluster` with `faults`, else what is
/// wrong (validate_training, validate_fault_config) or what it does not model
/// (unmodelled_setting). The layers give the sizes; there is no data to check them against.
std::string validate_stochastic_training(const sim::ClusterSpec& cluster, const TrainingSpec& spec,
                                         const FaultConfig& faults);

/// Runs one replica of train_coded's protocol (see coded_training.hpp) with its time model
/// (models/dnn/round_costs.hpp) and no arithmetic: per stored block it keeps whether a weight
/// strike has made it wrong. Precondition: validate_stochastic_training is empty.
///
///  - Strikes: (weights, forward / backward) before each completed product on the block it reads,
///    (product, forward / backward) on each completed partial (transient: its symbols are
///    erroneous in that decode only), (weights, update) on every stored block after each update;
///    probability per opportunity FaultInjector::strike_probability(node, target, flops). Each
///    (node, target) stream, keyed (seed, replica, "stochastic_strike.<target>", node), draws an
///    Exp(1) budget and spends -log(1 - p) per opportunity; a strike when it runs out (geometric
///    skipping, exact also when p varies with flops).
///  - Decodes: a symbol (the sum of its members' partials) is erroneous when a member's block is
///    wrong or its partial was struck; late members make it an erasure. Each codeword (one per
///    scheme; replication and uncoded: the copies of one block row forward, column backward) with
///    a present symbols, K needed and r = a - K: a < K detected; no erroneous symbol clean; r = 0
///    silent (nothing detects it; uncoded); at most t erroneous corrected, t = r / 2 adversarial,
///    r - 1 random; more detected. A decode is detected when a codeword is, else corrected when
///    one is. Corrected: every member of an erroneous symbol of a corrected codeword is
///    regenerated (all its blocks of the layer become right) from regeneration_sources excluding
///    them; detected (or no sources): rollback to the last checkpoint's blocks.
///  - Time: task times flops / speed times a straggler factor drawn like the cluster's nodes
///    (stream (seed, replica, "straggler", node), one draw per task, as train_coded); wait_for
///    ends a round at the task completing the rule; communication, decode (x4 when not clean),
///    regeneration, verification and checkpoint costs as train_coded's. No evaluation.
///  - Nodes that check their own blocks (abft, abft_codenet; stochastic_local_checks.hpp): a block
///    counts its strikes since its last read; a read that meets strikes, or a struck partial,
///    makes the node check its block (time charged) and correct it or withhold its partial (an
///    erasure), by the closed forms' probabilities; withheld blocks are regenerated after a decode
///    that could do without them, else the round rolls back.
///  - Crashes: the cluster's crash laws, failure domains and availability trace, from
///    train_coded's crash process and streams (stochastic_crashes.hpp), so that a run at
///    train_coded's simulated times crashes at its instants. A down node loses its running
///    task (an erasure; its energy the part that ran, then down power) and misses the update
///    (stale); a round that cannot decode rolls back; an iteration that could not decode from the
///    usable nodes waits for a repair (restart time); a stale node that is back has its blocks
///    regenerated before the iteration (regeneration time and bytes), as train_coded's.
///  - Checkpoints: the verification pass (forward and backward of every layer, no strikes) before
///    each write; at the end an untimed verification pass, as train_coded's read-out.
///
/// Metrics: completed, completion_time_s, iterations, iterations_executed, faults_injected
/// (strikes), decodes, corrected, regenerations, detected, rollbacks, checkpoints,
/// silent_corruptions (training decodes that read an erroneous symbol nothing detected),
/// node_operations (tasks simulated: products, updates and verification products), crashes
/// (only when a node ever fails, so that runs without keep their metrics),
/// time_compute_s, time_communication_s, time_decode_s, time_checkpoint_s, time_restart_s,
/// time_eval_s (0), time_lost_s; the seven add up to completion_time_s. No series.
/// `should_stop`, when set, is polled before every iteration; true throws TrainingStopped.
sim::MetricSet run_stochastic_training(const sim::ClusterSpec& cluster,
                                       const sim::CheckpointSpec& checkpoint,
                                       const TrainingSpec& spec, const FaultConfig& faults,
                                       std::uint64_t seed, std::uint64_t replica,
                                       const std::function<bool()>& should_stop = {});

}  // namespace codesim::models
