// The typed description of a feed-forward network of conv, pooling, flatten, dense and ReLU
// layers: the validation a scenario reader reports (first offending layer and field), and each
// layer's shapes, weight matrix and flops, which the arithmetic and the time model share.
#pragma once

#include <array>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "models/nn/layer_kind.hpp"
#include "models/nn/layers/conv2d.hpp"
#include "models/nn/layers/dense.hpp"
#include "models/nn/layers/flatten.hpp"
#include "models/nn/layers/pooling.hpp"
#include "models/nn/layers/relu.hpp"

namespace codesim::models {

/// A layer of any kind. A new kind is a struct in its own header under models/nn/layers/ (the
/// members every kind has are in layer_kind.hpp; relu.hpp is the smallest), included above and
/// added here; every reader, writer and pass visits this variant, so the build names what a kind
/// lacks.
using Layer = std::variant<Conv2d, MaxPool, AvgPool, Flatten, Dense, Relu>;

namespace detail {
template <class... Kinds>
constexpr bool all_layer_kinds(const std::variant<Kinds...>*) {
  return (LayerKind<Kinds> && ...);
}
template <class... Kinds>
constexpr std::array<std::string_view, sizeof...(Kinds)> kind_names(const std::variant<Kinds...>*) {
  return {Kinds::name...};
}
}  // namespace detail

static_assert(detail::all_layer_kinds(static_cast<const Layer*>(nullptr)),
              "every alternative of Layer is a LayerKind (layer_kind.hpp)");

/// The kinds' names as scenarios spell them (each struct's `name`), indexed by the alternative:
/// conv2d, max_pool, avg_pool, flatten, dense, relu.
inline constexpr auto kLayerKindNames = detail::kind_names(static_cast<const Layer*>(nullptr));

/// The layer's kind as scenarios spell it.
std::string_view layer_kind_name(const Layer& layer);

/// What the scenario reader and the writers know of a layer kind.
struct LayerDescriptor {
  std::string_view name;           ///< the struct's `name`
  std::vector<LayerField> fields;  ///< in the struct's member order
  /// The layer whose fields take `values` (one per field, in order).
  Layer (*make)(std::span<const int> values);
  /// The field values of a layer of this kind, in field order.
  std::vector<int> (*values)(const Layer& layer);
};

/// Every kind's descriptor, indexed by the alternative (the order of kLayerKindNames).
std::span<const LayerDescriptor> layer_descriptors();
/// The descriptor of the layer's kind.
const LayerDescriptor& layer_descriptor(const Layer& layer);
/// The descriptor of the kind named `name`; null when there is none.
const LayerDescriptor* find_layer_kind(std::string_view name);

/// The layer on one line, as run summaries print it: "conv2d 6@5x5+2" (stride after '/', padding
/// after '+', each when not the default), "max_pool 2/2" (kernel/stride), "dense 120", "relu".
std::string describe(const Layer& layer);

/// A network: the input shape and its layers in order.
struct NetworkSpec {
  TensorShape input{1, 28, 28, false};
  std::vector<Layer> layers;
};

/// Checks the fields of every layer and chains the shapes from the input to flat logits; at most
/// 2^31 - 1 values per sample and weight matrix. Nullopt when the network is valid.
std::optional<NetworkIssue> validate_network(const NetworkSpec& spec);

/// Each layer's geometry, in order. Precondition: validate_network(spec) is nullopt.
std::vector<LayerGeometry> network_geometry(const NetworkSpec& spec);

/// LeNet-5 for 1 x 28 x 28 inputs (LeCun et al. 1998, as PyTorch tutorials write it, with ReLU
/// and max pooling): conv 6@5x5 padding 2, relu, max_pool 2/2, conv 16@5x5, relu, max_pool 2/2,
/// flatten, dense 120, relu, dense 84, relu, dense 10.
NetworkSpec lenet5();
/// The learning rate LeNet-5 is usually trained with (batch 64, as PyTorch tutorials do).
inline constexpr double kLenet5LearningRate = 0.05;

}  // namespace codesim::models
