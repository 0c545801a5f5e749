// Replication: r copies of the block grid, each block row (column) a repetition code.
#include "models/coding/replication_scheme.hpp"

#include <algorithm>

#include "models/coding/scheme_support.hpp"
#include "models/linalg/dense_kernels.hpp"
#include "sim/check.hpp"

namespace codesim::models {

const SchemeDescriptor& replication_descriptor() {
  static const SchemeDescriptor descriptor = {
      .kind = SchemeKind::replication,
      .name = "replication",
      .doc = "copies of the m x n block grid; 2 copies detect, 3 or more correct by majority",
      .fields = block_split_fields(
          {integer_field("copies", "copies", "copies of the grid", 2, kMaxSchemeSplit, 2)}),
      .make = [](std::span<const int> v) -> SchemeSpec {
        return replication_spec(v[0], v[1], v[2]);
      },
      .values =
          [](const SchemeSpec& spec) {
            const auto& s = std::get<ReplicationSpec>(spec);
            return std::vector<int>{s.m, s.n, s.copies};
          }};
  return descriptor;
}

SchemeProblem validate_spec(const ReplicationSpec& spec, int rows, int cols) {
  if (SchemeProblem problem = check_grid_divides(spec.m, spec.n, rows, cols); !problem.empty()) {
    return problem;
  }
  if (static_cast<long long>(spec.copies) * spec.m * spec.n > kMaxSchemeNodes) {
    return {"copies", "copies x m x n exceeds " + std::to_string(kMaxSchemeNodes) + " nodes"};
  }
  return {};
}

SchemeSummary repetition_summary(int m, int n, int copies, double out_length, double in_length) {
  SchemeSummary summary;
  summary.nodes = copies * m * n;
  // Worst case: all errors on the copies of one block; threshold: one copy of each block.
  for (auto* capability : {&summary.forward, &summary.backward}) {
    *capability = mds_capability(copies, 1);
  }
  summary.forward.recovery_threshold = m;
  summary.backward.recovery_threshold = n;
  set_traffic(summary.forward, out_length / m, copies * out_length);
  set_traffic(summary.backward, in_length / n, copies * in_length);
  set_storage(summary, 1, m * n);  // one block of W split into m n parts
  return summary;
}

SchemeSummary summarize_spec(const ReplicationSpec& spec, double out_length, double in_length) {
  SchemeSummary summary = repetition_summary(spec.m, spec.n, spec.copies, out_length, in_length);
  summary.scheme = "replication";
  return summary;
}

std::unique_ptr<CodingScheme> make_coding_scheme(const ReplicationSpec& spec, int rows, int cols,
                                                 Arithmetic arithmetic) {
  return std::make_unique<ReplicationScheme>(spec.m, spec.n, spec.copies, rows, cols, arithmetic);
}

ReplicationScheme::ReplicationScheme(int m, int n, int copies, int rows, int cols,
                                     Arithmetic arithmetic)
    : ReplicationScheme(m, n, copies, summarize_scheme(replication_spec(m, n, copies), rows, cols),
                        rows, cols, arithmetic) {
  CODESIM_CHECK(validate_scheme(replication_spec(m, n, copies), rows, cols).empty(),
                "valid replication parameters");
}

ReplicationScheme::ReplicationScheme(int m, int n, int copies, SchemeSummary summary, int rows,
                                     int cols, Arithmetic arithmetic)
    : m_(m),
      n_(n),
      copies_(copies),
      rows_(rows),
      cols_(cols),
      repetition_code_(Matrix::Ones(copies, 1), arithmetic),
      summary_(std::move(summary)),
      kernels_(arithmetic) {
  CODESIM_CHECK(copies_ >= 1 && summary_.nodes == copies_ * m_ * n_, "nodes = copies m n");
  stored_.assign(summary_.nodes, Matrix::Zero(rows_ / m_, cols_ / n_));
}

void ReplicationScheme::encode(const Matrix& weights) {
  CODESIM_CHECK(weights.rows() == rows_ && weights.cols() == cols_, "W has the scheme's shape");
  for (int r = 0; r < m_; ++r) {
    for (int c = 0; c < n_; ++c) {
      const Matrix block = detail::grid_block(weights, m_, n_, r, c);
      for (int copy = 0; copy < copies_; ++copy) stored_[(copy * m_ + r) * n_ + c] = block;
    }
  }
}

Matrix ReplicationScheme::decode_weights() const {
  Matrix weights(rows_, cols_);
  const Eigen::Index height = rows_ / m_;
  const Eigen::Index width = cols_ / n_;
  for (int r = 0; r < m_; ++r) {
    for (int c = 0; c < n_; ++c) {
      weights.block(r * height, c * width, height, width) = stored_[r * n_ + c];
    }
  }
  return weights;
}

std::vector<int> ReplicationScheme::participants(Direction) const {
  std::vector<int> all(stored_.size());
  for (std::size_t p = 0; p < all.size(); ++p) all[p] = static_cast<int>(p);
  return all;
}

Matrix ReplicationScheme::encode_input(int node, Direction dir, const Matrix& input) const {
  CODESIM_CHECK(input.rows() == (dir == Direction::forward ? cols_ : rows_),
                "the input has N_in rows forward and N_out rows backward");
  const RowSlice slice = *input_slice(node, dir);
  return input.middleRows(slice.first, slice.count);
}

std::optional<RowSlice> ReplicationScheme::input_slice(int node, Direction dir) const {
  const int within = node % (m_ * n_);
  if (dir == Direction::forward) {
    const Eigen::Index width = cols_ / n_;
    return RowSlice{(within % n_) * width, width};
  }
  const Eigen::Index height = rows_ / m_;
  return RowSlice{(within / n_) * height, height};
}

Matrix ReplicationScheme::multiply(int node, Direction dir,
                                   const Eigen::Ref<const Matrix>& encoded_input) const {
  return detail::block_product(kernels_, stored_.at(node), dir, encoded_input);
}

int ReplicationScheme::symbol_count(Direction dir) const {
  return copies_ * (dir == Direction::forward ? m_ : n_);
}

std::vector<int> ReplicationScheme::symbol_members(Direction dir, int symbol) const {
  std::vector<int> members;
  if (dir == Direction::forward) {
    const int copy = symbol / m_;
    const int r = symbol % m_;
    for (int c = 0; c < n_; ++c) members.push_back((copy * m_ + r) * n_ + c);
  } else {
    const int copy = symbol / n_;
    const int c = symbol % n_;
    for (int r = 0; r < m_; ++r) members.push_back((copy * m_ + r) * n_ + c);
  }
  return members;
}

ProductDecode ReplicationScheme::decode(Direction dir,
                                        std::span<const std::optional<Matrix>> symbols,
                                        const DecodeOptions& options) const {
  const bool forward = dir == Direction::forward;
  const int blocks = forward ? m_ : n_;
  CODESIM_CHECK(static_cast<int>(symbols.size()) == copies_ * blocks, "one entry per symbol");
  DecodeOptions local = options;
  local.inner_dimension = std::max(options.inner_dimension, (forward ? cols_ : rows_) + 1);
  ProductDecode out;
  out.status = DecodeStatus::clean;
  // Absurd magnitudes are judged against the smallest symbol of the whole product: a codeword of
  // one or two copies has nothing to compare with, and any other rank could be an absurd value
  // itself (uncoded has no correct majority to rely on). Screened symbols become blamed erasures.
  const std::vector<bool> screened = detail::absurd_symbols(symbols, 1, options.absurd_ratio);
  for (std::size_t s = 0; s < symbols.size(); ++s) {
    if (!screened[s]) continue;
    out.status = DecodeStatus::corrected;
    for (int node : symbol_members(dir, static_cast<int>(s))) out.blamed_nodes.push_back(node);
  }
  std::vector<Matrix> parts;
  for (int b = 0; b < blocks; ++b) {
    // The copies of block row (column) b form one repetition codeword.
    std::vector<std::optional<Matrix>> codeword;
    for (int copy = 0; copy < copies_; ++copy) {
      const int s = copy * blocks + b;
      codeword.push_back(screened[s] ? std::nullopt : symbols[s]);
    }
    int symbol_rows = 0;
    int symbol_cols = 0;
    const CodeDecodeResult result =
        detail::decode_codeword(repetition_code_, codeword, local, &symbol_rows, &symbol_cols);
    out.status = detail::worse(out.status, result.status);
    out.condition_number = std::max(out.condition_number, result.condition_number);
    for (int copy : result.erroneous_symbols) {
      for (int node : symbol_members(dir, copy * blocks + b)) out.blamed_nodes.push_back(node);
    }
    if (result.status != DecodeStatus::detected) {
      parts.push_back(detail::message_block(result, 0, symbol_rows, symbol_cols));
    }
  }
  out.blamed_nodes = detail::sorted_unique(out.blamed_nodes);
  if (out.status == DecodeStatus::detected) return out;
  const Eigen::Index height = parts.front().rows();
  CODESIM_CHECK(height == (forward ? rows_ / m_ : cols_ / n_), "symbols have block height");
  out.product.resize(blocks * height, parts.front().cols());
  for (int b = 0; b < blocks; ++b) out.product.middleRows(b * height, height) = parts[b];
  return out;
}

void ReplicationScheme::update(int node, const Matrix& delta, const Matrix& input, double eta) {
  CODESIM_CHECK(delta.rows() == rows_ && input.rows() == cols_ && delta.cols() == input.cols(),
                "D is N_out x B and X is N_in x B");
  const int within = node % (m_ * n_);
  const Eigen::Index height = rows_ / m_;
  const Eigen::Index width = cols_ / n_;
  // eta D_r is formed first (so eta is not folded into the product); X_c is read in place.
  const Matrix delta_part = eta * delta.middleRows((within / n_) * height, height);
  kernels_.add_outer_product(stored_.at(node), 1.0, delta_part,
                             input.middleRows((within % n_) * width, width));
}

bool ReplicationScheme::regenerate(int node, std::span<const int> healthy) {
  const int within = node % (m_ * n_);
  for (int copy = 0; copy < copies_; ++copy) {
    const int source = copy * m_ * n_ + within;
    if (source != node && detail::contains(healthy, source)) {
      stored_.at(node) = stored_[source];
      return true;
    }
  }
  return false;
}

std::vector<int> ReplicationScheme::regeneration_sources(int node,
                                                         std::span<const int> exclude) const {
  // The first other copy of the same block.
  const int within = node % (m_ * n_);
  for (int copy = 0; copy < copies_; ++copy) {
    const int source = copy * m_ * n_ + within;
    if (source != node && !detail::contains(exclude, source)) return {source};
  }
  return {};
}

}  // namespace codesim::models
