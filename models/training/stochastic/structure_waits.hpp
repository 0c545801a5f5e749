// How long one product round waits under stragglers, from the scheme's own structure: a round
// ends when the simulator's wait rule finds every codeword decodable, and that depends on which
// nodes sum into which symbol, not only on how many nodes finished. Replication needs one whole
// grid row (column) of some copy per block row (column); the CodeNet grid needs enough complete
// grid rows (columns); MDS and GPD need any K of their nodes, the only case where the wait is the
// K-th fastest node (T1's straggler table, `codesim theory --table stragglers`). The rounds are
// resolved by the stochastic mode's own RoundResolver under wait_for k, so the table waits exactly
// as a training run does.
#pragma once

#include <cstdint>

#include "models/coding/coding_scheme.hpp"
#include "sim/straggler_model.hpp"

namespace codesim::models {

/// One direction of a scheme's product round, as its wait sees it.
struct RoundStructure {
  int nodes = 0;         ///< nodes of the scheme
  int participants = 0;  ///< nodes that compute a partial result in this direction
  int symbols = 0;
  int codewords = 1;  ///< repetition schemes: one per block row (column); others one
  /// Worst-case recovery threshold in nodes, as theory --table tradeoff counts it: participants
  /// less the erasures tolerated (some set of one fewer finished nodes cannot decode).
  int threshold_nodes = 0;
  int threshold_symbols = 0;  ///< K in symbols (summary.recovery_threshold)
  /// One codeword of single-node symbols: any threshold_symbols participants decode, so the wait
  /// is the threshold_symbols-th fastest of the participants (a closed form exists).
  bool any_k_nodes = false;
};

/// The structure of `spec`'s rounds in `dir`. Precondition: validate_scheme(spec) is empty.
RoundStructure round_structure(const SchemeSpec& spec, Direction dir);

/// The Monte Carlo mean of a round's wait, in nominal task times (every participant's task takes
/// flops / speed times its straggler factor; the round's tasks are equal, so the wait is a
/// factor).
struct StructureWaitEstimate {
  int trials = 0;
  double mean_task_times = 0.0;
  double standard_error_task_times = 0.0;  ///< sample standard deviation / sqrt(trials)
};

/// `trials` rounds of `spec` in `dir`: each participant's factor drawn from its node's stream,
/// keyed (seed, 0, "straggler", node) through sim::make_straggler_model as the simulator draws
/// them, and the round ended by the stochastic mode's resolver under wait_for k (no extra
/// symbols): when the finished nodes, in order of finishing, first make every codeword
/// decodable. Preconditions: validate_scheme(spec) and validate_straggler(law) are empty,
/// trials >= 2.
StructureWaitEstimate monte_carlo_structure_wait(const SchemeSpec& spec, Direction dir,
                                                 const sim::StragglerSpec& law, int trials,
                                                 std::uint64_t seed);

}  // namespace codesim::models
