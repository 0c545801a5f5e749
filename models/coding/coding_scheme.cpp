// Scheme validation, capability summaries, the factory and the compute-then-decode helper.
#include "models/coding/coding_scheme.hpp"

#include <algorithm>
#include <sstream>

#include "models/coding/codenet_grid_scheme.hpp"
#include "models/coding/gpd_scheme.hpp"
#include "models/coding/mds_scheme.hpp"
#include "models/coding/replication_scheme.hpp"
#include "models/coding/uncoded_scheme.hpp"
#include "sim/check.hpp"

namespace codesim::models {
namespace {

// Bounds that keep node counts in int range and GPD's exponent bookkeeping small.
constexpr int kMaxSplit = 4096;
constexpr int kMaxGpdBlocks = 1024;
constexpr int kMaxNodes = 1'000'000;

// Capabilities of an (S, K) MDS code whose symbols are single nodes (or, worst case, whose
// erroneous nodes each spoil a different symbol).
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

void set_traffic(DirectionCapability& capability, double sent, double received) {
  capability.elements_sent_per_node = sent;
  capability.elements_received_per_node = received;
}

std::string check_divides(const char* what, int parts, int length, const char* dimension) {
  if (length > 0 && length % parts != 0) {
    std::ostringstream message;
    message << what << " = " << parts << " does not divide " << dimension << " = " << length;
    return message.str();
  }
  return {};
}

std::string check_range(const char* what, int value, int low, int high) {
  if (value < low || value > high) {
    std::ostringstream message;
    message << what << " = " << value << " must be in [" << low << ", " << high << "]";
    return message.str();
  }
  return {};
}

}  // namespace

SchemeSpec uncoded_spec(int m, int n) { return {.kind = "uncoded", .m = m, .n = n}; }

SchemeSpec replication_spec(int m, int n, int copies) {
  return {.kind = "replication", .m = m, .n = n, .copies = copies};
}

SchemeSpec mds_spec(int k, int nodes) { return {.kind = "mds", .k = k, .nodes = nodes}; }

SchemeSpec gpd_spec(int m, int n, int nodes, bool mirrored) {
  return {.kind = "gpd", .m = m, .n = n, .nodes = nodes, .mirrored = mirrored};
}

SchemeSpec codenet_grid_spec(int m, int n, int grid_rows, int grid_cols, std::uint64_t seed) {
  return {.kind = "codenet_grid",
          .m = m,
          .n = n,
          .grid_rows = grid_rows,
          .grid_cols = grid_cols,
          .seed = seed};
}

std::string validate_scheme(const SchemeSpec& spec, int rows, int cols) {
  if (rows < 0 || cols < 0) return "the matrix shape must not be negative";
  const std::string& kind = spec.kind;
  if (kind != "uncoded" && kind != "replication" && kind != "mds" && kind != "gpd" &&
      kind != "codenet_grid") {
    return "unknown scheme '" + kind +
           "' (expected uncoded, replication, mds, gpd or codenet_grid)";
  }
  std::string error;
  const auto first = [&error](std::string candidate) {
    if (error.empty()) error = std::move(candidate);
  };
  if (kind == "mds") {
    first(check_range("k", spec.k, 1, kMaxSplit));
    first(check_range("nodes", spec.nodes, 1, kMaxNodes));
    if (error.empty() && spec.nodes < spec.k) {
      first("nodes = " + std::to_string(spec.nodes) +
            " is below the recovery threshold k = " + std::to_string(spec.k));
    }
    first(check_divides("k", spec.k, rows, "rows"));
    first(check_divides("k", spec.k, cols, "cols"));
    return error;
  }
  first(check_range("m", spec.m, 1, kMaxSplit));
  first(check_range("n", spec.n, 1, kMaxSplit));
  if (!error.empty()) return error;
  first(check_divides("m", spec.m, rows, "rows"));
  first(check_divides("n", spec.n, cols, "cols"));
  if (kind == "replication") {
    first(check_range("copies", spec.copies, 2, kMaxSplit));
    if (error.empty() && static_cast<long long>(spec.copies) * spec.m * spec.n > kMaxNodes) {
      first("copies x m x n exceeds " + std::to_string(kMaxNodes) + " nodes");
    }
  } else if (kind == "uncoded") {
    if (static_cast<long long>(spec.m) * spec.n > kMaxNodes) {
      first("m x n exceeds " + std::to_string(kMaxNodes) + " nodes");
    }
  } else if (kind == "gpd") {
    if (spec.m * spec.n > kMaxGpdBlocks) {
      return "m x n = " + std::to_string(spec.m * spec.n) + " exceeds " +
             std::to_string(kMaxGpdBlocks) + " blocks for gpd";
    }
    first(check_range("nodes", spec.nodes, 1, kMaxNodes));
    const GpdExponents exponents = gpd_exponents(spec.m, spec.n, spec.mirrored);
    const int needed = std::max(exponents.forward_threshold, exponents.backward_threshold);
    if (error.empty() && spec.nodes < needed) {
      first("nodes = " + std::to_string(spec.nodes) + " is below the recovery threshold " +
            std::to_string(needed) + " (forward " + std::to_string(exponents.forward_threshold) +
            ", backward " + std::to_string(exponents.backward_threshold) + ")");
    }
  } else {  // codenet_grid
    first(check_range("grid_rows", spec.grid_rows, spec.m, kMaxSplit));
    first(check_range("grid_cols", spec.grid_cols, spec.n, kMaxSplit));
  }
  return error;
}

SchemeSummary summarize_scheme(const SchemeSpec& spec, int rows, int cols) {
  CODESIM_CHECK(validate_scheme(spec).empty(), "summarize a valid scheme");
  // Element counts per unit length when the shape is not given.
  const double out_length = rows > 0 ? rows : 1.0;
  const double in_length = cols > 0 ? cols : 1.0;
  SchemeSummary summary;
  summary.scheme = spec.kind;
  int stored_blocks = 1;  // each node stores stored_blocks blocks of W split into `parts`
  int parts = 1;
  if (spec.kind == "gpd") {
    const GpdExponents exponents = gpd_exponents(spec.m, spec.n, spec.mirrored);
    const int p = spec.nodes;
    summary.nodes = p;
    stored_blocks = 1;
    parts = spec.m * spec.n;
    summary.forward = mds_capability(p, exponents.forward_threshold);
    summary.backward = mds_capability(p, exponents.backward_threshold);
    set_traffic(summary.forward, out_length / spec.m, p * out_length / spec.m);
    set_traffic(summary.backward, in_length / spec.n, p * in_length / spec.n);
  } else if (spec.kind == "mds") {
    const int p = spec.nodes;
    summary.nodes = p;
    stored_blocks = 2;  // a row-split and a column-split block
    parts = spec.k;
    summary.forward = mds_capability(p, spec.k);
    summary.backward = mds_capability(p, spec.k);
    set_traffic(summary.forward, out_length / spec.k, p * out_length / spec.k);
    set_traffic(summary.backward, in_length / spec.k, p * in_length / spec.k);
  } else if (spec.kind == "codenet_grid") {
    summary.nodes = spec.m * spec.grid_cols + spec.n * (spec.grid_rows - spec.m);
    stored_blocks = 1;
    parts = spec.m * spec.n;
    // Worst case: each erroneous node spoils a different grid row (column).
    summary.forward = mds_capability(spec.grid_rows, spec.m);
    summary.backward = mds_capability(spec.grid_cols, spec.n);
    set_traffic(summary.forward, out_length / spec.m, spec.grid_rows * out_length / spec.m);
    set_traffic(summary.backward, in_length / spec.n, spec.grid_cols * in_length / spec.n);
  } else {  // replication, uncoded
    const int copies = spec.kind == "replication" ? spec.copies : 1;
    summary.nodes = copies * spec.m * spec.n;
    stored_blocks = 1;
    parts = spec.m * spec.n;
    // Worst case: all errors on the copies of one block; threshold: one copy of each block.
    for (auto* capability : {&summary.forward, &summary.backward}) {
      *capability = mds_capability(copies, 1);
    }
    summary.forward.recovery_threshold = spec.m;
    summary.backward.recovery_threshold = spec.n;
    set_traffic(summary.forward, out_length / spec.m, copies * out_length);
    set_traffic(summary.backward, in_length / spec.n, copies * in_length);
  }
  summary.storage_fraction_per_node = static_cast<double>(stored_blocks) / parts;
  summary.redundancy = static_cast<double>(summary.nodes) * stored_blocks / parts;
  return summary;
}

std::unique_ptr<CodingScheme> make_scheme(const SchemeSpec& spec, int rows, int cols) {
  CODESIM_CHECK(rows > 0 && cols > 0 && validate_scheme(spec, rows, cols).empty(),
                "make_scheme needs a valid spec and shape");
  if (spec.kind == "gpd") {
    return std::make_unique<GpdScheme>(spec.m, spec.n, spec.nodes, spec.mirrored, rows, cols);
  }
  if (spec.kind == "mds") return std::make_unique<MdsScheme>(spec.k, spec.nodes, rows, cols);
  if (spec.kind == "codenet_grid") {
    return std::make_unique<CodenetGridScheme>(spec.m, spec.n, spec.grid_rows, spec.grid_cols,
                                               spec.seed, rows, cols);
  }
  if (spec.kind == "replication") {
    return std::make_unique<ReplicationScheme>(spec.m, spec.n, spec.copies, rows, cols);
  }
  return std::make_unique<UncodedScheme>(spec.m, spec.n, rows, cols);
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
