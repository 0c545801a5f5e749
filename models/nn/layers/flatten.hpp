// Flatten: C x H x W to C H W features, the identity on the batch layout (NCHW per column).
#pragma once

#include <array>
#include <string>
#include <string_view>

#include "models/nn/layer_kind.hpp"

namespace codesim::models {

/// C x H x W to C H W features in (c, h, w) order.
struct Flatten {
  static constexpr std::string_view name = "flatten";
  static constexpr bool weighted = false;

  static constexpr auto fields() { return std::array<MemberField<Flatten>, 0>{}; }
  std::string describe() const { return std::string(name); }
  MaybeIssue shape(int, LayerGeometry& g) const {
    g.output = TensorShape{g.input.size(), 1, 1, true};
    return std::nullopt;
  }

  StepOutput forward(const TensorShape&, Matrix&, Matrix&, Argmax&) const {
    return StepOutput::same;
  }
  bool backward(const TensorShape&, Matrix&, const Matrix&, const Argmax&, Matrix&) const {
    return false;
  }
};

}  // namespace codesim::models
