// Replication: r copies of the block grid, each block row (column) a repetition code.
#include "models/coding/replication_scheme.hpp"

#include <algorithm>

#include "models/coding/scheme_support.hpp"
#include "models/linalg/dense_kernels.hpp"
#include "sim/check.hpp"

namespace codesim::models {

namespace {

SchemeProblem validate(const ReplicationSpec& spec, int rows, int cols) {
  if (SchemeProblem problem = check_grid_divides(spec.m, spec.n, rows, cols); !problem.empty()) {
    return problem;
  }
  if (static_cast<long long>(spec.copies) * spec.m * spec.n > kMaxSchemeNodes) {
    return {"copies", "copies x m x n exceeds " + std::to_string(kMaxSchemeNodes) + " nodes"};
  }
  return {};
}

SchemeSummary summarize(const ReplicationSpec& spec, double out_length, double in_length) {
  return repetition_summary(spec.m, spec.n, spec.copies, out_length, in_length);
}

std::unique_ptr<CodingScheme> build(const ReplicationSpec& spec, int rows, int cols,
                                    const SchemeContext& context) {
  return std::make_unique<ReplicationScheme>(spec.m, spec.n, spec.copies, rows, cols, context);
}

// One copy of each block (uncoded): when every symbol is present, unscreened and finite, the
// (1, 1) repetition decode returns each symbol as it is, and so does this, without its passes.
std::optional<ProductDecode> stack_plain_symbols(std::span<const std::optional<Matrix>> symbols,
                                                 const std::vector<bool>& screened) {
  for (std::size_t s = 0; s < symbols.size(); ++s) {
    if (!symbols[s] || screened[s] || !symbols[s]->allFinite()) return std::nullopt;
  }
  const Eigen::Index height = symbols.front()->rows();
  ProductDecode out;
  out.status = DecodeStatus::clean;
  out.condition_number = 1.0;
  out.product.resize(static_cast<Eigen::Index>(symbols.size()) * height, symbols.front()->cols());
  for (std::size_t s = 0; s < symbols.size(); ++s) {
    out.product.middleRows(static_cast<Eigen::Index>(s) * height, height) = *symbols[s];
  }
  return out;
}

}  // namespace

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
          },
      .validate = detail::on_spec<validate>,
      .summarize = detail::on_spec<summarize>,
      .build = detail::on_spec<build>,
      .repetition_copies =
          [](const SchemeSpec& spec) { return std::get<ReplicationSpec>(spec).copies; },
      .example = {5, 4, 2}};
  return descriptor;
}

SchemeSummary repetition_summary(int m, int n, int copies, double out_length, double in_length) {
  // Worst case: all errors on the copies of one block; threshold: one copy of each block.
  DirectionCapability forward = mds_capability(copies, 1);
  DirectionCapability backward = forward;
  forward.recovery_threshold = m;
  backward.recovery_threshold = n;
  set_traffic(forward, out_length / m, copies * out_length);
  set_traffic(backward, in_length / n, copies * in_length);
  // Each node stores one block of W split into m n parts.
  return scheme_summary(copies * m * n, 1, m * n, forward, backward);
}

ReplicationScheme::ReplicationScheme(int m, int n, int copies, int rows, int cols,
                                     const SchemeContext& context)
    : ReplicationScheme(replication_spec(m, n, copies), rows, cols, context) {}

ReplicationScheme::ReplicationScheme(const SchemeSpec& spec, int rows, int cols,
                                     const SchemeContext& context, bool checksummed)
    : SingleBlockScheme(spec, rows, cols, context, checksummed),
      m_(block_grid(spec).first),
      n_(block_grid(spec).second),
      copies_(repetition_copies(spec)),
      repetition_code_(Matrix::Ones(copies_, 1), context.arithmetic) {
  CODESIM_CHECK(copies_ >= 1 && node_count() == copies_ * m_ * n_, "nodes = copies m n");
  // Forward symbol copy * m + r is grid row r of that copy; backward symbol copy * n + c is grid
  // column c. Nodes are visited in ascending order, so each symbol's members are ascending.
  std::vector<std::vector<int>> forward(static_cast<std::size_t>(copies_ * m_));
  std::vector<std::vector<int>> backward(static_cast<std::size_t>(copies_ * n_));
  for (int copy = 0; copy < copies_; ++copy) {
    for (int r = 0; r < m_; ++r) {
      for (int c = 0; c < n_; ++c) {
        const int node = (copy * m_ + r) * n_ + c;
        forward[static_cast<std::size_t>(copy * m_ + r)].push_back(node);
        backward[static_cast<std::size_t>(copy * n_ + c)].push_back(node);
      }
    }
  }
  set_symbols(std::move(forward), std::move(backward));
}

void ReplicationScheme::encode(const Matrix& weights) {
  check_weights(weights);
  const Eigen::Index height = rows() / m_;
  const Eigen::Index width = cols() / n_;
  for (int r = 0; r < m_; ++r) {
    for (int c = 0; c < n_; ++c) {
      const auto block = weights.block(r * height, c * width, height, width);
      for (int copy = 0; copy < copies_; ++copy) share((copy * m_ + r) * n_ + c) = block;
    }
  }
  refresh_checksums();
}

Matrix ReplicationScheme::decode_weights() const {
  Matrix weights(rows(), cols());
  const Eigen::Index height = rows() / m_;
  const Eigen::Index width = cols() / n_;
  for (int r = 0; r < m_; ++r) {
    for (int c = 0; c < n_; ++c) {
      weights.block(r * height, c * width, height, width) = share(r * n_ + c);
    }
  }
  return weights;
}

std::optional<RowSlice> ReplicationScheme::input_slice(int node, Direction dir) const {
  const int within = node % (m_ * n_);
  if (dir == Direction::forward) {
    const Eigen::Index width = cols() / n_;
    return RowSlice{(within % n_) * width, width};
  }
  const Eigen::Index height = rows() / m_;
  return RowSlice{(within / n_) * height, height};
}

ProductDecode ReplicationScheme::decode(Direction dir,
                                        std::span<const std::optional<Matrix>> symbols,
                                        const DecodeOptions& options) const {
  const bool forward = dir == Direction::forward;
  const int blocks = forward ? m_ : n_;
  CODESIM_CHECK(static_cast<int>(symbols.size()) == copies_ * blocks, "one entry per symbol");
  DecodeOptions local = options;
  local.inner_dimension = std::max(options.inner_dimension, input_length(dir) + 1);
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
  if (copies_ == 1) {
    if (std::optional<ProductDecode> stacked = stack_plain_symbols(symbols, screened)) {
      return *std::move(stacked);
    }
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
  CODESIM_CHECK(height == (forward ? rows() / m_ : cols() / n_), "symbols have block height");
  out.product.resize(blocks * height, parts.front().cols());
  for (int b = 0; b < blocks; ++b) out.product.middleRows(b * height, height) = parts[b];
  return out;
}

void ReplicationScheme::update(int node, const Matrix& delta, const Matrix& input, double eta) {
  check_update(delta, input);
  const int within = node % (m_ * n_);
  const Eigen::Index height = rows() / m_;
  const Eigen::Index width = cols() / n_;
  // eta D_r is formed first (so eta is not folded into the product); X_c is read in place.
  const Matrix delta_part = eta * delta.middleRows((within / n_) * height, height);
  add_to_block(node, delta_part, input.middleRows((within % n_) * width, width));
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
