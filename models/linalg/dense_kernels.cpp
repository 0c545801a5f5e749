// Picks the kernel build of an arithmetic and adapts Eigen arguments to its raw entry points.
#include "models/linalg/dense_kernels.hpp"

#include "models/linalg/kernel_table.hpp"
#include "sim/check.hpp"

namespace codesim::models {
namespace {

bool cpu_has_avx2_fma() {
#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#else
  return false;
#endif
}

detail::MatrixArg arg(const ConstMatrixRef& m) {
  return {m.data(), static_cast<long>(m.rows()), static_cast<long>(m.cols()),
          static_cast<long>(m.outerStride())};
}

}  // namespace

std::string_view arithmetic_name(Arithmetic arithmetic) {
  return arithmetic == Arithmetic::avx2_fma ? "avx2_fma" : "portable";
}

std::optional<Arithmetic> parse_arithmetic(std::string_view name) {
  if (name == "portable") return Arithmetic::portable;
  if (name == "avx2_fma") return Arithmetic::avx2_fma;
  if (name == "auto") return fastest_arithmetic();
  return std::nullopt;
}

bool arithmetic_available(Arithmetic arithmetic) {
  if (arithmetic == Arithmetic::portable) return true;
  return detail::avx2_fma_kernels() != nullptr && cpu_has_avx2_fma();
}

Arithmetic fastest_arithmetic() {
  return arithmetic_available(Arithmetic::avx2_fma) ? Arithmetic::avx2_fma : Arithmetic::portable;
}

DenseKernels::DenseKernels(Arithmetic arithmetic)
    : arithmetic_(arithmetic),
      table_(arithmetic == Arithmetic::avx2_fma ? detail::avx2_fma_kernels()
                                                : &detail::portable_kernels()) {
  CODESIM_CHECK(arithmetic_available(arithmetic), "the arithmetic runs on this machine");
}

Eigen::MatrixXd DenseKernels::product(const ConstMatrixRef& a, const ConstMatrixRef& b) const {
  CODESIM_CHECK(a.cols() == b.rows(), "a b has matching inner dimensions");
  Eigen::MatrixXd out(a.rows(), b.cols());
  table_->product(arg(a), false, arg(b), out.data(), static_cast<long>(out.rows()));
  return out;
}

Eigen::MatrixXd DenseKernels::transposed_product(const ConstMatrixRef& a,
                                                 const ConstMatrixRef& b) const {
  CODESIM_CHECK(a.rows() == b.rows(), "a^T b has matching inner dimensions");
  Eigen::MatrixXd out(a.cols(), b.cols());
  table_->product(arg(a), true, arg(b), out.data(), static_cast<long>(out.rows()));
  return out;
}

void DenseKernels::add_outer_product(Eigen::Ref<Eigen::MatrixXd> c, double alpha,
                                     const ConstMatrixRef& a, const ConstMatrixRef& b) const {
  CODESIM_CHECK(c.rows() == a.rows() && c.cols() == b.rows() && a.cols() == b.cols(),
                "c += alpha a b^T has matching shapes");
  table_->add_outer_product(c.data(), static_cast<long>(c.outerStride()), alpha, arg(a), arg(b));
}

void DenseKernels::combine_rows(const ConstMatrixRef& coefficients,
                                std::span<const double* const> sources, Eigen::Index width,
                                double* out, Eigen::Index out_stride) const {
  CODESIM_CHECK(
      static_cast<Eigen::Index>(sources.size()) == coefficients.cols() && width <= out_stride,
      "one source per coefficient column and rows that fit");
  table_->combine_rows(arg(coefficients), sources.data(), static_cast<long>(width), out,
                       static_cast<long>(out_stride));
}

}  // namespace codesim::models
