// The raw entry points of one build of the dense kernels; no Eigen types cross this line.
#pragma once

namespace codesim::models::detail {

/// A column-major matrix: element (i, j) at data[i + j * outer_stride].
struct MatrixArg {
  const double* data = nullptr;
  long rows = 0;
  long cols = 0;
  long outer_stride = 0;
};

/// One instruction-set build of the kernels (dense_kernels.hpp documents each operation).
struct KernelTable {
  /// out = op(a) b, op(a) = a^T when transpose_a; out is column-major with the product's shape.
  void (*product)(MatrixArg a, bool transpose_a, MatrixArg b, double* out, long out_stride);
  /// c += alpha a b^T; c is column-major, a.rows x b.rows.
  void (*add_outer_product)(double* c, long c_stride, double alpha, MatrixArg a, MatrixArg b);
  /// Row r of out (row-major, out_stride apart, `width` long) = sum_i coefficients(r, i) *
  /// sources[i][0, width).
  void (*combine_rows)(MatrixArg coefficients, const double* const* sources, long width,
                       double* out, long out_stride);
  /// Column c of `values` weighted by 1, i + 1 and (i + 1)^2 (entry i) and summed, in any order:
  /// sums[3 c + k] for weight k.
  void (*weighted_column_sums)(MatrixArg values, double* sums);
};

/// Built with the compiler's default flags (SSE2 on x86-64): the same bits on every machine.
const KernelTable& portable_kernels();
/// Built with AVX2 and FMA; null when this build has no such variant.
const KernelTable* avx2_fma_kernels();
/// Built with AVX-512 F and DQ and FMA; null when this build has no such variant.
const KernelTable* avx512_kernels();

}  // namespace codesim::models::detail
