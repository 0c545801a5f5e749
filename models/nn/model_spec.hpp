// The network a training run trains, as one value: an MLP, or a network of conv, pooling,
// flatten, dense and ReLU layers. The nn room's functions take it, so that they need nothing
// of training's settings.
#pragma once

#include <optional>
#include <string>

#include "models/nn/mlp.hpp"
#include "models/nn/network_spec.hpp"

namespace codesim::models {

/// `network` when set; else the MLP's layer sizes and hidden activation.
struct ModelSpec {
  MlpSpec mlp;
  /// Conv, pooling, flatten, dense and ReLU layers (workload.network) instead of the MLP's
  /// layers: every conv and dense layer's W is a weighted layer (layer_steps.hpp).
  std::optional<NetworkSpec> network;
};

/// The model's own first problem: the MLP's sizes, or the network's layers (validate_network,
/// and a network must end with a dense layer, whose product gives the logits); "" when none.
std::string validate_model(const ModelSpec& spec);

}  // namespace codesim::models
