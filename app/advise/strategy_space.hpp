// The configurations codesim advise compares: every coding scheme the descriptors allow on a
// cluster and a network's layers, each with a checkpoint policy and a decoding mode.
#pragma once

#include <array>
#include <string>
#include <string_view>
#include <vector>

#include "app/config/object_reader.hpp"
#include "models/coding/scheme_spec.hpp"
#include "models/nn/layer_steps.hpp"

namespace codesim::app {

/// How a configuration checkpoints: not at all, at Young's or at Daly's interval times a factor
/// (the factors of checkpoint.policy optimal_simulated), or as the scenario says (the baseline).
enum class CheckpointChoiceKind { none, young, daly, scenario };
inline constexpr std::array<std::string_view, 4> kCheckpointChoiceNames = {"none", "young", "daly",
                                                                           "scenario"};

struct CheckpointChoice {
  CheckpointChoiceKind kind = CheckpointChoiceKind::none;
  double factor = 1.0;  ///< young, daly: the interval is this times theirs
  friend bool operator==(const CheckpointChoice&, const CheckpointChoice&) = default;
};

/// One strategy for a run: a scheme, a checkpoint policy and a decoding mode.
struct Configuration {
  models::SchemeSpec scheme;
  CheckpointChoice checkpoint;
  bool decentralized = true;
  bool baseline = false;  ///< the scenario's own strategy, checkpoint and decoding
};

/// Every scheme spec whose nodes fit in `cluster_nodes` and whose block counts divide every W of
/// `shapes`, in descriptor order, then field by field ascending (the first field slowest). A
/// block-count field (SchemeField::splits) takes the divisors of the dimensions it splits, a
/// node-count field 1..cluster_nodes, any other integer field its range cut at cluster_nodes,
/// a choice each of its entries. Precondition: cluster_nodes >= 1, shapes not empty.
std::vector<models::SchemeSpec> enumerate_schemes(const std::vector<models::WeightShape>& shapes,
                                                  int cluster_nodes);

/// "codenet_grid m=5 n=4 grid_rows=7 grid_cols=6": the scheme and its fields as a scenario names
/// them.
std::string scheme_label(const models::SchemeSpec& spec);
/// `value` in 4 significant digits ("0.0003747", "1e+12"), for labels and messages.
std::string number_text(double value);
/// "daly x0.5", "young", "none", "scenario".
std::string checkpoint_label(const CheckpointChoice& choice);
/// scheme_label, checkpoint_label and the decoding mode, separated by " | ".
std::string configuration_label(const Configuration& configuration);

/// The scenario's `strategy` section for `spec`: its scheme and every field under its key
/// (choices by name).
Json strategy_json(const models::SchemeSpec& spec);

}  // namespace codesim::app
