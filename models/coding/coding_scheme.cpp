// Scheme validation, capability summaries and the factory (dispatched to each scheme's file), and
// the compute-then-decode helper.
#include "models/coding/coding_scheme.hpp"

#include <algorithm>

#include "models/coding/codenet_grid_scheme.hpp"
#include "models/coding/gpd_scheme.hpp"
#include "models/coding/mds_scheme.hpp"
#include "models/coding/replication_scheme.hpp"
#include "models/coding/uncoded_scheme.hpp"
#include "sim/check.hpp"

namespace codesim::models {

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

void set_storage(SchemeSummary& summary, int stored_blocks, int parts) {
  summary.storage_fraction_per_node = static_cast<double>(stored_blocks) / parts;
  summary.redundancy = static_cast<double>(summary.nodes) * stored_blocks / parts;
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
  return std::visit([&](const auto& s) { return validate_spec(s, rows, cols); }, spec);
}

SchemeSummary summarize_scheme(const SchemeSpec& spec, int rows, int cols) {
  CODESIM_CHECK(validate_scheme(spec).empty(), "summarize a valid scheme");
  // Element counts per unit length when the shape is not given.
  const double out_length = rows > 0 ? rows : 1.0;
  const double in_length = cols > 0 ? cols : 1.0;
  return std::visit([&](const auto& s) { return summarize_spec(s, out_length, in_length); }, spec);
}

std::unique_ptr<CodingScheme> make_scheme(const SchemeSpec& spec, int rows, int cols,
                                          Arithmetic arithmetic) {
  CODESIM_CHECK(rows > 0 && cols > 0 && validate_scheme(spec, rows, cols).empty(),
                "make_scheme needs a valid spec and shape");
  return std::visit([&](const auto& s) { return make_coding_scheme(s, rows, cols, arithmetic); },
                    spec);
}

Matrix multiply_input(const CodingScheme& scheme, int node, Direction dir, const Matrix& input) {
  if (const std::optional<RowSlice> slice = scheme.input_slice(node, dir)) {
    return scheme.multiply(node, dir, input.middleRows(slice->first, slice->count));
  }
  return scheme.multiply(node, dir, scheme.encode_input(node, dir, input));
}

ProductDecode compute_and_decode(const CodingScheme& scheme, Direction dir, const Matrix& input,
                                 const DecodeOptions& options, const PartialResultHook& faulty) {
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
  for (int node : scheme.participants(dir)) {
    Matrix partial = multiply_input(scheme, node, dir, input);
    const std::vector<int>& mine = node_symbols[static_cast<std::size_t>(node)];
    const bool kept = !faulty || faulty(node, partial);
    for (std::size_t i = 0; i < mine.size(); ++i) {
      const auto s = static_cast<std::size_t>(mine[i]);
      if (!kept) broken[s] = 1;
      if (broken[s]) continue;
      CODESIM_CHECK(added[s] < members[s].size() && members[s][added[s]] == node,
                    "participants reach each symbol in member order");
      if (!symbols[s]) {
        symbols[s] = i + 1 == mine.size() ? std::move(partial) : partial;
      } else {
        *symbols[s] += partial;
      }
      ++added[s];
    }
  }
  for (std::size_t s = 0; s < symbols.size(); ++s) {
    if (broken[s] || added[s] != members[s].size()) symbols[s].reset();
  }
  return scheme.decode(dir, symbols, options);
}

}  // namespace codesim::models
