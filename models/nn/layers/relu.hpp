// ReLU between layers: max(0, x) entrywise, in place.
#pragma once

#include <array>
#include <string>
#include <string_view>

#include "models/nn/layer_kind.hpp"

namespace codesim::models {

/// max(0, x) entrywise.
struct Relu {
  static constexpr std::string_view name = "relu";
  static constexpr bool weighted = false;

  static constexpr auto fields() { return std::array<MemberField<Relu>, 0>{}; }
  std::string describe() const { return std::string(name); }
  /// The output has the input's shape.
  MaybeIssue shape(int, LayerGeometry&) const { return std::nullopt; }

  // In place: nothing reads ReLU's input again (a weighted layer's A is its own input, and
  // ReLU's backward step reads its output).
  StepOutput forward(const TensorShape&, Matrix& x, Matrix&, Argmax&) const {
    x = x.cwiseMax(0.0);
    return StepOutput::in_place;
  }
  /// ReLU' is 1 where the output is positive, else 0 (PyTorch's threshold_backward).
  bool backward(const TensorShape&, Matrix& delta, const Matrix& output, const Argmax&,
                Matrix&) const {
    delta.array() *= (output.array() > 0.0).cast<double>();
    return false;
  }
};

}  // namespace codesim::models
