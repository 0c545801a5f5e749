// Helpers shared by the coding-scheme implementations: block slicing, symbol flattening,
// codeword decoding, the linear combinations used for regeneration, and the adapter that lets a
// scheme write its descriptor's rules on its own spec type.
#pragma once

#include <optional>
#include <span>
#include <variant>
#include <vector>

#include "models/coding/coding_scheme.hpp"

namespace codesim::models::detail {

/// Rows [index * rows / parts, (index + 1) * rows / parts) of `matrix`; parts divides rows.
Matrix row_block(const Matrix& matrix, int parts, int index);
/// Block (i, j) of `matrix` split into row_parts x col_parts equal blocks.
Matrix grid_block(const Matrix& matrix, int row_parts, int col_parts, int i, int j);
/// A node's partial result from one stored block: block * input forward, block^T * input
/// backward, on the run's kernels (checks that the input's length matches the block).
Matrix block_product(const DenseKernels& kernels, const Eigen::Ref<const Matrix>& block,
                     Direction dir, const Eigen::Ref<const Matrix>& input);
/// Sum over k of weights[k] * row_block(matrix, weights.size(), k), skipping zero weights.
Matrix combine_row_blocks(const Matrix& matrix, const Eigen::RowVectorXd& weights);

/// Symbols holding NaN or Inf, or whose largest |entry| exceeds absurd_ratio times the
/// `needed`-th smallest nonzero peak. Within the detection bound at least `needed` present symbols
/// are correct, so that reference is no larger than the correct data however many symbols are
/// absurd (a median would be inflated once half of them are).
std::vector<bool> absurd_symbols(std::span<const std::optional<Matrix>> symbols, int needed,
                                 double absurd_ratio);

/// Decodes one codeword whose symbols are equally shaped matrices (flattened column-major into
/// rows for LinearCode, read in place: no copy). Absurd symbols (see absurd_symbols with K = the
/// code's dimension) are erased first and reported among the erroneous symbols. With
/// `wanted_rows` (in [0, K); empty = all) only those message rows are solved and the message
/// holds them in that order. Message row i unflattens with `message_block`.
CodeDecodeResult decode_codeword(const LinearCode& code,
                                 std::span<const std::optional<Matrix>> symbols,
                                 const DecodeOptions& options, int* symbol_rows, int* symbol_cols,
                                 std::span<const int> wanted_rows = {});
/// A view into one row of a decode's message.
using MessageView = Eigen::Map<const Matrix>;
/// Message row `k` of a decode viewed (no copy) as the rows x cols symbol it was flattened from;
/// valid while `result` lives.
MessageView message_block(const CodeDecodeResult& result, int k, int rows, int cols);

/// The decoded product of one codeword whose message rows are the product's block rows (stacked
/// in message order; each symbol_rows x symbol_cols, checked against `block_rows`), with the
/// decode's status and condition number, blaming the members of its erroneous symbols.
ProductDecode message_product(const CodingScheme& scheme, Direction dir,
                              const CodeDecodeResult& result, int symbol_rows, int symbol_cols,
                              int block_rows);

/// Row vector c with c * generator(sources, :) = target (the minimum-norm one when there are
/// more sources than columns); nullopt when the source rows do not have full column rank.
std::optional<Eigen::RowVectorXd> combination_coefficients(const Matrix& generator,
                                                           std::span<const int> sources,
                                                           const Eigen::RowVectorXd& target);
/// sum_s coefficients[s] * blocks[s].
Matrix linear_combination(const Eigen::RowVectorXd& coefficients,
                          std::span<const Matrix* const> blocks);

/// The nodes of `healthy` in 0 .. nodes - 1 other than `node`, ascending, once each.
std::vector<int> healthy_others(int node, std::span<const int> healthy, int nodes);
/// The nodes 0 .. nodes - 1 other than `node` and those in `exclude`, ascending.
std::vector<int> remaining_others(int node, std::span<const int> exclude, int nodes);
/// `count` of the sorted `candidates`, spread evenly over the list (first and last included), so
/// that evaluation points chosen from it stay well spread. Precondition: count <= size.
std::vector<int> spread_selection(const std::vector<int>& candidates, int count);
/// Symbol p = {p} for p in 0 .. nodes - 1: the symbols of schemes whose nodes each send one.
std::vector<std::vector<int>> single_node_symbols(int nodes);
/// The more severe of two statuses (clean < corrected < detected).
DecodeStatus worse(DecodeStatus a, DecodeStatus b);
/// Sorted copy without duplicates.
std::vector<int> sorted_unique(std::vector<int> values);
/// True when `value` is in `values`.
bool contains(std::span<const int> values, int value);

/// A scheme's rule written on its own spec type, rule(const Spec&, args...), as the descriptor's
/// entry on SchemeSpec: on_spec<rule> takes a SchemeSpec holding a Spec, then the same args.
template <auto rule>
struct OnSpec;
template <typename Result, typename Spec, typename... Args, Result (*rule)(const Spec&, Args...)>
struct OnSpec<rule> {
  static Result call(const SchemeSpec& spec, Args... args) {
    return rule(std::get<Spec>(spec), args...);
  }
};
template <auto rule>
inline constexpr auto on_spec = &OnSpec<rule>::call;

}  // namespace codesim::models::detail
