// The dense kernels built with AVX-512 (F, DQ and VL) and FMA (models/CMakeLists.txt adds the
// flags to this file only): eight doubles a register and 32 registers, about twice the avx2_fma
// products' rate on CPUs with full-width AVX-512 units. Eigen's namespace is renamed here so
// that these template instances stay apart from the other builds'.
#include "models/linalg/kernel_table.hpp"

#if defined(__AVX512F__) && defined(__AVX512DQ__) && defined(__AVX512VL__) && defined(__FMA__)
#define Eigen codesim_avx512_eigen
#include "models/linalg/kernel_bodies.inc"
#undef Eigen
#define CODESIM_THIS_BUILD (&kernel_table)
#else
#define CODESIM_THIS_BUILD nullptr
#endif

const codesim::models::detail::KernelTable* codesim::models::detail::avx512_kernels() {
  return CODESIM_THIS_BUILD;
}
