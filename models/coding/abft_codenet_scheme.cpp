// The abft_codenet descriptor: the CodeNet grid's descriptor on a checksummed grid.
#include "models/coding/abft_codenet_scheme.hpp"

#include "models/coding/codenet_grid_scheme.hpp"

namespace codesim::models {
namespace {

// The grid's rules, read through the CodeNet grid's descriptor.
SchemeSpec as_grid(const SchemeSpec& spec) {
  return static_cast<const CodenetGridSpec&>(std::get<AbftCodenetSpec>(spec));
}

}  // namespace

const SchemeDescriptor& abft_codenet_descriptor() {
  static const SchemeDescriptor descriptor = [] {
    const SchemeDescriptor& grid = codenet_grid_descriptor();
    SchemeDescriptor hybrid = grid;
    hybrid.kind = SchemeKind::abft_codenet;
    hybrid.name = "abft_codenet";
    hybrid.checks_at_nodes = true;
    hybrid.doc =
        "the CodeNet grid with ABFT checksums in every block: local errors corrected at the "
        "node, the grid decoding what is left and tolerating stragglers and crashes";
    hybrid.make = [](std::span<const int> v) -> SchemeSpec {
      return AbftCodenetSpec{std::get<CodenetGridSpec>(codenet_grid_descriptor().make(v))};
    };
    hybrid.values = [](const SchemeSpec& spec) {
      return codenet_grid_descriptor().values(as_grid(spec));
    };
    hybrid.validate = [](const SchemeSpec& spec, int rows, int cols) {
      return codenet_grid_descriptor().validate(as_grid(spec), rows, cols);
    };
    hybrid.summarize = [](const SchemeSpec& spec, double out_length, double in_length) {
      return codenet_grid_descriptor().summarize(as_grid(spec), out_length, in_length);
    };
    hybrid.build = [](const SchemeSpec& spec, int rows, int cols,
                      const SchemeContext& context) -> std::unique_ptr<CodingScheme> {
      return std::make_unique<CodenetGridScheme>(std::get<AbftCodenetSpec>(spec), rows, cols,
                                                 context);
    };
    return hybrid;
  }();
  return descriptor;
}

}  // namespace codesim::models
