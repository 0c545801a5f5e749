// The report of `codesim theory`'s training model: the closed-form fault exposure of one scheme
// and MLP (models/theory/training_theory.hpp) and its checkpoint-interval model
// (analysis/theory.hpp), as a typed value with its JSON and its text. It needs both models/ and
// analysis/, which do not include each other, so it lives in app/.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/theory.hpp"
#include "models/coding/scheme_spec.hpp"
#include "models/faults/fault_targets.hpp"
#include "models/theory/training_theory.hpp"

namespace codesim::app {

/// What the training model is computed from (validated by the command).
struct TheoryInputs {
  models::SchemeSpec spec;
  std::vector<int> layers;                      ///< MLP sizes N_0, ..., N_L
  double eps = models::kPaperErrorProbability;  ///< weight strikes
  /// Strike probabilities of the other targets (product, activation, decode, update; the
  /// weights entry is unused: eps): the decentralized protocol's every step.
  models::TargetProbabilities other_eps{};
  analysis::CheckpointCosts costs;
  /// J_it, J_ck, J_rb: with them the report adds the expected energy per useful iteration.
  std::optional<analysis::EnergyCosts> energy;
  std::optional<int> tau;  ///< an interval to evaluate besides the default list
  models::TrainingTheoryOptions options;
  /// eps and other_eps, indexed by fault target.
  models::TargetProbabilities strike_eps() const;
  bool other_targets_strike() const;
};

/// One scheme field under its option name: an integer, or a choice by name.
struct SchemeParameter {
  std::string name;
  std::variant<int, std::string> value;
};

/// One decode of a steady iteration and its probabilities at eps.
struct TheoryDecode {
  int layer = 0;
  models::Direction direction = models::Direction::forward;
  int symbols = 0;
  std::size_t codewords = 0;
  int correctable = 0;  ///< t
  bool detects = true;
  std::vector<int> strikes_per_symbol;  ///< codeword by codeword
  double failure = 0.0;
  double corrected = 0.0;
  double silent = 0.0;
};

/// Nodes that check their own blocks (abft): what a weight strike does to a block and how often
/// the node corrects it, per weight layer.
struct TheoryLocalCorrection {
  std::string value_model;                       ///< the weight strikes' value model kind
  std::vector<std::int64_t> entries_per_strike;  ///< of the stored (checksummed) block
  std::vector<double> per_strike;                ///< q: P(one strike corrected at its node)
  std::vector<bool> exact;                       ///< false: q and Q_j are upper bounds
  double expected_per_iteration = 0.0;           ///< blocks corrected at their nodes
};

/// The checkpoint model at one interval tau. Infinite values stand for "never completes".
struct TheoryInterval {
  int tau = 1;
  double executions_per_iteration = 0.0;  ///< stationary p: E_exec(tau) / tau
  double time_per_iteration_s = 0.0;      ///< stationary p: E[T](tau)
  double verification_failure = 0.0;      ///< the verification pass after tau iterations
  double protocol_executions_per_iteration = 0.0;
  double protocol_time_per_iteration_s = 0.0;
  std::optional<double> protocol_energy_per_iteration_J;  ///< with energy costs
};

struct TheoryReport {
  std::string scheme;
  std::vector<SchemeParameter> parameters;  ///< in descriptor order
  int nodes = 0;
  std::vector<int> layers;
  double eps = 0.0;
  /// Every target's strike probability; empty when only weights strike.
  std::optional<models::TargetProbabilities> eps_by_target;
  std::optional<models::TargetCounts> opportunities_by_target;
  models::ErrorModel error_model = models::ErrorModel::adversarial;
  bool first_layer_backward = false;
  bool decentralized = true;  ///< false: node 0 decodes (--centralized)
  int opportunities_per_iteration = 0;
  std::vector<models::LayerOpportunities> opportunities;  ///< per weight layer
  int latent_blocks = 0;
  std::vector<TheoryDecode> decodes;
  double rollback_per_iteration = 0.0;    ///< p
  double rollback_first_iteration = 0.0;  ///< after a checkpoint or rollback
  double expected_strikes_per_iteration = 0.0;
  double expected_corrected_decodes_per_iteration = 0.0;
  double silent_probability_per_iteration = 0.0;
  double silent_expected_per_iteration = 0.0;
  std::optional<TheoryLocalCorrection> local_correction;  ///< abft only
  analysis::CheckpointCosts costs;
  std::vector<TheoryInterval> intervals;  ///< ascending tau: the default list and requested_tau
  std::optional<int> requested_tau;
  std::optional<analysis::EnergyCosts> energy;
  /// Expected joules per useful iteration at the protocol's optimal (time) interval.
  std::optional<double> energy_at_optimal_J;
  analysis::OptimalInterval optimal;             ///< the protocol model
  analysis::OptimalInterval optimal_stationary;  ///< stationary p
  analysis::ClassicIntervals classic;            ///< Young / Daly
};

/// The intervals every report evaluates (the columns of docs/reproduction.md's overhead table).
const std::vector<int>& default_theory_taus();

/// The spec's fields under their option names, choices by name, in descriptor order.
std::vector<SchemeParameter> scheme_parameters(const models::SchemeSpec& spec);

/// Computes the report. Precondition: models::validate_training_theory(in.spec, in.layers) is
/// empty, eps in [0, 1], costs valid, tau (if any) in [1, analysis::kMaxInterval].
TheoryReport theory_report(const TheoryInputs& in);

/// The report as `codesim theory --json` prints it; infinite and NaN numbers of the checkpoint
/// model are null.
nlohmann::ordered_json to_json(const TheoryReport& report);

/// The report as `codesim theory` prints it.
void print_text(const TheoryReport& report, std::ostream& out);

}  // namespace codesim::app
