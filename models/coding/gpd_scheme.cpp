// Generalized PolyDot: encoding, products, decoding, encoded updates and regeneration.
#include "models/coding/gpd_scheme.hpp"

#include <algorithm>
#include <array>
#include <map>
#include <mutex>
#include <tuple>

#include "models/coding/scheme_support.hpp"
#include "models/linalg/dense_kernels.hpp"
#include "sim/check.hpp"

namespace codesim::models {
namespace {

using Terms = std::map<int, std::vector<std::array<int, 3>>>;

// Checks that the product's exponents are exactly 0..size-1 and returns their number.
int contiguous_threshold(const Terms& terms) {
  CODESIM_CHECK(!terms.empty() && terms.begin()->first == 0 &&
                    terms.rbegin()->first == static_cast<int>(terms.size()) - 1,
                "GPD product exponents are contiguous from 0");
  return static_cast<int>(terms.size());
}

GpdExponents derive_exponents(int m, int n, bool mirrored) {
  GpdExponents e;
  e.alpha = mirrored ? 1 : n;
  e.beta = mirrored ? m : 1;
  const auto stored = [&](int i, int j) { return i * e.alpha + j * e.beta; };
  for (int j = 0; j < n; ++j) e.forward_input.push_back(e.beta * (n - 1 - j));
  for (int i = 0; i < m; ++i) e.backward_input.push_back(e.alpha * (m - 1 - i));

  // Forward terms W_ij x_k and backward terms W_ij^T delta_k, keyed by their exponent.
  Terms forward;
  Terms backward;
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < n; ++j) {
      for (int k = 0; k < n; ++k) forward[stored(i, j) + e.forward_input[k]].push_back({i, j, k});
      for (int k = 0; k < m; ++k) {
        backward[stored(i, j) + e.backward_input[k]].push_back({i, j, k});
      }
    }
  }
  e.forward_threshold = contiguous_threshold(forward);
  e.backward_threshold = contiguous_threshold(backward);

  // The wanted coefficient must collect exactly the terms of s_i (or c_j) and nothing else.
  for (int i = 0; i < m; ++i) {
    const int exponent = stored(i, 0) + e.forward_input[0];
    std::vector<std::array<int, 3>> expected;
    for (int j = 0; j < n; ++j) expected.push_back({i, j, j});
    CODESIM_CHECK(forward.at(exponent) == expected, "forward coefficient holds exactly s_i");
    e.forward_wanted.push_back(exponent);
  }
  for (int j = 0; j < n; ++j) {
    const int exponent = stored(0, j) + e.backward_input[0];
    std::vector<std::array<int, 3>> expected;
    for (int i = 0; i < m; ++i) expected.push_back({i, j, i});
    auto found = backward.at(exponent);
    std::sort(found.begin(), found.end());
    CODESIM_CHECK(found == expected, "backward coefficient holds exactly c_j");
    e.backward_wanted.push_back(exponent);
  }
  return e;
}

}  // namespace

GpdExponents gpd_exponents(int m, int n, bool mirrored) {
  CODESIM_CHECK(m >= 1 && n >= 1, "GPD needs m, n >= 1");
  // Deriving costs m n (m + n) map insertions (65,000 at 32 x 32), and validating and
  // summarizing a spec each derive them: a tolerance table of 3,000 node counts took 45 s.
  static std::mutex mutex;
  static std::map<std::tuple<int, int, bool>, GpdExponents> derived;
  const std::lock_guard<std::mutex> lock(mutex);
  const auto key = std::make_tuple(m, n, mirrored);
  auto found = derived.find(key);
  if (found == derived.end()) found = derived.emplace(key, derive_exponents(m, n, mirrored)).first;
  return found->second;
}

namespace {

SchemeProblem validate(const GpdSpec& spec, int rows, int cols) {
  if (SchemeProblem problem = check_grid_divides(spec.m, spec.n, rows, cols); !problem.empty()) {
    return problem;
  }
  if (spec.m * spec.n > kMaxGpdBlocks) {
    return {"", "m x n = " + std::to_string(spec.m * spec.n) + " exceeds " +
                    std::to_string(kMaxGpdBlocks) + " blocks for gpd"};
  }
  const GpdExponents exponents = gpd_exponents(spec.m, spec.n, spec.mirrored);
  const int needed = std::max(exponents.forward_threshold, exponents.backward_threshold);
  if (spec.nodes < needed) {
    return {"nodes", "nodes = " + std::to_string(spec.nodes) + " is below the recovery threshold " +
                         std::to_string(needed) + " (forward " +
                         std::to_string(exponents.forward_threshold) + ", backward " +
                         std::to_string(exponents.backward_threshold) + ")"};
  }
  return {};
}

SchemeSummary summarize(const GpdSpec& spec, double out_length, double in_length) {
  const GpdExponents exponents = gpd_exponents(spec.m, spec.n, spec.mirrored);
  const int p = spec.nodes;
  // Each node stores one block of W split into m n parts.
  return scheme_summary(p, 1, spec.m * spec.n,
                        mds_direction(p, exponents.forward_threshold, out_length, spec.m),
                        mds_direction(p, exponents.backward_threshold, in_length, spec.n));
}

std::unique_ptr<CodingScheme> build(const GpdSpec& spec, int rows, int cols,
                                    const SchemeContext& context) {
  return std::make_unique<GpdScheme>(spec.m, spec.n, spec.nodes, spec.mirrored, rows, cols,
                                     context);
}

}  // namespace

const SchemeDescriptor& gpd_descriptor() {
  static const SchemeDescriptor descriptor = {
      .kind = SchemeKind::gpd,
      .name = "gpd",
      .doc = "Generalized PolyDot: one polynomial-coded block per node, any K results decode",
      .fields =
          block_split_fields({node_count_field("nodes", "nodes P"),
                              choice_field("orientation", "default (u = v^n) or mirrored (v = u^m)",
                                           {"default", "mirrored"})}),
      .make = [](std::span<const int> v) -> SchemeSpec {
        return gpd_spec(v[0], v[1], v[2], v[3] == 1);
      },
      .values =
          [](const SchemeSpec& spec) {
            const auto& s = std::get<GpdSpec>(spec);
            return std::vector<int>{s.m, s.n, s.nodes, s.mirrored ? 1 : 0};
          },
      .validate = detail::on_spec<validate>,
      .summarize = detail::on_spec<summarize>,
      .build = detail::on_spec<build>,
      .encodes_input = true,
      .example = {2, 2, 10, 0}};
  return descriptor;
}

GpdScheme::GpdScheme(int m, int n, int nodes, bool mirrored, int rows, int cols,
                     const SchemeContext& context)
    : SingleBlockScheme(gpd_spec(m, n, nodes, mirrored), rows, cols, context),
      m_(m),
      n_(n),
      nodes_(nodes),
      exponents_(gpd_exponents(m, n, mirrored)),
      points_(chebyshev_points(nodes)),
      powers_(vandermonde(
          points_, std::max({exponents_.forward_threshold, exponents_.backward_threshold, m * n}))),
      storage_generator_(powers_.leftCols(m * n)),
      forward_code_(vandermonde(points_, exponents_.forward_threshold), context.arithmetic),
      backward_code_(vandermonde(points_, exponents_.backward_threshold), context.arithmetic) {
  // The stored exponents i alpha + j beta must be a permutation of 0..mn-1 (an MDS storage code).
  std::vector<int> exponents;
  for (int i = 0; i < m_; ++i) {
    for (int j = 0; j < n_; ++j) exponents.push_back(i * exponents_.alpha + j * exponents_.beta);
  }
  std::sort(exponents.begin(), exponents.end());
  for (int e = 0; e < m_ * n_; ++e) CODESIM_CHECK(exponents[e] == e, "stored exponents 0..mn-1");
  set_symbols(detail::single_node_symbols(nodes_), detail::single_node_symbols(nodes_));
}

double GpdScheme::power(int node, int exponent) const { return powers_(node, exponent); }

void GpdScheme::encode(const Matrix& weights) {
  check_weights(weights);
  for (auto& block : stored_) block.setZero();
  for (int i = 0; i < m_; ++i) {
    for (int j = 0; j < n_; ++j) {
      const Matrix block = detail::grid_block(weights, m_, n_, i, j);
      const int exponent = i * exponents_.alpha + j * exponents_.beta;
      for (int p = 0; p < nodes_; ++p) stored_[p].noalias() += power(p, exponent) * block;
    }
  }
}

Matrix GpdScheme::decode_weights() const {
  // Least squares over every node's block: the best-conditioned use of the (P, mn) storage code.
  const Eigen::CompleteOrthogonalDecomposition<Matrix> decomposition(storage_generator_);
  const Matrix pseudo_inverse = decomposition.pseudoInverse();  // mn x P
  std::vector<const Matrix*> blocks;
  for (const auto& block : stored_) blocks.push_back(&block);
  Matrix weights(rows(), cols());
  const Eigen::Index height = rows() / m_;
  const Eigen::Index width = cols() / n_;
  for (int i = 0; i < m_; ++i) {
    for (int j = 0; j < n_; ++j) {
      const int exponent = i * exponents_.alpha + j * exponents_.beta;
      weights.block(i * height, j * width, height, width) =
          detail::linear_combination(pseudo_inverse.row(exponent), blocks);
    }
  }
  return weights;
}

Matrix GpdScheme::encode_input(int node, Direction dir, const Matrix& input) const {
  const bool forward = dir == Direction::forward;
  check_input(dir, input);
  const auto& exponents = forward ? exponents_.forward_input : exponents_.backward_input;
  Eigen::RowVectorXd weights(static_cast<Eigen::Index>(exponents.size()));
  for (std::size_t k = 0; k < exponents.size(); ++k) weights(k) = power(node, exponents[k]);
  return detail::combine_row_blocks(input, weights);
}

ProductDecode GpdScheme::decode(Direction dir, std::span<const std::optional<Matrix>> symbols,
                                const DecodeOptions& options) const {
  const bool forward = dir == Direction::forward;
  DecodeOptions local = options;
  // Dot-product length plus the terms summed by the encodings of W and of the input.
  const int inner = forward ? cols() / n_ + m_ * n_ + n_ : rows() / m_ + m_ * n_ + m_;
  local.inner_dimension = std::max(options.inner_dimension, inner);
  int symbol_rows = 0;
  int symbol_cols = 0;
  const auto& wanted = forward ? exponents_.forward_wanted : exponents_.backward_wanted;
  // Only the wanted coefficients are solved; message row b is coefficient wanted[b].
  const CodeDecodeResult result = detail::decode_codeword(
      forward ? forward_code_ : backward_code_, symbols, local, &symbol_rows, &symbol_cols, wanted);
  return detail::message_product(*this, dir, result, symbol_rows, symbol_cols,
                                 forward ? rows() / m_ : cols() / n_);
}

const Matrix* GpdScheme::symbol_generator(Direction dir) const {
  return &(dir == Direction::forward ? forward_code_ : backward_code_).generator();
}

void GpdScheme::update(int node, const Matrix& delta, const Matrix& input, double eta) {
  check_update(delta, input);
  // W~(v) += eta (sum_i delta_i v^(i alpha)) (sum_j x_j v^(j beta))^T at v = v_p.
  Eigen::RowVectorXd delta_weights(m_);
  for (int i = 0; i < m_; ++i) delta_weights(i) = power(node, i * exponents_.alpha);
  Eigen::RowVectorXd input_weights(n_);
  for (int j = 0; j < n_; ++j) input_weights(j) = power(node, j * exponents_.beta);
  const Matrix delta_hat = eta * detail::combine_row_blocks(delta, delta_weights);
  const Matrix input_hat = detail::combine_row_blocks(input, input_weights);
  add_to_block(node, delta_hat, input_hat);
}

bool GpdScheme::regenerate(int node, std::span<const int> healthy) {
  const std::vector<int> sources = detail::healthy_others(node, healthy, nodes_);
  const auto coefficients =
      detail::combination_coefficients(storage_generator_, sources, storage_generator_.row(node));
  if (!coefficients) return false;
  std::vector<const Matrix*> blocks;
  for (int p : sources) blocks.push_back(&stored_[p]);
  stored_.at(node) = detail::linear_combination(*coefficients, blocks);
  return true;
}

std::vector<int> GpdScheme::regeneration_sources(int node, std::span<const int> exclude) const {
  std::vector<int> candidates = detail::remaining_others(node, exclude, nodes_);
  if (static_cast<int>(candidates.size()) < m_ * n_) return {};
  // Spread over the evaluation points (node order is not point order).
  std::stable_sort(candidates.begin(), candidates.end(),
                   [this](int a, int b) { return points_[a] > points_[b]; });
  return detail::sorted_unique(detail::spread_selection(candidates, m_ * n_));
}

}  // namespace codesim::models
