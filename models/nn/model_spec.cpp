// validate_model: the problems a model has on its own, before any data or cluster.
#include "models/nn/model_spec.hpp"

#include <variant>
#include <vector>

namespace codesim::models {

std::string validate_model(const ModelSpec& spec) {
  if (!spec.network) {
    const std::vector<int>& sizes = spec.mlp.layer_sizes;
    if (sizes.size() < 2) return "the MLP needs at least an input and an output size";
    for (int size : sizes)
      if (size < 1) return "every layer size must be >= 1";
    return {};
  }
  if (const std::optional<NetworkIssue> issue = validate_network(*spec.network)) {
    return (issue->layer >= 0 ? "network layer " + std::to_string(issue->layer) + ": " : "") +
           (issue->field.empty() ? "" : issue->field + ": ") + issue->message;
  }
  if (spec.network->layers.empty() || !std::holds_alternative<Dense>(spec.network->layers.back()))
    return "the network must end with a dense layer (its product gives the logits)";
  return {};
}

}  // namespace codesim::models
