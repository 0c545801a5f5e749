// Uncoded: a replication scheme with one copy, summarized as "uncoded".
#include "models/coding/uncoded_scheme.hpp"

#include "models/coding/scheme_support.hpp"

namespace codesim::models {
namespace {

SchemeProblem validate(const UncodedSpec& spec, int rows, int cols) {
  return validate_one_node_per_block(spec.m, spec.n, rows, cols);
}

SchemeSummary summarize(const UncodedSpec& spec, double out_length, double in_length) {
  return repetition_summary(spec.m, spec.n, 1, out_length, in_length);
}

std::unique_ptr<CodingScheme> build(const UncodedSpec& spec, int rows, int cols,
                                    const SchemeContext& context) {
  return std::make_unique<UncodedScheme>(spec.m, spec.n, rows, cols, context);
}

}  // namespace

SchemeProblem validate_one_node_per_block(int m, int n, int rows, int cols) {
  if (SchemeProblem problem = check_grid_divides(m, n, rows, cols); !problem.empty()) {
    return problem;
  }
  if (static_cast<long long>(m) * n > kMaxSchemeNodes) {
    return {"", "m x n exceeds " + std::to_string(kMaxSchemeNodes) + " nodes"};
  }
  return {};
}

const SchemeDescriptor& uncoded_descriptor() {
  static const SchemeDescriptor descriptor = {
      .kind = SchemeKind::uncoded,
      .name = "uncoded",
      .doc = "the m x n block grid, one node per block, no redundancy",
      .fields = block_split_fields(),
      .make = [](std::span<const int> v) -> SchemeSpec { return uncoded_spec(v[0], v[1]); },
      .values =
          [](const SchemeSpec& spec) {
            const auto& s = std::get<UncodedSpec>(spec);
            return std::vector<int>{s.m, s.n};
          },
      .validate = detail::on_spec<validate>,
      .summarize = detail::on_spec<summarize>,
      .build = detail::on_spec<build>,
      .repetition_copies = [](const SchemeSpec&) { return 1; },
      .example = {1, 1}};
  return descriptor;
}

UncodedScheme::UncodedScheme(int m, int n, int rows, int cols, const SchemeContext& context)
    : ReplicationScheme(uncoded_spec(m, n), rows, cols, context) {}

}  // namespace codesim::models
