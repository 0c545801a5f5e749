// Max and average pooling over kernel x kernel windows `stride` apart (no padding, floor mode:
// PyTorch's MaxPool2d and AvgPool2d); the arithmetic is in conv_layers.cpp.
#pragma once

#include <fmt/format.h>

#include <array>
#include <string>
#include <string_view>

#include "models/nn/conv_layers.hpp"
#include "models/nn/layer_kind.hpp"

namespace codesim::models {

/// The fields both pools share; the stride defaults to the kernel (field 0): windows side by side.
template <class Pool>
constexpr auto pool_fields() {
  return std::to_array<MemberField<Pool>>({
      {&Pool::kernel, {"kernel", "kernel", 1, kMaxKernel, 2}},
      {&Pool::stride, {"stride", "stride", 1, kMaxKernel, kRequired, 0}},
  });
}

/// "max_pool 2/2" (kernel/stride).
inline std::string describe_pool(std::string_view name, int kernel, int stride) {
  return fmt::format("{} {}/{}", name, kernel, stride);
}

/// A pool's windows over the image, with no padding.
inline MaybeIssue pool_shape(int layer, std::string_view name, int kernel, int stride,
                             LayerGeometry& g) {
  if (auto issue = needs_image(layer, name, g.input)) return issue;
  return window(layer, kernel, stride, 0, g.input, g.output);
}

/// The maximum of each window.
struct MaxPool {
  static constexpr std::string_view name = "max_pool";
  static constexpr bool weighted = false;
  int kernel = 2;
  int stride = 2;

  static constexpr auto fields() { return pool_fields<MaxPool>(); }
  std::string describe() const { return describe_pool(name, kernel, stride); }
  MaybeIssue shape(int layer, LayerGeometry& g) const {
    return pool_shape(layer, name, kernel, stride, g);
  }
  StepOutput forward(const TensorShape& input, Matrix& x, Matrix& out, Argmax& argmax) const {
    max_pool(pool_geometry(input, kernel, stride), x, out, argmax);
    return StepOutput::written;
  }
  bool backward(const TensorShape& input, Matrix& delta, const Matrix&, const Argmax& argmax,
                Matrix& out) const {
    max_pool_backward(pool_geometry(input, kernel, stride), delta, argmax, out);
    return true;
  }
};

/// The mean of each window (divisor kernel^2).
struct AvgPool {
  static constexpr std::string_view name = "avg_pool";
  static constexpr bool weighted = false;
  int kernel = 2;
  int stride = 2;

  static constexpr auto fields() { return pool_fields<AvgPool>(); }
  std::string describe() const { return describe_pool(name, kernel, stride); }
  MaybeIssue shape(int layer, LayerGeometry& g) const {
    return pool_shape(layer, name, kernel, stride, g);
  }
  StepOutput forward(const TensorShape& input, Matrix& x, Matrix& out, Argmax&) const {
    avg_pool(pool_geometry(input, kernel, stride), x, out);
    return StepOutput::written;
  }
  bool backward(const TensorShape& input, Matrix& delta, const Matrix&, const Argmax&,
                Matrix& out) const {
    avg_pool_backward(pool_geometry(input, kernel, stride), delta, out);
    return true;
  }
};

}  // namespace codesim::models
