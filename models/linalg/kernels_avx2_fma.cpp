// The dense kernels built with AVX2 and FMA (models/CMakeLists.txt adds the flags to this file
// only). Eigen's namespace is renamed here so that its AVX2 template instances stay apart from
// the portable ones the rest of the program uses.
#include "models/linalg/kernel_table.hpp"

#if defined(__AVX2__) && defined(__FMA__)
#define Eigen codesim_avx2_fma_eigen
#include "models/linalg/kernel_bodies.inc"
#undef Eigen
#define CODESIM_THIS_BUILD (&kernel_table)
#else
#define CODESIM_THIS_BUILD nullptr
#endif

const codesim::models::detail::KernelTable* codesim::models::detail::avx2_fma_kernels() {
  return CODESIM_THIS_BUILD;
}
