// The dense kernels built with the default flags: the reference arithmetic, the same bits on
// every x86-64 machine.
#include "models/linalg/kernel_bodies.inc"

namespace codesim::models::detail {

const KernelTable& portable_kernels() { return kernel_table; }

}  // namespace codesim::models::detail
