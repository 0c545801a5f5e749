// Helpers shared by the coding-scheme implementations.
#include "models/coding/scheme_support.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "sim/check.hpp"

namespace codesim::models::detail {

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
  Matrix sum;
  for (int k = 0; k < parts; ++k) {
    if (weights(k) == 0.0) continue;
    // The first term initializes the sum: one pass fewer than zero-filling first.
    if (sum.size() == 0) {
      sum.noalias() = weights(k) * matrix.middleRows(k * height, height);
    } else {
      sum.noalias() += weights(k) * matrix.middleRows(k * height, height);
    }
  }
  if (sum.size() == 0) sum = Matrix::Zero(height, matrix.cols());
  return sum;
}

namespace {

// Largest |entry| of data[0..size), copying the entries to `copy` when it is not null; infinite
// when an entry is NaN or Inf (NaN fails every comparison). One pass over the data.
double peak_of(const double* data, Eigen::Index size, double* copy) {
  double peak = 0.0;
  bool finite = true;
  for (Eigen::Index i = 0; i < size; ++i) {
    if (copy != nullptr) copy[i] = data[i];
    const double magnitude = std::abs(data[i]);
    finite = finite && magnitude <= std::numeric_limits<double>::max();
    peak = magnitude > peak ? magnitude : peak;
  }
  return finite ? peak : std::numeric_limits<double>::infinity();
}

// Marks peaks that are infinite or above absurd_ratio times the needed-th smallest nonzero peak
// (negative peaks are absent symbols).
std::vector<bool> absurd_peaks(const std::vector<double>& peaks, int needed, double absurd_ratio) {
  std::vector<bool> absurd(peaks.size(), false);
  std::vector<double> nonzero;
  for (std::size_t s = 0; s < peaks.size(); ++s) {
    if (std::isinf(peaks[s])) absurd[s] = true;
    if (peaks[s] > 0.0 && !absurd[s]) nonzero.push_back(peaks[s]);
  }
  if (needed < 1 || static_cast<int>(nonzero.size()) < needed) return absurd;
  const auto reference = nonzero.begin() + (needed - 1);
  std::nth_element(nonzero.begin(), reference, nonzero.end());
  for (std::size_t s = 0; s < peaks.size(); ++s) {
    if (peaks[s] > absurd_ratio * *reference) absurd[s] = true;
  }
  return absurd;
}

}  // namespace

std::vector<bool> absurd_symbols(std::span<const std::optional<Matrix>> symbols, int needed,
                                 double absurd_ratio) {
  std::vector<double> peaks(symbols.size(), -1.0);
  for (std::size_t s = 0; s < symbols.size(); ++s) {
    if (symbols[s]) peaks[s] = peak_of(symbols[s]->data(), symbols[s]->size(), nullptr);
  }
  return absurd_peaks(peaks, needed, absurd_ratio);
}

CodeDecodeResult decode_codeword(const LinearCode& code,
                                 std::span<const std::optional<Matrix>> symbols,
                                 const DecodeOptions& options, int* symbol_rows, int* symbol_cols) {
  CODESIM_CHECK(static_cast<int>(symbols.size()) == code.symbol_count(),
                "one entry per symbol of the code");
  Eigen::Index rows = -1;
  Eigen::Index cols = -1;
  std::vector<double> peaks(symbols.size(), -1.0);
  std::vector<std::optional<Eigen::RowVectorXd>> flat(symbols.size());
  for (std::size_t s = 0; s < symbols.size(); ++s) {
    if (!symbols[s]) continue;
    const Matrix& symbol = *symbols[s];
    if (rows < 0) {
      rows = symbol.rows();
      cols = symbol.cols();
    }
    CODESIM_CHECK(symbol.rows() == rows && symbol.cols() == cols, "symbols of equal shape");
    // Flatten (column-major) and measure in the same pass.
    flat[s].emplace(symbol.size());
    peaks[s] = peak_of(symbol.data(), symbol.size(), flat[s]->data());
  }
  const std::vector<bool> absurd = absurd_peaks(peaks, code.dimension(), options.absurd_ratio);
  for (std::size_t s = 0; s < symbols.size(); ++s) {
    if (absurd[s]) flat[s].reset();
  }
  *symbol_rows = static_cast<int>(std::max<Eigen::Index>(rows, 0));
  *symbol_cols = static_cast<int>(std::max<Eigen::Index>(cols, 0));
  CodeDecodeResult result = code.decode(flat, options);
  for (std::size_t s = 0; s < symbols.size(); ++s) {
    if (absurd[s]) result.erroneous_symbols.push_back(static_cast<int>(s));
  }
  result.erroneous_symbols = sorted_unique(std::move(result.erroneous_symbols));
  if (result.status == DecodeStatus::clean && !result.erroneous_symbols.empty()) {
    result.status = DecodeStatus::corrected;
  }
  return result;
}

MessageView message_block(const CodeDecodeResult& result, int k, int rows, int cols) {
  // Entry (r, c) of the symbol is message(k, r + c rows), stored at k + (r + c rows) K.
  const Eigen::Index dimension = result.message.rows();
  return MessageView(result.message.data() + k, rows, cols,
                     Eigen::Stride<Eigen::Dynamic, Eigen::Dynamic>(rows * dimension, dimension));
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
