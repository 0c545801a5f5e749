// The typed description of a coding scheme: one plain struct per kind held in a std::variant, and
// one descriptor per kind that says its fields, their ranges and defaults, and holds its rules
// (validation, summary, factory). Every reader (scenario files, `codesim codes`, `codesim theory`,
// the benchmarks) builds specs through the descriptors, so a scheme's fields, ranges and rules are
// written only in its own file.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace codesim::models {

// Defined in coding_scheme.hpp and linalg/dense_kernels.hpp; named here by the descriptor's rules.
struct SchemeSummary;
class CodingScheme;
struct SchemeContext;

/// W split into m x n blocks, one node per block (m n nodes).
struct UncodedSpec {
  int m = 1;
  int n = 1;
};

/// `copies` copies of the m x n block grid (copies m n nodes).
struct ReplicationSpec {
  int m = 1;
  int n = 1;
  int copies = 2;
};

/// An (nodes, k) real MDS code over k row blocks (forward) and k column blocks (backward).
struct MdsSpec {
  int nodes = 1;
  int k = 1;
};

/// Generalized PolyDot (arXiv 1811.10751) with an m x n split on `nodes` nodes; `mirrored` swaps
/// the roles of the two evaluation exponents.
struct GpdSpec {
  int m = 1;
  int n = 1;
  int nodes = 1;
  bool mirrored = false;
};

/// The CodeNet grid (arXiv 1903.01042): an m x n split coded onto grid_rows x grid_cols nodes
/// without the corner; `seed` keys its random systematic generators.
struct CodenetGridSpec {
  int m = 1;
  int n = 1;
  int grid_rows = 1;
  int grid_cols = 1;
  std::uint64_t seed = 0;
};

/// ABFT (Huang and Abraham 1984): the uncoded m x n block grid, each node's block carrying
/// checksum rows and columns that correct one wrong entry per column at the node.
struct AbftSpec {
  int m = 1;
  int n = 1;
};

/// The hybrid: a CodeNet grid (its fields) whose every node also keeps ABFT checksums of its own
/// block, correcting local errors before the grid decode.
struct AbftCodenetSpec : CodenetGridSpec {};

/// A scheme's description; the alternative's index is its SchemeKind.
using SchemeSpec = std::variant<UncodedSpec, ReplicationSpec, MdsSpec, GpdSpec, CodenetGridSpec,
                                AbftSpec, AbftCodenetSpec>;
enum class SchemeKind { uncoded, replication, mds, gpd, codenet_grid, abft, abft_codenet };

/// What a block-count field splits: W's rows (m), its columns (n), both (MDS's k), or nothing.
enum class SplitOf { nothing, rows, cols, both };

/// One setting of a scheme. Integer fields hold their value; choice fields hold the index of
/// their choice.
struct SchemeField {
  std::string_view key;     ///< scenario key, e.g. "grid_rows"
  std::string_view option;  ///< command-line option without dashes, e.g. "grid-rows"
  std::string_view doc;     ///< one line for help texts
  int min = 1;              ///< integer fields: the range (cross-field limits are checked later)
  int max = 1;
  /// Value when a scenario leaves the field out; nullopt = required. Command lines require every
  /// integer field and default a choice to its first entry.
  std::optional<int> scenario_default;
  /// In a scenario, the field defaults to and is bounded by the cluster's node count.
  bool cluster_nodes = false;
  std::vector<std::string_view> choices;  ///< non-empty: a named choice stored as its index
  /// Which dimensions of every W the value must divide (block counts): what lets a search
  /// (codesim advise) list only the values a network's layers admit.
  SplitOf splits = SplitOf::nothing;
};

/// An integer field in [min, max]; `scenario_default` nullopt = required in a scenario.
SchemeField integer_field(std::string_view key, std::string_view option, std::string_view doc,
                          int min, int max, std::optional<int> scenario_default);
/// An integer field counting nodes: in a scenario it defaults to and is bounded by the cluster.
SchemeField node_count_field(std::string_view key, std::string_view doc);
/// A named choice, defaulting to its first entry.
SchemeField choice_field(std::string_view key, std::string_view doc,
                         std::vector<std::string_view> choices);
/// `field`, splitting `splits` of every W.
SchemeField split_field(SchemeField field, SplitOf splits);

/// The m and n fields of a block split (row and column blocks of W), then `more`.
std::vector<SchemeField> block_split_fields(std::initializer_list<SchemeField> more = {});

/// What is wrong with a spec: the field at fault ("" = the scheme as a whole) and a message that
/// names it ("m = 0 must be in [1, 4096]"). Empty message = valid.
struct SchemeProblem {
  std::string field;
  std::string message;
  bool empty() const { return message.empty(); }
};

/// What a reader needs to know of a scheme kind.
struct SchemeDescriptor {
  SchemeKind kind;
  std::string_view name;  ///< the scenario's `strategy.scheme` and `codes --scheme`
  std::string_view doc;   ///< one line
  std::vector<SchemeField> fields;
  /// The spec whose fields take `values` (one per field, in order).
  SchemeSpec (*make)(std::span<const int> values);
  /// The field values of a spec of this kind, in field order.
  std::vector<int> (*values)(const SchemeSpec& spec);
  // The rules behind validate_scheme, summarize_scheme and make_scheme, given a spec of this kind.
  /// What is wrong beyond the field ranges (checked before) for a rows x cols W (0 = unchecked).
  SchemeProblem (*validate)(const SchemeSpec& spec, int rows, int cols);
  /// The capabilities of a valid spec, element counts per unit of out_length (forward) and
  /// in_length (backward); summarize_scheme sets the scheme's name.
  SchemeSummary (*summarize)(const SchemeSpec& spec, double out_length, double in_length);
  /// The scheme for a valid spec and rows x cols W.
  std::unique_ptr<CodingScheme> (*build)(const SchemeSpec& spec, int rows, int cols,
                                         const SchemeContext& context);
  // What the protocol, its time model and the theory ask of the kind (never its name).
  /// Copies of each block of a repetition scheme, whose every block is a codeword of its own
  /// (uncoded and abft: 1; replication: its copies); null for a code, whose symbols form one
  /// codeword.
  int (*repetition_copies)(const SchemeSpec& spec) = nullptr;
  /// Every node checks its own partials and blocks (ABFT checksums in each of its blocks of an
  /// m x n split): the protocol calls check_partial and repair_block, the theory counts what
  /// the nodes correct.
  bool checks_at_nodes = false;
  /// Each node encodes its own copy of a product's input (GPD: 2 N flops per column more).
  bool encodes_input = false;
  /// Field values of a typical configuration, in field order (the benchmarks start from it).
  std::vector<int> example;
};

/// Every scheme's descriptor, in SchemeKind order.
std::span<const SchemeDescriptor> scheme_descriptors();
const SchemeDescriptor& descriptor_of(SchemeKind kind);
/// The descriptor named `name`; null when there is none.
const SchemeDescriptor* find_scheme(std::string_view name);
/// "uncoded, replication, mds, gpd, codenet_grid, abft or abft_codenet".
std::string scheme_names_list();

SchemeKind kind_of(const SchemeSpec& spec);
const SchemeDescriptor& descriptor_of(const SchemeSpec& spec);
std::string_view scheme_name(const SchemeSpec& spec);
/// The smallest W the scheme accepts (its block grid): m x n, or k x k for MDS.
std::pair<int, int> block_grid(const SchemeSpec& spec);
/// Copies of each block for the repetition schemes (uncoded and ABFT 1, replication r); 0 for
/// codes.
int repetition_copies(const SchemeSpec& spec);
/// True when the scheme's nodes keep ABFT checksums of their blocks and check their own products
/// (abft, abft_codenet).
bool checks_at_nodes(const SchemeSpec& spec);
/// Sets the seed of the scheme's random generators (the CodeNet grids'); others have none.
void set_generator_seed(SchemeSpec& spec, std::uint64_t seed);
/// The seed of the scheme's random generators; nullopt when it has none.
std::optional<std::uint64_t> generator_seed(const SchemeSpec& spec);

SchemeSpec uncoded_spec(int m, int n);
SchemeSpec replication_spec(int m, int n, int copies);
SchemeSpec mds_spec(int k, int nodes);
SchemeSpec gpd_spec(int m, int n, int nodes, bool mirrored = false);
SchemeSpec codenet_grid_spec(int m, int n, int grid_rows, int grid_cols, std::uint64_t seed = 0);
SchemeSpec abft_spec(int m, int n);
SchemeSpec abft_codenet_spec(int m, int n, int grid_rows, int grid_cols, std::uint64_t seed = 0);

/// The descriptor's ranges, field by field; the first field out of range, else an empty problem.
SchemeProblem check_field_ranges(const SchemeDescriptor& descriptor, std::span<const int> values);
/// "what = value does not divide dimension = length" when parts does not divide a positive length.
std::string check_divides(std::string_view what, int parts, int length, std::string_view dimension);
/// m must divide rows and n cols (a length of 0 is not checked); the first that does not.
SchemeProblem check_grid_divides(int m, int n, int rows, int cols);

// Bounds that keep node counts in int range and GPD's exponent bookkeeping small.
constexpr int kMaxSchemeSplit = 4096;
constexpr int kMaxGpdBlocks = 1024;
constexpr int kMaxSchemeNodes = 1'000'000;

}  // namespace codesim::models
