// Uncoded: a replication scheme with one copy, summarized as "uncoded".
#include "models/coding/uncoded_scheme.hpp"

#include "sim/check.hpp"

namespace codesim::models {

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
          }};
  return descriptor;
}

SchemeProblem validate_spec(const UncodedSpec& spec, int rows, int cols) {
  if (SchemeProblem problem = check_grid_divides(spec.m, spec.n, rows, cols); !problem.empty()) {
    return problem;
  }
  if (static_cast<long long>(spec.m) * spec.n > kMaxSchemeNodes) {
    return {"", "m x n exceeds " + std::to_string(kMaxSchemeNodes) + " nodes"};
  }
  return {};
}

SchemeSummary summarize_spec(const UncodedSpec& spec, double out_length, double in_length) {
  SchemeSummary summary = repetition_summary(spec.m, spec.n, 1, out_length, in_length);
  summary.scheme = "uncoded";
  return summary;
}

std::unique_ptr<CodingScheme> make_coding_scheme(const UncodedSpec& spec, int rows, int cols,
                                                 Arithmetic arithmetic) {
  return std::make_unique<UncodedScheme>(spec.m, spec.n, rows, cols, arithmetic);
}

UncodedScheme::UncodedScheme(int m, int n, int rows, int cols, Arithmetic arithmetic)
    : ReplicationScheme(m, n, 1, summarize_scheme(uncoded_spec(m, n), rows, cols), rows, cols,
                        arithmetic) {
  CODESIM_CHECK(validate_scheme(uncoded_spec(m, n), rows, cols).empty(),
                "valid uncoded parameters");
}

}  // namespace codesim::models
