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

namespace codesim::models {

/// A 2-D convolution (a cross-correlation, as PyTorch's Conv2d) with a square kernel, stride and
/// zero padding on every side, and one bias per output channel.
struct Conv2d {
  static constexpr std::string_view name = "conv2d";
  int out_channels = 1;
  int kernel = 1;
  int stride = 1;
  int padding = 0;
};
/// Max over kernel x kernel windows `stride` apart (no padding, floor mode: PyTorch's MaxPool2d).
struct MaxPool {
  static constexpr std::string_view name = "max_pool";
  int kernel = 2;
  int stride = 2;
};
/// Mean over kernel x kernel windows `stride` apart (no padding, floor mode: PyTorch's AvgPool2d).
struct AvgPool {
  static constexpr std::string_view name = "avg_pool";
  int kernel = 2;
  int stride = 2;
};
/// C x H x W to C H W features in (c, h, w) order: the identity on the batch layout.
struct Flatten {
  static constexpr std::string_view name = "flatten";
};
/// A fully connected layer with bias, on flat inputs.
struct Dense {
  static constexpr std::string_view name = "dense";
  int units = 1;
};
/// max(0, x) entrywise.
struct Relu {
  static constexpr std::string_view name = "relu";
};

/// A layer of any kind. A new kind is a struct with its `name` added here, then its fields
/// (layer_descriptors), validation and geometry (network_spec.cpp) and its steps (cnn.cpp); the
/// build names each place.
using Layer = std::variant<Conv2d, MaxPool, AvgPool, Flatten, Dense, Relu>;

namespace detail {
template <class... Kinds>
constexpr std::array<std::string_view, sizeof...(Kinds)> kind_names(const std::variant<Kinds...>*) {
  return {Kinds::name...};
}
}  // namespace detail

/// The kinds' names as scenarios spell them (each struct's `name`), indexed by the alternative:
/// conv2d, max_pool, avg_pool, flatten, dense, relu.
inline constexpr auto kLayerKindNames = detail::kind_names(static_cast<const Layer*>(nullptr));

/// The layer's kind as scenarios spell it.
std::string_view layer_kind_name(const Layer& layer);

// Far beyond any network a 2-core machine trains, and below int overflow in the shape products
// (validate_network checks those): the readers' bounds on channels and units, and on kernels,
// strides and padding.
inline constexpr int kMaxChannels = 1000000;
inline constexpr int kMaxKernel = 10000;

/// One integer field of a layer kind as scenarios give it.
struct LayerField {
  std::string_view key;     ///< the scenario's key, e.g. "channels"
  std::string_view member;  ///< the member, as NetworkIssue::field names it: "out_channels"
  int min = 0;              ///< the range a reader accepts (validate_network checks the shapes)
  int max = 0;
  std::optional<int> fallback;  ///< the value when a scenario leaves it out; nullopt = required
  int fallback_field = -1;      ///< >= 0: defaults to that earlier field's value instead
};

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

/// The shape of one sample between layers. A flat shape (after flatten, or a flat input) holds
/// `channels` features and height = width = 1.
struct TensorShape {
  int channels = 1;
  int height = 1;
  int width = 1;
  bool flat = false;
  /// Values per sample: channels height width.
  int size() const { return channels * height * width; }
  friend bool operator==(const TensorShape&, const TensorShape&) = default;
};

/// "6 x 14 x 14", or "400 features" when flat.
std::string describe(const TensorShape& shape);

/// A network: the input shape and its layers in order.
struct NetworkSpec {
  TensorShape input{1, 28, 28, false};
  std::vector<Layer> layers;
};

/// The first thing wrong with a network. `layer` is the index of the offending layer, or -1 for
/// the network's own fields; `field` names the field ("kernel", "stride", "input/height",
/// "learning_rate", ...), or is empty when the layer as a whole is misplaced (a dense layer before
/// flatten, shapes that do not chain).
struct NetworkIssue {
  int layer = -1;
  std::string field;
  std::string message;
};

/// Checks the fields of every layer and chains the shapes from the input to flat logits; at most
/// 2^31 - 1 values per sample and weight matrix. Nullopt when the network is valid.
std::optional<NetworkIssue> validate_network(const NetworkSpec& spec);

/// What one layer takes and gives. A weighted layer (conv or dense) computes W A + b, where A is
/// im2col(x) for a conv (weight_cols x positions B) and x itself for a dense layer (positions 1).
struct LayerGeometry {
  TensorShape input;
  TensorShape output;
  int weighted_index = -1;  ///< position among the conv and dense layers; -1 for the others
  int weight_rows = 0;      ///< conv: C_out; dense: units (0 when unweighted)
  int weight_cols = 0;      ///< conv: C_in k k; dense: inputs (0 when unweighted)
  int positions = 0;        ///< columns of A per sample: conv H_out W_out, dense 1
  /// The forward product's flops per sample, 2 weight_rows weight_cols positions (0 when
  /// unweighted; the backward products cost as much each).
  double flops_per_sample = 0.0;
};

/// Each layer's geometry, in order. Precondition: validate_network(spec) is nullopt.
std::vector<LayerGeometry> network_geometry(const NetworkSpec& spec);

/// LeNet-5 for 1 x 28 x 28 inputs (LeCun et al. 1998, as PyTorch tutorials write it, with ReLU
/// and max pooling): conv 6@5x5 padding 2, relu, max_pool 2/2, conv 16@5x5, relu, max_pool 2/2,
/// flatten, dense 120, relu, dense 84, relu, dense 10.
NetworkSpec lenet5();
/// The learning rate LeNet-5 is usually trained with (batch 64, as PyTorch tutorials do).
inline constexpr double kLenet5LearningRate = 0.05;

}  // namespace codesim::models
