// Chooses the kernel build for the process and adapts Eigen arguments to its raw entry points.
#include "models/linalg/dense_kernels.hpp"

#include <atomic>

#include "models/linalg/kernel_table.hpp"
#include "sim/check.hpp"

namespace codesim::models {
namespace {

std::atomic<Arithmetic> selected{Arithmetic::portable};

bool cpu_has_avx2_fma() {
#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#else
  return false;
#endif
}

const detail::KernelTable& kernels() {
  if (selected.load(std::memory_order_relaxed) == Arithmetic::avx2_fma) {
    return *detail::avx2_fma_kernels();
  }
  return detail::portable_kernels();
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
  return std::nullopt;
}

bool arithmetic_available(Arithmetic arithmetic) {
  if (arithmetic == Arithmetic::portable) return true;
  return detail::avx2_fma_kernels() != nullptr && cpu_has_avx2_fma();
}

Arithmetic fastest_arithmetic() {
  return arithmetic_available(Arithmetic::avx2_fma) ? Arithmetic::avx2_fma : Arithmetic::portable;
}

void use_arithmetic(Arithmetic arithmetic) {
  CODESIM_CHECK(arithmetic_available(arithmetic), "the arithmetic runs on this machine");
  selected.store(arithmetic);
}

Arithmetic arithmetic_in_use() { return selected.load(); }

Eigen::MatrixXd product(const ConstMatrixRef& a, const ConstMatrixRef& b) {
  CODESIM_CHECK(a.cols() == b.rows(), "a b has matching inner dimensions");
  Eigen::MatrixXd out(a.rows(), b.cols());
  kernels().product(arg(a), false, arg(b), out.data(), static_cast<long>(out.rows()));
  return out;
}

Eigen::MatrixXd transposed_product(const ConstMatrixRef& a, const ConstMatrixRef& b) {
  CODESIM_CHECK(a.rows() == b.rows(), "a^T b has matching inner dimensions");
  Eigen::MatrixXd out(a.cols(), b.cols());
  kernels().product(arg(a), true, arg(b), out.data(), static_cast<long>(out.rows()));
  return out;
}

void add_outer_product(Eigen::Ref<Eigen::MatrixXd> c, double alpha, const ConstMatrixRef& a,
                       const ConstMatrixRef& b) {
  CODESIM_CHECK(c.rows() == a.rows() && c.cols() == b.rows() && a.cols() == b.cols(),
                "c += alpha a b^T has matching shapes");
  kernels().add_outer_product(c.data(), static_cast<long>(c.outerStride()), alpha, arg(a), arg(b));
}

void combine_rows(const ConstMatrixRef& coefficients, std::span<const double* const> sources,
                  Eigen::Index width, double* out, Eigen::Index out_stride) {
  CODESIM_CHECK(
      static_cast<Eigen::Index>(sources.size()) == coefficients.cols() && width <= out_stride,
      "one source per coefficient column and rows that fit");
  kernels().combine_rows(arg(coefficients), sources.data(), static_cast<long>(width), out,
                         static_cast<long>(out_stride));
}

}  // namespace codesim::models
