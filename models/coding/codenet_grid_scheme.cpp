// The CodeNet grid: systematic Gaussian row and column codes, grid-row and grid-column symbols.
#include "models/coding/codenet_grid_scheme.hpp"

#include <algorithm>
#include <tuple>

#include "models/coding/scheme_support.hpp"
#include "models/linalg/dense_kernels.hpp"
#include "sim/check.hpp"
#include "sim/random_stream.hpp"

namespace codesim::models {
namespace {

std::uint64_t generator_seed(std::uint64_t seed, std::string_view which) {
  return sim::stream_seed({.seed = seed, .replica = 0, .component = which, .index = 0});
}

}  // namespace

const SchemeDescriptor& codenet_grid_descriptor() {
  static const SchemeDescriptor descriptor = {
      .kind = SchemeKind::codenet_grid,
      .name = "codenet_grid",
      .doc =
          "the CodeNet systematic grid: m x n blocks coded onto grid_rows x grid_cols nodes "
          "without the corner",
      .fields = block_split_fields({integer_field("grid_rows", "grid-rows", "grid rows (>= m)", 1,
                                                  kMaxSchemeSplit, std::nullopt),
                                    integer_field("grid_cols", "grid-cols", "grid columns (>= n)",
                                                  1, kMaxSchemeSplit, std::nullopt)}),
      .make = [](std::span<const int> v) -> SchemeSpec {
        return codenet_grid_spec(v[0], v[1], v[2], v[3]);
      },
      .values =
          [](const SchemeSpec& spec) {
            const auto& s = std::get<CodenetGridSpec>(spec);
            return std::vector<int>{s.m, s.n, s.grid_rows, s.grid_cols};
          }};
  return descriptor;
}

SchemeProblem validate_spec(const CodenetGridSpec& spec, int rows, int cols) {
  if (SchemeProblem problem = check_grid_divides(spec.m, spec.n, rows, cols); !problem.empty()) {
    return problem;
  }
  for (const auto& [key, value, low] : {std::tuple{"grid_rows", spec.grid_rows, spec.m},
                                        std::tuple{"grid_cols", spec.grid_cols, spec.n}}) {
    if (value < low) {
      return {key, std::string(key) + " = " + std::to_string(value) + " must be in [" +
                       std::to_string(low) + ", " + std::to_string(kMaxSchemeSplit) + "]"};
    }
  }
  return {};
}

SchemeSummary summarize_spec(const CodenetGridSpec& spec, double out_length, double in_length) {
  SchemeSummary summary;
  summary.scheme = "codenet_grid";
  summary.nodes = spec.m * spec.grid_cols + spec.n * (spec.grid_rows - spec.m);
  // Worst case: each erroneous node spoils a different grid row (column).
  summary.forward = mds_capability(spec.grid_rows, spec.m);
  summary.backward = mds_capability(spec.grid_cols, spec.n);
  set_traffic(summary.forward, out_length / spec.m, spec.grid_rows * out_length / spec.m);
  set_traffic(summary.backward, in_length / spec.n, spec.grid_cols * in_length / spec.n);
  set_storage(summary, 1, spec.m * spec.n);  // one block of W split into m n parts
  return summary;
}

std::unique_ptr<CodingScheme> make_coding_scheme(const CodenetGridSpec& spec, int rows, int cols,
                                                 Arithmetic arithmetic) {
  return std::make_unique<CodenetGridScheme>(spec.m, spec.n, spec.grid_rows, spec.grid_cols,
                                             spec.seed, rows, cols, arithmetic);
}

CodenetGridScheme::CodenetGridScheme(int m, int n, int grid_rows, int grid_cols, std::uint64_t seed,
                                     int rows, int cols, Arithmetic arithmetic)
    : m_(m),
      n_(n),
      grid_rows_(grid_rows),
      grid_cols_(grid_cols),
      rows_(rows),
      cols_(cols),
      row_code_(
          systematic_gaussian_generator(grid_rows, m, generator_seed(seed, "codenet_grid_rows")),
          arithmetic),
      column_code_(
          systematic_gaussian_generator(grid_cols, n, generator_seed(seed, "codenet_grid_cols")),
          arithmetic),
      summary_(summarize_scheme(codenet_grid_spec(m, n, grid_rows, grid_cols, seed), rows, cols)),
      kernels_(arithmetic) {
  CODESIM_CHECK(
      validate_scheme(codenet_grid_spec(m, n, grid_rows, grid_cols, seed), rows, cols).empty(),
      "valid CodeNet grid parameters");
  for (int r = 0; r < grid_rows_; ++r) {
    for (int c = 0; c < grid_cols_; ++c) {
      if (r < m_ || c < n_) positions_.emplace_back(r, c);
    }
  }
  CODESIM_CHECK(static_cast<int>(positions_.size()) == summary_.nodes, "P = m P_c + n (P_r - m)");
  stored_.assign(positions_.size(), Matrix::Zero(rows_ / m_, cols_ / n_));
}

int CodenetGridScheme::node_at(int r, int c) const {
  if (r < 0 || c < 0 || r >= grid_rows_ || c >= grid_cols_ || (r >= m_ && c >= n_)) return -1;
  // Rows above r: m rows of P_c nodes, then rows of n nodes.
  if (r < m_) return r * grid_cols_ + c;
  return m_ * grid_cols_ + (r - m_) * n_ + c;
}

std::vector<int> CodenetGridScheme::column_nodes(int c) const {
  std::vector<int> nodes;
  for (int r = 0; r < grid_rows_; ++r) {
    if (const int id = node_at(r, c); id >= 0) nodes.push_back(id);
  }
  return nodes;
}

std::vector<int> CodenetGridScheme::row_nodes(int r) const {
  std::vector<int> nodes;
  for (int c = 0; c < grid_cols_; ++c) {
    if (const int id = node_at(r, c); id >= 0) nodes.push_back(id);
  }
  return nodes;
}

void CodenetGridScheme::encode(const Matrix& weights) {
  CODESIM_CHECK(weights.rows() == rows_ && weights.cols() == cols_, "W has the scheme's shape");
  const Matrix& g_r = row_code_.generator();
  const Matrix& g_c = column_code_.generator();
  for (auto& block : stored_) block.setZero();
  for (int k = 0; k < m_; ++k) {
    for (int l = 0; l < n_; ++l) {
      const Matrix block = detail::grid_block(weights, m_, n_, k, l);
      for (std::size_t p = 0; p < positions_.size(); ++p) {
        const auto [r, c] = positions_[p];
        const double weight = g_r(r, k) * g_c(c, l);
        if (weight != 0.0) stored_[p].noalias() += weight * block;
      }
    }
  }
}

Matrix CodenetGridScheme::decode_weights() const {
  Matrix weights(rows_, cols_);
  const Eigen::Index height = rows_ / m_;
  const Eigen::Index width = cols_ / n_;
  for (int r = 0; r < m_; ++r) {
    for (int c = 0; c < n_; ++c) {
      weights.block(r * height, c * width, height, width) = stored_[node_at(r, c)];
    }
  }
  return weights;
}

std::vector<int> CodenetGridScheme::participants(Direction dir) const {
  std::vector<int> nodes;
  for (std::size_t p = 0; p < positions_.size(); ++p) {
    const auto [r, c] = positions_[p];
    if (dir == Direction::forward ? c < n_ : r < m_) nodes.push_back(static_cast<int>(p));
  }
  return nodes;
}

Matrix CodenetGridScheme::encode_input(int node, Direction dir, const Matrix& input) const {
  CODESIM_CHECK(input.rows() == (dir == Direction::forward ? cols_ : rows_),
                "the input has N_in rows forward and N_out rows backward");
  const RowSlice slice = *input_slice(node, dir);
  return input.middleRows(slice.first, slice.count);
}

std::optional<RowSlice> CodenetGridScheme::input_slice(int node, Direction dir) const {
  const auto [r, c] = positions_.at(node);
  if (dir == Direction::forward) {
    CODESIM_CHECK(c < n_, "forward input at a node with c < n");
    const Eigen::Index width = cols_ / n_;
    return RowSlice{c * width, width};
  }
  CODESIM_CHECK(r < m_, "backward input at a node with r < m");
  const Eigen::Index height = rows_ / m_;
  return RowSlice{r * height, height};
}

Matrix CodenetGridScheme::multiply(int node, Direction dir,
                                   const Eigen::Ref<const Matrix>& encoded_input) const {
  return detail::block_product(kernels_, stored_.at(node), dir, encoded_input);
}

int CodenetGridScheme::symbol_count(Direction dir) const {
  return dir == Direction::forward ? grid_rows_ : grid_cols_;
}

std::vector<int> CodenetGridScheme::symbol_members(Direction dir, int symbol) const {
  std::vector<int> members;
  if (dir == Direction::forward) {
    for (int c = 0; c < n_; ++c) members.push_back(node_at(symbol, c));
  } else {
    for (int r = 0; r < m_; ++r) members.push_back(node_at(r, symbol));
  }
  return detail::sorted_unique(members);
}

const Matrix* CodenetGridScheme::symbol_generator(Direction dir) const {
  return &(dir == Direction::forward ? row_code_ : column_code_).generator();
}

ProductDecode CodenetGridScheme::decode(Direction dir,
                                        std::span<const std::optional<Matrix>> symbols,
                                        const DecodeOptions& options) const {
  const bool forward = dir == Direction::forward;
  DecodeOptions local = options;
  // A symbol entry is a dot product over all of x (or delta) plus the generator combination.
  local.inner_dimension = std::max(options.inner_dimension, (forward ? cols_ : rows_) + m_ + n_);
  int symbol_rows = 0;
  int symbol_cols = 0;
  const CodeDecodeResult result = detail::decode_codeword(
      forward ? row_code_ : column_code_, symbols, local, &symbol_rows, &symbol_cols);
  ProductDecode out;
  out.status = result.status;
  out.condition_number = result.condition_number;
  for (int s : result.erroneous_symbols) {
    for (int node : symbol_members(dir, s)) out.blamed_nodes.push_back(node);
  }
  out.blamed_nodes = detail::sorted_unique(out.blamed_nodes);
  if (out.status == DecodeStatus::detected) return out;
  const int parts = forward ? m_ : n_;
  CODESIM_CHECK(symbol_rows == (forward ? rows_ / m_ : cols_ / n_), "symbols have block height");
  out.product.resize(static_cast<Eigen::Index>(parts) * symbol_rows, symbol_cols);
  for (int b = 0; b < parts; ++b) {
    out.product.middleRows(static_cast<Eigen::Index>(b) * symbol_rows, symbol_rows) =
        detail::message_block(result, b, symbol_rows, symbol_cols);
  }
  return out;
}

void CodenetGridScheme::update(int node, const Matrix& delta, const Matrix& input, double eta) {
  CODESIM_CHECK(delta.rows() == rows_ && input.rows() == cols_ && delta.cols() == input.cols(),
                "D is N_out x B and X is N_in x B");
  const auto [r, c] = positions_.at(node);
  // W~_rc += eta (sum_k G_r(r, k) D_k) (sum_l G_c(c, l) X_l)^T.
  const Matrix delta_hat = eta * detail::combine_row_blocks(delta, row_code_.generator().row(r));
  const Matrix input_hat = detail::combine_row_blocks(input, column_code_.generator().row(c));
  kernels_.add_outer_product(stored_.at(node), 1.0, delta_hat, input_hat);
}

bool CodenetGridScheme::regenerate_along(int node, const std::vector<int>& line, bool column,
                                         std::span<const int> healthy) {
  // Along a column the blocks are a code with generator rows G_r(r', :); along a row, G_c(c', :).
  const Matrix& generator = column ? row_code_.generator() : column_code_.generator();
  const auto index_in_line = [&](int id) {
    return column ? positions_[id].first : positions_[id].second;
  };
  std::vector<int> sources;
  std::vector<int> generator_rows;
  for (int id : line) {
    if (id != node && detail::contains(healthy, id)) {
      sources.push_back(id);
      generator_rows.push_back(index_in_line(id));
    }
  }
  const auto coefficients = detail::combination_coefficients(generator, generator_rows,
                                                             generator.row(index_in_line(node)));
  if (!coefficients) return false;
  std::vector<const Matrix*> blocks;
  for (int id : sources) blocks.push_back(&stored_[id]);
  stored_[node] = detail::linear_combination(*coefficients, blocks);
  return true;
}

bool CodenetGridScheme::regenerate(int node, std::span<const int> healthy) {
  const auto [r, c] = positions_.at(node);
  return regenerate_along(node, column_nodes(c), true, healthy) ||
         regenerate_along(node, row_nodes(r), false, healthy);
}

std::vector<int> CodenetGridScheme::regeneration_sources(int node,
                                                         std::span<const int> exclude) const {
  const auto [r, c] = positions_.at(node);
  const auto pick = [&](const std::vector<int>& line, int needed) {
    std::vector<int> chosen;
    for (int id : line) {
      if (id != node && !detail::contains(exclude, id) && static_cast<int>(chosen.size()) < needed)
        chosen.push_back(id);
    }
    return static_cast<int>(chosen.size()) == needed ? chosen : std::vector<int>{};
  };
  if (auto chosen = pick(column_nodes(c), m_); !chosen.empty()) return chosen;
  return pick(row_nodes(r), n_);
}

}  // namespace codesim::models
