// Worst condition numbers of each code's decode as P grows, with real decodes beside them.
#include "models/theory/conditioning_sweep.hpp"

#include <cmath>
#include <limits>
#include <memory>
#include <optional>

#include "models/coding/coding_scheme.hpp"
#include "models/coding/conditioning.hpp"
#include "models/theory/decode_trials.hpp"
#include "sim/check.hpp"
#include "sim/random_stream.hpp"

namespace codesim::models {
namespace {

constexpr int kInputColumns = 4;

Matrix gaussian(Eigen::Index rows, Eigen::Index cols, sim::RandomStream& stream) {
  Matrix out(rows, cols);
  for (Eigen::Index j = 0; j < cols; ++j)
    for (Eigen::Index i = 0; i < rows; ++i) out(i, j) = stream.normal(0.0, 1.0);
  return out;
}

// max |decoded - exact| / max |exact|; +Inf when the decode returned nothing.
double relative_error(const ProductDecode& decoded, const Matrix& exact) {
  if (decoded.status == DecodeStatus::detected) return std::numeric_limits<double>::infinity();
  return (decoded.product - exact).cwiseAbs().maxCoeff() / exact.cwiseAbs().maxCoeff();
}

// The product in `dir` decoded from the symbols in `kept` alone (nullopt: from all of them).
ProductDecode decode_from(const CodingScheme& scheme, Direction dir, const Matrix& input,
                          const DecodeOptions& options,
                          const std::optional<std::vector<int>>& kept) {
  if (!kept) return compute_and_decode(scheme, dir, input, options);
  std::vector<char> alive(static_cast<std::size_t>(scheme.node_count()), 0);
  for (int s : *kept) {
    for (int node : scheme.symbol_members(dir, s)) alive[static_cast<std::size_t>(node)] = 1;
  }
  return compute_and_decode(scheme, dir, input, options, [&alive](int node, Matrix&) {
    return alive[static_cast<std::size_t>(node)] != 0;
  });
}

ConditioningDirection measure(const CodingScheme& scheme, const DirectionConditioning& worst,
                              Direction dir, const Matrix& weights, sim::RandomStream& stream) {
  ConditioningDirection out;
  out.symbols = worst.symbols;
  out.dimension = worst.dimension;
  out.worst_condition = worst.worst_condition;
  out.flagged = may_lose_accuracy(worst.worst_condition);
  const bool forward = dir == Direction::forward;
  const Matrix input = gaussian(forward ? weights.cols() : weights.rows(), kInputColumns, stream);
  const Matrix exact = forward ? Matrix(weights * input) : Matrix(weights.transpose() * input);
  DecodeOptions options;
  options.inner_dimension = static_cast<int>(forward ? weights.cols() : weights.rows());
  const ProductDecode subset = decode_from(scheme, dir, input, options, worst.worst_subset);
  out.subset_detected = subset.status == DecodeStatus::detected;
  out.subset_relative_error = relative_error(subset, exact);
  const ProductDecode all = decode_from(scheme, dir, input, options, std::nullopt);
  out.all_detected = all.status == DecodeStatus::detected;
  out.all_clean = all.status == DecodeStatus::clean;
  out.all_relative_error = relative_error(all, exact);
  out.accurate = out.all_clean && out.subset_relative_error < kDecodeRelativeAccuracyTarget &&
                 out.all_relative_error < kDecodeRelativeAccuracyTarget;
  return out;
}

ConditioningPoint point_of(int m, int n, const SchemeSpec& spec, std::string configuration,
                           sim::RandomStream& stream) {
  const std::unique_ptr<CodingScheme> scheme = make_trial_scheme(spec);
  const auto [row_blocks, col_blocks] = block_grid(spec);
  const Matrix weights = gaussian(4 * row_blocks, 4 * col_blocks, stream);
  scheme->encode(weights);
  const DecodingConditioning worst = decoding_conditioning(spec, static_cast<int>(weights.rows()),
                                                           static_cast<int>(weights.cols()));
  ConditioningPoint point;
  point.scheme = std::string(scheme_name(spec));
  point.configuration = std::move(configuration);
  point.m = m;
  point.n = n;
  point.nodes = scheme->node_count();
  point.forward = measure(*scheme, worst.forward, Direction::forward, weights, stream);
  point.backward = measure(*scheme, worst.backward, Direction::backward, weights, stream);
  return point;
}

}  // namespace

std::vector<std::pair<int, int>> conditioning_splits(int max_s) {
  CODESIM_CHECK(max_s >= 1 && max_s * (max_s + 1) <= 64, "1 <= s and s (s + 1) <= 64");
  std::vector<std::pair<int, int>> splits;
  for (int s = 1; s <= max_s; ++s) {
    splits.emplace_back(s, s);
    if (s < max_s) splits.emplace_back(s, s + 1);
  }
  return splits;
}

std::vector<ConditioningPoint> conditioning_sweep(const std::vector<std::pair<int, int>>& splits,
                                                  std::uint64_t seed) {
  std::vector<ConditioningPoint> points;
  std::uint64_t index = 0;
  for (const auto& [m, n] : splits) {
    CODESIM_CHECK(m >= 1 && n >= 1 && m * n <= 64, "m, n >= 1 and mn <= 64");
    const int blocks = m * n;
    const int p = 3 * blocks;
    const int t = (p - blocks) / (2 * (m + n));
    sim::RandomStream stream({seed, 0, "conditioning_sweep", index++});
    points.push_back(point_of(m, n, gpd_spec(m, n, p), "P = " + std::to_string(p), stream));
    points.push_back(
        point_of(m, n, mds_spec(2 * blocks, p), "k = " + std::to_string(2 * blocks), stream));
    points.push_back(
        point_of(m, n, codenet_grid_spec(m, n, m + 2 * t, n + 2 * t),
                 "grid " + std::to_string(m + 2 * t) + " x " + std::to_string(n + 2 * t), stream));
  }
  return points;
}

}  // namespace codesim::models
