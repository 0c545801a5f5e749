// The checks the layer kinds' shapes share, and a shape's description.
#include "models/nn/layer_kind.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

namespace codesim::models {
namespace {

// Sizes are ints in the arithmetic; products of fields are checked in 64 bits against this.
constexpr std::int64_t kMaxValues = std::numeric_limits<int>::max();

}  // namespace

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

std::string describe(const TensorShape& shape) {
  if (shape.flat) return fmt::format("{} features", shape.channels);
  return fmt::format("{} x {} x {}", shape.channels, shape.height, shape.width);
}

}  // namespace codesim::models
