// Network validation and shape chaining: one step per layer, shared by validate_network (which
// reports the first issue) and network_geometry (which requires none).
#include "models/dnn/network_spec.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstdint>
#include <limits>

#include "sim/check.hpp"
#include "sim/overloaded.hpp"

namespace codesim::models {
namespace {

// Sizes are ints in the arithmetic; products of fields are checked in 64 bits against this.
constexpr std::int64_t kMaxValues = std::numeric_limits<int>::max();

using sim::Overloaded;

using MaybeIssue = std::optional<NetworkIssue>;

MaybeIssue at_least(int layer, const char* field, std::int64_t value, std::int64_t minimum) {
  if (value >= minimum) return std::nullopt;
  return NetworkIssue{layer, field,
                      fmt::format("{} {} must be at least {}", field, value, minimum)};
}

MaybeIssue needs_image(int layer, std::string_view kind, const TensorShape& in) {
  if (!in.flat) return std::nullopt;
  return NetworkIssue{layer, "",
                      fmt::format("{} after flatten: its input is {} (expected a C x H x W input; "
                                  "move it before the flatten layer)",
                                  kind, describe(in))};
}

MaybeIssue fits(int layer, const char* what, std::int64_t values) {
  if (values <= kMaxValues) return std::nullopt;
  return NetworkIssue{
      layer, "",
      fmt::format("{} has {} values per sample (expected at most {})", what, values, kMaxValues)};
}

// A kernel x kernel window `stride` apart over the input padded by `padding` on every side:
// checks the fields and sets the output's height and width.
MaybeIssue window(int layer, int kernel, int stride, int padding, const TensorShape& in,
                  TensorShape& out) {
  if (auto issue = at_least(layer, "kernel", kernel, 1)) return issue;
  if (auto issue = at_least(layer, "stride", stride, 1)) return issue;
  if (auto issue = at_least(layer, "padding", padding, 0)) return issue;
  const std::int64_t height = std::int64_t{in.height} + 2 * std::int64_t{padding};
  const std::int64_t width = std::int64_t{in.width} + 2 * std::int64_t{padding};
  if (kernel > std::min(height, width)) {
    const std::string input = padding == 0 ? fmt::format("the {} x {} input", in.height, in.width)
                                           : fmt::format("the {} x {} input padded to {} x {}",
                                                         in.height, in.width, height, width);
    return NetworkIssue{layer, "kernel",
                        fmt::format("kernel {} is larger than {} (expected kernel <= {})", kernel,
                                    input, std::min(height, width))};
  }
  out.height = static_cast<int>((height - kernel) / stride + 1);
  out.width = static_cast<int>((width - kernel) / stride + 1);
  return std::nullopt;
}

MaybeIssue conv_step(int layer, const Conv2d& conv, LayerGeometry& g) {
  if (auto issue = needs_image(layer, "conv2d", g.input)) return issue;
  if (auto issue = at_least(layer, "out_channels", conv.out_channels, 1)) return issue;
  if (auto issue = window(layer, conv.kernel, conv.stride, conv.padding, g.input, g.output))
    return issue;
  g.output.channels = conv.out_channels;
  const std::int64_t cols = std::int64_t{g.input.channels} * conv.kernel * conv.kernel;
  const std::int64_t positions = std::int64_t{g.output.height} * g.output.width;
  if (auto issue = fits(layer, "the output", std::int64_t{conv.out_channels} * positions))
    return issue;
  if (auto issue = fits(layer, "the weight matrix", std::int64_t{conv.out_channels} * cols))
    return issue;
  if (auto issue = fits(layer, "the patches matrix", cols * positions)) return issue;
  g.weight_rows = conv.out_channels;
  g.weight_cols = static_cast<int>(cols);
  g.positions = static_cast<int>(positions);
  return std::nullopt;
}

MaybeIssue pool_step(int layer, std::string_view kind, int kernel, int stride, LayerGeometry& g) {
  if (auto issue = needs_image(layer, kind, g.input)) return issue;
  return window(layer, kernel, stride, 0, g.input, g.output);
}

MaybeIssue dense_step(int layer, const Dense& dense, LayerGeometry& g) {
  if (auto issue = at_least(layer, "units", dense.units, 1)) return issue;
  if (!g.input.flat) {
    return NetworkIssue{layer, "",
                        fmt::format("dense layer before flatten: its input is {} (add a flatten "
                                    "layer before it)",
                                    describe(g.input))};
  }
  if (auto issue = fits(layer, "the weight matrix", std::int64_t{dense.units} * g.input.channels))
    return issue;
  g.output = TensorShape{dense.units, 1, 1, true};
  g.weight_rows = dense.units;
  g.weight_cols = g.input.channels;
  g.positions = 1;
  return std::nullopt;
}

// Sets g.output (and the weight fields) from g.input for `layer`, or says what is wrong.
MaybeIssue step(int index, const Layer& layer, LayerGeometry& g) {
  g.output = g.input;
  MaybeIssue issue =
      std::visit(Overloaded{
                     [&](const Conv2d& conv) { return conv_step(index, conv, g); },
                     [&](const MaxPool& pool) {
                       return pool_step(index, "max_pool", pool.kernel, pool.stride, g);
                     },
                     [&](const AvgPool& pool) {
                       return pool_step(index, "avg_pool", pool.kernel, pool.stride, g);
                     },
                     [&](const Flatten&) {
                       g.output = TensorShape{g.input.size(), 1, 1, true};
                       return MaybeIssue{};
                     },
                     [&](const Dense& dense) { return dense_step(index, dense, g); },
                     [&](const Relu&) { return MaybeIssue{}; },
                 },
                 layer);
  g.flops_per_sample = 2.0 * g.weight_rows * static_cast<double>(g.weight_cols) * g.positions;
  return issue;
}

MaybeIssue network_fields(const NetworkSpec& spec) {
  if (auto issue = at_least(-1, "input/channels", spec.input.channels, 1)) return issue;
  if (auto issue = at_least(-1, "input/height", spec.input.height, 1)) return issue;
  if (auto issue = at_least(-1, "input/width", spec.input.width, 1)) return issue;
  if (spec.input.flat && (spec.input.height != 1 || spec.input.width != 1)) {
    return NetworkIssue{-1, "input", "a flat input has height and width 1"};
  }
  const std::int64_t values =
      std::int64_t{spec.input.channels} * spec.input.height * spec.input.width;
  if (auto issue = fits(-1, "the input", values)) return issue;
  if (!(std::isfinite(spec.learning_rate) && spec.learning_rate > 0.0)) {
    return NetworkIssue{
        -1, "learning_rate",
        fmt::format("learning_rate {} must be positive and finite", spec.learning_rate)};
  }
  if (auto issue = at_least(-1, "batch_size", spec.batch_size, 1)) return issue;
  if (spec.layers.empty()) return NetworkIssue{-1, "layers", "a network needs at least one layer"};
  return std::nullopt;
}

}  // namespace

std::string_view layer_kind_name(const Layer& layer) {
  static constexpr std::string_view kNames[] = {"conv2d",  "max_pool", "avg_pool",
                                                "flatten", "dense",    "relu"};
  return kNames[layer.index()];
}

std::string describe(const TensorShape& shape) {
  if (shape.flat) return fmt::format("{} features", shape.channels);
  return fmt::format("{} x {} x {}", shape.channels, shape.height, shape.width);
}

std::optional<NetworkIssue> validate_network(const NetworkSpec& spec) {
  if (auto issue = network_fields(spec)) return issue;
  LayerGeometry g;
  g.output = spec.input;
  for (std::size_t i = 0; i < spec.layers.size(); ++i) {
    const TensorShape input = g.output;
    g = LayerGeometry{};
    g.input = input;
    if (auto issue = step(static_cast<int>(i), spec.layers[i], g)) return issue;
  }
  if (!g.output.flat) {
    return NetworkIssue{static_cast<int>(spec.layers.size()) - 1, "",
                        fmt::format("the network ends with a {} output, not flat logits (end "
                                    "with flatten and dense layers)",
                                    describe(g.output))};
  }
  return std::nullopt;
}

std::vector<LayerGeometry> network_geometry(const NetworkSpec& spec) {
  CODESIM_CHECK(!validate_network(spec), "the network is valid");
  std::vector<LayerGeometry> geometry;
  TensorShape shape = spec.input;
  int weighted = 0;
  for (std::size_t i = 0; i < spec.layers.size(); ++i) {
    LayerGeometry g;
    g.input = shape;
    step(static_cast<int>(i), spec.layers[i], g);
    if (g.weight_rows > 0) g.weighted_index = weighted++;
    shape = g.output;
    geometry.push_back(g);
  }
  return geometry;
}

NetworkSpec lenet5() {
  NetworkSpec spec;
  spec.input = TensorShape{1, 28, 28, false};
  spec.layers = {
      Conv2d{6, 5, 1, 2}, Relu{},     MaxPool{2, 2}, Conv2d{16, 5, 1, 0}, Relu{}, MaxPool{2, 2},
      Flatten{},          Dense{120}, Relu{},        Dense{84},           Relu{}, Dense{10}};
  spec.learning_rate = 0.05;
  spec.batch_size = 64;
  return spec;
}

}  // namespace codesim::models
