// A product round's wait under stragglers, resolved by the stochastic mode's RoundResolver.
#include "models/training/stochastic/structure_waits.hpp"

#include <algorithm>
#include <cmath>
#include <memory>
#include <vector>

#include "models/training/protocol/round_costs.hpp"
#include "models/training/protocol/training_protocol.hpp"
#include "models/training/stochastic/stochastic_round.hpp"
#include "sim/check.hpp"
#include "sim/random_stream.hpp"

namespace codesim::models {
namespace {

// The shape of `spec`'s rounds on its smallest W (the symbols do not depend on W's size), as the
// stochastic backend reads it (StochasticBackend::init_structure).
RoundShape shape_of(const SchemeSpec& spec, Direction dir) {
  CODESIM_CHECK(validate_scheme(spec).empty(), "a valid scheme");
  const auto [rows, cols] = block_grid(spec);
  const std::unique_ptr<CodingScheme> scheme = make_scheme(spec, rows, cols);
  scheme->encode(Matrix::Zero(rows, cols));
  return layer_shape(spec, *scheme, rows, cols, rows, cols).dir[dir == Direction::forward ? 0 : 1];
}

// The round the resolver needs: participants, the symbols each feeds, the members each symbol
// waits for and the codewords (the fields StochasticBackend::build_round sets for it).
detail::Round round_of(const SchemeSpec& spec, const RoundShape& shape) {
  detail::Round r;
  r.shape = &shape;
  r.participants = shape.participants;
  r.symbol_begin.push_back(0);
  for (int p : r.participants) {
    for (int s : shape.node_symbols[static_cast<std::size_t>(p)]) r.symbol_list.push_back(s);
    r.symbol_begin.push_back(static_cast<int>(r.symbol_list.size()));
  }
  for (const std::vector<int>& members : shape.members)
    r.member_count.push_back(static_cast<int>(members.size()));
  r.codewords = round_codewords(spec, shape);
  return r;
}

}  // namespace

RoundStructure round_structure(const SchemeSpec& spec, Direction dir) {
  const RoundShape shape = shape_of(spec, dir);
  const SchemeSummary summary = summarize_scheme(spec);
  const DirectionCapability& capability =
      dir == Direction::forward ? summary.forward : summary.backward;
  const RoundCodewords codewords = round_codewords(spec, shape);
  RoundStructure out;
  out.nodes = summary.nodes;
  out.participants = static_cast<int>(shape.participants.size());
  out.symbols = codewords.symbols;
  out.codewords = codewords.codewords;
  out.threshold_nodes = out.participants - capability.erasures_tolerated;
  out.threshold_symbols = capability.recovery_threshold;
  out.any_k_nodes =
      codewords.codewords == 1 &&
      std::all_of(shape.members.begin(), shape.members.end(),
                  [](const std::vector<int>& members) { return members.size() == 1; }) &&
      codewords.symbols == out.participants;
  return out;
}

StructureWaitEstimate monte_carlo_structure_wait(const SchemeSpec& spec, Direction dir,
                                                 const sim::StragglerSpec& law, int trials,
                                                 std::uint64_t seed) {
  CODESIM_CHECK(sim::validate_straggler(law).empty(), "a valid straggler law");
  CODESIM_CHECK(trials >= 2, "at least two trials");
  const RoundShape shape = shape_of(spec, dir);
  const detail::Round round = round_of(spec, shape);
  const std::unique_ptr<sim::StragglerModel> model = sim::make_straggler_model(law);
  std::vector<sim::RandomStream> streams;
  streams.reserve(round.participants.size());
  for (int p : round.participants)
    streams.emplace_back(sim::StreamKey{seed, 0, "straggler", static_cast<std::uint64_t>(p)});
  // Wait for what decodes: K symbols per codeword, no extra ones.
  const WaitPolicy wait{WaitRule::k, 0};
  detail::RoundResolver resolver;
  detail::RoundTiming timing;
  std::vector<double> factors(round.participants.size());
  double sum = 0.0;
  double sum_squares = 0.0;
  for (int t = 0; t < trials; ++t) {
    for (std::size_t i = 0; i < factors.size(); ++i) factors[i] = model->sample_factor(streams[i]);
    resolver.resolve(round, 0.0, factors, wait, timing);
    CODESIM_CHECK(timing.decodable, "every participant finished: the round decodes");
    sum += timing.end_s;
    sum_squares += timing.end_s * timing.end_s;
  }
  StructureWaitEstimate out;
  out.trials = trials;
  out.mean_task_times = sum / trials;
  const double variance = std::max(
      0.0, (sum_squares - trials * out.mean_task_times * out.mean_task_times) / (trials - 1));
  out.standard_error_task_times = std::sqrt(variance / trials);
  return out;
}

}  // namespace codesim::models
