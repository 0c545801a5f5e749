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

SchemeProblem validate(const CodenetGridSpec& spec, int rows, int cols) {
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

SchemeSummary summarize(const CodenetGridSpec& spec, double out_length, double in_length) {
  const int nodes = spec.m * spec.grid_cols + spec.n * (spec.grid_rows - spec.m);
  // Each node stores one block of W split into m n parts. Worst case: each erroneous node spoils
  // a different grid row (column).
  return scheme_summary(nodes, 1, spec.m * spec.n,
                        mds_direction(spec.grid_rows, spec.m, out_length, spec.m),
                        mds_direction(spec.grid_cols, spec.n, in_length, spec.n));
}

std::unique_ptr<CodingScheme> build(const CodenetGridSpec& spec, int rows, int cols,
                                    const SchemeContext& context) {
  return std::make_unique<CodenetGridScheme>(spec.m, spec.n, spec.grid_rows, spec.grid_cols,
                                             spec.seed, rows, cols, context);
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
          },
      .validate = detail::on_spec<validate>,
      .summarize = detail::on_spec<summarize>,
      .build = detail::on_spec<build>,
      .example = {5, 4, 7, 6}};
  return descriptor;
}

CodenetGridScheme::CodenetGridScheme(int m, int n, int grid_rows, int grid_cols, std::uint64_t seed,
                                     int rows, int cols, const SchemeContext& context)
    : CodenetGridScheme(codenet_grid_spec(m, n, grid_rows, grid_cols, seed),
                        CodenetGridSpec{m, n, grid_rows, grid_cols, seed}, rows, cols, context,
                        false) {}

CodenetGridScheme::CodenetGridScheme(const AbftCodenetSpec& spec, int rows, int cols,
                                     const SchemeContext& context)
    : CodenetGridScheme(spec, spec, rows, cols, context, true) {}

CodenetGridScheme::CodenetGridScheme(const SchemeSpec& spec, const CodenetGridSpec& grid, int rows,
                                     int cols, const SchemeContext& context, bool checksummed)
    : SingleBlockScheme(spec, rows, cols, context, checksummed),
      m_(grid.m),
      n_(grid.n),
      grid_rows_(grid.grid_rows),
      grid_cols_(grid.grid_cols),
      row_code_(systematic_gaussian_generator(grid_rows_, m_,
                                              generator_seed(grid.seed, "codenet_grid_rows")),
                context.arithmetic),
      column_code_(systematic_gaussian_generator(grid_cols_, n_,
                                                 generator_seed(grid.seed, "codenet_grid_cols")),
                   context.arithmetic) {
  for (int r = 0; r < grid_rows_; ++r) {
    for (int c = 0; c < grid_cols_; ++c) {
      if (r < m_ || c < n_) positions_.emplace_back(r, c);
    }
  }
  CODESIM_CHECK(static_cast<int>(positions_.size()) == node_count(), "P = m P_c + n (P_r - m)");
  // Forward symbol r is grid row r (its nodes with c < n), backward symbol c grid column c (its
  // nodes with r < m). Nodes are visited in ascending order, so each symbol's members ascend.
  std::vector<std::vector<int>> forward(static_cast<std::size_t>(grid_rows_));
  std::vector<std::vector<int>> backward(static_cast<std::size_t>(grid_cols_));
  for (std::size_t p = 0; p < positions_.size(); ++p) {
    const auto [r, c] = positions_[p];
    if (c < n_) forward[static_cast<std::size_t>(r)].push_back(static_cast<int>(p));
    if (r < m_) backward[static_cast<std::size_t>(c)].push_back(static_cast<int>(p));
  }
  set_symbols(std::move(forward), std::move(backward));
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
  check_weights(weights);
  const Matrix& g_r = row_code_.generator();
  const Matrix& g_c = column_code_.generator();
  for (auto& block : stored_) block.setZero();
  for (int k = 0; k < m_; ++k) {
    for (int l = 0; l < n_; ++l) {
      const Matrix block = detail::grid_block(weights, m_, n_, k, l);
      for (std::size_t p = 0; p < positions_.size(); ++p) {
        const auto [r, c] = positions_[p];
        const double weight = g_r(r, k) * g_c(c, l);
        if (weight != 0.0) share(static_cast<int>(p)).noalias() += weight * block;
      }
    }
  }
  refresh_checksums();
}

Matrix CodenetGridScheme::decode_weights() const {
  Matrix weights(rows(), cols());
  const Eigen::Index height = rows() / m_;
  const Eigen::Index width = cols() / n_;
  for (int r = 0; r < m_; ++r) {
    for (int c = 0; c < n_; ++c) {
      weights.block(r * height, c * width, height, width) = share(node_at(r, c));
    }
  }
  return weights;
}

std::optional<RowSlice> CodenetGridScheme::input_slice(int node, Direction dir) const {
  const auto [r, c] = positions_.at(node);
  if (dir == Direction::forward) {
    CODESIM_CHECK(c < n_, "forward input at a node with c < n");
    const Eigen::Index width = cols() / n_;
    return RowSlice{c * width, width};
  }
  CODESIM_CHECK(r < m_, "backward input at a node with r < m");
  const Eigen::Index height = rows() / m_;
  return RowSlice{r * height, height};
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
  local.inner_dimension = std::max(options.inner_dimension, input_length(dir) + m_ + n_);
  int symbol_rows = 0;
  int symbol_cols = 0;
  const CodeDecodeResult result = detail::decode_codeword(
      forward ? row_code_ : column_code_, symbols, local, &symbol_rows, &symbol_cols);
  return detail::message_product(*this, dir, result, symbol_rows, symbol_cols,
                                 forward ? rows() / m_ : cols() / n_);
}

void CodenetGridScheme::update(int node, const Matrix& delta, const Matrix& input, double eta) {
  check_update(delta, input);
  const auto [r, c] = positions_.at(node);
  // W~_rc += eta (sum_k G_r(r, k) D_k) (sum_l G_c(c, l) X_l)^T.
  const Matrix delta_hat = eta * detail::combine_row_blocks(delta, row_code_.generator().row(r));
  const Matrix input_hat = detail::combine_row_blocks(input, column_code_.generator().row(c));
  add_to_block(node, delta_hat, input_hat);
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
