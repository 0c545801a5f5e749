// The dense products of nodes, updates and decoders, in the arithmetic chosen for the run:
// `portable` (default compiler flags), `avx2_fma` (AVX2 and FMA instructions: about 2.4x faster
// products, different last bits) or `avx512` (AVX-512 and FMA: about 1.7x avx2_fma's products on
// CPUs with full-width AVX-512 units, other last bits again). Each gives the same bits on every
// machine that runs it (its cache blocking is pinned: kernel_bodies.inc); `auto`, the command
// lines' default, names the fastest this CPU runs.
#pragma once

#include <Eigen/Dense>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

namespace codesim::models {

enum class Arithmetic { portable, avx2_fma, avx512 };

std::string_view arithmetic_name(Arithmetic arithmetic);
/// "portable", "avx2_fma" or "avx512"; "auto": fastest_arithmetic() (a concrete arithmetic, so
/// that what a run records can be given back to rerun it); nullopt otherwise.
std::optional<Arithmetic> parse_arithmetic(std::string_view name);
/// The names parse_arithmetic accepts, for messages.
inline constexpr std::string_view kArithmeticNames = "auto, portable, avx2_fma or avx512";
/// Built into this program and supported by this CPU.
bool arithmetic_available(Arithmetic arithmetic);
/// The fastest available arithmetic.
Arithmetic fastest_arithmetic();
/// Every available arithmetic, portable first.
std::vector<Arithmetic> available_arithmetics();
namespace detail {
struct KernelTable;
}
class ThreadTeam;

using ConstMatrixRef = Eigen::Ref<const Eigen::MatrixXd>;

/// The dense kernels of one arithmetic. A small value that a run hands to everything that
/// multiplies (schemes, decoders, the MLP), so that the choice travels with the run and no
/// process-wide switch can change another run's bits.
class DenseKernels {
 public:
  /// Precondition: arithmetic_available(arithmetic).
  explicit DenseKernels(Arithmetic arithmetic = Arithmetic::portable);
  Arithmetic arithmetic() const { return arithmetic_; }
  /// Large products and updates are then cut between `team`'s threads (null: none; the team
  /// must outlive these kernels). Cuts never split a sum and fall where Eigen's kernels give every
  /// entry the same instructions as without a team (dense_kernels.cpp says where): the bits do
  /// not depend on the thread count (tests/models/linalg/thread_team_test.cpp).
  void use_team(ThreadTeam* team) { team_ = team; }

  /// a b.
  Eigen::MatrixXd product(const ConstMatrixRef& a, const ConstMatrixRef& b) const;
  /// a^T b.
  Eigen::MatrixXd transposed_product(const ConstMatrixRef& a, const ConstMatrixRef& b) const;
  /// out = a b, into `out` resized to a.rows() x b.cols() (its storage is kept when it has that
  /// size already, so a loop of equal products allocates nothing); out aliases neither a nor b.
  void product(const ConstMatrixRef& a, const ConstMatrixRef& b, Eigen::MatrixXd& out) const;
  /// out = a^T b, into `out` as product(a, b, out).
  void transposed_product(const ConstMatrixRef& a, const ConstMatrixRef& b,
                          Eigen::MatrixXd& out) const;
  /// c += alpha a b^T.
  void add_outer_product(Eigen::Ref<Eigen::MatrixXd> c, double alpha, const ConstMatrixRef& a,
                         const ConstMatrixRef& b) const;
  /// Row r of `out` (row-major, rows `out_stride` apart) = sum_i coefficients(r, i) *
  /// sources[i][0, width): the rows of coefficients times the stacked source rows.
  void combine_rows(const ConstMatrixRef& coefficients, std::span<const double* const> sources,
                    Eigen::Index width, double* out, Eigen::Index out_stride) const;
  /// Column c of `values` weighted by 1, i + 1 and (i + 1)^2 (entry i) and summed: column c of
  /// the 3 x cols result (ABFT's checksum weights). The summation order is the kernel's (four or
  /// eight lanes and a scalar tail), not the entries': these sums are for screening.
  Eigen::Matrix<double, 3, Eigen::Dynamic> weighted_column_sums(const ConstMatrixRef& values) const;

 private:
  Arithmetic arithmetic_;
  const detail::KernelTable* table_;
  ThreadTeam* team_ = nullptr;
};

}  // namespace codesim::models
