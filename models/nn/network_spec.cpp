// Network validation and shape chaining: one step per layer (its kind's `shape`), shared by
// validate_network (which reports the first issue) and network_geometry (which requires none);
// each kind's descriptor, built from its `fields()`.
#include "models/nn/network_spec.hpp"

#include <fmt/format.h>

#include <cstdint>

#include "sim/check.hpp"

namespace codesim::models {
namespace {

// Sets g.output (and the weight fields) from g.input for `layer`, or says what is wrong.
MaybeIssue step(int index, const Layer& layer, LayerGeometry& g) {
  g.output = g.input;
  MaybeIssue issue = std::visit([&](const auto& kind) { return kind.shape(index, g); }, layer);
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

// A kind's descriptor: its name, and its fields read and written through their members.
template <class Kind>
LayerDescriptor describe_kind() {
  static constexpr auto kMembers = Kind::fields();
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
  return std::visit([](const auto& kind) { return kind.describe(); }, layer);
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
