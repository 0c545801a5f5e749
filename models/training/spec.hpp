// What one coded training run is: the network, the SGD settings, the scheme, the protocol's
// options, and the check that they fit a cluster and a data set (validate_training).
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include "models/coding/coding_scheme.hpp"
#include "models/nn/mlp.hpp"
#include "models/nn/model_spec.hpp"

namespace codesim::sim {
struct ClusterSpec;  // sim/cluster.hpp
}  // namespace codesim::sim

namespace codesim::models {

class RankChannel;   // models/training/numeric/node_ranks.hpp
struct FaultConfig;  // models/faults/fault_targets.hpp

/// How a training run is simulated: numeric (train_coded runs the arithmetic) or stochastic
/// (run_stochastic_training, train.hpp: the same protocol without it).
enum class TrainingMode { numeric, stochastic };
inline constexpr std::array<std::string_view, 2> kTrainingModeNames = {"numeric", "stochastic"};

/// When a product round stops waiting.
enum class WaitRule {
  all,       ///< every live participant finished
  k,         ///< the first results that determine the product
  k_plus_2t  ///< enough extra symbols to correct t = wait_errors errors
};
inline constexpr std::array<std::string_view, 3> kWaitRuleNames = {"all", "k", "k_plus_2t"};

/// One coded training run of the model it extends (its `mlp`, or its `network` when set). Every
/// weighted layer l (W_l is N_{l+1} x N_l) uses make_scheme(scheme, N_{l+1}, N_l); scheme node p
/// runs on cluster node p (the cluster needs at least P nodes).
struct TrainingSpec : ModelSpec {
  TrainingMode mode = TrainingMode::numeric;  ///< train_coded ignores it
  /// The kernels of the run's products, updates and decodes: the run's context (codesim run
  /// --arithmetic), not a scenario key; portable gives the same bits on every machine.
  Arithmetic arithmetic = Arithmetic::portable;
  /// Threads that share the large products and updates of the run (codesim run --threads), >= 1;
  /// never changes a result, so it is not a scenario key and results do not record it.
  int threads = 1;
  /// The MPI ranks that share the simulated nodes' blocks (codesim run --distribute nodes;
  /// models/training/numeric/node_ranks.hpp): null, this process holds them all. Not owned;
  /// never changes a result, so it is not a scenario key either. train_coded only.
  RankChannel* ranks = nullptr;
  /// The learning rate and batch size, whichever model is trained.
  SgdSettings sgd;
  SchemeSpec scheme;
  int iterations = 100;  ///< useful SGD steps to complete, >= 1
  int eval_every = 0;    ///< accuracy_vs_time row every this many useful iterations; 0 = start/end
  int eval_samples = 0;  ///< first test samples evaluated; 0 = all
  double eval_cost_s = 0.0;  ///< simulated seconds charged per evaluation (time_eval_s), >= 0
  WaitRule wait_for = WaitRule::all;
  int wait_errors = 1;  ///< t of k_plus_2t, >= 0
  /// true: every node decodes on its own (CodeNet). false: node 0 gathers, decodes and
  /// broadcasts; faults of node 0's decode then reach every node (unprotected).
  bool decentralized = true;
  /// Keep an error-free shadow trained with sgd_step on the same batches (restored at rollbacks)
  /// and count iterations whose training loss differs from it (silent_corruptions).
  bool audit = false;
  /// Run the all-ones verification pass (forward and backward of every layer, no faults) before
  /// each checkpoint write: corrected -> regenerate then write, detected -> roll back instead.
  bool verify_before_checkpoint = true;
  /// Also run layer 0's backward product W_0^T delta_0 each iteration, decoded and discarded (no
  /// layer feeds on it), as the CodeNet authors' experiment code does: its reads and products
  /// are strike opportunities and its decode can roll back (30 more opportunities per iteration
  /// for CodeNet 7x6 on 40-40-40-10). false: train_coded's protocol, which needs no c_0.
  bool first_layer_backward = false;
  bool record_loss = false;  ///< add the loss_vs_iteration series (one row per executed iteration)
  DecodeOptions decode;
  double time_limit_s = 1e12;  ///< simulated time after which the run gives up (completed = 0)
  /// Relative tolerance of the audit's loss comparison and weight deviation.
  double audit_tolerance = 1e-6;
};

/// Returns "" when the spec can run on `cluster_nodes` nodes with data of `features` features and
/// `classes` classes, else what is wrong.
std::string validate_training(const TrainingSpec& spec, int cluster_nodes, int features,
                              int classes);

/// What a training spec was checked against: the cluster's node count and the data's shape. A
/// stochastic run has no data: its features are the model's input, its classes 0.
struct TrainingFit {
  int cluster_nodes = 0;
  int features = 0;
  int classes = 0;
  friend bool operator==(const TrainingFit&, const TrainingFit&) = default;
};

/// A TrainingSpec checked once, where it enters (the runner, a test, a benchmark): the runs take
/// one and never check the spec again, only that they run on the cluster and data it was checked
/// against. Only check_training and check_stochastic_training make one.
class ValidTraining {
 public:
  const TrainingSpec& spec() const { return spec_; }
  const TrainingFit& fit() const { return fit_; }
  /// Whether check_stochastic_training accepted it: the stochastic mode models every setting.
  bool stochastic_checked() const { return stochastic_checked_; }

 private:
  ValidTraining(const TrainingSpec& spec, const TrainingFit& fit) : spec_(spec), fit_(fit) {}
  friend std::variant<ValidTraining, std::string> check_training(const TrainingSpec&,
                                                                 const TrainingFit&);
  friend std::variant<ValidTraining, std::string> check_stochastic_training(const sim::ClusterSpec&,
                                                                            const TrainingSpec&,
                                                                            const FaultConfig&);

  TrainingSpec spec_;
  TrainingFit fit_;
  bool stochastic_checked_ = false;
};

/// `spec` as a ValidTraining when validate_training accepts it for `fit`, else what is wrong.
std::variant<ValidTraining, std::string> check_training(const TrainingSpec& spec,
                                                        const TrainingFit& fit);

/// check_training for a spec its caller built and knows to be valid (tests, benchmarks): a
/// problem is a failed CODESIM_CHECK that names it.
ValidTraining valid_training(const TrainingSpec& spec, const TrainingFit& fit);

/// `spec` as a ValidTraining that the stochastic mode models on `cluster` with `faults`
/// (validate_stochastic_training, stochastic/stochastic_validation.hpp), else what is wrong. Its
/// fit has the model's input as features and 0 classes.
std::variant<ValidTraining, std::string> check_stochastic_training(const sim::ClusterSpec& cluster,
                                                                   const TrainingSpec& spec,
                                                                   const FaultConfig& faults);

}  // namespace codesim::models
