// A fully connected layer: a weighted layer, whose product W x coded training distributes.
#pragma once

#include <fmt/format.h>

#include <array>
#include <string>
#include <string_view>

#include "models/nn/layer_kind.hpp"

namespace codesim::models {

/// A fully connected layer with bias, on flat inputs.
struct Dense {
  static constexpr std::string_view name = "dense";
  static constexpr bool weighted = true;
  int units = 1;

  static constexpr auto fields() {
    return std::to_array<MemberField<Dense>>({
        {&Dense::units, {"units", "units", 1, kMaxChannels, kRequired}},
    });
  }

  /// "dense 120".
  std::string describe() const { return fmt::format("{} {}", name, units); }

  /// `units` flat outputs; W is units x inputs, one product column per sample.
  MaybeIssue shape(int layer, LayerGeometry& g) const {
    if (auto issue = at_least(layer, "units", units, 1)) return issue;
    if (!g.input.flat) {
      return NetworkIssue{layer, "",
                          fmt::format("dense layer before flatten: its input is {} (add a "
                                      "flatten layer before it)",
                                      models::describe(g.input))};
    }
    if (auto issue = fits(layer, "the weight matrix", std::int64_t{units} * g.input.channels))
      return issue;
    g.output = TensorShape{units, 1, 1, true};
    g.weight_rows = units;
    g.weight_cols = g.input.channels;
    g.positions = 1;
    return std::nullopt;
  }
};

}  // namespace codesim::models
