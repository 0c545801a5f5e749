// What every layer kind of a network (models/nn/layers/) is made of: the shapes between layers,
// a layer's geometry, the first issue validation reports, a field as scenarios give it, and the
// checks and step results the kinds share. A kind is one struct in one header; network_spec.hpp
// lists the kinds in the variant `Layer`, and every reader, writer and pass visits it.
#pragma once

#include <concepts>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "models/nn/mlp.hpp"

namespace codesim::models {

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

/// The first thing wrong with a network. `layer` is the index of the offending layer, or -1 for
/// the network's own fields; `field` names the field ("kernel", "stride", "input/height",
/// "learning_rate", ...), or is empty when the layer as a whole is misplaced (a dense layer before
/// flatten, shapes that do not chain).
struct NetworkIssue {
  int layer = -1;
  std::string field;
  std::string message;
};
using MaybeIssue = std::optional<NetworkIssue>;

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

/// A field of kind `Kind` and the member that holds it: each kind's `fields()` lists them in
/// member order, and the scenario reader and the writers go through them.
template <class Kind>
struct MemberField {
  int Kind::*member;
  LayerField field;
};

/// The value a field takes when a scenario must give it.
inline constexpr std::optional<int> kRequired = std::nullopt;

/// Where an unweighted layer's forward step leaves its output.
enum class StepOutput {
  written,   ///< in `out` (pooling)
  in_place,  ///< in `x`, changed (ReLU; its backward step reads that output)
  same,      ///< `x` itself, unchanged (flatten: the identity on the batch layout)
};

/// max_pool's choices, one input row per output entry, which its backward step reads.
using Argmax = std::vector<std::int32_t>;

// ---- the checks the kinds' `shape` share (each says what is wrong with layer `layer`) --------

/// `field` is at least `minimum`.
MaybeIssue at_least(int layer, const char* field, std::int64_t value, std::int64_t minimum);
/// The input is an image (C x H x W), not flat: `kind` cannot follow a flatten layer.
MaybeIssue needs_image(int layer, std::string_view kind, const TensorShape& in);
/// `what` has at most 2^31 - 1 values (the arithmetic's sizes are ints).
MaybeIssue fits(int layer, const char* what, std::int64_t values);
/// A kernel x kernel window `stride` apart over the input padded by `padding` on every side:
/// checks the fields and sets the output's height and width.
MaybeIssue window(int layer, int kernel, int stride, int padding, const TensorShape& in,
                  TensorShape& out);

/// What every layer kind has: its scenario `name`, whether it is `weighted` (a product W A + b
/// that coded training distributes: conv2d and dense), its fields, its one-line description and
/// its output shape. A kind that is not weighted also has its forward and backward steps, which
/// the uncoded reference (cnn.cpp) and coded training's steps between products
/// (layer_steps.cpp) both call: `forward` on x, returning where it left its output, and
/// `backward` from the delta of its output (true: the delta of its input is in `out`, else in
/// place in `delta`).
template <class Kind>
concept LayerKind = requires(const Kind kind, int layer, LayerGeometry& g) {
  { Kind::name } -> std::convertible_to<std::string_view>;
  { Kind::weighted } -> std::convertible_to<bool>;
  Kind::fields();
  { kind.describe() } -> std::convertible_to<std::string>;
  { kind.shape(layer, g) } -> std::same_as<MaybeIssue>;
}
&&(Kind::weighted || requires(const Kind kind, const TensorShape& input, Matrix& x,
                              const Matrix& output, Argmax& argmax) {
  { kind.forward(input, x, x, argmax) } -> std::same_as<StepOutput>;
  { kind.backward(input, x, output, argmax, x) } -> std::same_as<bool>;
});

}  // namespace codesim::models
