// The entry points of coded DNN training on the simulated cluster: every layer's products run as
// node tasks under a coding scheme, soft errors corrupt real numbers, decodes correct, regenerate
// or roll back. train_coded runs the arithmetic (numeric/), run_stochastic_training draws its
// outcomes (stochastic/).
#pragma once

#include <cstdint>
#include <functional>

#include "models/data/dataset.hpp"
#include "models/faults/fault_injector.hpp"
#include "models/nn/mlp.hpp"
#include "models/training/spec.hpp"
#include "sim/checkpoint_policy.hpp"
#include "sim/cluster.hpp"
#include "sim/metric_set.hpp"
#include "sim/run_stopped.hpp"
#include "sim/trace_sink.hpp"

namespace codesim::models {

/// Thrown by train_coded when TrainingObserver::should_stop asked it to stop.
class TrainingStopped : public sim::RunStopped {
 public:
  using sim::RunStopped::RunStopped;
};

/// Optional callbacks for tests and tools; parameters are decoded with decode_weights().
struct TrainingObserver {
  /// Polled before every iteration; true abandons the run (train_coded throws TrainingStopped).
  std::function<bool()> should_stop;
  /// After a checkpoint was written at `iteration` useful iterations.
  std::function<void(int iteration, const MlpParameters& parameters)> on_checkpoint;
  /// Right after a rollback restored the checkpoint of `iteration` useful iterations.
  std::function<void(int iteration, const MlpParameters& parameters)> on_rollback;
  /// Receives the run's timeline when set (protocol/training_trace.hpp says what it holds);
  /// not owned, must outlive the run. Never changes a result.
  sim::TraceSink* trace = nullptr;
};

/// Metrics plus the decoded final parameters and the run's fault log.
struct TrainingResult {
  sim::MetricSet metrics;
  MlpParameters parameters;  ///< decode_weights() of every layer and the biases, at the end
  FaultLog faults;           ///< injector.log() at the end
};

/// Runs one replica. The initial weights are glorot_init(spec.mlp, seed) (the same for every
/// strategy and replica); batch i holds training samples i B .. i B + B - 1 of the concatenated
/// epochs, epoch e in seeded_permutation order keyed by (seed, replica, "batch_order", e), so every
/// strategy sees the same batches (common random numbers). `injector` offers opportunities for
/// node ids < P and must be fresh (sampling or replay). Preconditions: validate_training is
/// empty, the checkpoint spec is valid, test.samples() >= 1.
///
/// Protocol per iteration (simulated time in brackets):
///  - forward, layer by layer: each participant p encodes its own copy of the input and multiplies
///    [a task of 2 b_r b_c B flops plus 2 N B for GPD's input encoding, at p's speed times its
///    straggler factor]; the arithmetic runs in the task's completion event, where the injector is
///    offered (weights, "forward") on the block before the product and (product, "forward") on
///    the partial result. The round ends per wait_for; unfinished tasks are abandoned (erasures).
///    Symbols (sums of their members' partials) are reduced within each symbol [binomial reduce
///    of the partial's bytes, slowest symbol] and all-gathered to every live scheme node [the
///    faster of a ring and a Bruck all-gather of one symbol per node]; decoded once [2 a^2 L flops
///    at the slowest live node, a symbols of L entries, 4x that when not clean]; then each node
///    offers (decode) on its own copy of the decoded product plus bias and (activation) on its own
///    f(.) (output layer: on its softmax delta, operation "loss"). Centralized: symbols go to node
///    0 one after another, node 0 decodes and broadcasts the product [binomial broadcast]; (decode)
///    is offered at node 0 only and corrupts every node's copy.
///  - backward, layers L-1 .. 1 (layer 0's W^T delta is not needed): the same with W^T, operation
///    "backward"; (activation) strikes the Hadamard product delta = c o f'(z).
///  - update: every live scheme node runs one task [2 b_r b_c B per stored block plus 2 (N_out +
///    N_in) B of encoding for coded schemes], applying scheme.update with its own copies of delta
///    and x; (update) is offered on the encoded update of its first block and (weights, "update")
///    on every stored block after it. Biases are one shared copy updated with the decoded delta
///    (bias is no fault target, so a node's corrupted delta reaches its block, not its bias).
///    The round ends when every live node finished. Bias, nonlinear steps and loss cost no time.
///  - decode outcomes: clean -> go on; corrected -> regenerate every blamed node's block of that
///    layer from regeneration_sources excluding blamed, down and stale nodes [per node, the
///    sources' block transfers one after another into it plus 2 |sources| block flops; nodes in
///    parallel]; detected, or a regeneration that cannot be done -> rollback: restore every block,
///    the biases, the shadow and the iteration from the last checkpoint [restart_s].
///  - checkpoints: the initial state is checkpoint 0 (free). After a useful iteration, when the
///    policy is due (iterations or seconds of progress since the last one; young/daly with the
///    cluster's crash MTBF), the verification pass runs [its nominal straggler-free time], then
///    the write [write_s + bytes / bandwidth; bytes = 0 and a bandwidth means the largest per-node
///    stored bytes]. Checkpoints are written as raw doubles to an unlinked temporary file (so
///    nothing is left behind) and read back bit for bit at a rollback.
///  - read-out: after the run, stale blocks are regenerated and an untimed verification pass
///    corrects what the last update corrupted, then `parameters` is decoded.
///  - crashes: a crashed node's running task is lost (an erasure); a node down during an update
///    misses it and is stale until regenerated at the start of an iteration after its repair
///    (like a corrected error); a round whose decode then fails rolls back; an iteration starts
///    only when every layer can be decoded from the live, fresh nodes (else it waits for repairs,
///    counted as restart time).
///
/// Metrics: completed, completion_time_s, iterations, iterations_executed, final_test_accuracy,
/// final_train_loss, faults_injected, decodes, corrected, regenerations, detected, rollbacks,
/// checkpoints, crashes, silent_corruptions (audit: useful iterations whose decoded training loss
/// differs from the shadow's by more than audit_tolerance relative; else 0; once uncoded training
/// has diverged every later iteration counts), audit_final_weight_deviation (audit:
/// max over layers of max|W - W_shadow| / max|W_shadow| at the end; else 0), time_compute_s,
/// time_communication_s (including regeneration transfers), time_decode_s, time_checkpoint_s
/// (verification and writes), time_restart_s, time_eval_s, time_lost_s (work since the last
/// checkpoint discarded by rollbacks); the seven add up to completion_time_s. Series
/// accuracy_vs_time (time_s, iteration, test_accuracy, train_loss, energy_J): at 0, every
/// eval_every useful iterations and at the end; test accuracy of the weights decoded from the
/// blocks as they stand (decode_weights(): a corruption no decode has met yet counts; at the end,
/// after the read-out's repairs, so the last row's is that of `parameters`) on the first
/// eval_samples test samples, with the run's kernels and threads; train_loss the mean loss of the
/// decoded logits of the iterations executed since the previous row (row 0: the loss of the initial
/// model's decoded outputs on batch 0); energy_J the joules spent so far
/// (sim::EnergyMeter::spent_J, before the row's evaluation). loss_vs_iteration (iteration, time_s,
/// loss) when record_loss.
TrainingResult train_coded(const sim::ClusterSpec& cluster, const sim::CheckpointSpec& checkpoint,
                           const ValidTraining& training, FaultInjector& injector,
                           const Dataset& train, const Dataset& test, std::uint64_t seed,
                           std::uint64_t replica, const TrainingObserver& observer = {});
/// train_coded of a spec its caller knows to be valid (valid_training: a problem aborts).
TrainingResult train_coded(const sim::ClusterSpec& cluster, const sim::CheckpointSpec& checkpoint,
                           const TrainingSpec& spec, FaultInjector& injector, const Dataset& train,
                           const Dataset& test, std::uint64_t seed, std::uint64_t replica,
                           const TrainingObserver& observer = {});

/// train_coded with a sampling injector over the cluster's nodes; returns its metrics.
/// Precondition: validate_training is empty (valid_training: a problem aborts).
sim::MetricSet run_coded_training(const sim::ClusterSpec& cluster,
                                  const sim::CheckpointSpec& checkpoint, const TrainingSpec& spec,
                                  const FaultConfig& faults, const Dataset& train,
                                  const Dataset& test, std::uint64_t seed, std::uint64_t replica);

/// Runs one replica of train_coded's protocol (above) with its time model
/// (protocol/round_costs.hpp) and no arithmetic: per stored block it keeps whether a weight
/// strike has made it wrong. `training` comes from check_stochastic_training.
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
///    train_coded's crash process and streams (stochastic/stochastic_crashes.hpp), so that a run at
///    train_coded's simulated times crashes at its instants. A down node loses its running
///    task (an erasure; its energy the part that ran, then down power) and misses the update
///    (stale); a round that cannot decode rolls back; an iteration that could not decode from the
///    usable nodes waits for a repair (restart time); a stale node that is back has its blocks
///    regenerated before the iteration (regeneration time and bytes), as train_coded's.
///  - Checkpoints: the verification pass (forward and backward of every layer, no strikes) before
///    each write; after the last iteration an untimed verification pass, as train_coded's
///    read-out, which rolls back when it detects what it cannot correct.
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
                                       const ValidTraining& training, const FaultConfig& faults,
                                       std::uint64_t seed, std::uint64_t replica,
                                       const std::function<bool()>& should_stop = {});
/// run_stochastic_training of a spec its caller knows the stochastic mode models (a problem of
/// check_stochastic_training aborts).
sim::MetricSet run_stochastic_training(const sim::ClusterSpec& cluster,
                                       const sim::CheckpointSpec& checkpoint,
                                       const TrainingSpec& spec, const FaultConfig& faults,
                                       std::uint64_t seed, std::uint64_t replica,
                                       const std::function<bool()>& should_stop = {});

}  // namespace codesim::models
