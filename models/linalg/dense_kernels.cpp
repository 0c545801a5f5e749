// Picks the kernel build of an arithmetic and adapts Eigen arguments to its raw entry points.
#include "models/linalg/dense_kernels.hpp"

#include <algorithm>
#include <functional>
#include <string_view>

#include "models/linalg/kernel_table.hpp"
#include "models/linalg/thread_team.hpp"
#include "sim/check.hpp"

namespace codesim::models {
namespace {

// Whether the CPU (and the operating system, which must save the wider registers) has an
// instruction set (a literal: __builtin_cpu_supports takes nothing else).
#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
#define CODESIM_CPU_HAS(feature) (__builtin_cpu_supports(feature) != 0)
#else
#define CODESIM_CPU_HAS(feature) false
#endif

// One build of the kernels: its name, where this program holds it (null: not built) and what the
// CPU must have to run it. Every reader of an arithmetic goes through this table.
struct Build {
  Arithmetic arithmetic;
  std::string_view name;
  const detail::KernelTable* (*kernels)();
  bool (*cpu_runs)();
};

// Slowest first.
const Build kBuilds[] = {
    {Arithmetic::portable, "portable", [] { return &detail::portable_kernels(); },
     [] { return true; }},
    {Arithmetic::avx2_fma, "avx2_fma", &detail::avx2_fma_kernels,
     [] { return CODESIM_CPU_HAS("avx2") && CODESIM_CPU_HAS("fma"); }},
    {Arithmetic::avx512, "avx512", &detail::avx512_kernels,
     [] {
       return CODESIM_CPU_HAS("avx2") && CODESIM_CPU_HAS("fma") && CODESIM_CPU_HAS("avx512f") &&
              CODESIM_CPU_HAS("avx512dq") && CODESIM_CPU_HAS("avx512vl");
     }},
};

const Build& build_of(Arithmetic arithmetic) {
  for (const Build& build : kBuilds)
    if (build.arithmetic == arithmetic) return build;
  CODESIM_CHECK(false, "every arithmetic has a build");
  return kBuilds[0];
}

detail::MatrixArg arg(const ConstMatrixRef& m) {
  return {m.data(), static_cast<long>(m.rows()), static_cast<long>(m.cols()),
          static_cast<long>(m.outerStride())};
}

// A product with one column (Eigen's GEMV) is cut along the output's rows: GEMV picks each row's
// code path by its index from the call's start, in blocks of at most 32 rows, so cuts at
// multiples of 64 keep every row's path. A product with several columns (GEMM) is cut along the
// columns of its right side instead: GEMM sizes its row blocks from the row count (so a row's
// register kernel would change with the cut), but lays its column panels 4 wide from the start
// of every column block, so cuts at multiples of 16 keep every column's path.
constexpr long kRowGranule = 64;
constexpr long kColumnGranule = 16;
// Calls below this many multiply-adds run whole: a cut would cost more than it saves.
constexpr double kMinCutMultiplyAdds = 1 << 18;

// Runs part(first, count) over [0, length) cut into one piece per thread of `team` at multiples
// of `granule` (whole when there is no team or the work is small).
void cut(ThreadTeam* team, long length, long granule, double multiply_adds,
         const std::function<void(long, long)>& part) {
  const long pieces = team == nullptr || multiply_adds < kMinCutMultiplyAdds
                          ? 1
                          : std::min<long>(team->size(), length / granule);
  if (pieces <= 1) {
    part(0, length);
    return;
  }
  const long granules = (length + granule - 1) / granule;
  team->parallel_for(static_cast<int>(pieces), [&](int piece) {
    const long first = std::min(length, granules * piece / pieces * granule);
    const long last = std::min(length, granules * (piece + 1) / pieces * granule);
    if (last > first) part(first, last - first);
  });
}

// out = op(a) b (op(a) = a^T when transpose), out column-major with out_rows rows, cut as above.
void cut_product(ThreadTeam* team, const detail::KernelTable& table, detail::MatrixArg a,
                 bool transpose, detail::MatrixArg b, double* out, long out_rows) {
  const double multiply_adds =
      static_cast<double>(a.rows) * static_cast<double>(a.cols) * static_cast<double>(b.cols);
  if (b.cols == 1) {
    cut(team, out_rows, kRowGranule, multiply_adds, [&](long first, long count) {
      const detail::MatrixArg rows =
          transpose
              ? detail::MatrixArg{a.data + first * a.outer_stride, a.rows, count, a.outer_stride}
              : detail::MatrixArg{a.data + first, count, a.cols, a.outer_stride};
      table.product(rows, transpose, b, out + first, out_rows);
    });
    return;
  }
  cut(team, b.cols, kColumnGranule, multiply_adds, [&](long first, long count) {
    const detail::MatrixArg columns{b.data + first * b.outer_stride, b.rows, count, b.outer_stride};
    table.product(a, transpose, columns, out + first * out_rows, out_rows);
  });
}

}  // namespace

std::string_view arithmetic_name(Arithmetic arithmetic) { return build_of(arithmetic).name; }

std::optional<Arithmetic> parse_arithmetic(std::string_view name) {
  for (const Build& build : kBuilds) {
    if (name == build.name) return build.arithmetic;
  }
  if (name == "auto") return fastest_arithmetic();
  return std::nullopt;
}

bool arithmetic_available(Arithmetic arithmetic) {
  const Build& build = build_of(arithmetic);
  return build.kernels() != nullptr && build.cpu_runs();
}

Arithmetic fastest_arithmetic() { return available_arithmetics().back(); }

std::vector<Arithmetic> available_arithmetics() {
  std::vector<Arithmetic> available;
  for (const Build& build : kBuilds) {
    if (arithmetic_available(build.arithmetic)) available.push_back(build.arithmetic);
  }
  return available;
}

DenseKernels::DenseKernels(Arithmetic arithmetic)
    : arithmetic_(arithmetic), table_(build_of(arithmetic).kernels()) {
  CODESIM_CHECK(arithmetic_available(arithmetic), "the arithmetic runs on this machine");
}

Eigen::MatrixXd DenseKernels::product(const ConstMatrixRef& a, const ConstMatrixRef& b) const {
  Eigen::MatrixXd out;
  product(a, b, out);
  return out;
}

Eigen::MatrixXd DenseKernels::transposed_product(const ConstMatrixRef& a,
                                                 const ConstMatrixRef& b) const {
  Eigen::MatrixXd out;
  transposed_product(a, b, out);
  return out;
}

void DenseKernels::product(const ConstMatrixRef& a, const ConstMatrixRef& b,
                           Eigen::MatrixXd& out) const {
  CODESIM_CHECK(a.cols() == b.rows(), "a b has matching inner dimensions");
  CODESIM_CHECK(out.data() == nullptr || (out.data() != a.data() && out.data() != b.data()),
                "the product's output aliases neither factor");
  out.resize(a.rows(), b.cols());
  cut_product(team_, *table_, arg(a), false, arg(b), out.data(), static_cast<long>(out.rows()));
}

void DenseKernels::transposed_product(const ConstMatrixRef& a, const ConstMatrixRef& b,
                                      Eigen::MatrixXd& out) const {
  CODESIM_CHECK(a.rows() == b.rows(), "a^T b has matching inner dimensions");
  CODESIM_CHECK(out.data() == nullptr || (out.data() != a.data() && out.data() != b.data()),
                "the product's output aliases neither factor");
  out.resize(a.cols(), b.cols());
  cut_product(team_, *table_, arg(a), true, arg(b), out.data(), static_cast<long>(out.rows()));
}

void DenseKernels::add_outer_product(Eigen::Ref<Eigen::MatrixXd> c, double alpha,
                                     const ConstMatrixRef& a, const ConstMatrixRef& b) const {
  CODESIM_CHECK(c.rows() == a.rows() && c.cols() == b.rows() && a.cols() == b.cols(),
                "c += alpha a b^T has matching shapes");
  const long c_stride = static_cast<long>(c.outerStride());
  const detail::MatrixArg right = arg(b);
  // Columns of c (rows of b): GEMM's column panels, as for products with several columns.
  cut(team_, right.rows, kRowGranule, static_cast<double>(c.size()) * static_cast<double>(a.cols()),
      [&](long first, long count) {
        const detail::MatrixArg rows{right.data + first, count, right.cols, right.outer_stride};
        table_->add_outer_product(c.data() + first * c_stride, c_stride, alpha, arg(a), rows);
      });
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

Eigen::Matrix<double, 3, Eigen::Dynamic> DenseKernels::weighted_column_sums(
    const ConstMatrixRef& values) const {
  Eigen::Matrix<double, 3, Eigen::Dynamic> sums(3, values.cols());
  table_->weighted_column_sums(arg(values), sums.data());
  return sums;
}

}  // namespace codesim::models
