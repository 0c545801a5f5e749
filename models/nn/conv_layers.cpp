// im2col, col2im, the layout changes around W A, and pooling: plain loops over raw columns (a
// sample's C H W values are contiguous), in PyTorch's order wherever it decides the rounding.
#include "models/nn/conv_layers.hpp"

#include <cmath>
#include <limits>

#include "sim/check.hpp"

namespace codesim::models {
namespace {

using Matrix = Eigen::MatrixXd;

// Visits im2col's entries in the patches matrix's storage order (sample, output row, output
// column, channel, kernel row, kernel column), calling entry(plane_offset) with the offset of the
// input entry inside the sample's column, or -1 where the window covers padding.
template <class Entry>
void for_each_patch_entry(const ConvGeometry& g, Entry&& entry) {
  const int k = g.kernel, height = g.in_height, width = g.in_width, plane = height * width;
  for (int oh = 0; oh < g.out_height; ++oh) {
    for (int ow = 0; ow < g.out_width; ++ow) {
      const int h0 = oh * g.stride - g.padding, w0 = ow * g.stride - g.padding;
      const bool inside = h0 >= 0 && w0 >= 0 && h0 + k <= height && w0 + k <= width;
      for (int c = 0; c < g.in_channels; ++c) {
        for (int kh = 0; kh < k; ++kh) {
          const int ih = h0 + kh;
          const int row = c * plane + ih * width;
          if (inside) {
            for (int kw = 0; kw < k; ++kw) entry(row + w0 + kw);
          } else {
            for (int kw = 0; kw < k; ++kw) {
              const int iw = w0 + kw;
              entry(ih >= 0 && ih < height && iw >= 0 && iw < width ? row + iw : -1);
            }
          }
        }
      }
    }
  }
}

}  // namespace

ConvGeometry conv_geometry(const TensorShape& input, const Conv2d& conv) {
  ConvGeometry g{input.channels, input.height, input.width, conv.kernel,
                 conv.stride,    conv.padding, 0,           0};
  g.out_height = (input.height + 2 * conv.padding - conv.kernel) / conv.stride + 1;
  g.out_width = (input.width + 2 * conv.padding - conv.kernel) / conv.stride + 1;
  CODESIM_CHECK(conv.stride >= 1 && g.out_height >= 1 && g.out_width >= 1, "a valid convolution");
  return g;
}

void im2col(const ConvGeometry& g, const ConstMatrixRef& input, Matrix& out) {
  CODESIM_CHECK(input.rows() == Eigen::Index{g.in_channels} * g.in_height * g.in_width,
                "one C_in H W column per sample");
  CODESIM_CHECK(out.data() == nullptr || out.data() != input.data(), "out is not the input");
  out.resize(g.patch_rows(), g.positions() * input.cols());
  double* patch = out.data();
  for (Eigen::Index b = 0; b < input.cols(); ++b) {
    const double* x = input.col(b).data();
    for_each_patch_entry(g, [&](int at) { *patch++ = at >= 0 ? x[at] : 0.0; });
  }
}

void col2im(const ConvGeometry& g, const ConstMatrixRef& patches, Matrix& out) {
  CODESIM_CHECK(patches.rows() == g.patch_rows() && patches.cols() % g.positions() == 0,
                "a patches matrix of this convolution");
  CODESIM_CHECK(out.data() == nullptr || out.data() != patches.data(), "out is not the input");
  const Eigen::Index batch = patches.cols() / g.positions();
  const int rows = g.patch_rows();
  out.setZero(Eigen::Index{g.in_channels} * g.in_height * g.in_width, batch);
  for (Eigen::Index b = 0; b < batch; ++b) {
    double* x = out.col(b).data();
    const double* column = patches.col(b * g.positions()).data();
    int row = 0;
    // The visit is im2col's, so (row, column) walks the patches in storage order.
    for_each_patch_entry(g, [&](int at) {
      if (at >= 0) x[at] += column[row];
      if (++row == rows) {
        row = 0;
        column += patches.outerStride();
      }
    });
  }
}

void positions_to_samples(const ConstMatrixRef& by_position, const Eigen::VectorXd& bias,
                          int positions, Matrix& out) {
  CODESIM_CHECK(positions >= 1 && by_position.cols() % positions == 0, "P B columns");
  CODESIM_CHECK(bias.size() == by_position.rows(), "a bias per channel");
  CODESIM_CHECK(out.data() == nullptr || out.data() != by_position.data(), "out is not the input");
  const Eigen::Index channels = by_position.rows(), batch = by_position.cols() / positions;
  out.resize(channels * positions, batch);
  for (Eigen::Index b = 0; b < batch; ++b) {
    Eigen::Map<Matrix>(out.col(b).data(), positions, channels) =
        by_position.middleCols(b * positions, positions).transpose().rowwise() + bias.transpose();
  }
}

void samples_to_positions(const ConstMatrixRef& by_sample, int channels, Matrix& out) {
  CODESIM_CHECK(channels >= 1 && by_sample.rows() % channels == 0, "C P rows");
  CODESIM_CHECK(out.data() == nullptr || out.data() != by_sample.data(), "out is not the input");
  const Eigen::Index positions = by_sample.rows() / channels, batch = by_sample.cols();
  out.resize(channels, positions * batch);
  for (Eigen::Index b = 0; b < batch; ++b) {
    out.middleCols(b * positions, positions) =
        Eigen::Map<const Matrix>(by_sample.col(b).data(), positions, channels).transpose();
  }
}

PoolGeometry pool_geometry(const TensorShape& input, int kernel, int stride) {
  PoolGeometry g{input.channels, input.height, input.width, kernel, stride, 0, 0};
  g.out_height = (input.height - kernel) / stride + 1;
  g.out_width = (input.width - kernel) / stride + 1;
  CODESIM_CHECK(stride >= 1 && kernel <= input.height && kernel <= input.width, "a valid pooling");
  return g;
}

namespace {

// Calls window(out_index, first_input_row) for every output entry of one sample, in the output's
// storage order; the window's rows are first_input_row + kh W + kw.
template <class Window>
void for_each_window(const PoolGeometry& g, Window&& window) {
  int out_index = 0;
  for (int c = 0; c < g.channels; ++c) {
    for (int oh = 0; oh < g.out_height; ++oh) {
      for (int ow = 0; ow < g.out_width; ++ow) {
        window(out_index++, (c * g.in_height + oh * g.stride) * g.in_width + ow * g.stride);
      }
    }
  }
}

Eigen::Index pooled_rows(const PoolGeometry& g) {
  return Eigen::Index{g.channels} * g.out_height * g.out_width;
}

Eigen::Index input_rows(const PoolGeometry& g) {
  return Eigen::Index{g.channels} * g.in_height * g.in_width;
}

}  // namespace

void max_pool(const PoolGeometry& g, const ConstMatrixRef& input, Matrix& out,
              std::vector<std::int32_t>& argmax) {
  CODESIM_CHECK(input.rows() == input_rows(g), "one C H W column per sample");
  CODESIM_CHECK(out.data() == nullptr || out.data() != input.data(), "out is not the input");
  out.resize(pooled_rows(g), input.cols());
  argmax.resize(static_cast<std::size_t>(out.size()));
  for (Eigen::Index b = 0; b < input.cols(); ++b) {
    const double* x = input.col(b).data();
    double* y = out.col(b).data();
    std::int32_t* taken = argmax.data() + b * out.rows();
    for_each_window(g, [&](int o, int first) {
      // PyTorch's loop (aten/src/ATen/native/cpu/MaxPoolKernel.cpp): -inf, then every entry
      // greater or NaN replaces the maximum, so ties go to the first in row-major order. Without
      // NaN that is "greater replaces", written as selects: ReLU's zeros make a branch
      // unpredictable. A window with a NaN runs PyTorch's loop as it is.
      double best = -std::numeric_limits<double>::infinity();
      int at = first;
      bool nan = false;
      for (int kh = 0; kh < g.kernel; ++kh) {
        for (int kw = 0; kw < g.kernel; ++kw) {
          const int index = first + kh * g.in_width + kw;
          const double value = x[index];
          nan |= std::isnan(value);
          at = value > best ? index : at;
          best = value > best ? value : best;
        }
      }
      if (nan) {
        best = -std::numeric_limits<double>::infinity();
        at = first;
        for (int kh = 0; kh < g.kernel; ++kh) {
          for (int kw = 0; kw < g.kernel; ++kw) {
            const int index = first + kh * g.in_width + kw;
            if (x[index] > best || std::isnan(x[index])) {
              best = x[index];
              at = index;
            }
          }
        }
      }
      y[o] = best;
      taken[o] = at;
    });
  }
}

void max_pool_backward(const PoolGeometry& g, const ConstMatrixRef& delta,
                       const std::vector<std::int32_t>& argmax, Matrix& out) {
  CODESIM_CHECK(
      delta.rows() == pooled_rows(g) && static_cast<std::size_t>(delta.size()) == argmax.size(),
      "the argmax of this pooling's forward pass");
  CODESIM_CHECK(out.data() == nullptr || out.data() != delta.data(), "out is not the input");
  out.setZero(input_rows(g), delta.cols());
  for (Eigen::Index b = 0; b < delta.cols(); ++b) {
    const std::int32_t* taken = argmax.data() + b * delta.rows();
    double* x = out.col(b).data();
    for (Eigen::Index o = 0; o < delta.rows(); ++o) x[taken[o]] += delta(o, b);
  }
}

void avg_pool(const PoolGeometry& g, const ConstMatrixRef& input, Matrix& out) {
  CODESIM_CHECK(input.rows() == input_rows(g), "one C H W column per sample");
  CODESIM_CHECK(out.data() == nullptr || out.data() != input.data(), "out is not the input");
  out.resize(pooled_rows(g), input.cols());
  const double count = static_cast<double>(g.kernel) * g.kernel;
  for (Eigen::Index b = 0; b < input.cols(); ++b) {
    const double* x = input.col(b).data();
    double* y = out.col(b).data();
    for_each_window(g, [&](int o, int first) {
      double sum = 0.0;
      for (int kh = 0; kh < g.kernel; ++kh)
        for (int kw = 0; kw < g.kernel; ++kw) sum += x[first + kh * g.in_width + kw];
      y[o] = sum / count;  // a division, as PyTorch's kernel
    });
  }
}

void avg_pool_backward(const PoolGeometry& g, const ConstMatrixRef& delta, Matrix& out) {
  CODESIM_CHECK(delta.rows() == pooled_rows(g), "C H_out W_out rows");
  CODESIM_CHECK(out.data() == nullptr || out.data() != delta.data(), "out is not the input");
  out.setZero(input_rows(g), delta.cols());
  const double count = static_cast<double>(g.kernel) * g.kernel;
  for (Eigen::Index b = 0; b < delta.cols(); ++b) {
    double* x = out.col(b).data();
    for_each_window(g, [&](int o, int first) {
      const double share = delta(o, b) / count;
      for (int kh = 0; kh < g.kernel; ++kh)
        for (int kw = 0; kw < g.kernel; ++kw) x[first + kh * g.in_width + kw] += share;
    });
  }
}

}  // namespace codesim::models
