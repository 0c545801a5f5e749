// Helpers shared by the coding-scheme implementations.
#include "models/coding/scheme_support.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "sim/check.hpp"

namespace codesim::models::detail {

Matrix block_product(const DenseKernels& kernels, const Eigen::Ref<const Matrix>& block,
                     Direction dir, const Eigen::Ref<const Matrix>& input) {
  if (dir == Direction::forward) {
    CODESIM_CHECK(input.rows() == block.cols(), "the input matches the block");
    return kernels.product(block, input);
  }
  CODESIM_CHECK(input.rows() == block.rows(), "the input matches the block");
  return kernels.transposed_product(block, input);
}

Matrix row_block(const Matrix& matrix, int parts, int index) {
  const Eigen::Index height = matrix.rows() / parts;
  return matrix.middleRows(index * height, height);
}

Matrix grid_block(const Matrix& matrix, int row_parts, int col_parts, int i, int j) {
  const Eigen::Index height = matrix.rows() / row_parts;
  const Eigen::Index width = matrix.cols() / col_parts;
  return matrix.block(i * height, j * width, height, width);
}

Matrix combine_row_blocks(const Matrix& matrix, const Eigen::RowVectorXd& weights) {
  const auto parts = static_cast<int>(weights.size());
  const Eigen::Index height = matrix.rows() / parts;
  std::vector<int> used;
  for (int k = 0; k < parts; ++k) {
    if (weights(k) != 0.0) used.push_back(k);
  }
  if (used.empty()) return Matrix::Zero(height, matrix.cols());
  Matrix sum(height, matrix.cols());
  // Column by column, so the partial sums stay in cache: the result is written to memory once.
  // The first term initializes the sum and terms are added in ascending k.
  for (Eigen::Index c = 0; c < matrix.cols(); ++c) {
    auto out = sum.col(c);
    const auto column = matrix.col(c);
    out.noalias() = weights(used[0]) * column.segment(used[0] * height, height);
    for (std::size_t i = 1; i < used.size(); ++i) {
      out.noalias() += weights(used[i]) * column.segment(used[i] * height, height);
    }
  }
  return sum;
}

std::vector<bool> absurd_symbols(std::span<const std::optional<Matrix>> symbols, int needed,
                                 double absurd_ratio) {
  std::vector<double> peaks(symbols.size(), -1.0);
  for (std::size_t s = 0; s < symbols.size(); ++s) {
    if (symbols[s]) peaks[s] = symbol_peak(symbols[s]->data(), symbols[s]->size());
  }
  return absurd_peaks(peaks, needed, absurd_ratio);
}

CodeDecodeResult decode_codeword(const LinearCode& code,
                                 std::span<const std::optional<Matrix>> symbols,
                                 const DecodeOptions& options, int* symbol_rows, int* symbol_cols,
                                 std::span<const int> wanted_rows) {
  CODESIM_CHECK(static_cast<int>(symbols.size()) == code.symbol_count(),
                "one entry per symbol of the code");
  Eigen::Index rows = -1;
  Eigen::Index cols = -1;
  // Column-major storage is already the flattened symbol: view it in place.
  std::vector<const double*> flat(symbols.size(), nullptr);
  for (std::size_t s = 0; s < symbols.size(); ++s) {
    if (!symbols[s]) continue;
    const Matrix& symbol = *symbols[s];
    if (rows < 0) {
      rows = symbol.rows();
      cols = symbol.cols();
    }
    CODESIM_CHECK(symbol.rows() == rows && symbol.cols() == cols, "symbols of equal shape");
    flat[s] = symbol.data();
  }
  *symbol_rows = static_cast<int>(std::max<Eigen::Index>(rows, 0));
  *symbol_cols = static_cast<int>(std::max<Eigen::Index>(cols, 0));
  const Eigen::Index length = std::max<Eigen::Index>(rows * cols, 0);
  // Absurd symbols (against the K-th smallest peak) are screened inside the decode, after its
  // first pass has measured the peaks.
  return code.decode(flat, length, options, wanted_rows, {}, code.dimension());
}

MessageView message_block(const CodeDecodeResult& result, int k, int rows, int cols) {
  // Message row k, contiguous, is the symbol flattened column by column.
  CODESIM_CHECK(result.message.cols() == static_cast<Eigen::Index>(rows) * cols,
                "message rows are rows x cols symbols");
  return MessageView(result.message.row(k).data(), rows, cols);
}

ProductDecode message_product(const CodingScheme& scheme, Direction dir,
                              const CodeDecodeResult& result, int symbol_rows, int symbol_cols,
                              int block_rows) {
  ProductDecode out;
  out.status = result.status;
  out.condition_number = result.condition_number;
  for (int s : result.erroneous_symbols) {
    for (int node : scheme.symbol_members(dir, s)) out.blamed_nodes.push_back(node);
  }
  out.blamed_nodes = sorted_unique(std::move(out.blamed_nodes));
  if (out.status == DecodeStatus::detected) return out;
  CODESIM_CHECK(symbol_rows == block_rows, "symbols have block height");
  const Eigen::Index parts = result.message.rows();
  out.product.resize(parts * symbol_rows, symbol_cols);
  for (Eigen::Index b = 0; b < parts; ++b) {
    out.product.middleRows(b * symbol_rows, symbol_rows) =
        message_block(result, static_cast<int>(b), symbol_rows, symbol_cols);
  }
  return out;
}

std::optional<Eigen::RowVectorXd> combination_coefficients(const Matrix& generator,
                                                           std::span<const int> sources,
                                                           const Eigen::RowVectorXd& target) {
  const auto dimension = generator.cols();
  if (static_cast<Eigen::Index>(sources.size()) < dimension) return std::nullopt;
  Matrix rows(static_cast<Eigen::Index>(sources.size()), dimension);
  for (std::size_t s = 0; s < sources.size(); ++s) {
    rows.row(static_cast<Eigen::Index>(s)) = generator.row(sources[s]);
  }
  // Minimum-norm solution of rows^T c^T = target^T keeps the round-off of the combination small.
  Eigen::CompleteOrthogonalDecomposition<Matrix> decomposition(rows.transpose());
  if (decomposition.rank() < dimension) return std::nullopt;
  return Eigen::RowVectorXd(decomposition.solve(target.transpose()).transpose());
}

Matrix linear_combination(const Eigen::RowVectorXd& coefficients,
                          std::span<const Matrix* const> blocks) {
  CODESIM_CHECK(!blocks.empty() && coefficients.size() == static_cast<Eigen::Index>(blocks.size()),
                "one coefficient per block");
  Matrix sum = Matrix::Zero(blocks[0]->rows(), blocks[0]->cols());
  for (std::size_t s = 0; s < blocks.size(); ++s) {
    const double weight = coefficients(static_cast<Eigen::Index>(s));
    if (weight != 0.0) sum.noalias() += weight * *blocks[s];
  }
  return sum;
}

std::vector<int> healthy_others(int node, std::span<const int> healthy, int nodes) {
  std::vector<int> others;
  for (int p : healthy) {
    if (p != node && p >= 0 && p < nodes) others.push_back(p);
  }
  return sorted_unique(std::move(others));
}

std::vector<int> remaining_others(int node, std::span<const int> exclude, int nodes) {
  std::vector<int> others;
  for (int p = 0; p < nodes; ++p) {
    if (p != node && !contains(exclude, p)) others.push_back(p);
  }
  return others;
}

std::vector<int> spread_selection(const std::vector<int>& candidates, int count) {
  CODESIM_CHECK(count >= 0 && count <= static_cast<int>(candidates.size()), "enough candidates");
  std::vector<int> chosen;
  if (count == 0) return chosen;
  const auto size = static_cast<long long>(candidates.size());
  for (long long t = 0; t < count; ++t) {
    // Rounded even spacing; strictly increasing because count <= size.
    const long long index = count == 1 ? 0 : (t * (size - 1) + (count - 1) / 2) / (count - 1);
    chosen.push_back(candidates[static_cast<std::size_t>(index)]);
  }
  return chosen;
}

std::vector<std::vector<int>> single_node_symbols(int nodes) {
  std::vector<std::vector<int>> symbols(static_cast<std::size_t>(nodes));
  for (int p = 0; p < nodes; ++p) symbols[static_cast<std::size_t>(p)] = {p};
  return symbols;
}

DecodeStatus worse(DecodeStatus a, DecodeStatus b) {
  return static_cast<int>(a) >= static_cast<int>(b) ? a : b;
}

std::vector<int> sorted_unique(std::vector<int> values) {
  std::sort(values.begin(), values.end());
  values.erase(std::unique(values.begin(), values.end()), values.end());
  return values;
}

bool contains(std::span<const int> values, int value) {
  return std::find(values.begin(), values.end(), value) != values.end();
}

}  // namespace codesim::models::detail
