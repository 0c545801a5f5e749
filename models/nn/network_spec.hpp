// The typed description of a feed-forward network of conv, pooling, flatten, dense and ReLU
// layers: the validation a scenario reader reports (first offending layer and field), and each
// layer's shapes, weight matrix and flops, which the arithmetic and the time model share.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace codesim::models {

/// A 2-D convolution (a cross-correlation, as PyTorch's Conv2d) with a square kernel, stride and
/// zero padding on every side, and one bias per output channel.
struct Conv2d {
  int out_channels = 1;
  int kernel = 1;
  int stride = 1;
  int padding = 0;
};
/// Max over kernel x kernel windows `stride` apart (no padding, floor mode: PyTorch's MaxPool2d).
struct MaxPool {
  int kernel = 2;
  int stride = 2;
};
/// Mean over kernel x kernel windows `stride` apart (no padding, floor mode: PyTorch's AvgPool2d).
struct AvgPool {
  int kernel = 2;
  int stride = 2;
};
/// C x H x W to C H W features in (c, h, w) order: the identity on the batch layout.
struct Flatten {};
/// A fully connected layer with bias, on flat inputs.
struct Dense {
  int units = 1;
};
/// max(0, x) entrywise.
struct Relu {};

using Layer = std::variant<Conv2d, MaxPool, AvgPool, Flatten, Dense, Relu>;

/// The layer's kind as scenarios spell it: conv2d, max_pool, avg_pool, flatten, dense, relu.
std::string_view layer_kind_name(const Layer& layer);

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
