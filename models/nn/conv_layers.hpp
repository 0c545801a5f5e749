// Convolution and pooling arithmetic on batches held one sample per column in PyTorch's NCHW
// order (row c H W + h W + w), so that flatten is the identity and dense layers are the MLP's.
// A convolution is the product W A of its weights (C_out x C_in k k, PyTorch's
// weight.view(C_out, -1)) and A = im2col(x): these products are what coded training distributes.
#pragma once

#include <Eigen/Dense>
#include <cstdint>
#include <vector>

#include "models/linalg/dense_kernels.hpp"
#include "models/nn/layer_kind.hpp"
#include "models/nn/layers/conv2d.hpp"

namespace codesim::models {

/// A convolution's sizes: input C_in x H x W, square kernel k, stride, zero padding, output
/// H_out x W_out.
struct ConvGeometry {
  int in_channels = 1;
  int in_height = 1;
  int in_width = 1;
  int kernel = 1;
  int stride = 1;
  int padding = 0;
  int out_height = 1;
  int out_width = 1;
  /// Output positions per sample, H_out W_out.
  int positions() const { return out_height * out_width; }
  /// Rows of the patches matrix, C_in k k.
  int patch_rows() const { return in_channels * kernel * kernel; }
};

/// The geometry of `conv` on one `input` sample. Precondition: the layer validated on it.
ConvGeometry conv_geometry(const TensorShape& input, const Conv2d& conv);

// Every function writes into `out`, resized to its shape (storage kept when it has that shape
// already, so a training loop allocates nothing); `out` never aliases an input.

/// The patches matrix A (C_in k k x H_out W_out B) of a batch (C_in H W x B): column
/// b H_out W_out + h W_out + w holds the window of output position (h, w) of sample b, rows in
/// (c, kh, kw) order, zeros where the window covers padding.
void im2col(const ConvGeometry& g, const ConstMatrixRef& input, Eigen::MatrixXd& out);

/// The adjoint of im2col: every entry of `patches` added back where im2col read it (padding
/// dropped), giving C_in H W x B (B = patches.cols() / positions). With patches = W^T D this is
/// the gradient with respect to the convolution's input.
void col2im(const ConvGeometry& g, const ConstMatrixRef& patches, Eigen::MatrixXd& out);

/// Per-position columns to the batch layout, plus a bias per channel: C x (P B) (column b P + p)
/// to (C P) x B (row c P + p). With W A as input it gives the convolution's output.
void positions_to_samples(const ConstMatrixRef& by_position, const Eigen::VectorXd& bias,
                          int positions, Eigen::MatrixXd& out);

/// The inverse layout change (no bias): (C P) x B to C x (P B), for `channels` = C. It turns the
/// delta of a convolution's output into D of its product.
void samples_to_positions(const ConstMatrixRef& by_sample, int channels, Eigen::MatrixXd& out);

/// A pooling window's sizes: C x H x W in, C x H_out x W_out out, no padding.
struct PoolGeometry {
  int channels = 1;
  int in_height = 1;
  int in_width = 1;
  int kernel = 1;
  int stride = 1;
  int out_height = 1;
  int out_width = 1;
};

/// The geometry of kernel x kernel windows `stride` apart on one `input` sample (floor mode).
/// Precondition: the layer validated on it.
PoolGeometry pool_geometry(const TensorShape& input, int kernel, int stride);

/// Max pooling of a batch (C H W x B) to C H_out W_out x B. `argmax` receives, per output entry
/// (column-major), the row of the input it took: PyTorch's rule, the first maximum of the window
/// in row-major order (a NaN counts as the maximum).
void max_pool(const PoolGeometry& g, const ConstMatrixRef& input, Eigen::MatrixXd& out,
              std::vector<std::int32_t>& argmax);

/// Max pooling's backward pass: each entry of `delta` (C H_out W_out x B) added to the input row
/// that max_pool took for it; C H W x B.
void max_pool_backward(const PoolGeometry& g, const ConstMatrixRef& delta,
                       const std::vector<std::int32_t>& argmax, Eigen::MatrixXd& out);

/// Average pooling of a batch: the mean of each window (divisor kernel^2).
void avg_pool(const PoolGeometry& g, const ConstMatrixRef& input, Eigen::MatrixXd& out);

/// Average pooling's backward pass: each delta entry / kernel^2 added to every entry of its window.
void avg_pool_backward(const PoolGeometry& g, const ConstMatrixRef& delta, Eigen::MatrixXd& out);

}  // namespace codesim::models
