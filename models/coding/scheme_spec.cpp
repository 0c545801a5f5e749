// The list of scheme descriptors and the kind-independent helpers on SchemeSpec.
#include "models/coding/scheme_spec.hpp"

#include <array>

#include "models/coding/abft_codenet_scheme.hpp"
#include "models/coding/abft_scheme.hpp"
#include "models/coding/codenet_grid_scheme.hpp"
#include "models/coding/gpd_scheme.hpp"
#include "models/coding/mds_scheme.hpp"
#include "models/coding/replication_scheme.hpp"
#include "models/coding/uncoded_scheme.hpp"
#include "sim/check.hpp"

namespace codesim::models {
namespace {

// In SchemeKind order, which is the order of SchemeSpec's alternatives.
const std::array<SchemeDescriptor, std::variant_size_v<SchemeSpec>>& all_descriptors() {
  static const std::array<SchemeDescriptor, std::variant_size_v<SchemeSpec>> descriptors = {
      uncoded_descriptor(),     replication_descriptor(),  mds_descriptor(),
      gpd_descriptor(),         codenet_grid_descriptor(), abft_descriptor(),
      abft_codenet_descriptor()};
  return descriptors;
}

}  // namespace

SchemeField integer_field(std::string_view key, std::string_view option, std::string_view doc,
                          int min, int max, std::optional<int> scenario_default) {
  return {.key = key,
          .option = option,
          .doc = doc,
          .min = min,
          .max = max,
          .scenario_default = scenario_default,
          .cluster_nodes = false,
          .choices = {}};
}

SchemeField node_count_field(std::string_view key, std::string_view doc) {
  SchemeField field = integer_field(key, key, doc, 1, kMaxSchemeNodes, std::nullopt);
  field.cluster_nodes = true;
  return field;
}

SchemeField choice_field(std::string_view key, std::string_view doc,
                         std::vector<std::string_view> choices) {
  return {.key = key,
          .option = key,
          .doc = doc,
          .min = 1,  // unused: a choice is checked against its entries
          .max = 1,
          .scenario_default = 0,
          .cluster_nodes = false,
          .choices = std::move(choices)};
}

SchemeField split_field(SchemeField field, SplitOf splits) {
  field.splits = splits;
  return field;
}

std::vector<SchemeField> block_split_fields(std::initializer_list<SchemeField> more) {
  std::vector<SchemeField> fields = {
      split_field(integer_field("m", "m", "row blocks of W", 1, kMaxSchemeSplit, 1), SplitOf::rows),
      split_field(integer_field("n", "n", "column blocks of W", 1, kMaxSchemeSplit, 1),
                  SplitOf::cols)};
  fields.insert(fields.end(), more);
  return fields;
}

std::span<const SchemeDescriptor> scheme_descriptors() { return all_descriptors(); }

const SchemeDescriptor& descriptor_of(SchemeKind kind) {
  const SchemeDescriptor& descriptor = all_descriptors().at(static_cast<std::size_t>(kind));
  CODESIM_CHECK(descriptor.kind == kind, "descriptors are listed in SchemeKind order");
  return descriptor;
}

const SchemeDescriptor* find_scheme(std::string_view name) {
  for (const SchemeDescriptor& descriptor : all_descriptors()) {
    if (descriptor.name == name) return &descriptor;
  }
  return nullptr;
}

std::string scheme_names_list() {
  std::string list;
  const auto& descriptors = all_descriptors();
  for (std::size_t i = 0; i < descriptors.size(); ++i) {
    if (i > 0) list += i + 1 == descriptors.size() ? " or " : ", ";
    list += descriptors[i].name;
  }
  return list;
}

SchemeKind kind_of(const SchemeSpec& spec) { return static_cast<SchemeKind>(spec.index()); }

const SchemeDescriptor& descriptor_of(const SchemeSpec& spec) {
  return descriptor_of(kind_of(spec));
}

std::string_view scheme_name(const SchemeSpec& spec) { return descriptor_of(spec).name; }

std::pair<int, int> block_grid(const SchemeSpec& spec) {
  if (const auto* mds = std::get_if<MdsSpec>(&spec)) return {mds->k, mds->k};
  return std::visit(
      [](const auto& s) -> std::pair<int, int> {
        if constexpr (requires { s.m; }) {
          return {s.m, s.n};
        } else {
          return {1, 1};
        }
      },
      spec);
}

int repetition_copies(const SchemeSpec& spec) {
  const SchemeDescriptor& d = descriptor_of(spec);
  return d.repetition_copies != nullptr ? d.repetition_copies(spec) : 0;
}

bool checks_at_nodes(const SchemeSpec& spec) { return descriptor_of(spec).checks_at_nodes; }

void set_generator_seed(SchemeSpec& spec, std::uint64_t seed) {
  std::visit(
      [seed](auto& s) {
        if constexpr (requires { s.seed; }) s.seed = seed;
      },
      spec);
}

std::optional<std::uint64_t> generator_seed(const SchemeSpec& spec) {
  return std::visit(
      [](const auto& s) -> std::optional<std::uint64_t> {
        if constexpr (requires { s.seed; }) {
          return s.seed;
        } else {
          return std::nullopt;
        }
      },
      spec);
}

SchemeSpec uncoded_spec(int m, int n) { return UncodedSpec{.m = m, .n = n}; }

SchemeSpec abft_spec(int m, int n) { return AbftSpec{.m = m, .n = n}; }

SchemeSpec abft_codenet_spec(int m, int n, int grid_rows, int grid_cols, std::uint64_t seed) {
  return AbftCodenetSpec{
      std::get<CodenetGridSpec>(codenet_grid_spec(m, n, grid_rows, grid_cols, seed))};
}

SchemeSpec replication_spec(int m, int n, int copies) {
  return ReplicationSpec{.m = m, .n = n, .copies = copies};
}

SchemeSpec mds_spec(int k, int nodes) { return MdsSpec{.nodes = nodes, .k = k}; }

SchemeSpec gpd_spec(int m, int n, int nodes, bool mirrored) {
  return GpdSpec{.m = m, .n = n, .nodes = nodes, .mirrored = mirrored};
}

SchemeSpec codenet_grid_spec(int m, int n, int grid_rows, int grid_cols, std::uint64_t seed) {
  return CodenetGridSpec{
      .m = m, .n = n, .grid_rows = grid_rows, .grid_cols = grid_cols, .seed = seed};
}

SchemeProblem check_field_ranges(const SchemeDescriptor& descriptor, std::span<const int> values) {
  CODESIM_CHECK(values.size() == descriptor.fields.size(), "one value per field");
  for (std::size_t i = 0; i < values.size(); ++i) {
    const SchemeField& field = descriptor.fields[i];
    const int low = field.choices.empty() ? field.min : 0;
    const int high = field.choices.empty() ? field.max : static_cast<int>(field.choices.size()) - 1;
    if (values[i] < low || values[i] > high) {
      return {std::string(field.key), std::string(field.key) + " = " + std::to_string(values[i]) +
                                          " must be in [" + std::to_string(low) + ", " +
                                          std::to_string(high) + "]"};
    }
  }
  return {};
}

std::string check_divides(std::string_view what, int parts, int length,
                          std::string_view dimension) {
  if (length > 0 && length % parts != 0) {
    return std::string(what) + " = " + std::to_string(parts) + " does not divide " +
           std::string(dimension) + " = " + std::to_string(length);
  }
  return {};
}

SchemeProblem check_grid_divides(int m, int n, int rows, int cols) {
  if (std::string problem = check_divides("m", m, rows, "rows"); !problem.empty()) {
    return {"m", problem};
  }
  if (std::string problem = check_divides("n", n, cols, "cols"); !problem.empty()) {
    return {"n", problem};
  }
  return {};
}

}  // namespace codesim::models
