// The dense products of nodes, updates and decoders, in the arithmetic chosen for the process:
// `portable` (default compiler flags: the same bits on every machine) or `avx2_fma` (AVX2 and
// FMA instructions: about 2.4x faster products, different last bits).
#pragma once

#include <Eigen/Dense>
#include <optional>
#include <span>
#include <string_view>

namespace codesim::models {

enum class Arithmetic { portable, avx2_fma };

std::string_view arithmetic_name(Arithmetic arithmetic);
/// "portable" or "avx2_fma"; nullopt otherwise.
std::optional<Arithmetic> parse_arithmetic(std::string_view name);
/// Built into this program and supported by this CPU.
bool arithmetic_available(Arithmetic arithmetic);
/// The fastest available arithmetic.
Arithmetic fastest_arithmetic();
/// Sets the arithmetic of every later product in this process (portable until called). Call it
/// before simulations start: a run must not mix them. Precondition: available.
void use_arithmetic(Arithmetic arithmetic);
Arithmetic arithmetic_in_use();

/// Uses an arithmetic for one scope (tests, benchmarks) and restores the previous one.
class ScopedArithmetic {
 public:
  explicit ScopedArithmetic(Arithmetic arithmetic) : previous_(arithmetic_in_use()) {
    use_arithmetic(arithmetic);
  }
  ~ScopedArithmetic() { use_arithmetic(previous_); }
  ScopedArithmetic(const ScopedArithmetic&) = delete;
  ScopedArithmetic& operator=(const ScopedArithmetic&) = delete;

 private:
  Arithmetic previous_;
};

using ConstMatrixRef = Eigen::Ref<const Eigen::MatrixXd>;

/// a b.
Eigen::MatrixXd product(const ConstMatrixRef& a, const ConstMatrixRef& b);
/// a^T b.
Eigen::MatrixXd transposed_product(const ConstMatrixRef& a, const ConstMatrixRef& b);
/// c += alpha a b^T.
void add_outer_product(Eigen::Ref<Eigen::MatrixXd> c, double alpha, const ConstMatrixRef& a,
                       const ConstMatrixRef& b);
/// Row r of `out` (row-major, rows `out_stride` apart) = sum_i coefficients(r, i) *
/// sources[i][0, width): the rows of coefficients times the stacked source rows.
void combine_rows(const ConstMatrixRef& coefficients, std::span<const double* const> sources,
                  Eigen::Index width, double* out, Eigen::Index out_stride);

}  // namespace codesim::models
