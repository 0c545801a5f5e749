// ABFT: the uncoded grid with checksummed blocks; its descriptor.
#include "models/coding/abft_scheme.hpp"

#include "models/coding/scheme_support.hpp"
#include "models/coding/uncoded_scheme.hpp"

namespace codesim::models {
namespace {

SchemeProblem validate(const AbftSpec& spec, int rows, int cols) {
  return validate_one_node_per_block(spec.m, spec.n, rows, cols);
}

SchemeSummary summarize(const AbftSpec& spec, double out_length, double in_length) {
  // Across nodes, the uncoded grid; the checksums' storage is not counted (3 rows and columns).
  return repetition_summary(spec.m, spec.n, 1, out_length, in_length);
}

std::unique_ptr<CodingScheme> build(const AbftSpec& spec, int rows, int cols,
                                    const SchemeContext& context) {
  return std::make_unique<AbftScheme>(spec.m, spec.n, rows, cols, context);
}

}  // namespace

const SchemeDescriptor& abft_descriptor() {
  static const SchemeDescriptor descriptor = {
      .kind = SchemeKind::abft,
      .name = "abft",
      .doc =
          "the m x n block grid, each block with checksum rows and columns (ABFT): one wrong "
          "entry per column corrected at its node",
      .fields = block_split_fields(),
      .make = [](std::span<const int> v) -> SchemeSpec { return abft_spec(v[0], v[1]); },
      .values =
          [](const SchemeSpec& spec) {
            const auto& s = std::get<AbftSpec>(spec);
            return std::vector<int>{s.m, s.n};
          },
      .validate = detail::on_spec<validate>,
      .summarize = detail::on_spec<summarize>,
      .build = detail::on_spec<build>,
      .repetition_copies = [](const SchemeSpec&) { return 1; },
      .checks_at_nodes = true,
      .example = {1, 1}};
  return descriptor;
}

AbftScheme::AbftScheme(int m, int n, int rows, int cols, const SchemeContext& context)
    : ReplicationScheme(abft_spec(m, n), rows, cols, context, /*checksummed=*/true) {}

}  // namespace codesim::models
