// What every scheme shares (its summary, W's shape, kernels and symbols, the slice encoding of the
// input) and the storage of single-block schemes; validation, capability summaries and the
// factory, dispatched through each scheme's descriptor; the compute-then-decode helper.
#include "models/coding/coding_scheme.hpp"

#include <algorithm>
#include <functional>

#include "models/coding/scheme_support.hpp"
#include "sim/check.hpp"

namespace codesim::models {

CodingScheme::CodingScheme(const SchemeSpec& spec, int rows, int cols, const SchemeContext& context)
    : rows_(rows), cols_(cols), kernels_(context.arithmetic), resident_(context.resident) {
  CODESIM_CHECK(validate_scheme(spec, rows, cols).empty(), "a valid scheme for W's shape");
  summary_ = summarize_scheme(spec, rows, cols);
}

void CodingScheme::set_symbols(std::vector<std::vector<int>> forward,
                               std::vector<std::vector<int>> backward) {
  symbols_[0].members = std::move(forward);
  symbols_[1].members = std::move(backward);
  for (Symbols& symbols : symbols_) {
    std::vector<int> all;
    for (const std::vector<int>& members : symbols.members) {
      CODESIM_CHECK(!members.empty() && members.front() >= 0 && members.back() < node_count() &&
                        std::adjacent_find(members.begin(), members.end(),
                                           std::greater_equal<>()) == members.end(),
                    "symbol members are ascending node ids");
      all.insert(all.end(), members.begin(), members.end());
    }
    symbols.participants = detail::sorted_unique(std::move(all));
  }
}

Matrix CodingScheme::encode_input(int node, Direction dir, const Matrix& input) const {
  check_input(dir, input);
  const std::optional<RowSlice> slice = input_slice(node, dir);
  CODESIM_CHECK(slice.has_value(), "a scheme whose input encoding is no slice encodes it itself");
  return input.middleRows(slice->first, slice->count);
}

void CodingScheme::check_input(Direction dir, const Matrix& input) const {
  CODESIM_CHECK(input.rows() == input_length(dir),
                "the input has N_in rows forward and N_out rows backward");
}

void CodingScheme::check_weights(const Matrix& weights) const {
  CODESIM_CHECK(weights.rows() == rows_ && weights.cols() == cols_, "W has the scheme's shape");
}

void CodingScheme::check_update(const Matrix& delta, const Matrix& input) const {
  CODESIM_CHECK(delta.rows() == rows_ && input.rows() == cols_ && delta.cols() == input.cols(),
                "D is N_out x B and X is N_in x B");
}

DirectionCapability mds_capability(int symbols, int dimension) {
  DirectionCapability capability;
  const int redundancy = symbols - dimension;
  capability.recovery_threshold = dimension;
  capability.correctable_adversarial = redundancy / 2;
  capability.correctable_random = std::max(0, redundancy - 1);
  capability.detectable = redundancy;
  capability.erasures_tolerated = redundancy;
  return capability;
}

DirectionCapability mds_direction(int symbols, int dimension, double length, int parts) {
  DirectionCapability capability = mds_capability(symbols, dimension);
  set_traffic(capability, length / parts, symbols * length / parts);
  return capability;
}

SchemeSummary scheme_summary(int nodes, int stored_blocks, int parts, DirectionCapability forward,
                             DirectionCapability backward) {
  SchemeSummary summary;
  summary.nodes = nodes;
  summary.storage_fraction_per_node = static_cast<double>(stored_blocks) / parts;
  summary.redundancy = static_cast<double>(nodes) * stored_blocks / parts;
  summary.forward = forward;
  summary.backward = backward;
  return summary;
}

void set_traffic(DirectionCapability& capability, double sent, double received) {
  capability.elements_sent_per_node = sent;
  capability.elements_received_per_node = received;
}

SchemeProblem validate_scheme(const SchemeSpec& spec, int rows, int cols) {
  if (rows < 0 || cols < 0) return {"", "the matrix shape must not be negative"};
  const SchemeDescriptor& descriptor = descriptor_of(spec);
  if (SchemeProblem problem = check_field_ranges(descriptor, descriptor.values(spec));
      !problem.empty()) {
    return problem;
  }
  return descriptor.validate(spec, rows, cols);
}

SchemeSummary summarize_scheme(const SchemeSpec& spec, int rows, int cols) {
  CODESIM_CHECK(validate_scheme(spec).empty(), "summarize a valid scheme");
  // Element counts per unit length when the shape is not given.
  const double out_length = rows > 0 ? rows : 1.0;
  const double in_length = cols > 0 ? cols : 1.0;
  const SchemeDescriptor& descriptor = descriptor_of(spec);
  SchemeSummary summary = descriptor.summarize(spec, out_length, in_length);
  summary.scheme = std::string(descriptor.name);
  return summary;
}

std::unique_ptr<CodingScheme> make_scheme(const SchemeSpec& spec, int rows, int cols,
                                          const SchemeContext& context) {
  CODESIM_CHECK(rows > 0 && cols > 0 && validate_scheme(spec, rows, cols).empty(),
                "make_scheme needs a valid spec and shape");
  return descriptor_of(spec).build(spec, rows, cols, context);
}

Matrix multiply_input(const CodingScheme& scheme, int node, Direction dir, const Matrix& input) {
  if (const std::optional<RowSlice> slice = scheme.input_slice(node, dir)) {
    return scheme.multiply(node, dir, input.middleRows(slice->first, slice->count));
  }
  return scheme.multiply(node, dir, scheme.encode_input(node, dir, input));
}

void blame_withheld(ProductDecode& decoded, std::span<const int> withheld) {
  if (decoded.status == DecodeStatus::detected || withheld.empty()) return;
  decoded.status = DecodeStatus::corrected;
  std::vector<int> blamed = decoded.blamed_nodes;
  blamed.insert(blamed.end(), withheld.begin(), withheld.end());
  decoded.blamed_nodes = detail::sorted_unique(std::move(blamed));
}

CheckedPartial checked_partial(const CodingScheme& scheme, int node, Direction dir,
                               const Matrix& input, const DecodeOptions& options,
                               const PartialResultHook& faulty) {
  CheckedPartial out;
  Matrix partial = multiply_input(scheme, node, dir, input);
  if (faulty && !faulty(node, partial)) return out;  // lost
  out.check = scheme.check_partial(node, dir, partial, options).status;
  if (out.check != DecodeStatus::detected) out.partial = std::move(partial);
  return out;
}

ProductDecode compute_and_decode(const CodingScheme& scheme, Direction dir, const Matrix& input,
                                 const DecodeOptions& options, const PartialResultHook& faulty) {
  return decode_partials(scheme, dir, options, [&](int node) {
    return checked_partial(scheme, node, dir, input, options, faulty);
  });
}

ProductDecode decode_partials(const CodingScheme& scheme, Direction dir,
                              const DecodeOptions& options, const PartialSource& source) {
  // Each partial result is added to its symbols as soon as it is computed, so at most one partial
  // is alive beside the symbols; participants reach every symbol in member order (checked), so
  // each symbol is the same sum as adding its members' partials one after another.
  const int symbol_count = scheme.symbol_count(dir);
  std::vector<std::vector<int>> node_symbols(static_cast<std::size_t>(scheme.node_count()));
  std::vector<std::vector<int>> members(static_cast<std::size_t>(symbol_count));
  for (int s = 0; s < symbol_count; ++s) {
    members[static_cast<std::size_t>(s)] = scheme.symbol_members(dir, s);
    for (int node : members[static_cast<std::size_t>(s)]) {
      node_symbols[static_cast<std::size_t>(node)].push_back(s);
    }
  }
  std::vector<std::optional<Matrix>> symbols(static_cast<std::size_t>(symbol_count));
  std::vector<std::size_t> added(static_cast<std::size_t>(symbol_count), 0);
  std::vector<char> broken(static_cast<std::size_t>(symbol_count), 0);
  bool locally_corrected = false;
  std::vector<int> withheld;  // nodes whose own check found their partial wrong beyond repair
  for (int node : scheme.participants(dir)) {
    CheckedPartial checked = source(node);
    const std::vector<int>& mine = node_symbols[static_cast<std::size_t>(node)];
    // A partial its node finds wrong beyond repair is withheld, like a lost one.
    const bool kept = checked.partial.has_value();
    if (checked.check == DecodeStatus::detected) withheld.push_back(node);
    locally_corrected = locally_corrected || checked.check == DecodeStatus::corrected;
    for (std::size_t i = 0; i < mine.size(); ++i) {
      const auto s = static_cast<std::size_t>(mine[i]);
      if (!kept) broken[s] = 1;
      if (broken[s]) continue;
      CODESIM_CHECK(added[s] < members[s].size() && members[s][added[s]] == node,
                    "participants reach each symbol in member order");
      if (!symbols[s]) {
        symbols[s] = i + 1 == mine.size() ? std::move(*checked.partial) : *checked.partial;
      } else {
        *symbols[s] += *checked.partial;
      }
      ++added[s];
    }
  }
  for (std::size_t s = 0; s < symbols.size(); ++s) {
    if (broken[s] || added[s] != members[s].size()) symbols[s].reset();
  }
  ProductDecode decoded = scheme.decode(dir, symbols, options);
  if (decoded.status == DecodeStatus::detected) return decoded;
  if (!withheld.empty()) {
    blame_withheld(decoded, withheld);
  } else if (locally_corrected && decoded.status == DecodeStatus::clean) {
    decoded.status = DecodeStatus::corrected;  // at a node, which needs no regeneration
  }
  return decoded;
}

}  // namespace codesim::models
