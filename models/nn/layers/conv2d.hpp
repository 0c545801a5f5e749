// A 2-D convolution: a weighted layer, whose product W A (A = im2col(x)) coded training
// distributes like a dense layer's (cnn.cpp and layer_steps.cpp form A and the layout changes).
#pragma once

#include <fmt/format.h>

#include <array>
#include <string>
#include <string_view>

#include "models/nn/layer_kind.hpp"

namespace codesim::models {

/// A cross-correlation (PyTorch's Conv2d) with a square kernel, stride and zero padding on every
/// side, and one bias per output channel.
struct Conv2d {
  static constexpr std::string_view name = "conv2d";
  static constexpr bool weighted = true;
  int out_channels = 1;
  int kernel = 1;
  int stride = 1;
  int padding = 0;

  static constexpr auto fields() {
    return std::to_array<MemberField<Conv2d>>({
        {&Conv2d::out_channels, {"channels", "out_channels", 1, kMaxChannels, kRequired}},
        {&Conv2d::kernel, {"kernel", "kernel", 1, kMaxKernel, kRequired}},
        {&Conv2d::stride, {"stride", "stride", 1, kMaxKernel, 1}},
        {&Conv2d::padding, {"padding", "padding", 0, kMaxKernel, 0}},
    });
  }

  /// "conv2d 6@5x5", then "/stride" and "+padding" when not the default.
  std::string describe() const {
    std::string text = fmt::format("{} {}@{}x{}", name, out_channels, kernel, kernel);
    if (stride != 1) text += fmt::format("/{}", stride);
    if (padding != 0) text += fmt::format("+{}", padding);
    return text;
  }

  /// Output shape and product sizes: C_out x H_out x W_out; W is C_out x C_in k k, A has
  /// H_out W_out columns per sample.
  MaybeIssue shape(int layer, LayerGeometry& g) const {
    if (auto issue = needs_image(layer, name, g.input)) return issue;
    if (auto issue = at_least(layer, "out_channels", out_channels, 1)) return issue;
    if (auto issue = window(layer, kernel, stride, padding, g.input, g.output)) return issue;
    g.output.channels = out_channels;
    const std::int64_t cols = std::int64_t{g.input.channels} * kernel * kernel;
    const std::int64_t positions = std::int64_t{g.output.height} * g.output.width;
    if (auto issue = fits(layer, "the output", std::int64_t{out_channels} * positions))
      return issue;
    if (auto issue = fits(layer, "the weight matrix", std::int64_t{out_channels} * cols))
      return issue;
    if (auto issue = fits(layer, "the patches matrix", cols * positions)) return issue;
    g.weight_rows = out_channels;
    g.weight_cols = static_cast<int>(cols);
    g.positions = static_cast<int>(positions);
    return std::nullopt;
  }
};

}  // namespace codesim::models
