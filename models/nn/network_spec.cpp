// Network validation and shape chaining: one step per layer, shared by validate_network (which
// reports the first issue) and network_geometry (which requires none); each kind's fields.
#include "models/nn/network_spec.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

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
  if (spec.layers.empty()) return NetworkIssue{-1, "layers", "a network needs at least one layer"};
  return std::nullopt;
}

// ---- each kind's fields, as scenarios give them ------------------------------------------------

// A field and the member that holds it.
template <class Kind>
struct MemberField {
  int Kind::*member;
  LayerField field;
};

constexpr std::optional<int> kRequired = std::nullopt;

// One overload per kind, its fields in member order (a kind without one fails to compile in
// layer_descriptors).
constexpr auto members(std::type_identity<Conv2d>) {
  return std::to_array<MemberField<Conv2d>>({
      {&Conv2d::out_channels, {"channels", "out_channels", 1, kMaxChannels, kRequired}},
      {&Conv2d::kernel, {"kernel", "kernel", 1, kMaxKernel, kRequired}},
      {&Conv2d::stride, {"stride", "stride", 1, kMaxKernel, 1}},
      {&Conv2d::padding, {"padding", "padding", 0, kMaxKernel, 0}},
  });
}

// A pool's stride defaults to its kernel (field 0): windows side by side.
template <class Pool>
constexpr auto pool_members() {
  return std::to_array<MemberField<Pool>>({
      {&Pool::kernel, {"kernel", "kernel", 1, kMaxKernel, 2}},
      {&Pool::stride, {"stride", "stride", 1, kMaxKernel, kRequired, 0}},
  });
}
constexpr auto members(std::type_identity<MaxPool>) { return pool_members<MaxPool>(); }
constexpr auto members(std::type_identity<AvgPool>) { return pool_members<AvgPool>(); }

constexpr auto members(std::type_identity<Flatten>) {
  return std::array<MemberField<Flatten>, 0>{};
}

constexpr auto members(std::type_identity<Dense>) {
  return std::to_array<MemberField<Dense>>({
      {&Dense::units, {"units", "units", 1, kMaxChannels, kRequired}},
  });
}

constexpr auto members(std::type_identity<Relu>) { return std::array<MemberField<Relu>, 0>{}; }

// A kind's descriptor: its name, and its fields read and written through their members.
template <class Kind>
LayerDescriptor describe_kind() {
  static constexpr auto kMembers = members(std::type_identity<Kind>{});
  LayerDescriptor descriptor{Kind::name, {}, nullptr, nullptr};
  for (const MemberField<Kind>& m : kMembers) descriptor.fields.push_back(m.field);
  descriptor.make = [](std::span<const int> values) -> Layer {
    CODESIM_CHECK(values.size() == kMembers.size(), "a value per field");
    Kind layer;
    for (std::size_t i = 0; i < kMembers.size(); ++i) layer.*kMembers[i].member = values[i];
    return layer;
  };
  descriptor.values = [](const Layer& layer) {
    std::vector<int> values;
    for (const MemberField<Kind>& m : kMembers) values.push_back(std::get<Kind>(layer).*m.member);
    return values;
  };
  return descriptor;
}

template <class... Kinds>
std::array<LayerDescriptor, sizeof...(Kinds)> describe_kinds(const std::variant<Kinds...>*) {
  return {describe_kind<Kinds>()...};
}

}  // namespace

std::string_view layer_kind_name(const Layer& layer) { return kLayerKindNames[layer.index()]; }

std::span<const LayerDescriptor> layer_descriptors() {
  static const auto descriptors = describe_kinds(static_cast<const Layer*>(nullptr));
  return descriptors;
}

const LayerDescriptor& layer_descriptor(const Layer& layer) {
  return layer_descriptors()[layer.index()];
}

const LayerDescriptor* find_layer_kind(std::string_view name) {
  for (const LayerDescriptor& descriptor : layer_descriptors()) {
    if (descriptor.name == name) return &descriptor;
  }
  return nullptr;
}

std::string describe(const Layer& layer) {
  const std::string name(layer_kind_name(layer));
  const auto pool = [&](int kernel, int stride) {
    return fmt::format("{} {}/{}", name, kernel, stride);
  };
  return std::visit(Overloaded{
                        [&](const Conv2d& conv) {
                          std::string text = fmt::format("{} {}@{}x{}", name, conv.out_channels,
                                                         conv.kernel, conv.kernel);
                          if (conv.stride != 1) text += fmt::format("/{}", conv.stride);
                          if (conv.padding != 0) text += fmt::format("+{}", conv.padding);
                          return text;
                        },
                        [&](const MaxPool& max) { return pool(max.kernel, max.stride); },
                        [&](const AvgPool& avg) { return pool(avg.kernel, avg.stride); },
                        [&](const Flatten&) { return name; },
                        [&](const Dense& dense) { return fmt::format("{} {}", name, dense.units); },
                        [&](const Relu&) { return name; },
                    },
                    layer);
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
  return spec;
}

}  // namespace codesim::models
