// The nodes' own checks in the stochastic mode: closed-form outcomes drawn per read.
#include "models/training/stochastic/stochastic_local_checks.hpp"

#include <algorithm>
#include <optional>
#include <string>

#include "models/nn/layer_steps.hpp"
#include "sim/check.hpp"

namespace codesim::models::detail {

// Flops of one check of a stored block (train_coded's block_check_flops).
constexpr double kCheckFlopsPerEntry = 24.0;

LocalChecks::LocalChecks(const TrainingSpec& spec, const FaultConfig& faults, int nodes,
                         std::uint64_t seed, std::uint64_t replica) {
  if (!checks_at_nodes(spec.scheme)) return;
  const ValueModelSpec& weights = faults[FaultTarget::weights].model;
  const ValueModelSpec& product = faults[FaultTarget::product].model;
  const ValueModelSpec& update = faults[FaultTarget::update].model;
  for (const WeightShape& w : weight_shapes(spec)) {
    const std::optional<AbftBlockShape> shape = locally_checked_block(spec.scheme, w.rows, w.cols);
    CODESIM_CHECK(shape.has_value(), "a scheme that checks at its nodes has checked blocks");
    const AbftStrikeModel model = abft_strike_model(weights, *shape);
    const int columns = w.positions * spec.sgd.batch_size;  // of the layer's products
    blocks_.push_back({*shape,
                       model,
                       nullptr,
                       abft_strike_model(update, *shape),
                       nullptr,
                       {abft_partial_correction(product, shape->rows, columns),
                        abft_partial_correction(product, shape->cols, columns)},
                       kCheckFlopsPerEntry * static_cast<double>(shape->stored_entries()),
                       model.entries == 1});
  }
  for (int p = 0; p < nodes; ++p) {
    streams_.emplace_back(
        sim::StreamKey{seed, replica, "stochastic_check", static_cast<std::uint64_t>(p)});
  }
}

LocalRead LocalChecks::read(int p, int layer, int dir, int strikes, bool product_struck,
                            double product_flops, bool by_update) {
  LocalRead out;
  if (strikes == 0 && !product_struck) return out;
  Layer& g = blocks_[static_cast<std::size_t>(layer)];
  sim::RandomStream& stream = streams_[static_cast<std::size_t>(p)];
  out.extra_flops = g.check_flops;
  if (strikes == 0) {
    out.corrected = stream.uniform01() < g.partial_corrected[static_cast<std::size_t>(dir)];
    out.withheld = !out.corrected;
    return out;
  }
  if (!(stream.uniform01() < tables(g, by_update).given_strikes(std::min(strikes, kMaxStrikes)))) {
    out.withheld = true;
    out.block_beyond_repair = true;
    return out;
  }
  out.corrected = true;
  // One changed entry makes one wrong value per column, which the partial's check corrects; more
  // (or a product strike besides) make the node compute the product again from the repaired block.
  const bool single = by_update ? g.update_model.entries == 1 : g.single_entry_strikes;
  if (product_struck || strikes > 1 || !single) out.extra_flops += product_flops;
  return out;
}

bool LocalChecks::verification_corrects(int p, int layer, int strikes, bool by_update) {
  Layer& g = blocks_[static_cast<std::size_t>(layer)];
  return streams_[static_cast<std::size_t>(p)].uniform01() <
         tables(g, by_update).at_verification(std::min(strikes, kMaxStrikes));
}

const AbftCorrection& LocalChecks::tables(Layer& layer, bool by_update) {
  const AbftCorrection*& table = by_update ? layer.update_block : layer.block;
  if (table == nullptr)
    table = &shared_abft_correction(layer.shape, by_update ? layer.update_model : layer.model,
                                    kMaxStrikes);
  return *table;
}

}  // namespace codesim::models::detail
